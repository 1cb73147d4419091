"""When a reminder is due: a time said in words ("in 10 minutes", "tomorrow at 9", "明天早上8点", "半小时后", "seven
fifteen am") read at a moment, without a model, in English and Chinese; the day a reminder is named by ("tomorrow
morning", "周五晚上"); the text as the reminders' rules read it (numbers in digits, times of day as a clock writes
them). A time that cannot be read, has passed, does not exist or is more than a year ahead is a problem said in both
languages, never a guess. Times are local (the machine's zone, or the configured clock's); a due time is aware."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Literal

from tools.base import CJK, LocalText
from tools.lazy_re import lazy_compile
from tools.reading.durations import seconds_of
from tools.reading.forms import Forms, Phrases
from tools.reading.numerals import EN_NUMBER, NUMERAL, en_value, ordinal, to_digits
from tools.reading.time_of_day import EN_TIME as _EN_TIME, ZH_PARTS, ZH_TIME as _ZH_TIME, on_24h
from tools.reading.when import EN_ORDINAL

MAX_AHEAD = timedelta(days=366)  # further than a year ahead is no reminder a desktop keeps


MAX_TEXT = 500  # characters: a reminder's words, kept whole (a longer one is refused in one line, never cut)


@dataclass(frozen=True)
class Due:
    at: datetime | None = None
    problem: LocalText | None = None
    relative: bool = False  # "in 10 minutes" (said back as a clock time and how long)
    extras: dict[str, object] = field(default_factory=dict)
    span: float | None = None  # the seconds said ("in 10 minutes": 600), whenever it is kept: not counted again later

    def said_span(self, now: datetime) -> int:
        """How long was said (a relative time), in whole seconds: the span read, else counted from ``now``."""
        return round(self.span if self.span is not None else ((self.at - now).total_seconds() if self.at else 0))


_EN_PART_SAID = Phrases(("in the morning", "in the afternoon", "in the evening", "morning", "afternoon", "evening",
                         "at night"), re.IGNORECASE)  # "at 7 in the evening": the part of the day that sets the hour


# ---------------------------------------------------------------- times of day
EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")


EN_DAY = lazy_compile(
    r"\b(?P<rel>today|tonight|tomorrow|tmrw|yesterday|the\s+day\s+after\s+tomorrow)\b"
    r"|\b(?:on\s+)?(?:(?P<next>next|this)\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\b(?:on\s+)?(?P<mon>" + "|".join(m for m in EN_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s+"
    r"(?P<dom>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<year>\d{4})\b)?"
    r"|\b(?:on\s+)?(?:the\s+)?(?P<dom2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>" + "|".join(EN_MONTHS) +
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\b(?:,?\s+(?P<year2>\d{4})\b)?"
    r"|\b(?P<iso>\d{4}-\d{2}-\d{2})\b"
    r"|\b(?:on\s+)?(?:the\s+)?(?P<mdom>\d{1,2}|" + EN_ORDINAL + r")(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mrel>this|next)\s+month\b"
    r"|\b(?:on\s+)?the\s+(?P<dom3>\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)  # "on the 5th": this month's, or the next


ZH_DAY = lazy_compile(r"(?P<rel>今天|今日|今晚|今早|明天|明日|明早|明晚|后天|大后天|昨天|前天)"
                     r"|(?P<next>下下(?:个)?|下(?:个)?|这(?:个)?|本)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])"
                     r"|(?:(?:(?P<year>\d{4})年)?(?P<mon>\d{1,2})月(?P<dom>\d{1,2})[日号])"
                     r"|(?P<mrel>下个?月|本月|这个?月)(?P<mdom>\d{1,2})[日号]"  # "下个月1号": that month's
                     r"|(?<![\d月])(?P<dom3>\d{1,2})[日号](?![子楼线])")  # "5号": this month's 5th, or the next


def _clock_word(now: datetime, h: int, m: int, day: date | None, part: str | None, ampm: str | None) -> datetime | None:
    hour = on_24h(h, ampm, part)
    if hour is None:
        return None
    h = hour
    if not (0 <= h <= 23 and 0 <= m <= 59):
        return None
    if day is not None:
        if not ampm and not part and 1 <= h <= 5:  # "tomorrow at 3": the afternoon; "at 6:30 tomorrow": the morning
            h += 12
        return now.replace(year=day.year, month=day.month, day=day.day, hour=h, minute=m, second=0, microsecond=0)
    at = now.replace(hour=h, minute=m, second=0, microsecond=0)
    if not ampm and not part and h <= 12:  # "at 4": the next 4 o'clock, morning or afternoon
        options = [at, at + timedelta(hours=12)] if h < 12 else [at]
        options += [o + timedelta(days=1) for o in options]
        return min(o for o in options if o > now)
    return at if at > now else at + timedelta(days=1)


def _day(now: datetime, g: dict[str, str | None], zh: bool) -> date | None | Literal[False]:
    """The day a phrase names; ``False`` for a date that does not exist (Feb 30)."""
    today = now.date()
    rel = (g.get("rel") or "").lower()
    if rel:
        offset = {"today": 0, "tonight": 0, "今天": 0, "今日": 0, "今晚": 0, "今早": 0, "tomorrow": 1, "tmrw": 1,
                  "明天": 1, "明日": 1, "明早": 1, "明晚": 1, "后天": 2, "大后天": 3,
                  "yesterday": -1, "昨天": -1, "前天": -2}.get(" ".join(rel.split()), 2)
        return today + timedelta(days=offset)
    if (name := g.get("wd")):
        wd = _ZH_WEEKDAYS[name] if zh else EN_WEEKDAYS.index(name.lower())
        ahead = (wd - today.weekday()) % 7
        which = (g.get("next") or "").lower()
        if which.startswith("下"):  # 下周五: Friday of next week; 下下周五: of the week after
            return today + timedelta(days=7 - today.weekday() + wd + (7 if which.startswith("下下") else 0))
        if which == "next" and ahead == 0:  # "next Friday" on a Friday: a week on
            ahead = 7
        return today + timedelta(days=ahead)
    try:
        if (iso := g.get("iso")):
            return date.fromisoformat(iso)
        if (said := g.get("mdom")):  # "the 1st of next month", "本月30号": that month's, passed or not
            step = 1 if (g.get("mrel") or "").lower().startswith(("next", "下")) else 0
            years, index = divmod(today.month - 1 + step, 12)
            return date(today.year + years, index + 1, int(said) if said.isdigit() else ordinal(said) or 0)
        if (alone := g.get("dom3")):  # the next day of that number: this month's, else the next month's that has it
            for ahead in range(13):
                years, index = divmod(today.month - 1 + ahead, 12)
                try:
                    d = date(today.year + years, index + 1, int(alone))
                except ValueError:
                    continue
                if d >= today:
                    return d
            return False
        month = g.get("mon") or g.get("mon2")
        dom = g.get("dom") or g.get("dom2")
        if month and dom:
            mo = int(month) if month.isdigit() else next(i for i, m in enumerate(EN_MONTHS, 1) if m.startswith(month.lower()[:3]))
            if (year := g.get("year") or g.get("year2")):  # a year said is that year's day, past or not
                return date(int(year), mo, int(dom))
            d = date(today.year, mo, int(dom))
            return d if d >= today else date(today.year + 1, mo, int(dom))
    except ValueError:
        return False
    return None


# The hours a part of the day covers, for a reminder named by its day and part ("取消明天早上的闹钟", "cancel
# tomorrow morning's alarm"): from the first hour to before the second.
PART_HOURS = {"morning": (4, 12), "早上": (4, 12), "早晨": (4, 12), "清晨": (4, 9), "上午": (6, 12), "明早": (4, 12),
               "今早": (4, 12), "凌晨": (0, 6), "afternoon": (12, 18), "下午": (12, 18), "中午": (11, 14),
               "evening": (17, 24), "night": (18, 24), "傍晚": (16, 20), "晚上": (17, 24), "今晚": (17, 24),
               "明晚": (17, 24), "tonight": (17, 24), "夜里": (18, 24)}


def day_said(said: str, now: datetime) -> tuple[date, tuple[int, int]] | None:
    """The day ``said`` names and the hours of the part of it said (all day when none): what a reminder named by
    its day is due within ("tomorrow morning", "明天", "周五晚上"); ``None`` when it names no day or names an hour."""
    text = plain(said)
    zh = bool(CJK.search(text))
    day_m = (ZH_DAY if zh else EN_DAY).search(text)
    if day_m is None or any(c.isdigit() for c in text[:day_m.start()] + text[day_m.end():]):
        return None
    day = _day(now, day_m.groupdict(), zh)
    if not day:
        return None
    folded = text.casefold()
    hours = next((span for part, span in PART_HOURS.items() if part in folded), (0, 24))
    return day, hours


def due(when: str, now: datetime) -> Due:
    """When ``when`` ("in 10 minutes", "tomorrow at 9", "明天早上8点", "半小时后") is due, from ``now`` (aware,
    local); a problem said in both languages when it names no time, a past one, a day that does not exist or one
    more than a year ahead."""
    text = plain(when)
    zh = bool(CJK.search(text))
    relative = re.sub(r"^(?:in|for|after)\s+|\s*(?:from\s+now|later|以后|之后|后)$|^过", "", text.strip(), flags=re.IGNORECASE)
    if _NEGATIVE.search(text):  # "in -5 minutes": no time from now
        return Due(problem=_NEGATIVE_SPAN)
    span = seconds_of(relative)
    if span is not None:
        if span <= 0:
            return Due(problem=NO_TIME)
        if span > MAX_AHEAD.total_seconds():  # before any date is made of it: 10^12 hours is no date at all
            return Due(problem=_TOO_FAR)
        # a span is elapsed time, not wall time: "in 2 hours" across a daylight-saving change is 2 hours
        return Due(at=(now.astimezone(timezone.utc) + timedelta(seconds=span)).astimezone(now.tzinfo), relative=True,
                   span=span)
    day_m = (ZH_DAY if zh else EN_DAY).search(text)
    day: date | None = None
    if day_m:
        found = _day(now, day_m.groupdict(), zh)
        if found is False:
            return Due(problem=_NO_SUCH_DAY)
        day = found
    rest = text[:day_m.start()] + " " + text[day_m.end():] if day_m else text
    part = None
    if zh:
        tm = _ZH_TIME.search(text)
        if tm:
            m = 30 if tm.group("half") else 15 * {"一": 1, "三": 3}[tm.group("q")] if tm.group("q") else int(tm.group("m") or 0)
            part = tm.group("part") or (day_m.group("rel") if day_m and day_m.group("rel") in ("今晚", "明晚", "明早", "今早") else None)
            if part is None and (pm := ZH_PARTS.search(text)):
                part = pm.group(0)
            at = _clock_word(now, int(tm.group("h")), m, day, part, None)
        else:
            at = _part_only(now, day, text, zh=True)
    else:
        tm = _EN_TIME.search(rest)
        if tm:
            if tm.group("word"):  # noon, or midnight (the next one, or the day's own when a day is named)
                midnight = tm.group("word").lower() == "midnight"
                at = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0) \
                    if midnight and day is None else _clock_word(now, 0 if midnight else 12, 0, day, "x", None)
            else:
                h = int(tm.group("h") or tm.group("h24") or tm.group("hb"))
                m = int(tm.group("m") or tm.group("m24") or 0)
                part = tm.group("part") or ("tonight" if day_m and (day_m.group("rel") or "").lower() == "tonight" else None)
                if part is None and (pm := _EN_PART_SAID.search(text)):
                    part = pm.group(0)
                at = _clock_word(now, h, m, day, part, tm.group("ampm"))
        else:
            at = _part_only(now, day, text, zh=False)
    if at is None:
        return Due(problem=NO_TIME if day is None else NO_HOUR)
    if (at := _next_week_when_past(at, now, day_m)) <= now:
        return Due(problem=PAST)
    if at - now > MAX_AHEAD:
        return Due(problem=_TOO_FAR)
    return Due(at=at)


def _next_week_when_past(at: datetime, now: datetime, day_m: re.Match[str] | None) -> datetime:
    """Today's weekday named alone ("on saturday afternoon" said on Saturday evening) for a time that has passed:
    next week's, not a past one ("this saturday" stays today's)."""
    said = day_m.groupdict() if day_m is not None else {}
    if at <= now and at.date() == now.date() and said.get("wd") and not (said.get("next") or "").strip():
        return at + timedelta(days=7)
    return at


def _part_only(now: datetime, day: date | None, text: str, zh: bool) -> datetime | None:
    """"tomorrow morning", "明天早上": the part's usual hour (9, 14, 19); a day alone names no time."""
    hours = {"morning": 9, "afternoon": 14, "evening": 19, "night": 21, "早上": 8, "早晨": 8, "上午": 9, "中午": 12,
             "下午": 14, "傍晚": 18, "晚上": 20, "今晚": 20, "明晚": 20, "明早": 8, "今早": 8}
    m = re.search(r"morning|afternoon|evening|night" if not zh else "|".join(hours), text, re.IGNORECASE)
    if not m:
        return None
    h = hours[m.group(0).lower()]
    if day is None and not zh and text[:m.start()].lower().split()[-1:] == ["this"]:
        day = now.date()  # "this afternoon" is today's, passed or not; "in the afternoon" the next one
    d = day or now.date()
    at = now.replace(year=d.year, month=d.month, day=d.day, hour=h, minute=0, second=0, microsecond=0)
    return at if at > now or day is not None else at + timedelta(days=1)


