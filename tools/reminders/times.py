"""The times a reminder's request says, without a model: every time or delay in an English request ("alarms for 6,
6:15 and 6:30", "tomorrow i need the alarm to go off at 5"), whether a time names a day or a part of the day, and a
bare hour said as a new time ("make it 7": at 7)."""

from __future__ import annotations

from datetime import datetime

from tools.base import CJK
from tools.reading.time_of_day import ZH_PART as _ZH_PART
from tools.reminders.due import EN_DAY, EN_MONTHS, EN_WEEKDAYS, NO_HOUR, NO_TIME, PAST, ZH_DAY, Due, due, plain

ZH_PARTS_OF_DAY = (*_ZH_PART.split("|"), "夜间", "午夜", "半夜")  # the parts of the day the times read, and the night's


def names_a_day(when: str) -> bool:
    """Whether ``when`` names a day ("tomorrow at 9", "on friday", "明天9点"), not only a time of day or a span."""
    return (ZH_DAY if CJK.search(when) else EN_DAY).search(when) is not None


def said_bare(when: str) -> bool:
    """Whether a time of day is said with no part of the day and no am or pm ("at 9", "9点"): morning or evening."""
    said = when.casefold()
    return not any(mark in said for mark in ("am", "a.m", "pm", "p.m", "morning", "afternoon", "evening", "night",
                                              "noon", "midnight", *ZH_PARTS_OF_DAY, "今晚", "明晚", "明早"))


def reads_time(when: str) -> bool:
    """``when`` names a time or a delay (whether or not it has passed)."""
    found = due(when, datetime.now().astimezone())
    return found.at is not None or found.problem not in (NO_TIME, NO_HOUR)


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
    for word in plain(question).split():
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
    days = [p for p, found in read if found.problem is NO_HOUR]
    hours = [p for p, found in read if found.at is not None and not found.relative]
    if len(days) == 1 and len(hours) == 1:  # "tomorrow i need the alarm to go off at 5": one time, said apart
        together = due(f"{days[0]} {hours[0]}", now)
        if together.at is not None:
            read = [(f"{days[0]} {hours[0]}", together) if p == hours[0] else (p, found) for p, found in read
                    if p != days[0]]
    return [(p, found) for p, found in read if found.at is not None or found.problem is PAST]  # a time, even one


def _bare_hour(piece: str) -> str:
    """The hour of a piece that is one and nothing more ("for 6", "at 7"), or "" (a number alone is a count: "two
    alarms")."""
    hour = piece.removeprefix("for ").removeprefix("at ").strip()
    return hour if hour != piece and hour.isdecimal() and 0 < int(hour) <= 24 else ""


_DAY_WORDS = {"tomorrow", "tonight", "today", "noon", "midnight", *EN_WEEKDAYS}


_TIME_WORDS = {"at", "for", "in", "by", "on", "around", "about", "the", "this", "next", "a", "an", "am", "pm", "a.m.",
               "p.m.", "o'clock", "oclock", "from", "now", "half", "quarter", "past", "morning", "evening", "afternoon",
               "night", "second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours", "hr",
               "hrs", "day", "days", "week", "weeks", *_DAY_WORDS, *EN_MONTHS}
