"""When a question asks about, without a model: ``明天``, ``后天下午``, ``周五``, ``下周一``, ``this weekend``,
``the next 3 days``, ``tonight``, ``at 5 pm``, ``11月28日``, ``Nov 28``.

:func:`find_when` finds the phrase as the user wrote it; :func:`resolve` turns a phrase into a :class:`Period`
relative to a local date and time, the place's own, never the machine's. Both are pure functions of their
input, so the router, the tool and its check agree on the day."""

from __future__ import annotations

import calendar
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import Any, Callable
from zoneinfo import ZoneInfo
from tools.lazy_re import lazy_compile
from tools.reading.durations import seconds_of
from tools.reading.numerals import en_digits, en_value, ordinal, to_digits

MAX_DAYS_AHEAD = 15  # Open-Meteo forecasts 16 days: today and 15 more
MAX_DAYS_BACK = 7

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_NUMBERS = {
    "a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "twenty": 20, "thirty": 30,
    "couple of": 2, "few": 3, "several": 3,
}
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 6}
_EN_WEEKDAYS = {d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))}
_EN_WEEKDAYS |= {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
_EN_MONTHS = {m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                              "september", "october", "november", "december"))}
_EN_MONTHS |= {m[:3]: i for m, i in list(_EN_MONTHS.items())} | {"sept": 9}

# Parts of a day, as local hours [start, end).
PARTS = {"morning": (6, 12), "noon": (11, 14), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 24)}
_ZH_PARTS = {"早上": "morning", "早晨": "morning", "上午": "morning", "清晨": "morning", "中午": "noon", "下午": "afternoon",
             "傍晚": "evening", "晚上": "evening", "夜里": "night", "夜间": "night", "晚间": "evening", "今晚": "evening",
             "今夜": "night", "明早": "morning", "明晚": "evening"}

_ZH_NUM = r"[0-9０-９]{1,2}|十[一二三四五六七八九]?|[一二两三四五六七八九]十?[一二三四五六七八九]?|几"
_EN_NUM = r"\d{1,2}|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
# An amount of time ahead or ago: "3", "365", "fifteen and a half", "a couple of", "forty-four"
_EN_AMOUNT = (r"(?:a\s+couple\s+of|a\s+few|\d{1,4}(?:\.\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]+(?:one|two|three|four"
              r"|five|six|seven|eight|nine))?|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
              + r"|an|seventeen|eighteen|nineteen)(?:\s+and\s+a\s+half)?")
_EN_UNIT = r"seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?|months?|years?|yrs?|decades?"
_EN_MONTH = ("january|february|march|april|may|june|july|august|september|october|november|december"
             "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec")
_EN_ORDINAL = (r"(?:twenty|thirty)[\s-]?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|first|second|third"
               r"|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth"
               r"|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth")
EN_ORDINAL = _EN_ORDINAL  # "first" … "thirty-first", for the readers of other tools
_SEASON_WHICH = r"next|this|last|past|coming|in\s+the|during\s+the|over\s+the|for\s+the|the|in|during"
_EN_HOUR_WORD = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"