def numbers_as_digits(text: str) -> str:
    """``text`` as the rules read it: numbers in words as digits, times of day in words as times ("eight thirty in
    the morning": "8:30 in the morning")."""
    return plain(text)


# Words people use for "remind me", "a reminder" and "midday" (a slip of the tongue or of the keys among them): read as those
_SAID_FOR = {"remember me to": "remind me to", "remind to": "remind me to", "a remainder": "a reminder",
             "the remainder": "the reminder", "a notification": "a reminder", "notify me to": "remind me to",
             "mid day": "midday", "mid-day": "midday", "send me a reminder": "remind me", "shoot me a reminder": "remind me",
             "don't forget to remind me": "remind me", "do not forget to remind me": "remind me",
             "a repeating reminder": "a reminder", "a recurring reminder": "a reminder", "o clock": "o'clock",
             "wake up call": "alarm", "wake-up call": "alarm", "wakeup call": "alarm",
             # first thing: the morning's start ("remind me first thing tomorrow": tomorrow morning, not "first thing" as
             # what it is about)
             "first thing tomorrow morning": "tomorrow morning", "first thing tomorrow": "tomorrow morning",
             "first thing in the morning": "in the morning"}


_SAID_FOR_RE = Phrases(tuple(_SAID_FOR), re.IGNORECASE)


