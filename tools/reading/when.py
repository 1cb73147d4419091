"""When a question asks about, without a model: ``明天``, ``后天下午``, ``周五``, ``下周一``, ``this weekend``,
``the next 3 days``, ``tonight``, ``at 5 pm``, ``11月28日``, ``Nov 28``.

:func:`find_when` finds the phrase as the user wrote it; :func:`resolve` turns a phrase into a :class:`Period`
relative to a local date and time, the place's own, never the machine's. Both are pure functions of their
input, so the router, the tool and its check agree on the day."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import Any, Callable
from zoneinfo import ZoneInfo
from tools.lazy_re import lazy_compile

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

# One alternation, each alternative named for what it is; the scanner joins neighbouring pieces into one phrase
# ("明天" + "下午", "Friday" + "at 5 pm").
_PIECES = lazy_compile(
    r"(?P<zh_span>(?:未来|接下来|最近|近|这|今后|之后|往后|后面)(?P<zh_span_n>" + _ZH_NUM + r")(?:天|日)"
    r"|(?:未来|接下来|今后)(?P<zh_span_week>一周|一个星期|一星期|七天|两周|半个月))"
    r"|(?P<zh_after>(?P<zh_after_n>" + _ZH_NUM + r")(?:天|日)(?:以后|之后|后))"
    r"|(?P<zh_weekend>(?P<zh_weekend_next>下(?:个)?)?(?:这个|这|本)?(?:周末|礼拜天和礼拜六))"
    r"|(?P<zh_weekday>(?P<zh_wd_week>下(?:个)?|这个|这|本|上(?:个)?)?(?:周|星期|礼拜)(?P<zh_wd>[一二三四五六日天]))"
    r"|(?P<zh_week>(?P<zh_week_which>下|这|本)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末]))"
    r"|(?P<zh_date>(?:(?P<zh_year>\d{4})年)?(?P<zh_month>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?P<zh_day>\d{1,2}|" + _ZH_NUM + r")[日号])"
    r"|(?P<zh_day_only>(?<![\d月])(?P<zh_day_n>\d{1,2})[号日](?![子本]))"
    r"|(?P<zh_rel>大后天|后天|明天|明日|明儿|今天|今日|今儿|昨天|昨日|前天|今晚|今夜|今早|明早|明晚)"
    r"|(?P<zh_part>早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|夜间|晚间)"
    r"|(?P<zh_hour>(?P<zh_hour_n>[0-9]{1,2}|十[一二]?|[一二两三四五六七八九])(?:点|時|时)(?:钟)?(?P<zh_half>半)?)"
    r"|(?P<iso>(?P<iso_y>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2}))"
    r"|(?P<en>\b(?:"
    r"(?P<en_span>(?:the\s+)?(?:next|coming|following)\s+(?P<en_span_n>" + _EN_NUM + r")\s+days?"
    r"|(?:the\s+)?(?:next|coming)\s+(?P<en_span_week>week|fortnight|two\s+weeks))"
    r"|(?P<en_after>in\s+(?P<en_after_n>" + _EN_NUM + r")\s+days?(?:'?\s*time)?)"
    r"|(?P<en_weekend>(?P<en_weekend_next>next\s+)?(?:this\s+|the\s+|over\s+the\s+)?weekend)"
    r"|(?P<en_weekday>(?:(?P<en_wd_week>next|this|coming|last)\s+)?(?P<en_wd>monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)s?)"
    r"|(?P<en_week>(?:this|the)\s+week)"
    r"|(?P<en_date>(?P<en_month>january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?\s+(?P<en_day>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<en_year>\d{4}))?"
    r"|(?P<en_day2>\d{1,2})(?:(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<en_month2>january|february|march|april|june|july|august"
    r"|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)(?:,?\s+(?P<en_year2>\d{4}))?"
    r"|(?:(?:st|nd|rd|th)\s+(?:of\s+)?|\s+of\s+)(?P<en_may>may))\b)"  # "22nd may", "22 of may": May, not "may be"
    r"|(?P<en_rel>the\s+day\s+after\s+tomorrow|tomorrow|today|tonight|yesterday|tmrw|tmr)"
    r"|(?P<en_part>(?:this\s+|in\s+the\s+)?(?P<en_part_name>morning|afternoon|evening|night))"
    r"|(?P<en_hour>(?:at\s+|around\s+|by\s+)?(?P<en_hour_n>\d{1,2})(?::(?P<en_min>\d\d))?\s*(?P<en_ampm>a\.?m\.?|p\.?m\.?)"
    r"|(?:at\s+|around\s+|by\s+)(?P<en_hour24>\d{1,2}):(?P<en_min24>\d\d)|noon|midnight)"
    r")\b)",
    re.IGNORECASE)
# What may stand between two pieces of one phrase: "明天的下午", "Friday at 5 pm", "tomorrow in the evening".
_GLUE = lazy_compile(r"^(?:\s|的|,|，|on|at|in|the|around|about)*$", re.IGNORECASE)


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
    text = re.sub(r"\s+", " ", text.casefold())
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
# ordinal ("on 12/14/2027", "dec. 8, 2027", "on the 2nd"), a month or a season ("in july", "this winter"), a span
# of weeks, months or years ("in 2 weeks", "next year"), the past ("last october", "two days ago").
_UNREAD_FIGURES = lazy_compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}\s*/\s*\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)\b", re.IGNORECASE)
_UNREAD_WORDS = frozenset("""
january february march april june july august september october november december jan feb mar apr jun jul aug sep
sept oct nov dec winter summer autumn springtime wintertime summertime week weeks month months year years decade
decades ago last
""".split())


def unread(text: str) -> bool:
    """Whether ``text`` says a time that :func:`find_when` and :func:`resolve` do not read (see above): a forecast
    of today would answer another question."""
    rest = text
    for m in reversed(_pieces(text)):
        rest = rest[:m.start()] + " " + rest[m.end():]
    if _UNREAD_FIGURES.search(rest):
        return True
    return not _UNREAD_WORDS.isdisjoint("".join(c if c.isalpha() else " " for c in rest.casefold()).split())


def resolve(phrase: str, now: datetime) -> Period | None:
    """The period ``phrase`` means when it is ``now`` (local time of the place). ``None``: not a time phrase."""
    today = now.date()
    days: Period | None = None
    hours: tuple[int, int] | None = None
    explicit_hour = False
    pieces = _pieces(phrase)
    if not pieces:
        return None
    for m in pieces:
        g = m.groupdict()
        if g["zh_part"] or g["en_part"]:
            hours = PARTS[_ZH_PARTS[g["zh_part"]] if g["zh_part"] else g["en_part_name"].casefold()]
        elif g["zh_hour"] or g["en_hour"]:
            explicit_hour = True
            h = _hour(g, hours)
            if h is None:
                return None
            hours = (h, h + 1)
        else:
            for groups, reader in _DAY_READERS:
                if any(g[name] for name in groups):
                    read = reader(g, today)
                    if read is None:
                        return None
                    days, part = read
                    hours = part or hours
                    break
    if days is None:
        if hours is None:
            return None
        # "下午" / "at 5 pm" without a day: today, or tomorrow when that hour has passed
        d = today + timedelta(days=1) if explicit_hour and hours[0] < now.hour else today
        days = Period(d, d)
    if hours is not None and days.days == 1:
        return Period(days.start, days.end, hours)
    return days


# Each kind of day a phrase names: (groups, read), read giving the days and the part of the day it names too
# ("今晚": today, evening), or None when the words name no day that exists.
Read = tuple[Period, tuple[int, int] | None] | None


def _one(d: date, part: tuple[int, int] | None = None) -> Read:
    return Period(d, d), part


def _span(g: dict[str, Any], today: date) -> Read:
    """"未来三天", "next 5 days", "this fortnight": from today."""
    n = (_zh_number(g["zh_span_n"]) if g["zh_span_n"] else _en_number(g["en_span_n"]) if g["en_span_n"] else None)
    week = g["zh_span_week"] or g["en_span_week"] or ""
    if n is None:
        n = 14 if week in ("两周", "半个月", "fortnight") or "two" in week else 7
    return Period(today, today + timedelta(days=max(n, 1) - 1)), None


def _after(g: dict[str, Any], today: date) -> Read:
    """"三天后", "in 3 days"."""
    n = _zh_number(g["zh_after_n"]) if g["zh_after_n"] else _en_number(g["en_after_n"] or "")
    return None if n is None else _one(today + timedelta(days=n))


def _weekend(g: dict[str, Any], today: date) -> Read:
    """"周末", "next weekend": Saturday and Sunday (from today when it is one of them)."""
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 if today.weekday() != 6 else -1)
    if g["zh_weekend_next"] or g["en_weekend_next"]:
        saturday = today + timedelta(days=7 - today.weekday() + 5)
    return Period(max(saturday, today), saturday + timedelta(days=1)), None


def _weekday(g: dict[str, Any], today: date) -> Read:
    """"下周五", "last Monday", "this Friday", "周五" (the next one, today included)."""
    wd = _ZH_WEEKDAYS[g["zh_wd"]] if g["zh_wd"] else _EN_WEEKDAYS[g["en_wd"].casefold()]
    which = (g["zh_wd_week"] or g["en_wd_week"] or "").casefold()
    monday = today - timedelta(days=today.weekday())
    if which.startswith("下") or which == "next":
        return _one(monday + timedelta(days=7 + wd))
    if which.startswith("上") or which == "last":
        return _one(monday + timedelta(days=wd - 7))
    if which in ("这", "这个", "本", "this"):
        return _one(monday + timedelta(days=wd))
    return _one(today + timedelta(days=(wd - today.weekday()) % 7))


def _week(g: dict[str, Any], today: date) -> Read:
    """"下周": next Monday to Sunday; "这周", "this week": today to Sunday."""
    monday = today - timedelta(days=today.weekday())
    if (g["zh_week_which"] or "") == "下":
        return Period(monday + timedelta(days=7), monday + timedelta(days=13)), None
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
        dd = int(g["en_day"] or g["en_day2"])
    else:
        y, mo, dd = None, today.month, int(g["zh_day_n"])
    try:
        d = date(y or today.year, mo, dd)
        if y is None and d < today - timedelta(days=MAX_DAYS_BACK):
            # "28号" after the 28th: next month; "1月3日" in November: next year
            d = (date(today.year + 1, mo, dd) if g["zh_date"] or g["en_date"] else _next_month(today, dd))
    except ValueError:
        return None
    return _one(d)


_OFFSETS = {"大后天": 3, "后天": 2, "明天": 1, "明日": 1, "明儿": 1, "明早": 1, "明晚": 1, "今天": 0, "今日": 0, "今儿": 0,
            "今晚": 0, "今夜": 0, "今早": 0, "昨天": -1, "昨日": -1, "前天": -2, "the day after tomorrow": 2,
            "tomorrow": 1, "tmrw": 1, "tmr": 1, "today": 0, "tonight": 0, "yesterday": -1}


def _relative(g: dict[str, Any], today: date) -> Read:
    """"明天", "今晚", "tomorrow", "tonight": a day from today, and the part of it the word names."""
    word = re.sub(r"\s+", " ", (g["zh_rel"] or g["en_rel"]).casefold())
    part = PARTS[_ZH_PARTS[word]] if word in _ZH_PARTS else PARTS["evening"] if word == "tonight" else None
    return _one(today + timedelta(days=_OFFSETS[word]), part)


_DAY_READERS: tuple[tuple[tuple[str, ...], Callable[[dict[str, Any], date], Read]], ...] = (
    (("zh_span", "en_span"), _span), (("zh_after", "en_after"), _after), (("zh_weekend", "en_weekend"), _weekend),
    (("zh_weekday", "en_weekday"), _weekday), (("zh_week", "en_week"), _week),
    (("zh_date", "en_date", "iso", "zh_day_only"), _date), (("zh_rel", "en_rel"), _relative),
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
        else:
            h = int(g["en_hour_n"]) % 12 + (12 if g["en_ampm"].casefold().startswith("p") else 0)
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