# One alternation, each alternative named for what it is; the scanner joins neighbouring pieces into one phrase
# ("明天" + "下午", "Friday" + "at 5 pm").
_PIECES = lazy_compile(
    r"(?P<zh_span>(?:未来|接下来|最近|近|这|今后|之后|往后|后面)(?P<zh_span_n>" + _ZH_NUM + r")(?:天|日)"
    r"|(?:未来|接下来|今后)(?P<zh_span_week>一周|一个星期|一星期|七天|两周|半个月))"
    r"|(?P<zh_after>(?P<zh_after_n>" + _ZH_NUM + r")(?P<zh_after_unit>天|日|周|个星期|星期|个礼拜|礼拜|个月|年)(?:以后|之后|后))"
    r"|(?P<zh_weekend>(?P<zh_weekend_next>下(?:个)?)?(?:这个|这|本)?(?:周末|礼拜天和礼拜六))"
    r"|(?P<zh_weekday>(?P<zh_wd_week>下下(?:个)?|下(?:个)?|这个|这|本|上上(?:个)?|上(?:个)?)?(?:周|星期|礼拜)(?P<zh_wd>[一二三四五六日]|天(?!气)))"
    r"|(?P<zh_week>(?P<zh_week_which>下|这|本)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日末]|天(?!气)))"
    r"|(?P<zh_date>(?:(?P<zh_year>\d{4})年)?(?P<zh_month>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?P<zh_day>\d{1,2}|" + _ZH_NUM + r")[日号])"
    r"|(?P<zh_mday>(?P<zh_mday_which>下个?月|本月|这个?月|上个?月)(?P<zh_mday_n>" + _ZH_NUM + r")[号日])"
    r"|(?P<zh_day_only>(?<![\d月])(?P<zh_day_n>\d{1,2})[号日](?![子本]))"
    r"|(?P<zh_rel>大后天|后天|明天|明日|明儿|今天|今日|今儿|昨天|昨日|前天|今晚|今夜|今早|明早|明晚)"
    r"|(?P<zh_part>早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|夜间|晚间)"
    r"|(?P<zh_hour>(?P<zh_hour_n>[0-9]{1,2}|十[一二]?|[一二两三四五六七八九])(?:点|時|时)(?:钟)?(?P<zh_half>半)?)"
    r"|(?P<iso>(?P<iso_y>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2}))"
    r"|(?P<en>\b(?:"
    r"(?P<en_span>(?:the\s+)?(?:next|coming|following)\s+(?P<en_span_n>" + _EN_NUM + r")\s+(?P<en_span_unit>days?|weeks?)"
    r"|(?:the\s+)?(?:next|coming)\s+(?P<en_span_week>week|fortnight|two\s+weeks)"
    # a forecast said by its length: "the 10-day forecast", "the week's weather", "one week forecast", "weekly outlook"
    r"|(?:(?:the|a|one|1)[\s-]+)?(?:(?P<en_span_len>" + _EN_NUM + r")[\s-]*days?|(?P<en_span_len_week>weekly|weeks?))"
    r"(?:'?s)?\s+(?:weather|forecasts?|outlook|predictions?)\b)"
    r"|(?P<en_after>(?:in\s+(?:about\s+|another\s+)?(?P<en_after_n>" + _EN_AMOUNT + r")\s+(?P<en_after_unit>" + _EN_UNIT
    + r")(?:\s+and\s+a\s+half)?(?:'?s?\s*time|\s+from\s+(?:now|today))?"
    r"|(?P<en_from_n>" + _EN_AMOUNT + r")\s+(?P<en_from_unit>" + _EN_UNIT + r")(?:\s+and\s+a\s+half)?"
    r"\s+(?:from\s+(?:now|today)|later|hence|(?P<en_ago>ago))))"
    r"|(?P<en_cal>(?P<en_cal_which>this|next|last|past|coming|the\s+coming|the\s+following|the\s+past)\s+"
    r"(?P<en_cal_unit>month|year|decade))"
    r"|(?P<en_weekend>(?:(?:the\s+)?rest\s+of\s+)?(?P<en_weekend_next>next\s+)?(?:this\s+|the\s+|over\s+the\s+)?weekend)"
    r"|(?P<en_weekday>(?<!good\s)(?<!black\s)(?<!holy\s)(?<!ash\s)(?<!cyber\s)(?:(?P<en_wd_week>next|this|coming|last)\s+)?(?P<en_wd>monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)s?)"
    r"|(?P<en_week>(?P<en_week_which>this|the|last|past|(?:the\s+)?rest\s+of\s+(?:the|this))\s+week)"
    r"|(?P<en_date>(?P<en_month>" + _EN_MONTH + r")\.?\s+(?:the\s+)?(?P<en_day>\d{1,2}(?:st|nd|rd|th)?|" + _EN_ORDINAL + r")"
    r"(?:,?\s+(?P<en_year>\d{4}))?"
    r"|(?:the\s+)?(?P<en_day2>\d{1,2}|" + _EN_ORDINAL + r")(?:(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<en_month2>"
    + _EN_MONTH.replace("|may", "") + r")\.?(?:,?\s+(?P<en_year2>\d{4}))?"
    r"|(?:(?:st|nd|rd|th)?\s+(?:of\s+)?|\s+of\s+)(?P<en_may>may))\b)"  # "22nd may", "22 of may": May, not "may be"
    r"|(?P<en_num>(?P<en_num_m>\d{1,2})/(?P<en_num_d>\d{1,2})(?:/(?P<en_num_y>\d{4}|\d{2}))?(?![/\d]))"
    r"|(?P<en_month_only>(?P<en_mo_which>next|this|last|past|coming|in|during|for|until|till|through|of|early|late|mid)"
    r"[\s-]+(?:the\s+month\s+of\s+)?(?P<en_mo>" + _EN_MONTH + r")\b\.?(?!\.?\s*(?:the\s+)?(?:\d|(?:"
    + _EN_ORDINAL + r")\b)))"
    r"|(?P<en_season>(?:(?P<en_se_which>" + _SEASON_WHICH + r")\s+)?(?P<en_se>winter|summer|autumn)(?:time)?"
    r"|(?P<en_se_which2>" + _SEASON_WHICH.replace("|the|", "|") + r")\s+(?P<en_se2>spring|fall)(?:time)?|(?P<en_se3>spring)time)"
    r"|(?P<en_year_only>(?:in|during|for|of|the\s+year)\s+(?P<en_year_n>(?:19|20)\d\d)(?![/:\d-]))"
    r"|(?P<en_mday>(?:on\s+)?(?:the\s+)?(?:(?P<en_mday_word>" + _EN_ORDINAL + r")|(?P<en_mday_n>\d{1,2})(?:st|nd|rd|th)?)"
    r"\s+(?:of\s+)?(?P<en_mday_which>this|next|last|the\s+coming|the\s+following|the\s+next)\s+month)"
    r"|(?P<en_dom>(?:on\s+the\s+(?P<en_dom_word>" + _EN_ORDINAL + r")|(?:on\s+)?the\s+(?P<en_dom_n>\d{1,2})(?:st|nd|rd|th))"
    r"(?!\s+(?:of\s+)?(?:" + _EN_MONTH + r")\b))"
    r"|(?P<en_rel>the\s+day\s+after\s+tomorrow|(?:the\s+)?rest\s+of\s+(?:the\s+day|today)|tomorrow|today|tonight|yesterday|tmrw"
    r"|tmr|tommorow)(?:s\b)?"
    r"|(?P<en_part>(?:this\s+|in\s+the\s+)?(?P<en_part_name>morning|afternoon|evening|night))"
    r"|(?P<en_hour>(?:at\s+|around\s+|by\s+)?(?P<en_hour_n>\d{1,2}|" + _EN_HOUR_WORD + r")(?::(?P<en_min>\d\d))?\s*"
    r"(?P<en_ampm>a\.?m\.?|p\.?m\.?)"
    r"|(?:at\s+|around\s+|by\s+)(?P<en_hour24>\d{1,2}):(?P<en_min24>\d\d)(?::\d\d)?"
    r"|(?:at\s+|around\s+|by\s+)?(?P<en_oclock>\d{1,2}|" + _EN_HOUR_WORD + r")\s*o'?\s*clock|noon|midnight)"
    r")\b)",
    re.IGNORECASE)