def request_text(question: str) -> str:
    """``question`` as the rules read a request: :func:`plain`, without the marks and the spaces that end it."""
    return plain(question).strip().rstrip("?？!！。.，, ")


def last_word(text: str) -> str:
    """The last word of ``text``, casefolded ("" for none)."""
    words = text.casefold().split()
    return words[-1] if words else ""


def plain(text: str) -> str:
    """``text`` as the rules read it: normalised, the other words of a reminder or an alarm as theirs, numbers in
    digits, a time's words as a clock writes it."""
    text = unicodedata.normalize("NFKC", text).replace("闹铃", "闹钟")  # the alarm's other word
    low = text.lower()
    if any(w in low for w in ("remain", "remember", "notif", "remind", "mid day", "mid-day", "o clock", "call")):  # the pattern compiles only when needed
        text = _SAID_FOR_RE.sub(lambda m: _SAID_FOR[" ".join(m.group(0).lower().split())], text)
    text = re.sub(r"(?<=\d)-(?=(?:second|minute|hour|day|week)s?\b)", " ", text, flags=re.IGNORECASE)  # a 25-minute timer
    if NUMERAL.search(text):  # (a weekday's numeral is its own: 周六十二点 is Saturday at 12)
        text = re.sub(r"(?<![周期拜])[一二两三四五六七八九十百零]+(?=\s*(?:个半|个小时|小时|个钟头|钟头|分钟|分|秒钟|秒|天|个星期|星期|周(?![一二三四五六日天])|年|点|时|月|日|号))",
                      lambda m: to_digits(m.group(0)), text)
        # the minutes after the hour, said without 分: "六点四十五" is 6:45, "六点零五" 6:05
        text = re.sub(r"(?<=\d点)[零一二三四五六七八九十]{1,3}(?![零一二三四五六七八九十百千万个小分秒天周月年号刻])",
                      lambda m: to_digits(m.group(0)).rjust(2, "0"), text)
    text = EN_NUMBER.sub(_as_digits, text)
    return _clock_words(text)


