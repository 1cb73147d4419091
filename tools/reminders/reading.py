"""A reminder or a timer read from words, without a model: what to do (set one, list them, cancel some), when it is
due and what it is about, in English and Chinese.

"set a timer for ten minutes", "remind me at 4 to call the dentist", "remind me in 90 seconds", "wake me up
tomorrow at 7", "提醒我半小时后关火", "明天早上8点提醒我开会", "周五下午3点半提醒我交报告", "设一个10分钟的定时器";
"what reminders do I have?", "cancel the dentist one", "取消提醒".

:func:`read` is certain or silent: a request it cannot read whole is left to the model route, whose call is read
again here (:func:`due`), so a time is never guessed. Times are local (the machine's zone, or the configured
clock's); the result is an aware datetime."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Callable, Literal, TypeVar

from tools.base import CJK, LocalText
from tools.reminders.args import RemindersArgs, unread_when_unfit
from tools.reminders.book import MIN_INTERVAL
from tools.reminders.listing import asks_list
from tools.reading.numerals import EN_NUMBER, NUMERAL, en_value, ordinal, to_digits
from tools.reading.durations import EN_DURATION as _EN_DURATION, seconds_of
from tools.reading.when import EN_ORDINAL
from tools.reading.reader import spaced, tokens
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases
from tools.reading.time_of_day import EN_TIME as _EN_TIME, ZH_PART as _ZH_PART, ZH_PARTS, ZH_TIME as _ZH_TIME, on_24h

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
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")
_EN_DAY = lazy_compile(
    r"\b(?P<rel>today|tonight|tomorrow|tmrw|yesterday|the\s+day\s+after\s+tomorrow)\b"
    r"|\b(?:on\s+)?(?:(?P<next>next|this)\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\b(?:on\s+)?(?P<mon>" + "|".join(m for m in _EN_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s+"
    r"(?P<dom>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<year>\d{4})\b)?"
    r"|\b(?:on\s+)?(?:the\s+)?(?P<dom2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>" + "|".join(_EN_MONTHS) +
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\b(?:,?\s+(?P<year2>\d{4})\b)?"
    r"|\b(?P<iso>\d{4}-\d{2}-\d{2})\b"
    r"|\b(?:on\s+)?(?:the\s+)?(?P<mdom>\d{1,2}|" + EN_ORDINAL + r")(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mrel>this|next)\s+month\b"
    r"|\b(?:on\s+)?the\s+(?P<dom3>\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)  # "on the 5th": this month's, or the next
_ZH_DAY = lazy_compile(r"(?P<rel>今天|今日|今晚|今早|明天|明日|明早|明晚|后天|大后天|昨天|前天)"
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
        wd = _ZH_WEEKDAYS[name] if zh else _EN_WEEKDAYS.index(name.lower())
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
            mo = int(month) if month.isdigit() else next(i for i, m in enumerate(_EN_MONTHS, 1) if m.startswith(month.lower()[:3]))
            if (year := g.get("year") or g.get("year2")):  # a year said is that year's day, past or not
                return date(int(year), mo, int(dom))
            d = date(today.year, mo, int(dom))
            return d if d >= today else date(today.year + 1, mo, int(dom))
    except ValueError:
        return False
    return None


# The hours a part of the day covers, for a reminder named by its day and part ("取消明天早上的闹钟", "cancel
# tomorrow morning's alarm"): from the first hour to before the second.
_PART_HOURS = {"morning": (4, 12), "早上": (4, 12), "早晨": (4, 12), "清晨": (4, 9), "上午": (6, 12), "明早": (4, 12),
               "今早": (4, 12), "凌晨": (0, 6), "afternoon": (12, 18), "下午": (12, 18), "中午": (11, 14),
               "evening": (17, 24), "night": (18, 24), "傍晚": (16, 20), "晚上": (17, 24), "今晚": (17, 24),
               "明晚": (17, 24), "tonight": (17, 24), "夜里": (18, 24)}


def day_said(said: str, now: datetime) -> tuple[date, tuple[int, int]] | None:
    """The day ``said`` names and the hours of the part of it said (all day when none): what a reminder named by
    its day is due within ("tomorrow morning", "明天", "周五晚上"); ``None`` when it names no day or names an hour."""
    text = _plain(said)
    zh = bool(CJK.search(text))
    day_m = (_ZH_DAY if zh else _EN_DAY).search(text)
    if day_m is None or any(c.isdigit() for c in text[:day_m.start()] + text[day_m.end():]):
        return None
    day = _day(now, day_m.groupdict(), zh)
    if not day:
        return None
    folded = text.casefold()
    hours = next((span for part, span in _PART_HOURS.items() if part in folded), (0, 24))
    return day, hours


def due(when: str, now: datetime) -> Due:
    """When ``when`` ("in 10 minutes", "tomorrow at 9", "明天早上8点", "半小时后") is due, from ``now`` (aware,
    local); a problem said in both languages when it names no time, a past one, a day that does not exist or one
    more than a year ahead."""
    text = _plain(when)
    zh = bool(CJK.search(text))
    relative = re.sub(r"^(?:in|for|after)\s+|\s*(?:from\s+now|later|以后|之后|后)$|^过", "", text.strip(), flags=re.IGNORECASE)
    if _NEGATIVE.search(text):  # "in -5 minutes": no time from now
        return Due(problem=_NEGATIVE_SPAN)
    span = seconds_of(relative)
    if span is not None:
        if span <= 0:
            return Due(problem=_NO_TIME)
        if span > MAX_AHEAD.total_seconds():  # before any date is made of it: 10^12 hours is no date at all
            return Due(problem=_TOO_FAR)
        # a span is elapsed time, not wall time: "in 2 hours" across a daylight-saving change is 2 hours
        return Due(at=(now.astimezone(timezone.utc) + timedelta(seconds=span)).astimezone(now.tzinfo), relative=True,
                   span=span)
    day_m = (_ZH_DAY if zh else _EN_DAY).search(text)
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
        return Due(problem=_NO_TIME if day is None else _NO_HOUR)
    if (at := _next_week_when_past(at, now, day_m)) <= now:
        return Due(problem=_PAST)
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
    return _plain(text)


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
    """``question`` as the rules read a request: :func:`_plain`, without the marks and the spaces that end it."""
    return _plain(question).strip().rstrip("?？!！。.，, ")


def _plain(text: str) -> str:
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


# The weekend said with a time, on a weekday: its Saturday ("remind me this weekend at 9 to call mom" was at 9 today,
# about "this weekend to call mom"). On a Saturday or a Sunday which day is meant is not certain: the model's (the
# weekend stays in the words, where the check for a stretch of time finds it); "next weekend" in English is either.
_WEEKENDS = {"下个周末": "下周六", "下周末": "下周六", "这个周末": "周六", "这周末": "周六", "本周末": "周六", "周末": "周六",
             "this weekend": "on saturday", "on the weekend": "on saturday", "at the weekend": "on saturday",
             "over the weekend": "on saturday"}
_WEEKEND_SAID = Phrases(tuple(_WEEKENDS), re.IGNORECASE)


def _weekend_timed(text: str, now: datetime) -> str:
    """``text`` with a weekend said with a time ("周末早上9点", "下周末10点", "this weekend at 9") as its Saturday when
    ``now`` is a weekday; a weekend said otherwise ("周末的闹钟", "我周末有什么安排", "next weekend") as it was."""
    if now.weekday() >= 5:
        return text
    for m in _WEEKEND_SAID.finditer(text):  # ("next weekend" is none of them: it stays in the words)
        near = text[max(0, m.start() - 12):m.start()] + text[m.end():m.end() + 12]
        if any(c.isdigit() or c in "一二两三四五六七八九十" for c in near):
            return text[:m.start()] + _WEEKENDS[" ".join(m.group(0).casefold().split())] + text[m.end():]
    return text


# A stretch of time the reminder's time does not read, left beside what it is about ("next week to call bob", "call
# bob later this week", "明年", "月底交房租"): the time read would not be the one meant, so the model reads it.
_PERIODS = Phrases((
    "[(later|sometime)] (this|next) (week|month|year|weekend|spring|summer|autumn|fall|winter)",
    "[sometime] (later|early|earlier) (this|next|in the) (week|month|year)", "the week after next",
    "[(at|by|before|towards|toward)] [the] (end|start|beginning|middle) of [(the|this|next)] (week|month|year)",
    "[(in|during)] [the] (spring|summer|autumn|fall|winter)", "[in] (a few|a couple of|the next few|several) (days|weeks|months)",
    "the (day|night|morning|evening|week|weekend) (before|after|of)", "(one of these|some) days", "someday", "some day", "sometime", "eventually", "soon", "later on",
    "in (january|february|march|april|may|june|july|august|september|october|november|december)",
    # an occasion whose day the time did not read ("remind me on christmas at 9 to call grandma" was at 9 today)
    "(on|at|over|after) [the] (christmas [(eve|day)]|new year's [(eve|day)]|new year|thanksgiving|"
    "easter|halloween|valentine's [day]|[(my|his|her|their|our|mom's|dad's|mum's)] birthday|[(my|our)] anniversary|"
    "holidays|mother's day|father's day|independence day|labor day|memorial day|boxing day)",
), re.IGNORECASE)
# Words that open what a reminder is about only when the time said before them was not read whole: a day, a repeat,
# a condition ("at 3 on the first monday of the month", "at 9 every now and then", "at 6 unless it rains")
_UNREAD_OPENINGS = ("on", "every", "each", "unless", "if", "when", "whenever", "after", "during", "until", "till", "by",
                    "once", "or", "except", "excluding", "but")  # and another time ("at 7 or 8", "in an hour or two")
_ZH_PERIODS = ("明年", "今年", "去年", "下个月", "下月", "这个月", "本月", "月底", "月初", "月中", "年底", "年初", "年中", "下周", "这周",
               "本周", "周末", "春天", "夏天", "秋天", "冬天", "过几天", "改天", "过段时间", "以后", "将来", "最近", "有空")


def _a_period_left(text: str, zh: bool) -> bool:
    """Whether the words a reminder is about begin or end with a stretch of time no time was read from."""
    if zh:
        return text.startswith(_ZH_PERIODS) or text.endswith(_ZH_PERIODS)
    said = text.strip()
    if said.split(" ", 1)[0].casefold() in _UNREAD_OPENINGS:
        return True
    return _PERIODS.match(said) is not None or any(m.end() == len(said) for m in _PERIODS.finditer(said))


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


_NO_TIME = LocalText(en="I could not tell when: say a time (\"at 16:30\", \"tomorrow at 9\") or a delay (\"in 10 minutes\").",
                     zh="没听出是什么时候:请说一个时间(“下午4点半”“明天早上9点”)或多久以后(“10分钟后”)。")
_NO_HOUR = LocalText(en="that names a day but not the time: add one (\"at 9\").", zh="只说了哪天,没说几点:请加上时间(“9点”)。")
_NEGATIVE = lazy_compile(r"(?:^|\s|in\s*|for\s*|after\s*|过)[-−–]\s*\d|负\s*\d", re.IGNORECASE)
_NEGATIVE_SPAN = LocalText(en="a span of time from now cannot be negative: say how long from now (\"in 5 minutes\").",
                           zh="时间跨度不能是负数:请说多久以后(“5分钟后”)。")
_PAST = LocalText(en="that time has already passed.", zh="这个时间已经过去了。")
_TOO_FAR = LocalText(en="that is more than a year ahead; reminders here are kept for up to a year.",
                     zh="这超过了一年;这里的提醒最多设到一年以后。")
_NO_SUCH_DAY = LocalText(en="there is no such date.", zh="没有这一天。")


# ---------------------------------------------------------------- requests
_EN_SET = lazy_compile(
    r"^(?:(?:please\s+)?(?:set|start|create|make)\s+(?:me\s+)?(?:an?|the)\s+(?!new\s)(?P<dur0>[\w\s.-]+?)[\s-]+(?P<kind0>timer|countdown|alarm)"
    r"(?P<rest0>(?:\s+(?:to|that|for|about)\b.*)?)"
    r"|(?:please\s+)?(?:(?:i(?:\s+need|\s+want|\s+would\s+like|'d\s+like)(?:\s+you\s+to)?|make\s+sure|have)\s+"
    r"(?:(?:set(?:\s+up)?|start|create|add|make(?:\s+up)?|schedule|initiate|put\s+in|get)\s+)?"
    r"|(?:set(?:\s+up)?|start|create|add|make(?:\s+up)?|schedule|initiate|put\s+in|put)\s+)"
    r"(?:me\s+|up\s+)?(?:an?\s+|the\s+|my\s+|one\s+)?(?:new\s+)?"
    r"(?P<kind>timer|alarm|(?:(?:event|appointment|meeting|calendar)\s+)?reminder|countdown|notification|alert)"
    r"(?:\s+(?:is\s+)?set|\s+on(?=\s+for\b)|\s+(?:on|in|to)\s+(?:the|my)\s+calendar)?(?:\s+(?:for|of|to\s+go\s+off(?:\s+at)?|that\s+goes\s+off|set\s+for))?(?P<rest>.*)"
    r"|(?P<remind>remind\s+me|wake\s+me(?:\s+up)?|ping\s+me|nudge\s+me|alert\s+me|give\s+me\s+a\s+(?:shout|nudge|reminder)"
    r"|(?:don'?t|do\s+not)\s+let\s+me\s+forget(?:\s+about)?"
    r"|tell\s+me(?=\s+to\s.*\b(?:in|at|on|tomorrow|tonight)\b))"
    r"(?P<rest2>.*)"
    r"|(?:(?:a\s+)?new\s+)?(?:notification|alert)\s+(?:for|of|about)\s+(?P<rest4>.+)"
    r"|(?P<dur>.+?)\s+(?P<kind2>timer|countdown)"
    r"|(?:timer|countdown)\s+(?:for\s+)?(?P<rest3>.+))$", re.IGNORECASE)
_ZH_SET = lazy_compile(
    r"^(?:(?:帮我|请|给我|麻烦)*(?:设置|设定|设个|定个|开个|来个|建个|加个|调个|订个|开始|启动|设|定|开|建|加|调|订)(?:一)?(?:个)?(?:我的)?(?P<rest>.*?)(?:的)?(?:叫醒|起床)?(?P<kind>闹钟|定时器|计时器|倒计时|提醒|计时)(?P<after>.*)"
    # one wanted at a time: "我想要一个明天早上七点的叫醒闹钟", "我需要一个5分钟的计时器"
    r"|(?:我想要|我要|我需要|想要)(?:一)?(?:个)?(?P<rest8>[^的,，;；。]*?\d[^的,，;；。]*?)的?(?:叫醒|起床)?(?P<kind8>闹钟|定时器|计时器|倒计时|提醒)"
    # one made for something: "为这个周四的签证申请创建一个提醒"
    r"|(?:请|帮我)?(?:为|给)(?P<rest9>[^,，;；。]+?)(?:创建|设置|设定|添加|设|建|加|定)(?:一)?(?:个)?(?P<kind9>提醒|闹钟)"
    # an alarm said by its time alone: "明早8:10闹钟", "晚上8:10的闹钟", "另一个7点的闹钟"
    r"|(?:另一个|另外一个|一个)?(?P<rest4>[^的,，;；。]*?\d[^的,，;；。]*?)的?(?:(?:给我|帮我|为我)?(?:设置|设定|设|定|订|开|来|建|加)一?个?)?(?P<kind4>闹钟|倒计时|计时器|定时器|计时)"
    # what not to forget: "别让我忘了下午三点开会", "不要让我忘记明天交作业"
    r"|(?:别|不要)让我忘(?:了|记)?(?P<rest6>.+)"
    # the alarm set to a time: "把闹钟设在下午三点", "闹钟定到明早7点", "帮我把闹钟设置为6点半"
    r"|(?:帮我|请|给我|麻烦)?把?(?:我的)?闹钟(?:设置|设定|设|定|订|调)(?:在|到|为|成)(?P<rest5>.+)"
    # the alarm and its time, nothing else: "闹钟明天六点", "闹钟在7点" (not "闹钟坏了3天了", "闹钟3点响了吗")
    r"|闹钟(?:在|:|：)?(?=[^的,，\d]{0,6}\d)(?P<rest7>.+)"
    r"|(?P<pre>.*?)(?:提醒我|叫我|叫醒我|喊我|通知我|被提醒)(?P<rest2>.*)"
    r"|(?:提醒|倒计时|计时)(?P<rest3>.+))$")
# The list asked for: "我有哪些提醒", "查看最近的日程", "下午的日程是什么", "本周还有什么待办事项"
_ZH_LIST = Forms([
    # (what the assistant has is asked of it, not of the user's list: "你有什么安排")
    ("[<tell>] [我] [<now>] [(<days>|<weekday>)] [<part>] [我] (有|还有) (哪些|什么|几个|没有) <kinds> {rest}", "list"),
    ("[我] [<now>] [(<days>|<weekday>)] [<part>] [我] (有|还有) <kinds> (吗|没有|没) [(呢|啊)]", "list"),  # "我明天早上有闹钟吗"
    # what is left of one: "定时器还剩多久", "计时器还有几分钟"
    ("[(我的|<days> 的)] <kinds> [(还|还要)] (剩|有|剩下|要) (多久|多长时间|多少时间|几分钟|多少分钟|几秒|几个小时) [(呢|啊)]", "list"),
    ("(查看|看看|列出|显示|看一下) [(我的|所有|全部|<days> 的)] <kinds> {rest}", "list"),
    ("[<tell>] [<who>] [<now>] [<days>] [<who>] [<now>] [(一共|总共|共|都)] <set> (了|过) (哪些|什么|几个|多少) [个] <kinds> {rest}",
     "list"),
    # whether one is set: "我设闹钟了吗", "我有没有设早上叫我起床的闹钟", "明天的闹钟定了没有"
    ("[<who>] [<now>] (有没有|是不是|是否) <set> [(过|了|好)] {which} <kinds> [(吗|呢)]", "list"),
    ("[<who>] [<now>] [{which}] <set> [(过|了|好)] [个] <kinds> (了吗|了没有|了没|没有|吗)", "list"),
    ("[<who>] [<now>] [{which} 的] <kinds> <set> [(过|了|好)] (了吗|了没有|了没|没有|吗)", "list"),
    # when it rings: "我的起床闹钟定的是几点", "明天的闹钟是几点", "下一个闹钟", "工作日早上的闹钟时间"
    ("[<tell>] [(我的|<days> 的|<days>)] [{which}] <kinds> [响] (有哪些|列表|是什么|有什么|几点响|还在吗|<at>) [(呢|啊)]", "list"),
    ("<tell> [(我的|<days> 的|<days>)] {which} <kinds> [(时间|几点)] [(呢|啊)]", "list"),
    ("[<tell>] 下 [一] 个 <kinds> [(是|在)] [(几点|什么时候|哪天 [几点])] [(呢|啊)]", "list"),
    ("(我的|我所有的|我全部的) <kinds> [(呢|啊|吧)]", "list"),  # "看一下我的闹钟", its ask set aside: "我的闹钟"
], phrases={"days": "(今天|明天|后天|明早|明晚|今晚|上午|下午|晚上|本周|这周|下周|周末|最近)",
            "kinds": "(提醒|闹钟|定时器|计时器|日程 [安排]|安排|待办事项|待办)", "part": "(早上|上午|中午|下午|晚上|傍晚)",
            "weekday": "[(下|这|本|下个|这个)] (周|星期|礼拜) (一|二|三|四|五|六|日|天)",
            "who": "(我|你)", "now": "(现在|目前|当前)", "tell": "[(请|麻烦)] (告诉我|跟我说|说一下|说说|查一下|看一下)",
            "set": "(设|定|设置|设定|订|开|调)",
            "at": "([(是|设|定|设置|调)] [(在|的是|成|到|为)] 几点 [(响|叫我|叫醒我)]|[的] 时间 [是] [(几点|什么时候)])"},
   # what names one, never how to set one ("怎么设闹钟", "有没有设置闹钟的功能"): no verb of asking or setting in it
   types={"any": r".*?", "which": r"(?:(?!设|定|怎|如何|为什么|能|可以|会|要|吗|功能|办法)[^,，;；。?？!！])*?"},
   slots={"rest": "any", "which": "which"})
# One cancelled: by its number ("cancel reminder 2", "取消提醒2号"), or by what it is about or its kind, in either
# language ("cancel the dentist reminder", "never mind the timer", "取消明天的闹钟", "删除开会那个")
_CANCELS = Forms([
    ("(cancel|delete|remove) [(reminder|timer)] [#] {n}", "number"),
    ("(取消|删除|删掉|去掉|关掉) [(提醒|闹钟|定时器)] [#] {n} [号]", "number"),
    ("[please] (cancel|delete|remove|clear|stop|dismiss|erase|disable|deactivate|unset|turn off|switch off|shut off|"
     "get rid of|forget [about]|scrap|kill|nix|drop|ditch|trash) {what} [(reminders|reminder|timers|timer|alarms|alarm|ones|one)]",
     "en"),
    ("(never mind|nevermind) [the] {what} (reminders|reminder|timers|timer|alarms|alarm)", "en"),
    ("[(帮我|请)] (取消|删除|删掉|去掉|关掉|关闭|不要|清空) [掉] {what} [的] (提醒|闹钟|定时器|计时器|倒计时) [(了|吧|了吧)]", "zh"),
    ("(取消|删除) [掉] {what:text} (那个|那条)", "zh"),
    ("[(帮我|请)] 把 {what} [的] (提醒|闹钟|定时器|计时器|倒计时) [(都|全部|全)] (取消|删除|删掉|去掉|关掉|关了|关闭|删了|删) [(掉|了)] [吧]",
     "zh"),
], types={"digits": r"\d+", "any": r"[^,;，；。]*?", "text": r"[^,;，；。]+?"}, slots={"n": "digits", "what": "any"})
# (what is cancelled is one clause: "cancel the alarm, set a timer for 5 minutes" asks two things)


_SELF_CORRECTION = ("i mean", "no wait", "sorry", "rather", "actually", "不对", "我是说", "我的意思是")


def _corrects_itself(words: str) -> bool:
    """Whether the words take back what they named ("the timer, I mean the reminder …")."""
    said = spaced(words)
    return any(f" {w} " in said if w.isascii() else w in said for w in _SELF_CORRECTION)


_NOT_ASKED = frozenset({"you", "u", "did", "didn't", "didnt", "why", "forgot", "forget", "if", "when", "how", "what"})
_ASKED_LAST = (" please remind me", " remind me please", " remind me about it", " remind me of it", " remind me")


def _ask_first(text: str) -> str:
    """A request whose ask comes last ("the dentist at 4 tomorrow, remind me"), or after its time ("at 4 tomorrow,
    remind me to call"), with the ask first: "remind me the dentist at 4 tomorrow", "remind me to call at 4 tomorrow"."""
    said = text.casefold()
    for tail in _ASKED_LAST:
        head = text[:len(text) - len(tail)].rstrip(" ,;:-")
        if said.endswith(tail) and head and "remind" not in head.casefold() and not _NOT_ASKED & set(tokens(head)):
            return f"remind me {head}"
    # the time first, with a comma or not: "at 4 tomorrow afternoon, remind me to start the oven", "tomorrow at 9
    # remind me to send the report", "every weekday at 9 remind me to stand up"
    when, comma, ask = text.partition(",")
    if not comma:
        when, ask = "", ""
        for start in _ASKS_TO_SET:
            if (at := said.find(f" {start}")) > 0 and (not ask or at < len(when)):
                when, ask = text[:at], text[at:]
    when, ask = when.strip(), ask.strip()
    if ask.casefold().startswith(_ASKS_TO_SET) and "remind" not in when.casefold() and _said_when(when):
        return f"{ask} {when}"
    return text


# How a request to set one starts, after the time said first ("at 5 set a reminder to call mom")
_ASKS_TO_SET = ("remind me ", "set a reminder", "set an alarm", "set a timer", "set reminder", "set alarm",
                "wake me", "create a reminder", "make a reminder", "add a reminder")


# What may be left of words that say only when once the times in them are set aside ("in an hour", "this evening")
_WHEN_WORDS = frozenset({"in", "at", "on", "by", "this", "today", "tomorrow", "tonight", "morning", "afternoon",
                         "evening", "night", "noon", "midnight", "next", "a", "an", "half", "hour", "hours", "minute",
                         "minutes", "min", "mins", "second", "seconds", "day", "days", "week", "weeks", "from", "now",
                         "the", "couple", "of", "few", "and", "o'clock", "am", "pm", *_EN_WEEKDAYS, *_EN_MONTHS})


def _said_when(words: str) -> bool:
    """``words`` are all a time, a delay or how often ("tomorrow at 9", "in 10 minutes", "every sunday"), and
    nothing else ("i have a meeting at 5" says more)."""
    repeat = _EN_REPEAT.search(words)
    if repeat is not None:
        words = (words[:repeat.start()] + words[repeat.end():]).strip()
        if not words:
            return True
    words = numbers_as_digits(words)
    if not reads_time(words):
        return False
    left = spaced(words.casefold())
    for time in times_said(words, datetime.now().astimezone()):
        left = left.replace(spaced(time.casefold()), " ")
    return all(_a_when_word(word.strip(",.;!?")) for word in left.split())


def _a_when_word(word: str) -> bool:
    """"tomorrow", "3rd", "6:30", "8am": a word that only says when."""
    figure = word.removesuffix("am").removesuffix("pm").removesuffix("st").removesuffix("nd").removesuffix("rd")
    return not word or word in _WHEN_WORDS or figure.removesuffix("th").replace(":", "").replace(".", "").isdecimal()


def _last_word(text: str) -> str:
    words = text.casefold().split()
    return words[-1] if words else ""


_DAY_JOINS = ("scheduled for", "set for", "due on", "due", "for", "on", "of", "from", "in the", "in")


_NOT_ON_THAT_DAY = ("after", "before", "until", "till", "except", "but", "not", "besides", "other than", "since", "除了")


def _day_apart(what: str, zh: bool, now: datetime) -> tuple[str, str] | None:
    """What a request to cancel names, and the day it names them by, when it names one ("all reminders for monday":
    ``("all reminders", "monday")``; "tomorrow morning's alarm", "周日的所有", "明天早上"); else ``(what, "")``;
    ``None`` when the day bounds them another way ("alarms after friday"), which is not read here."""
    m = (_ZH_DAY if zh else _EN_DAY).search(what)
    if m is None:
        return what, ""
    start, end = m.span()
    rest = what[end:]
    if part := next((p for p in _PART_HOURS if rest.lstrip().casefold().startswith(p)), None):  # "tomorrow morning"
        end += len(rest) - len(rest.lstrip()) + len(part)
    day = what[start:end].strip().removeprefix("on ")
    if day_said(day, now) is None:
        return what, ""
    before, after = what[:start].rstrip(), what[end:].removeprefix("'s").removeprefix("’s")
    if before.casefold().endswith(_NOT_ON_THAT_DAY) or after.lstrip().startswith(("以后", "之后", "以前", "之前", "以外")):
        return None  # "any morning alarms after friday", "周五以后的闹钟": not that day's
    if zh:
        return (before + after).strip().removeprefix("的").strip(), day
    after_words = after.strip()
    if not after_words and (join := next((j for j in _DAY_JOINS if f" {before.casefold()}".endswith(f" {j}")), "")):
        before = before[:len(before) - len(join)].rstrip()  # "all reminders for [monday]"
    return f"{before} {after_words}".strip(), day


_THE = Phrases(("the", "my", "that", "this", "那个", "这个", "我的"), re.IGNORECASE)  # "cancel [the] dentist reminder"
_TIMER = Phrases(("timer", "timers", "定时器", "计时器", "倒计时"), re.IGNORECASE)


# The words that say "every one" and nothing more ("all of my pending reminders", "所有的提醒都"); any other word beside
# "all" restricts it ("all reminders except the dentist", "every reminder about the party", "全部工作的提醒"), and
# what it keeps is not read here: never every one.
_ALL_OF_THEM = frozenset({"all", "every", "each", "everything", "of", "my", "the", "your", "these", "those", "pending",
                          "current", "active", "existing", "scheduled", "set", "upcoming", "reminders", "reminder",
                          "alarms", "alarm", "timers", "timer", "ones", "one", "please", "now", "for", "me", "i", "have",
                          "that", "are"})
_ZH_ALL_OF_THEM = ("所有", "全部", "都", "的", "提醒", "闹钟", "定时器", "计时器", "倒计时", "我", "把", "了", "吧", "掉", "全", "个", "条")


def _more_than_all(what: str, zh: bool) -> bool:
    """Whether ``what`` ("all reminders except …") says more than every one (of a kind)."""
    if zh:
        for word in _ZH_ALL_OF_THEM:
            what = what.replace(word, "")
        return bool(what.strip())
    return any(w.strip(".,!?") not in _ALL_OF_THEM for w in what.casefold().replace("'s", "").split())


def _cancelled(what: str, text: str, zh: bool) -> str | None:
    """What a request to cancel names, from the words said after its verb: "all", every one of a kind ("all timers",
    "所有闹钟"), a kind ("timer", "alarm"), or words of one ("dentist", "买菜"); ``None`` when "all" is said with words
    that keep some ("all reminders except the dentist"), which are not read here."""
    every = what.casefold().startswith(("all", "every", "each")) or (zh and ("所有" in what or "全部" in what)) or (
        zh and not what and ("全部" in text or "都" in text) and "提醒" in text and not _TIMER.search(text)
        and "闹钟" not in text)  # "把提醒全部删掉": every one; "把闹钟都关了": of a kind said, the tool asks which
    if every or (not what and "清空" in text):
        if _more_than_all(what, zh):
            return None
        what = "all"  # "清空提醒", "把提醒全部删掉", "提醒都删了": every one of them
        if _TIMER.search(text):
            what = "所有定时器" if zh else "all timers"  # "remove all my timers": the timers, not every reminder
        elif ("闹钟" if zh else "alarm") in text.casefold():
            what = "所有闹钟" if zh else "all alarms"
    if the := _THE.match(what):
        what = what[the.end():].strip()
    what = {"reminders": "", "reminder": "", "alarms": "alarm", "timers": "timer"}.get(what.casefold(), what)  # a kind
    if zh:  # "买菜的那个提醒": the one about 买菜
        for that in ("的那个", "那个", "的那条", "那条", "的这个", "这个"):
            what = what.removesuffix(that)
        what = what.removesuffix("的")
    if not what and _TIMER.search(text):
        what = "定时器" if zh else "timer"  # "cancel the timer": the kind is what it names
    elif not what and ("闹钟" if zh else "alarm") in text.casefold():
        what = "闹钟" if zh else "alarm"  # "cancel my alarm": an alarm, not any reminder
    return what


@unread_when_unfit
def read(question: str, now: datetime | None = None) -> RemindersArgs | None:
    """The request ``question`` makes of reminders, when it certainly makes one; else ``None``. One that sets a
    reminder carries the due time read from its ``when`` at ``now`` (default: the machine's clock)."""
    now = now or datetime.now().astimezone()
    text = request_text(question)
    if not text or len(text) > MAX_TEXT + 200:
        return None
    zh = bool(CJK.search(text))
    if "周末" in text or "weekend" in text.casefold():
        text = _weekend_timed(text, now)
    if _ZH_LIST.read(text) if zh else asks_list(text):
        return RemindersArgs(action="list")
    how, cancel = next(((how, said) for how, said in _CANCELS.each(text) if how in ("number", "zh" if zh else "en")),
                       ("", None))
    if how == "number" and cancel is not None:
        return RemindersArgs(action="cancel", target=cancel["n"])
    # what is cancelled must be named: a kind ("the timer"), or "the dentist one" (a reminder by its words, said
    # alone); "it", "that", "the next one" name nothing by themselves ("forget it", "stop this song and go to the
    # next one"): they act only after a reminders turn (:func:`tools.reminders.follow_ups.anaphoric`)
    what_said = cancel.get("what", "") if cancel is not None else ""
    if cancel is not None and _corrects_itself(what_said):
        return None  # "cancel the timer… I mean the reminder about the dentist": the model reads which
    if cancel is not None and (zh or any(kind in text.casefold() for kind in ("reminder", "timer", "alarm")) or
                   (_last_word(text) in ("one", "ones") and " and " not in what_said and
                    len(what_said.split()) <= 3 and _last_word(what_said) not in ("next", "previous", "other", "same"))):
        if (apart := _day_apart(what_said, zh, now)) is None:  # "all reminders for monday": Monday's, no other
            return None
        target = _cancelled(apart[0], text, zh)
        return None if target is None else RemindersArgs(action="cancel", target=target, when=apart[1])
    if not zh:
        text = _ask_first(text)  # "i have an appointment tomorrow at 9 remind me": "remind me i have …"
    repeat, anchor, text = _repeat_in(text, zh)  # "every weekday at 9", "每天早上8点": read once, then set aside
    if repeat == "unread":
        return None
    found = _read_set(text, zh)
    if found is None:
        return _after_context(question, lambda tail: read(tail, now))
    if found.text and _a_period_left(found.text, zh):
        return None  # "remind me next week at 10 to call bob" is no reminder at 10 today about "next week to call bob"
    if repeat:
        before, _, after = anchor.partition("|")
        found = found.model_copy(update={"repeat": repeat, "when": (f"{before}{found.when}" if zh else
                                                                    f"{before} {found.when} {after}").strip()})
        return found.read_at(first_due(repeat, found.when, now))
    times = [] if zh else times_read(question, now)
    if len(times) > 1:
        return None  # "an alarm at 6:30 and one at 7": two times are two alarms, not one at a time made of both
    said = dict(times)
    return found.read_at(said[found.when] if found.when in said else due(found.when, now))


# A reminder that comes back: "every day", "daily", "every morning", "every weekday", "on weekdays", "every Monday",
# "on Mondays"; "每天", "每日", "天天", "每个工作日", "工作日", "每周一", "每个星期五". The day of a weekly one stays in
# its time ("monday at 9", "周一上午10点"); a part of the day said with "every" joins it ("every morning at 7").
_EN_REPEAT = lazy_compile(
    r"\b(?:(?P<daily>every\s+(?:single\s+)?day|everyday|daily|each\s+day)|(?:every|each)\s+(?P<part>morning|afternoon|evening|night)"
    r"|(?P<weekdays>every\s+(?:week\s*day|work\s*day|working\s+day)|on\s+weekdays|weekdays)"
    r"|(?:every|each)\s+(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|(?:on|for)\s+(?P<days>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s"
    r"|(?:every|each)\s+(?P<span>(?:(?:\d+|[a-z]+(?:[ -][a-z]+)?)\s+)?(?:minutes?|mins?|hours?|hrs?)|half\s+(?:an\s+)?hour)"
    r"|(?P<hourly>hourly))\b", re.IGNORECASE)
_ZH_REPEAT = lazy_compile(r"(?P<daily>每天|每日|天天)|(?P<weekdays>每个工作日|每逢工作日|工作日)"
                          r"|每(?:个)?(?P<week>周|星期|礼拜)(?P<zday>[一二三四五六日天])"
                          r"|每隔?(?P<zspan>(?:\d+|[一两二三四五六七八九十]+|半)?个?(?:小时|钟头|分钟))")
_PARTS = {"morning": "in the morning", "afternoon": "in the afternoon", "evening": "in the evening", "night": "at night"}


def _repeat_in(text: str, zh: bool) -> tuple[str, str, str]:
    """How ``text`` says a reminder comes back (``daily``, ``weekdays``, ``weekly``, or ""), what of it belongs to
    the time (a weekday, said before it; after a ``|``, a part of the day, said after it), and the text without it."""
    m = (_ZH_REPEAT if zh else _EN_REPEAT).search(text)
    if m is None:
        return "", "", text
    g = m.groupdict()
    rest = (text[:m.start()] + " " + text[m.end():]).strip() if not zh else text[:m.start()] + text[m.end():]
    rest = " ".join(rest.split())
    if span := _every_said(g):  # "every 2 hours": again each time that span has passed
        return _every(span, zh, rest)
    if zh:
        for daily in ("每天", "每日", "天天") if not g.get("daily") else ():  # "工作日每天早上7点": the weekdays said twice
            rest = rest.replace(daily, "")
        if g.get("zday"):
            return "weekly", f"周{g['zday']}", rest
        return ("weekdays" if g.get("weekdays") else "daily"), "", rest
    if g.get("day") or g.get("days"):
        return "weekly", (g.get("day") or g.get("days") or "").lower(), rest
    if g.get("part"):  # said after the time it belongs to: "at 6" + "in the evening"
        return "daily", "|" + _PARTS[g["part"].lower()], rest
    return ("weekdays" if g.get("weekdays") else "daily"), "", rest


_A_WINDOW = Phrases(("until", "till", "between", "starting", "during", "except", "之间", "开始", "直到"),
                    re.IGNORECASE)  # "every hour until 6", "during work": when it runs, which the model reads


def _span_of(span: str, zh: bool) -> tuple[str, float | None]:
    """The span said after "every" ("2 hours", "hour", "half an hour", "两个小时", "半小时") as a delay is written
    ("2 hours", "1 hour", "2小时"), and its seconds; ``None`` for no length ("few hours")."""
    if zh:
        words = to_digits(span).removeprefix("个")
        words = words if words[:1].isdecimal() or words.startswith("半") else f"1{words}"  # "每小时": each 1 hour
    else:
        count, _, unit = span.rpartition(" ")
        value = 1.0 if not count or count.casefold() in ("a", "an", "one") else en_value(count) \
            if not count.replace(".", "", 1).isdecimal() else float(count)
        words = "half an hour" if span.casefold().startswith("half") else f"{value:g} {unit}" if value else ""
    return words, seconds_of(words) if words else None


def interval_said(question: str) -> float | None:
    """The seconds between the times a reminder comes back, as the request says them ("every hour": 3600, "每半小时":
    1800), or ``None``."""
    text = request_text(question)
    zh = bool(CJK.search(text))
    m = (_ZH_REPEAT if zh else _EN_REPEAT).search(text)
    span = _every_said(m.groupdict()) if m is not None else ""
    return _span_of(span, zh)[1] if span else None


def _every_said(g: dict[str, str | None]) -> str:
    """The span a repeat pattern's match says it comes back after ("2 hours", "hour" for "hourly", "两个小时"), or ""."""
    return g.get("span") or ("1 hour" if g.get("hourly") else "") or g.get("zspan") or ""


def _every(span: str, zh: bool, rest: str) -> tuple[str, str, str]:
    """A reminder that comes back each ``span`` ("2 hours", "hour", "half an hour", "两个小时", "半小时"): ``interval``,
    with the span as its first delay ("in 2 hours", "2小时后"); nothing when the span is no length ("every few
    hours"), or a time is said beside it ("every hour from 9 to 5"), which the model reads."""
    words, seconds = _span_of(span, zh)
    if not seconds or any(c.isdecimal() for c in rest) or _A_WINDOW.search(rest) or \
            (reads_time(rest) if not zh else _ZH_TIME.search(rest)):
        return "unread", "", rest  # read by no rule
    return "interval", "", f"{words}后{rest}" if zh else f"{rest} in {words}"


def first_due(repeat: str, when: str, now: datetime) -> Due:
    """The first time a reminder that comes back is due: a time of day said alone is read as it would be for
    tomorrow ("at 9" is 9 in the morning, "at 3" the afternoon) and falls today when that is still ahead; a weekday
    one, never on a Saturday or a Sunday."""
    zh = bool(CJK.search(when))
    if repeat == "interval":  # "every 2 hours": first in 2 hours, said as "in 2 hours"
        found = due(when, now)
        if found.at is not None and not (found.relative and found.said_span(now) >= MIN_INTERVAL):
            return Due(problem=LocalText(en="say how often, at least a minute apart: 'every 2 hours'.",
                                         zh="请说多久一次,至少隔一分钟:「每2小时」。"))
        return found
    found = due(when, now) if repeat == "weekly" else due(("明天" if zh else "tomorrow ") + when, now)
    if found.at is None or repeat == "weekly":
        return found
    at = found.at - timedelta(days=1) if found.at - timedelta(days=1) > now else found.at
    while repeat == "weekdays" and at.weekday() >= 5:  # in its own zone, the one the user said it in
        at += timedelta(days=1)
    return Due(at=at, problem=found.problem, relative=False, extras=found.extras)


# A Chinese request to set one, said first: "帮我设个闹钟", "提醒我买牛奶", "叫醒我"
_ZH_ASKED_TO_SET = Forms([
    ("[(帮我|请|给我|麻烦)] (设置|设定|设|定|开|来|建|加) [一] [个] [我的] [(叫醒|起床)] {kind} {rest}", "{kind}"),
    ("[(帮我|请|给我|麻烦)] (提醒我|叫醒我) {rest}", "reminder"),
], kinds={"kind": ("闹钟", "定时器", "计时器", "倒计时", "提醒")}, types={"any": r".*"}, slots={"rest": "any"})


R = TypeVar("R")
_CLAUSE_ENDS = (", ", ". ", "; ", "，", "。", "；")


def _after_context(question: str, reading: Callable[[str], R | None]) -> R | None:
    """A request said after what only sets the scene ("i'm making pasta, set a timer for 10 minutes", "going for a
    run, remind me in 30 minutes to stretch", "我在煮鸡蛋，设个3分钟的定时器"): the request, the last clause, read
    alone. What comes before must ask nothing itself: no question, no time, no word a reminder is set, listed or
    cancelled by. Once over the text: the clause read alone has no clause before it."""
    text = question.strip()
    cut = max(text.rfind(end) for end in _CLAUSE_ENDS)
    if cut <= 0:
        return None
    head, tail = text[:cut].strip(), text[cut + 1:].strip()
    if not tail or "?" in head or "？" in head or (len(head.split()) < 2 and not CJK.search(head)) \
            or head.split()[0].casefold() in _QUESTION_FIRST \
            or any(word in head.casefold() for word in _ASKING_WORDS) or times_said(head, datetime.now().astimezone()):
        return None
    return reading(tail)


_QUESTION_FIRST = frozenset({"what", "what's", "whats", "how", "how's", "when", "where", "who", "which", "why", "is", "are",
                             "will", "would", "can", "could", "do", "does", "did", "should", "tell", "please", "check"})
# Words that make a clause a request of its own, not the scene of one
_ASKING_WORDS = ("remind", "timer", "alarm", "reminder", "cancel", "delete", "remove", "list", "schedule", "提醒", "闹钟",
                 "定时", "计时", "取消", "删除", "日程")


def _before_an_event(question: str) -> bool:
    """A time said before an event the words do not time ("remind me one hour before the meeting i have tomorrow
    morning", "10 minutes ahead of my flight"): asking when is what fits."""
    said = f" {' '.join(question.casefold().split())} "
    for word in (" before ", " ahead of ", " prior to "):
        _, found, event = said.partition(word)
        if not found or not event.strip():
            continue
        times = times_said(event, datetime.now().astimezone())
        if not any(c.isdigit() for time in times for c in time):  # "before 5pm" is a time; "before the meeting" no hour
            return True
    return False


# How often a reminder comes back that none here keeps: the model reads it (never set once, never asked when)
_UNKEPT_REPEAT = Phrases(("every month", "each month", "of every month", "of each month", "monthly", "every year",
                          "each year", "yearly", "annually", "every other", "biweekly", "fortnightly", "every (second|third)",
                          "每月", "每个月", "每年", "隔天", "每隔一天", "每两周", "每隔一周"), re.IGNORECASE)


def hourless(request: RemindersArgs | None) -> bool:
    """A reminder to set whose words name its day and no hour ("remind me on friday to renew my passport",
    "下周一提醒我交报告"): its hour is asked back, and the reply joins the request."""
    found = request.due_read if request is not None and request.action == "set" else None
    return found is not None and found.at is None and found.problem is _NO_HOUR


def untimed(question: str) -> Literal["reminder", "timer"] | None:
    """A request to set one that names no time ("remind me to buy milk", "set a timer", "提醒我买牛奶"), or a day
    but no hour: its kind, so the time can be asked back; ``None`` otherwise."""
    text = request_text(question)
    zh = bool(CJK.search(text))
    if not text or len(text) > MAX_TEXT + 200 or (zh and _zh_about(text)):
        return None
    if (request := read(question)) is not None:
        return request.kind if hourless(request) else None
    if _repeat_in(text, zh)[0] == "unread" or _UNKEPT_REPEAT.search(text):
        return None  # "every hour from 9 to 5", "monthly": how often, with more than a time to ask for
    if (any(p in text for p in _ZH_PERIODS) if zh else _PERIODS.search(text)):
        return None  # "remind me next week to call bob": an hour said back would not place it (it had set one today)
    if not zh and times_said(question, datetime.now().astimezone()) and not _before_an_event(question):
        return None  # it names times (several, or one the rules could not place): asking "when?" would not fit
    if zh:
        said = _ZH_ASKED_TO_SET.read(text)
        if said is None:
            return _after_context(question, untimed)
        return "timer" if said in ("定时器", "计时器", "倒计时") else "reminder"
    # the ask said last, no time said ("i need to take out the trash please remind me"): the ask first; not a
    # question or a complaint about one ("why didn't you remind me", "you forgot to remind me")
    if (moved := _ask_first(text)) != text and not _NOT_ASKED & set(tokens(moved)):
        text = moved
    # "remind me of …", "remind me what/when …" ask to be told, now: no time to ask back for
    m = re.match(r"^(?:(?:can|could|would|will)\s+(?:you|u|i)\s+|how\s+about\s+|you\s+(?:need|have)\s+to\s+)?(?:please\s+)?"
                 r"(?:(?:dont|don't|do\s+not)\s+forget\s+to\s+)?"
                 r"(?:i(?:\s+need|\s+want|\s+would\s+like|'d\s+like|\s+must|\s+gotta|\s+have\s+to)\s+(?:you\s+)?(?:to\s+)?)?"
                 r"(?:(?:(?:set|start|create|add|make|schedule|open)(?:\s+up)?|give|get|turn\s+on)\s+(?:me\s+)?(?:an?\s+|the\s+|my\s+)?"
                 r"(?:(?:new|weekly|daily|monthly|event|appointment|meeting|calendar)\s+){0,2}"
                 r"(?P<kind>timer|alarm|reminder|countdown)\b"
                 r"|an?\s+(?:new\s+)?(?P<noun>timer|alarm|reminder|countdown)\b(?!\s+(?:of|that|is|was)\b)"
                 r"|new\s+(?:timer|alarm|reminder|countdown)(?:,?\s+please)?$|remind\s+me\b(?!\s+(?:of|about\s+(?:what|when|"
                 r"who|how|why|where|which)|what|when|who|whom|how|why|where|which|whether|if)\b)|wake\s+me\b"
                 r"|(?:be|get)\s+(?P<told>reminded|notified)\b(?!\s+(?:of|about|how|what|that|when|why)\b))", text, re.IGNORECASE)
    if m:
        return "timer" if (m.group("kind") or m.group("noun") or "").lower() in ("timer", "countdown") else "reminder"
    return _after_context(question, untimed)


# A question about setting one, not a request: "明天8点叫我起床的话要怎么设置闹钟?", "提醒功能怎么用"
_ZH_ABOUT = ("怎么", "如何", "怎样", "为什么", "为啥", "是什么", "什么意思", "的话", "能不能用", "有没有用", "好不好")


def _a_time_first(words: str) -> bool:
    """Whether ``words`` begin with a time ("早上7点", "7点半", "明天", "周五"), as the Chinese times are read."""
    return bool((m := _ZH_WHEN.match(words)) and m.group(0).strip())


def _zh_about(text: str) -> bool:
    return any(w in text for w in _ZH_ABOUT)


def _read_set(text: str, zh: bool) -> RemindersArgs | None:
    if zh and _zh_about(text):
        return None
    m = (_ZH_SET if zh else _EN_SET).match(text)
    if not m:
        return None
    g = m.groupdict()
    if zh:
        said_kind = g.get("kind") or g.get("kind4") or g.get("kind8") or g.get("kind9") or ""
        kind = "timer" if said_kind in ("定时器", "计时器", "倒计时", "计时") or (g.get("rest3") is not None and text.startswith(("倒计时", "计时"))) else "reminder"
        after = g.get("after") or ""
        if after[:1] in ("为", "成", "到", "在") and _a_time_first(after[1:]):
            after = after[1:]  # the alarm set to a time: "设置闹钟为早上七点", "定个闹钟在7点"
        body = " ".join(x for x in (g.get("rest"), after, g.get("pre"), g.get("rest2"), g.get("rest3"),
                                    g.get("rest4"), g.get("rest5"), g.get("rest6"), g.get("rest7"), g.get("rest8"),
                                    g.get("rest9")) if x)
        request = _split_zh(body, kind)
        if request is not None and (g.get("rest7") is not None or g.get("rest4") is not None) and request.text:
            return None  # words beside the time ("我用了10分钟计时", "闹钟坏了3天了"): talked about, not set
        alarm = said_kind == "闹钟" or g.get("rest5") is not None or g.get("rest7") is not None
        if request is not None and (alarm or "叫醒" in text):
            request = request.model_copy(update={"when": zh_in_the_morning(request.when)})
        return request
    kind = "timer" if (g.get("kind0") or g.get("kind") or g.get("kind2") or "").lower() in ("timer", "countdown") \
        or g.get("rest3") else "reminder"
    body = (f"for {g['dur0']}{g.get('rest0') or ''}" if g.get("dur0") else
            next(x for x in (g.get("rest"), g.get("rest2"), g.get("dur"), g.get("rest3"), g.get("rest4")) if x is not None))
    if (g.get("kind") or "").lower() == "alarm" and (bare := re.fullmatch(
            r"\s*(?:for\s+|at\s+)?(\d{1,2}(?::\d{2})?)(\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight|"
            r"tomorrow(?:\s+(?:morning|afternoon|evening))?|(?:on\s+)?(?:next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day))?\s*",
            body)):  # "for 8 on saturday": the hour with its day
        body = f"at {bare.group(1)}{bare.group(2) or ''}"  # "an alarm for 7", "for 6 in the morning": a time of day
    request = _split_en(body.strip(), kind)
    waking = (g.get("remind") or "").lower().startswith("wake") or (g.get("kind") or g.get("kind0") or "").lower() == "alarm"
    if request is not None and waking:
        request = request.model_copy(update={"when": in_the_morning(request.when)})
    return request


def in_the_morning(when: str) -> str:
    """An alarm's time: "at 7", "tomorrow at 5", "6:30", "for 10:00" are the morning's hour unless a part of the day
    is said ("wake me up at 7", "an alarm for 6:30"); "in 10 minutes" is no hour."""
    if any(c.isdecimal() for c in when) and not re.search(
            r"a\.?m\b|p\.?m\b|morning|afternoon|evening|night|tonight|noon|midnight|\b(?:in|after)\s+\d|"
            r"\b(?:1[3-9]|2[0-3]):\d\d|"
            r"minutes?|hours?|seconds?", when, re.IGNORECASE):
        return f"{when} in the morning"
    return when


_ZH_PARTS_OF_DAY = (*_ZH_PART.split("|"), "夜间", "午夜", "半夜")  # the parts of the day the times read, and the night's


def zh_in_the_morning(when: str) -> str:
    """An alarm's time in Chinese: "7点", "明天7点" are the morning's hour unless a part of the day is said ("晚上7点")
    or it is a span ("10分钟后")."""
    first = next((i for i, c in enumerate(when) if c.isdigit()), None)
    if first is None or any(p in when for p in _ZH_PARTS_OF_DAY) or any(u in when for u in ("分钟", "小时", "秒", "后")):
        return when
    return f"{when[:first]}早上{when[first:]}"


_EN_WHEN = lazy_compile(
    rf"(?:\b(?:in|for|after)\s+)?(?:[-−–]\s*)?(?:{_EN_DURATION.pattern})(?:\s+(?:from\s+now|later))?"
    r"|(?:(?:\b(?:on\s+)?(?:(?:next|this)\s+)?(?:today|tonight|tomorrow|tmrw|yesterday|the\s+day\s+after\s+tomorrow|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4}(?!\s*(?:st|nd|rd|th|:|\d)))?"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:,?\s+\d{4}\b)?"
    r"|\d{4}-\d{2}-\d{2}))\b\s*(?:morning|afternoon|evening|night)?\s*)?(?:(?:at|by|around)\s+\d{1,2}(?::\d{2})?(?:\s*(?:a\.?m\.?|p\.?m\.?))?"
    r"(?:\s+o'?clock)?(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight))?|\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)"
    r"|\d{1,2}:\d{2}(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight))?|\b(?:at\s+)?(?:noon|midday|midnight)\b)"
    # a day with its part and no hour ("on sunday afternoon", "tomorrow morning"): the part's usual hour, never "noon"
    # read inside "afternoon"; a part alone ("in the afternoon", "this evening"): the next such part
    r"|\b(?:on\s+)?(?:(?:next|this)\s+)?(?:today|tonight|tomorrow|tmrw|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)\s+(?:morning|afternoon|evening|night)\b|\b(?:this|in\s+the)\s+(?:morning|afternoon|evening)\b"
    r"|\b(?:on\s+)?(?:(?:next|this)\s+)?(?:today|tonight|tomorrow|tmrw|yesterday|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)\b"
    # a date said after the time ("at 9 on 28 Dec 2026"): read with it, never left in the reminder's text
    r"|\b(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
    r"\.?(?:,?\s+\d{4}\b)?|\b(?:on\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}"
    r"(?:st|nd|rd|th)?\b(?:,?\s+\d{4}\b)?|\b(?:on\s+)?\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:on\s+)?(?:the\s+)?(?:\d{1,2}|" + EN_ORDINAL + r")(?:st|nd|rd|th)?\s+(?:of\s+)?(?:this|next)\s+month\b"  # "on the 1st of next month"
    r"|\bon\s+the\s+\d{1,2}(?:st|nd|rd|th)\b",  # the day of this month, or of the next ("on the 5th")
    re.IGNORECASE)