# What may stand between two pieces of one phrase: "明天的下午", "Friday at 5 pm", "tomorrow in the evening".
_GLUE = lazy_compile(r"^(?:\s|\x00|的|,|，|on|at|in|the|around|about)*$", re.IGNORECASE)  # \x00: a place set aside


def local_zone(fresh: bool = False) -> tzinfo:
    """The user's time zone as a zone with its rules (``ZoneInfo``), so that a wall time on another day keeps its
    own UTC offset: ``TZ`` when it names a zone, else the system's (tzlocal; ``fresh``: read again, for a daemon that
    runs across a change of zone), else the fixed offset of now."""
    name = os.environ.get("TZ", "").lstrip(":")
    if name and "/" in name or name in ("UTC", "GMT"):
        try:
            return ZoneInfo(name)
        except (ValueError, OSError):  # a POSIX rule string, or no such zone: the system's
            pass
    try:
        import tzlocal

        if fresh:
            tzlocal.reload_localzone()
        return tzlocal.get_localzone()
    except Exception:  # no zone database, an unreadable /etc/localtime: the offset of now, as before
        return datetime.now().astimezone().tzinfo or timezone.utc


def current_time(clock: str | None) -> datetime:
    """The current time (aware, UTC), or the configured clock (ISO 8601; tests and reproducible runs)."""
    if clock:
        t = datetime.fromisoformat(clock.replace("Z", "+00:00"))
        return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Period:
    """Local dates ``start``..``end`` (inclusive) and, for a part of a day, local hours [``hours[0]``, ``hours[1]``)."""

    start: date
    end: date
    hours: tuple[int, int] | None = None

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def dates(self) -> list[date]:
        return [self.start + timedelta(days=i) for i in range(self.days)]


def _zh_number(text: str) -> int | None:
    text = text.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if text.isdigit():
        return int(text)
    if text == "几":
        return 3
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS.get(text)


def _en_number(text: str) -> int | None:
    text = " ".join(text.casefold().split())
    return int(text) if text.isdigit() else _EN_NUMBERS.get(text)


def _pieces(text: str) -> list[re.Match[str]]:
    return [m for m in _PIECES.finditer(text) if m.group(0).strip()]


def find_when(text: str) -> str | None:
    """The time phrase of ``text`` as written (``明天下午``, ``this weekend``), or ``None`` when it names no time
    other than now. Neighbouring pieces form one phrase; the first phrase counts."""
    pieces = _pieces(text)
    if not pieces:
        return None
    start, end = pieces[0].start(), pieces[0].end()
    for m in pieces[1:]:
        if not _GLUE.match(text[end:m.start()]):
            break
        end = m.end()
    return text[start:end].strip()


