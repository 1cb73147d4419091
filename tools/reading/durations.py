"""How long a span said is, in both languages ("90 seconds", "1h30m", "an hour and a half", "半小时", "1小时20分"): one
reader for the reminders' delays and timers and the clock's "in 45 minutes" / "两个小时后"."""

from __future__ import annotations

import re

from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms

_UNITS_EN = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60, "minute": 60,
             "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "day": 86400,
             "days": 86400, "week": 604800, "weeks": 604800, "year": 31536000, "years": 31536000}
_UNITS_ZH = {"秒": 1, "秒钟": 1, "分钟": 60, "分": 60, "小时": 3600, "个小时": 3600, "钟头": 3600, "个钟头": 3600,
             "天": 86400, "日": 86400, "周": 604800, "个星期": 604800, "星期": 604800, "礼拜": 604800, "个礼拜": 604800,
             "年": 31536000}
_NUM = r"\d+(?:\.\d+)?"
_EN_PART = rf"(?:(?P<n>{_NUM}(?=\s*[a-z])|\b(?:an?|one)(?=\s))\s*(?P<u>seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|weeks?|years?)(?![a-z]))"
EN_DURATION = lazy_compile(
    rf"(?:(?:a\s+)?half\s+(?:an\s+|a\s+)?hour|an?\s+hour\s+and\s+a\s+half|{_NUM}\s+and\s+a\s+half\s+hours?|"
    rf"(?:a\s+)?quarter\s+(?:of\s+)?an?\s+hour|{_EN_PART}(?:\s*(?:,|and)?\s*{_EN_PART.replace('?P<n>', '?:').replace('?P<u>', '?:')})*)",
    re.IGNORECASE)
_EN_PARTS = lazy_compile(_EN_PART, re.IGNORECASE)
# Spans said in words rather than counted: "half an hour", "an hour and a half", "2 and a half hours", "a quarter of an
# hour" (in seconds).
_SPOKEN_SPANS = Forms([
    ("[a] half [(an|a)] hour", "1800"), ("(an|a) hour and a half", "5400"),
    ("{n:amount} and a half (hours|hour)", lambda v: str((float(v["n"]) + 0.5) * 3600)),
    ("[a] quarter [of] (an|a) hour", "900"),
])
_ZH_DURATION = lazy_compile(
    r"(?:(?P<nh>\d+)\s*个?半\s*(?:小时|钟头)|(?P<n>\d+(?:\.\d+)?)\s*(?P<u>个小时|小时|个钟头|钟头|分钟|分(?!之)|秒钟|秒|天|个星期|星期|个礼拜|礼拜|周|年)(?P<half>半)?"
    r"(?:\s*(?:零)?(?P<n2>\d+)\s*(?P<u2>分钟|分|秒钟|秒))?|半(?:个)?小时|一刻钟|(?P<q>\d)刻钟)")


def seconds_of(text: str) -> float | None:
    """The length of a duration as written ("90 seconds", "1h30m", "an hour and a half", "半小时", "1小时20分"),
    or ``None``."""
    t = text.strip().lower()
    if EN_DURATION.fullmatch(t):
        if (said := _SPOKEN_SPANS.read(t)) is not None:
            return float(said)
        total = 0.0
        for part in _EN_PARTS.finditer(t):
            n = 1.0 if part.group("n") in ("a", "an", "one") else float(part.group("n"))
            total += n * _UNITS_EN[part.group("u")]
        return total or None
    m = _ZH_DURATION.fullmatch(t)
    if m:
        if t.startswith("半"):
            return 1800
        if t == "一刻钟":
            return 900
        if m.group("q"):
            return int(m.group("q")) * 900
        if m.group("nh"):
            return (int(m.group("nh")) + 0.5) * 3600
        unit = _UNITS_ZH[m.group("u")]
        total = float(m.group("n")) * unit + (unit / 2 if m.group("half") else 0)
        if m.group("n2"):
            total += int(m.group("n2")) * _UNITS_ZH[m.group("u2")]
        return total
    return None
