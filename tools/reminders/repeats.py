"""A reminder that comes back, read from words without a model: "every day", "daily", "every morning", "every
weekday", "every Monday", "on Mondays", "every 2 hours"; "每天", "工作日", "每周一", "每隔半小时"; and when such a
reminder is first due. A repeat these rules do not keep (monthly, yearly) or a window beside it ("every hour until 6")
is left to the model."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from tools.base import CJK, LocalText
from tools.lazy_re import lazy_compile
from tools.reading.durations import seconds_of
from tools.reading.forms import Phrases
from tools.reading.numerals import en_value, to_digits
from tools.reading.time_of_day import ZH_TIME as _ZH_TIME
from tools.reminders.book import MIN_INTERVAL
from tools.reminders.due import Due, due, request_text
from tools.reminders.times import reads_time


# A reminder that comes back: "every day", "daily", "every morning", "every weekday", "on weekdays", "every Monday",
# "on Mondays"; "每天", "每日", "天天", "每个工作日", "工作日", "每周一", "每个星期五". The day of a weekly one stays in
# its time ("monday at 9", "周一上午10点"); a part of the day said with "every" joins it ("every morning at 7").
EN_REPEAT = lazy_compile(
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


def repeat_in(text: str, zh: bool) -> tuple[str, str, str]:
    """How ``text`` says a reminder comes back (``daily``, ``weekdays``, ``weekly``, or ""), what of it belongs to
    the time (a weekday, said before it; after a ``|``, a part of the day, said after it), and the text without it."""
    m = (_ZH_REPEAT if zh else EN_REPEAT).search(text)
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
    m = (_ZH_REPEAT if zh else EN_REPEAT).search(text)
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