# What says a time this reader does not read, once what it reads is set aside: a year, a date in figures or an
# ordinal it cannot place ("12/5/2032": May or December?, "the 2nd half"), a month or a season said alone
# ("december", "spring"), weeks, months or years in words it does not read ("a few weeks", "two years back").
_UNREAD_FIGURES = lazy_compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}\s*/\s*\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)\b"
                               r"|\b(?:good|black|holy|ash|cyber)\s+friday|\bnew\s+year'?s|\b\w+'s\s+(?:birth)?day\b"
                               r"|(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*月(?![亮球光饼])",  # 3月 said alone (3月14日 is read)
                               re.IGNORECASE)
# The same in Chinese: a year, a season, a month, a span of months or years ("明年春天", "下个月", "三个月后")
_ZH_UNREAD = ("明年", "今年", "去年", "前年", "后年", "年后", "年前", "春天", "夏天", "秋天", "冬天", "春季", "夏季", "秋季",
              "冬季", "个月", "下月", "上月", "本月", "月底", "月初", "周后", "星期后", "礼拜后")
_UNREAD_WORDS = frozenset("""
january february march april june july august september october november december jan feb mar apr jun jul aug sep
sept oct nov dec winter summer autumn springtime wintertime summertime week weeks month months year years decade
decades ago last christmas xmas easter thanksgiving halloween hanukkah ramadan diwali passover valentine birthday
holiday holidays
""".split())


def unread(text: str) -> bool:
    """Whether ``text`` says a time that :func:`find_when` and :func:`resolve` do not read (see above): a forecast
    of today would answer another question."""
    rest = text
    for m in reversed(_pieces(text)):
        if not (m.group("en_num") and _numeric(m.groupdict()) is None):  # "12/5/2032": which is the month?
            rest = rest[:m.start()] + " " + rest[m.end():]
    if _UNREAD_FIGURES.search(rest) or any(w in rest for w in _ZH_UNREAD):
        return True
    return not _UNREAD_WORDS.isdisjoint("".join(c if c.isalpha() else " " for c in rest.casefold()).split())


def resolve(phrase: str, now: datetime) -> Period | None:
    """The period ``phrase`` means when it is ``now`` (local time of the place). ``None``: not a time phrase."""
    today = now.date()
    days: Period | None = None
    hours: tuple[int, int] | None = None
    explicit_hour = either = part_said = False
    weekday_said: int | None = None
    pieces = _pieces(phrase)
    if not pieces:
        return None
    for m in pieces:
        g = m.groupdict()
        if g["zh_part"] or g["en_part"]:
            said_part = PARTS[_ZH_PARTS[g["zh_part"]] if g["zh_part"] else g["en_part_name"].casefold()]
            part_said, either = True, False
            if explicit_hour and hours is not None:  # "seven o'clock this evening": the hour said, in that part
                if said_part[0] >= 12 and hours[0] < 12:
                    hours = (hours[0] + 12, hours[0] + 13)
            else:
                hours = said_part
        elif g["zh_hour"] or g["en_hour"]:
            explicit_hour = True
            h = _hour(g, hours)
            if h is None:
                return None
            hours = (h, h + 1)
            either = bool(g["en_oclock"]) and 1 <= h <= 11 and not part_said  # "at five o'clock": 5:00 or 17:00
        elif g["en_after"]:
            read = _ahead(g, now)
            if read is None:
                return None
            days, part = read
            hours = part or hours
            explicit_hour = explicit_hour or part is not None
        else:
            for groups, reader in _DAY_READERS:
                if any(g[name] for name in groups):
                    read = reader(g, today)
                    if read is None:
                        return None
                    days, read = _with_its_weekday(days, read, reader, weekday_said)
                    days, part = _within(days, read[0]), read[1]
                    weekday_said = read[0].start.weekday() if reader is _weekday else weekday_said
                    if days is None:
                        return None  # two days that are not one ("tomorrow today", "monday friday"): no one period
                    hours = part or hours
                    break
    if days is None:
        if hours is None:
            return None
        # "下午" / "at 5 pm" without a day: today, or tomorrow when that hour has passed ("at five o'clock", said at
        # ten: this afternoon's)
        if either and hours[0] < now.hour < hours[0] + 12:
            hours = (hours[0] + 12, hours[0] + 13)
        d = today + timedelta(days=1) if explicit_hour and hours[0] < now.hour else today
        days = Period(d, d)
    if hours is not None and days.days == 1:
        return Period(days.start, days.end, hours)
    return days