def _split_en(body: str, kind: str) -> RemindersArgs | None:
    """The time phrase and what it is about, from "at 4 to call the dentist", "to call mum tomorrow at 9",
    "for 10 minutes"; ``None`` unless both are read whole (nothing left over but the words that join them)."""
    spans = [m for m in _EN_WHEN.finditer(body) if m.group(0).strip()]
    if not spans:
        return None
    when = " ".join(m.group(0).strip() for m in spans)
    rest = body
    for m in reversed(spans):
        rest = rest[:m.start()] + " " + rest[m.end():]
    rest = " ".join(rest.split()).strip(" ,")
    about = _ABOUT.match(rest)  # "[and] to call mum", "that the car is due"
    text = rest[about.end():].strip() if about and rest[about.end():about.end() + 1].isspace() else rest.strip()
    if text.lower().startswith("ish ") and when[-1:].isdigit():  # "at 5ish to leave": about 5
        text = text[4:].lstrip()
        text = text[3:].lstrip() if text.lower().startswith("to ") else text
    while text.lower().startswith("to "):  # "remind [me] to at 8 pm to take my medicine"
        text = text[3:].lstrip()
    if kind == "timer" and (said := _FOR_THE.match(text)):  # "a timer for 3 minutes for the eggs": the eggs
        text = text[said.end():].lstrip()
    if _last_word(text) in ("for", "on", "at", "by", "in") and " " in text:  # "…the dentist for [tomorrow at 11]"
        text = text.rsplit(None, 1)[0]
    if not text and rest:
        return None
    if {"alarm", "alarms", "timer", "timers"} & set(text.casefold().split()) and any(c.isdigit() for c in text):
        return None  # "an alarm for 7 and a timer for 10 minutes": two requests, one read into the other's words
    if _UNREAD_TIME.match(text) or _repeats_unread(body):
        return None  # "tomorrow at daybreak", "at bedtime": a time of day the rules do not read, not what it is about;
        # "on the 30th of every month": a repeat the reminders do not keep, never one set once
    if text.replace(":", "").isdigit() or set(text.casefold().split()) <= _REQUEST_WORDS:
        text = ""  # "i want a [10 minute timer]", "a brand new [timer]", "an alarm clock", "[12] noon": no subject
    if _last_word(rest) in ("to", "that", "about"):
        return None
    if kind != "timer" and (text.casefold().split()[:1] in (["before"], ["ahead"], ["prior"]) or
                            _last_word(text) in ("before", "beforehand", "ahead", "prior", "early", "earlier")):
        return None  # "remind me 10 minutes before the meeting", "… about the meeting 15 minutes before": before an
        # event whose time is not said, not in 10 minutes
    return RemindersArgs(action="set", kind="timer" if kind == "timer" else "reminder", when=when, text=text)