def _as_digits(m: re.Match[str]) -> str:
    """A number said in words as digits; "a", "an" and "one" stay words ("one of them", "in an hour") unless "one"
    is an hour ("at one", "one pm", "one o'clock")."""
    said = m.group(0)
    if said.lower() not in ("a", "an", "one"):
        return str(en_value(said))
    after, before = m.string[m.end():].lstrip().lower(), m.string[:m.start()].rstrip().lower()
    hour = said.lower() == "one" and (after.startswith(("am", "a.m", "pm", "p.m", "o'clock", "oclock"))
                                      or before == "at" or before.endswith(" at"))
    return "1" if hour else said


_PAST_AND_TO = Forms([
    ("half past {h}", "{h}:30"), ("[a] quarter past {h}", "{h}:15"),
    ("[a] quarter to {h}", lambda v: f"{(int(v['h']) - 1) % 24 or 12}:45" if int(v["h"]) <= 24 else None),
], slots={"h": "hour"}, types={"hour": r"\d{1,2}\b"})


def _clock_words(text: str) -> str:
    """Times of day said in words, in the forms the rules read: "seven fifteen am" (7 15 am) → 7:15 am, "at six
    forty five" → at 6:45, "half past six" → 6:30, "quarter to 8" → 7:45, "7 o'clock this evening" → at 7 o'clock."""
    text = _PAST_AND_TO.sub(text)
    # an hour and its minutes typed as one number or with a dot or an h ("at 630", "for 1030 pm", "6.30am", "6h30"): a
    # time of day, not 630 hours
    text = re.sub(r"(?:(?<=\bat\s)|(?<=\bfor\s)|(?<=\bby\s)|(?<=\buntil\s)|(?<=\btill\s)|(?<=\baround\s))"
                  r"([01]?\d|2[0-3])[.h]?([0-5]\d)\b(?!\s*(?:sec|min|hour|hr|day|week|month|year|time|%))"
                  r"|\b(0?[1-9]|1[0-2])[.h]?([0-5]\d)(?=\s*(?:a\.?m\b|p\.?m\b))",
                  lambda m: f"{m.group(1) or m.group(3)}:{m.group(2) or m.group(4)}", text, flags=re.IGNORECASE)
    # an hour and its minutes said apart, where a time of day stands: after at/for/by, or before am/pm, a day, a part
    text = re.sub(r"(?:(?<=\bat\s)|(?<=\bfor\s)|(?<=\bby\s)|(?<=\baround\s)|(?<=^))(\d{1,2})\s+([0-5]\d)(?![\d:])"
                  r"|(?<![\d:.])(\d{1,2})\s+([0-5]\d)(?=\s*(?:a\.?m\.?|p\.?m\.?|o'?clock|tomorrow|tonight|today|this\b|"
                  r"in\s+the\b|on\b))",
                  lambda m: f"{m.group(1) or m.group(3)}:{m.group(2) or m.group(4)}"
                  if int(m.group(1) or m.group(3)) <= 23 else m.group(0), text, flags=re.IGNORECASE)
    return re.sub(r"(?<!\bat\s)(?<!\bby\s)(?<!\baround\s)\b(\d{1,2})\s+o'?clock\b", r"at \1 o'clock", text,
                  flags=re.IGNORECASE)


NO_TIME = LocalText(en="I could not tell when: say a time (\"at 16:30\", \"tomorrow at 9\") or a delay (\"in 10 minutes\").",
                     zh="没听出是什么时候:请说一个时间(“下午4点半”“明天早上9点”)或多久以后(“10分钟后”)。")


NO_HOUR = LocalText(en="that names a day but not the time: add one (\"at 9\").", zh="只说了哪天,没说几点:请加上时间(“9点”)。")


_NEGATIVE = lazy_compile(r"(?:^|\s|in\s*|for\s*|after\s*|过)[-−–]\s*\d|负\s*\d", re.IGNORECASE)


_NEGATIVE_SPAN = LocalText(en="a span of time from now cannot be negative: say how long from now (\"in 5 minutes\").",
                           zh="时间跨度不能是负数:请说多久以后(“5分钟后”)。")


PAST = LocalText(en="that time has already passed.", zh="这个时间已经过去了。")


_TOO_FAR = LocalText(en="that is more than a year ahead; reminders here are kept for up to a year.",
                     zh="这超过了一年;这里的提醒最多设到一年以后。")


_NO_SUCH_DAY = LocalText(en="there is no such date.", zh="没有这一天。")