def _with_its_weekday(days: Period | None, read: tuple[Period, Any], reader: Callable[..., Read],
                      weekday_said: int | None) -> tuple[Period | None, tuple[Period, Any]]:
    """A date and the weekday said with it, before or after ("friday, december 4", "december 4, a friday"): the
    date, when the weekday is its own."""
    if reader is _weekday and days is not None and days.days == 1 and read[0].start.weekday() == days.start.weekday():
        return days, (days, read[1])
    if reader is _date and weekday_said is not None and read[0].start.weekday() == weekday_said:
        return None, read
    return days, read


def _within(before: Period | None, said: Period) -> Period | None:
    """The days two day pieces of one phrase name together: the narrower where one lies within the other ("this
    week, on friday"), the same day said twice; ``None`` for two days that are not one."""
    if before is None or before == said:
        return said
    if before.start <= said.start and said.end <= before.end:
        return said
    if said.start <= before.start and before.end <= said.end:
        return before
    return None


# Each kind of day a phrase names: (groups, read), read giving the days and the part of the day it names too
# ("今晚": today, evening), or None when the words name no day that exists.
Read = tuple[Period, tuple[int, int] | None] | None


def _one(d: date, part: tuple[int, int] | None = None) -> Read:
    return Period(d, d), part


def _span(g: dict[str, Any], today: date) -> Read:
    """"未来三天", "next 5 days", "the next week", "this fortnight", "the 10-day forecast", "the week's weather": from
    today; "next week": the calendar week."""
    said_n = g["zh_span_n"] or g["en_span_n"] or g["en_span_len"]
    n = None if not said_n else _zh_number(said_n) if g["zh_span_n"] else _en_number(said_n)
    week = g["zh_span_week"] or g["en_span_week"] or ("week" if g["en_span_len_week"] else "")
    if week.casefold() == "week" and g["en_span"].casefold().startswith("next"):  # "next week": Monday to Sunday after
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)  # this one ("the next week": 7 days)
        return Period(monday, monday + timedelta(days=6)), None
    if n is not None and (g["en_span_unit"] or "").casefold().startswith("week"):
        n *= 7  # "the next 2 weeks"
    if n is None:
        n = 14 if week in ("两周", "半个月", "fortnight") or "two" in week else 7
    return Period(today, today + timedelta(days=max(n, 1) - 1)), None


def _after(g: dict[str, Any], today: date) -> Read:
    """"三天后", "两周后", "三个月后", "两年后": that day (the English spans, with their hours, are read by
    :func:`_ahead`)."""
    n = _zh_number(g["zh_after_n"]) if g["zh_after_n"] else None
    if n is None:
        return None
    unit = g["zh_after_unit"]
    if unit in ("个月", "年"):
        return _one(add_months(today, n * (12 if unit == "年" else 1)))
    return _one(today + timedelta(days=n * (1 if unit in ("天", "日") else 7)))


_UNIT_DAYS = {"day": 1, "week": 7, "wk": 7, "fortnight": 14}
_UNIT_MONTHS = {"month": 1, "year": 12, "yr": 12, "decade": 120}
_UNIT_SECONDS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600}


def _amount(words: str) -> float | None:
    """"3", "15 and a half", "a couple of", "an", or a number in words ("forty-four", "fifteen and a half": the
    numerals' own reader): how many."""
    said = " ".join(words.casefold().split())
    counted = _EN_NUMBERS.get(said.removeprefix("a ") if said in ("a couple of", "a few") else said)
    if counted is not None:
        return float(counted)
    whole = said.removesuffix(" and a half")
    half = 0.5 if whole != said else 0.0
    if whole == "an" or whole.replace(".", "", 1).isdigit():
        return (1 if whole == "an" else float(whole)) + half
    value = en_value(said)
    return float(value) if value else None


def _ahead(g: dict[str, Any], now: datetime) -> Read:
    """"in 3 weeks", "seven years from now", "3 years and a half from now", "in 8 hours", "two days ago": the day
    (and for hours, the hour) that far from now."""
    said, unit = (g["en_after_n"], g["en_after_unit"]) if g["en_after_n"] else (g["en_from_n"], g["en_from_unit"])
    n = _amount(said)
    if n is None:
        return None
    if "half" in g["en_after"] and "half" not in said:  # "seven weeks and a half"
        n += 0.5
    n = -n if g["en_ago"] else n
    unit = unit.casefold().rstrip("s")
    if unit in _UNIT_SECONDS:
        t = now + timedelta(seconds=n * _UNIT_SECONDS[unit])
        if abs(n * _UNIT_SECONDS[unit]) < 3600:
            return _one(t.date())  # "in 1 minute": now
        return _one(t.date(), (t.hour, t.hour + 1))
    if unit in _UNIT_DAYS:
        return _one(now.date() + timedelta(days=int(n * _UNIT_DAYS[unit])))
    months = n * _UNIT_MONTHS[unit]
    whole = int(months)
    d = add_months(now.date(), whole)
    return _one(d + timedelta(days=int((months - whole) * 30)))