_ABOUT = Phrases(("[and] (to|that|about|of|so i can)",), re.IGNORECASE)
# A time of day said by what happens then, which no clock reading gives ("an alarm for tomorrow at daybreak")
_UNREAD_TIME = Phrases(("(at|around|by|before|after|until) [the] (daybreak|dawn|sunrise|sunup|first light|twilight|dusk|"
                        "sunset|sundown|nightfall|bedtime|lunchtime|dinnertime|teatime)",), re.IGNORECASE)
# How often a reminder comes back that none here does (daily, on weekdays and weekly ones are read as such)
_UNREAD_REPEAT = Phrases(("(every|each) (month|year|fortnight|hour)", "(monthly|yearly|annually|biweekly|fortnightly|hourly)",
                          "of (every|each) month", "once a (month|year)", "(twice|three times) a (day|week|month)"),
                         re.IGNORECASE)


def _repeats_unread(body: str) -> bool:
    """``body`` (numbers in words already digits) says a reminder comes back in a way none here does ("on the 30th of
    every month", "every 2 hours", "every other day"): never one set once (daily, weekday and weekly ones are read
    before)."""
    words = body.casefold().split()
    return bool(_UNREAD_REPEAT.search(body)) or any(
        w in ("every", "each") and i + 1 < len(words)
        and (words[i + 1][:1].isdigit() or words[i + 1] in ("other", "few", "couple", "second", "third"))
        for i, w in enumerate(words))