_AHEAD = (("in ", "", 1), ("", " from now", 1), ("", " later", 1), ("", " hence", 1), ("", " ago", -1), ("过", "", 1),
          ("", "以后", 1), ("", "之后", 1), ("", "后", 1), ("", "以前", -1), ("", "之前", -1), ("", "前", -1))
_DAYS_SAID = ("day", "week", "month", "year", "天", "日", "周", "星期", "礼拜", "月", "年")


def span_from_now(phrase: str) -> float | None:
    """The seconds from now a span said whole in hours, minutes or seconds names, signed ("in 45 minutes": 2700,
    "3 hours ago": -10800, "2 hours from now", "in an hour and a half", "两个小时后", "30分钟前", "半小时后",
    "过一个半小时"): the span as the durations' reader reads it (:func:`tools.reading.durations.seconds_of`), its
    direction said once; ``None`` for anything else (a day's span, a time of day, more words)."""
    said = " ".join(phrase.split()).strip(" ?？。.!！").casefold()
    zh = any("\u4e00" <= c <= "\u9fff" for c in said)
    said = to_digits(said.replace("两", "二")) if zh else en_digits(said)
    for before, after, sign in _AHEAD:
        if said.startswith(before) and said.endswith(after) and len(said) > len(before) + len(after):
            span = said[len(before):len(said) - len(after)].strip().removeprefix("过")  # "过10分钟后"
            if any(word in span for word in _DAYS_SAID):
                return None  # "in 3 days", "两天后": a day, which the dates' reader reads
            if (seconds := seconds_of(span)) is not None:
                return sign * seconds
    return None


def add_months(d: date, months: int) -> date:
    """``d`` that many calendar months on (or back): 31 January and one month, 28 (or 29) February; past the
    calendar's ends, its first or last day."""
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    if not 1 <= year <= 9999:
        return date.max if months > 0 else date.min
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _calendar(g: dict[str, Any], today: date) -> Read:
    """"this month", "next year", "last month", "the coming decade": the whole of it (what is left, for this one)."""
    which = " ".join(g["en_cal_which"].casefold().split()).removeprefix("the ")
    step = {"this": 0, "next": 1, "coming": 1, "following": 1, "last": -1, "past": -1}[which]
    unit = g["en_cal_unit"].casefold()
    if unit == "month":
        first = add_months(today.replace(day=1), step)
        return Period(max(first, today) if step == 0 else first, _month_end(first.year, first.month)), None
    years = 10 if unit == "decade" else 1
    start = today.year + step * years
    first, last = date(start, 1, 1), date(start + years - 1, 12, 31)
    return Period(today if step == 0 else first, last), None


def _month(g: dict[str, Any], today: date) -> Read:
    """"in july", "next april", "last may", "during december": that month, the next one ("this"/"in"/"during": the
    one now or next; "next": the one after this month; "last"/"past": the one before)."""
    which = g["en_mo_which"].casefold()
    month = _EN_MONTHS[g["en_mo"].casefold()]
    if which in ("last", "past"):
        year = today.year if month < today.month else today.year - 1
    elif which == "next":
        year = today.year if month > today.month else today.year + 1
    else:
        year = today.year if month >= today.month else today.year + 1
    first = date(year, month, 1)
    return Period(today if first <= today <= _month_end(year, month) else first, _month_end(year, month)), None


_SEASONS = {"winter": 12, "spring": 3, "summer": 6, "autumn": 9, "fall": 9}  # the first month, meteorological (north)


def _season(g: dict[str, Any], today: date) -> Read:
    """"this winter", "next summer", "in the fall": its three months (the northern hemisphere's), the one now or
    next; "last": the one before."""
    name = (g["en_se"] or g["en_se2"] or g["en_se3"]).casefold()
    which = (g["en_se_which"] or g["en_se_which2"] or "").casefold().partition(" ")[0]
    first_month = _SEASONS[name]
    start = date(today.year - (first_month == 12 and today.month < 3), first_month, 1)
    if add_months(start, 3) <= today:  # this year's is over: the next
        start = add_months(start, 12)
    if which in ("last", "past"):
        start = add_months(start, -12)
    elif which == "next" and start <= today:
        start = add_months(start, 12)
    end = add_months(start, 3) - timedelta(days=1)
    return Period(max(start, today) if start <= today <= end else start, end), None


def _year(g: dict[str, Any], today: date) -> Read:
    """"in 2031", "the year 2024": that year (what is left of it, for this one)."""
    year = int(g["en_year_n"])
    return Period(max(date(year, 1, 1), today) if year == today.year else date(year, 1, 1), date(year, 12, 31)), None


def _weekend(g: dict[str, Any], today: date) -> Read:
    """"周末", "next weekend": Saturday and Sunday (from today when it is one of them)."""
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 if today.weekday() != 6 else -1)
    if g["zh_weekend_next"] or g["en_weekend_next"]:
        saturday = today + timedelta(days=7 - today.weekday() + 5)
    return Period(max(saturday, today), saturday + timedelta(days=1)), None


def _weekday(g: dict[str, Any], today: date) -> Read:
    """"下周五", "last Monday", "周五", "this Friday" (the next one, today included; "这周二": this week's)."""
    wd = _ZH_WEEKDAYS[g["zh_wd"]] if g["zh_wd"] else _EN_WEEKDAYS[g["en_wd"].casefold()]
    which = (g["zh_wd_week"] or g["en_wd_week"] or "").casefold()
    monday = today - timedelta(days=today.weekday())
    if which.startswith("下") or which == "next":  # 下下周五: of the week after next
        return _one(monday + timedelta(days=(14 if which.startswith("下下") else 7) + wd))
    if which.startswith("上") or which == "last":
        return _one(monday + timedelta(days=wd - (14 if which.startswith("上上") else 7)))
    if which in ("这", "这个", "本"):  # 这周二: this week's, passed or not
        return _one(monday + timedelta(days=wd))
    return _one(today + timedelta(days=(wd - today.weekday()) % 7))


def _week(g: dict[str, Any], today: date) -> Read:
    """"下周": next Monday to Sunday; "这周", "this week": today to Sunday; "last week": Monday to Sunday before."""
    monday = today - timedelta(days=today.weekday())
    if (g["zh_week_which"] or "") == "下":
        return Period(monday + timedelta(days=7), monday + timedelta(days=13)), None
    if (g["en_week_which"] or "").casefold() in ("last", "past"):
        return Period(monday - timedelta(days=7), monday - timedelta(days=1)), None
    return Period(today, monday + timedelta(days=6)), None


def _date(g: dict[str, Any], today: date) -> Read:
    """"2026-03-14", "3月14日", "March 14", "28号": a date without a year is the next one (within MAX_DAYS_BACK)."""
    y: int | None
    if g["iso"]:
        y, mo, dd = int(g["iso_y"]), int(g["iso_m"]), int(g["iso_d"])
    elif g["zh_date"]:
        y = int(g["zh_year"]) if g["zh_year"] else None
        mo, dd = _zh_number(g["zh_month"]) or 0, _zh_number(g["zh_day"]) or 0
    elif g["en_date"]:
        y = int(g["en_year"] or g["en_year2"]) if g["en_year"] or g["en_year2"] else None  # "dec. 8, 2027"
        mo = _EN_MONTHS[(g["en_month"] or g["en_month2"] or g["en_may"]).casefold()]
        said = g["en_day"] or g["en_day2"]
        dd = int(said) if said.isdigit() else ordinal(said) or 0  # "4th", "twenty-seventh"
    elif g["en_num"]:
        if (read := _numeric(g)) is None:
            return None
        y, mo, dd = read
    else:
        said = g["zh_day_n"] or g["en_dom_n"] or g["en_dom_word"]
        y, mo, dd = None, today.month, int(said) if said.isdigit() else ordinal(said) or 0
    try:
        d = date(y or today.year, mo, dd)
        if y is None and d < today - timedelta(days=MAX_DAYS_BACK):
            # "28号" after the 28th: next month; "1月3日" in November: next year
            d = (date(today.year + 1, mo, dd) if g["zh_date"] or g["en_date"] or g["en_num"] else _next_month(today, dd))
    except ValueError:
        return None
    return _one(d)


_MONTH_STEP = {"下": 1, "next": 1, "the coming": 1, "the following": 1, "the next": 1, "本": 0, "这": 0, "this": 0,
               "上": -1, "last": -1}


def _month_day(g: dict[str, Any], today: date) -> Read:
    """"the 1st of next month", "on the fifteenth of this month", "下个月1号", "本月十五号": that day of that month
    (a day the month does not have, "the 31st of next month" in November: none)."""
    which = " ".join((g["en_mday_which"] or g["zh_mday_which"]).casefold().split())
    step = _MONTH_STEP[which if which in _MONTH_STEP else which[0]]
    said = g["en_mday_n"] or g["en_mday_word"] or g["zh_mday_n"]
    dd = int(said) if said.isdigit() else (ordinal(said) if g["en_mday"] else _zh_number(said)) or 0
    y, m = divmod(today.month - 1 + step, 12)
    try:
        return _one(date(today.year + y, m + 1, dd))
    except ValueError:
        return None