# The words a request to set one is made of, which are never what it is about when they are all that is left
_REQUEST_WORDS = frozenset("""
i i'd i'm id want wanna wish need needs gotta got have get like would could can you u me my a an the one another
brand new clock for on at in to please pls plz now right away starting start from set setting up make create
just some quick little
""".split())
_FOR_THE = Phrases(("for the", "to the", "about the", "for", "to", "about"), re.IGNORECASE)
# A day said in Chinese: a named one, a weekday, a date ("明天", "下周一", "5月3日")
_ZH_DAYS = (r"今天|今日|今晚|今早|明天|明日|明早|明晚|后天|大后天|昨天|前天|(?:下下(?:个)?|下(?:个)?|这(?:个)?|本)?(?:周|星期|礼拜)[一二三四五六日天]"
            r"|(?:\d{4}年)?\d{1,2}月\d{1,2}[日号]|(?:下个?月|本月|这个?月)\d{1,2}[日号]")
_ZH_WHEN = lazy_compile(
    rf"(?:(?:{_ZH_DAYS}|\d{{1,2}}[日号])\s*)?"
    rf"(?:(?:{_ZH_PART})\s*)?\d{{1,2}}\s*(?:点|时|:)\s*(?:半|\d{{1,2}}\s*分?|[一三]刻)?(?:钟)?"
    r"|(?:过)?(?:[-−–负]\s*)?(?:\d+\s*个?半\s*(?:小时|钟头)|\d+(?:\.\d+)?\s*(?:个小时|小时|个钟头|钟头|分钟|分|秒钟|秒|天|个星期|星期|个礼拜|礼拜|周|年)(?:半)?(?:\s*(?:零)?\d+\s*(?:分钟|分|秒钟|秒))?|半(?:个)?小时|一刻钟|\d刻钟)"
    r"\s*(?:以后|之后|后)?"
    rf"|(?:{_ZH_DAYS})\s*(?:{_ZH_PART})?"
    rf"|(?:{_ZH_PART})")  # a part of the day alone, as "in the evening" is: "提醒我晚上穿正装"


# Words said before the ask that are no part of what to be reminded of: "记得提醒我明天交作业", "到时候叫我"
_ZH_LEADS = ("一定要记得", "一定记得", "记得要", "记得", "别忘了", "到时候", "到时", "一定要", "务必",
             "内容是", "内容为", "内容:", "内容：",  # "设一个下午两点的提醒，内容是交报告"
             "需要在", "想在", "要在", "希望在")  # "我需要在下午四点半被提醒去接孩子"


def _split_zh(body: str, kind: str) -> RemindersArgs | None:
    body = body.strip(" ,，")
    spans = [m for m in _ZH_WHEN.finditer(body) if m.group(0).strip()]
    if not spans:
        return None
    when = "".join(m.group(0) for m in spans)
    rest = body
    for m in reversed(spans):
        rest = rest[:m.start()] + rest[m.end():]
    rest = re.sub(r"^(?:的|在|我)?\s*|(?:的)?(?:吧|哦|啊|呀)?$", "", rest.strip(" ,，")).strip(" ,，")
    rest = next((rest[len(ask):] for ask in ("提醒我", "叫我") if rest.startswith(ask)), rest).strip()
    rest = next((rest[len(lead):] for lead in _ZH_LEADS if rest.startswith(lead)), rest).strip()  # "记得 交作业"
    rest = next((rest[:-2] for tail in ("一下", "一声") if rest.endswith(tail)), rest).strip(" ,，")  # "叫我一下"
    if kind == "timer":
        rest = rest.removeprefix("的")
    if any(ask in rest for ask in ("提醒我", "叫我", "叫醒我")) or len(spans) > 1 and any(c in body for c in ",，;；"):
        return None  # "五分钟后提醒我关火,十分钟后提醒我出门": two requests, never one made of both
    return RemindersArgs(action="set", kind="timer" if kind == "timer" else "reminder", when=when, text=rest)