def _numeric(g: dict[str, Any]) -> tuple[int | None, int, int] | None:
    """"4/20/2038", "12/14": month first, as the English readers who write it so mean; ``None`` when the day could
    be the month too ("12/5/2032": 5 December or 12 May), which is left unread."""
    m, d = int(g["en_num_m"]), int(g["en_num_d"])
    if d <= 12 and m != d:
        return None
    y = g["en_num_y"]
    return (None if y is None else int(y) + (2000 if len(y) == 2 else 0)), m, d


_OFFSETS = {"大后天": 3, "后天": 2, "明天": 1, "明日": 1, "明儿": 1, "明早": 1, "明晚": 1, "今天": 0, "今日": 0, "今儿": 0,
            "今晚": 0, "今夜": 0, "今早": 0, "昨天": -1, "昨日": -1, "前天": -2, "the day after tomorrow": 2,
            "tomorrow": 1, "tmrw": 1, "tmr": 1, "tommorow": 1, "today": 0, "tonight": 0, "yesterday": -1,
            "the rest of the day": 0, "rest of the day": 0, "the rest of today": 0, "rest of today": 0}


def _relative(g: dict[str, Any], today: date) -> Read:
    """"明天", "今晚", "tomorrow", "tonight": a day from today, and the part of it the word names."""
    word = " ".join((g["zh_rel"] or g["en_rel"]).casefold().split())
    part = PARTS[_ZH_PARTS[word]] if word in _ZH_PARTS else PARTS["evening"] if word == "tonight" else None
    return _one(today + timedelta(days=_OFFSETS[word]), part)


_DAY_READERS: tuple[tuple[tuple[str, ...], Callable[[dict[str, Any], date], Read]], ...] = (
    (("zh_span", "en_span"), _span), (("zh_after", "en_after"), _after), (("zh_weekend", "en_weekend"), _weekend),
    (("zh_weekday", "en_weekday"), _weekday), (("zh_week", "en_week"), _week),
    (("zh_date", "en_date", "iso", "zh_day_only", "en_num", "en_dom"), _date), (("zh_mday", "en_mday"), _month_day),
    (("zh_rel", "en_rel"), _relative),
    (("en_cal",), _calendar), (("en_month_only",), _month), (("en_season",), _season), (("en_year_only",), _year),
)


def _hour(g: dict[str, Any], part: tuple[int, int] | None) -> int | None:
    """The hour "5点", "下午5点" (after a part of the day past noon: 17), "5 pm", "17:00", "noon" names; None
    past 23."""
    if g["zh_hour"]:
        h = _zh_number(g["zh_hour_n"]) or 0
        if part and part[0] >= 12 and h < 12:  # 下午5点, 晚上8点
            h += 12
    else:
        word = g["en_hour"].casefold()
        if word == "noon":
            h = 12
        elif word == "midnight":
            h = 0
        elif g["en_hour24"]:
            h = int(g["en_hour24"])
        elif g["en_oclock"]:  # "at 15 o'clock", "seven o'clock" (after a part of the day past noon: 19)
            h = _en_number(g["en_oclock"]) or 0
            if part and part[0] >= 12 and h < 12:
                h += 12
        else:
            h = (_en_number(g["en_hour_n"]) or 0) % 12 + (12 if g["en_ampm"].casefold().startswith("p") else 0)
    return h if 0 <= h <= 23 else None


def _next_month(today: date, day: int) -> date:
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    return date(year, month, day)


def out_of_range(period: Period, today: date) -> str | None:
    """Why ``period`` cannot be forecast from ``today`` (``"ahead"``/``"past"``), or ``None``."""
    if period.end > today + timedelta(days=MAX_DAYS_AHEAD):
        return "ahead"
    if period.start < today - timedelta(days=MAX_DAYS_BACK):
        return "past"
    return None


ZH_WEEKDAY_NAMES = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
EN_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def day_name(d: date, today: date, language: str) -> str:
    """``明天(11月23日 周一)`` / ``tomorrow (Mon 23 Nov)``: the day as a person says it, with its date."""
    offset = (d - today).days
    if language == "zh":
        word = {-1: "昨天", 0: "今天", 1: "明天", 2: "后天"}.get(offset, "")
        label = f"{d.month}月{d.day}日 {ZH_WEEKDAY_NAMES[d.weekday()]}"
        return f"{word}({label})" if word else label
    word = {-1: "yesterday", 0: "today", 1: "tomorrow"}.get(offset, "")
    label = f"{EN_WEEKDAY_NAMES[d.weekday()][:3]} {d.day} {d.strftime('%b')}"
    return f"{word} ({label})" if word else label