def names_a_day(when: str) -> bool:
    """Whether ``when`` names a day ("tomorrow at 9", "on friday", "明天9点"), not only a time of day or a span."""
    return (_ZH_DAY if CJK.search(when) else _EN_DAY).search(when) is not None


def said_bare(when: str) -> bool:
    """Whether a time of day is said with no part of the day and no am or pm ("at 9", "9点"): morning or evening."""
    said = when.casefold()
    return not any(mark in said for mark in ("am", "a.m", "pm", "p.m", "morning", "afternoon", "evening", "night",
                                              "noon", "midnight", *_ZH_PARTS_OF_DAY, "今晚", "明晚", "明早"))


def reads_time(when: str) -> bool:
    """``when`` names a time or a delay (whether or not it has passed)."""
    found = due(when, datetime.now().astimezone())
    return found.at is not None or found.problem not in (_NO_TIME, _NO_HOUR)


def at_hour(when: str) -> str:
    """A bare hour said as the new time ("make it 7", "another one at 5", "to 6 at night", "to 7 tomorrow") as the time
    of day it is: "at 7", "at 6 at night"."""
    first, _, after = when.strip().partition(" ")
    hour, colon, minutes = first.partition(":")
    bare = hour.isdecimal() and len(hour) <= 2 and (not colon or (minutes.isdecimal() and len(minutes) == 2))
    return f"at {when.strip()}" if bare and (not after or after.lower().startswith(_AFTER_AN_HOUR)) else when


_AFTER_AN_HOUR = ("in the morning", "in the afternoon", "in the evening", "at night", "tonight", "tomorrow", "today",
                  "this ", "on ", "o'clock", "oclock")


def times_said(question: str, now: datetime) -> list[str]:
    """The words of each time :func:`times_read` finds."""
    return [words for words, _ in times_read(question, now)]


def times_read(question: str, now: datetime) -> list[tuple[str, Due]]:
    """Every time or delay said in an English request ("at 6 am tomorrow", "for 10am" and "for 2pm", "for 10
    minutes"), once numbers in words are digits: each longest run of words of time (a number, "at", "tomorrow",
    "pm", "in the morning" …) that :func:`due` reads as a time. For a request the learned reader is
    certain sets one; what else it says is the reader's frame's to account for."""
    runs: list[list[str]] = [[]]
    for word in _plain(question).split():
        w = word.strip(",.?!;").lower()
        if w and (any(c.isdigit() for c in w) or w in _TIME_WORDS):
            runs[-1].append(w)
        if not w or w != word.lower() or not (any(c.isdigit() for c in w) or w in _TIME_WORDS):
            runs.append([])  # a word of no time, or a comma after one, ends the run
    pieces = [" ".join(r).strip() for r in runs if any(any(c.isdigit() for c in w) or w in _DAY_WORDS for w in r)]
    pieces = [p.removeprefix("from ") if p.startswith("from ") and p[5:6].isdigit() else p for p in pieces]
    read = [(p, due(p, now)) for p in pieces]  # "counting down from 10 minutes": 10 minutes
    if any(found.at is not None and not found.relative for _, found in read):  # "alarms for 6, 6:15 and 6:30":
        read = [(f"at {hour}", due(f"at {hour}", now)) if found.at is None and (hour := _bare_hour(p)) else (p, found)
                for p, found in read]  # the bare hour beside times of day is one too
    days = [p for p, found in read if found.problem is _NO_HOUR]
    hours = [p for p, found in read if found.at is not None and not found.relative]
    if len(days) == 1 and len(hours) == 1:  # "tomorrow i need the alarm to go off at 5": one time, said apart
        together = due(f"{days[0]} {hours[0]}", now)
        if together.at is not None:
            read = [(f"{days[0]} {hours[0]}", together) if p == hours[0] else (p, found) for p, found in read
                    if p != days[0]]
    return [(p, found) for p, found in read if found.at is not None or found.problem is _PAST]  # a time, even one
    # gone by: set, it is said to have passed; whatever the clock, the same words are the same times


def _bare_hour(piece: str) -> str:
    """The hour of a piece that is one and nothing more ("for 6", "at 7"), or "" (a number alone is a count: "two
    alarms")."""
    hour = piece.removeprefix("for ").removeprefix("at ").strip()
    return hour if hour != piece and hour.isdecimal() and 0 < int(hour) <= 24 else ""


_DAY_WORDS = {"tomorrow", "tonight", "today", "noon", "midnight", *_EN_WEEKDAYS}
_TIME_WORDS = {"at", "for", "in", "by", "on", "around", "about", "the", "this", "next", "a", "an", "am", "pm", "a.m.",
               "p.m.", "o'clock", "oclock", "from", "now", "half", "quarter", "past", "morning", "evening", "afternoon",
               "night", "second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours", "hr",
               "hrs", "day", "days", "week", "weeks", *_DAY_WORDS, *_EN_MONTHS}
