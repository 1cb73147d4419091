"""A time of day as people write it, in English and Chinese: "3pm", "3:30 p.m.", "15:00", "at 4", "noon", "下午3点",
"晚上8点半", "上午10点15分", "9点一刻". The reminders read "when" with these patterns; :func:`clock_time` reads one time
alone, when it is certain which hour it is (the clock's conversions: "3pm in London", "伦敦下午3点")."""

from __future__ import annotations

import re

from tools.lazy_re import lazy_compile
from tools.reading.forms import Phrases

EN_TIME = lazy_compile(
    r"\b(?:at\s+|by\s+|around\s+)?(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|\b(?:at\s+|by\s+|around\s+)?(?P<h24>\d{1,2}):(?P<m24>\d{2})\b"
    r"|\b(?:at|by|around)\s+(?P<hb>\d{1,2})(?![\d:.])(?:\s+o'?clock)?(?:\s+(?P<part>in\s+the\s+(?:morning|afternoon|evening)|"
    r"at\s+night|tonight))?"
    r"|\b(?P<word>noon|mid[\s-]?day|midnight)\b", re.IGNORECASE)
ZH_PARTS = Phrases(("凌晨", "早上", "早晨", "清晨", "上午", "中午", "下午", "傍晚", "晚上", "夜里", "今晚", "明晚", "明早", "今早"))
ZH_PART = ZH_PARTS.body()
ZH_TIME = lazy_compile(rf"(?P<part>{ZH_PART})?\s*(?P<h>\d{{1,2}})\s*(?:点|时|:)\s*(?:(?P<half>半)|(?P<m>\d{{1,2}})\s*分?|"
                      r"(?P<q>[一三])刻)?(?:钟)?")



_LATER = ("下午", "傍晚", "晚上", "夜里", "今晚", "明晚", "afternoon", "evening", "night", "tonight")


def on_24h(h: int, ampm: str | None, part: str | None) -> int | None:
    """The hour on the 24-hour clock: 3 with pm, or with a later part of the day (下午, "in the afternoon"), is 15;
    1 with 中午 is 13; ``None`` for an hour that am or pm cannot have."""
    if ampm:
        return h % 12 + (12 if ampm.lower().startswith("p") else 0) if 1 <= h <= 12 else None
    if part and any(p in part for p in _LATER) and h < 12:
        return h + 12
    if part and "中午" in part and h < 6:
        return h + 12
    return h


def clock_time(text: str) -> tuple[int, int] | None:
    """(hour, minute) on the 24-hour clock when ``text`` is one time of day whose hour is certain: with am/pm, as
    HH:MM, an hour past 12, noon or midnight, or a Chinese part of the day (下午3点); ``None`` for "3" or "3点" alone
    (morning or afternoon?) and for anything more."""
    t = text.strip()
    if m := EN_TIME.fullmatch(t):
        if m.group("word"):
            return (0, 0) if m.group("word").lower() == "midnight" else (12, 0)  # noon, midday, "mid day"
        if m.group("ampm"):
            hour, minute = on_24h(int(m.group("h")), m.group("ampm"), None), int(m.group("m") or 0)
            return (hour, minute) if hour is not None and minute <= 59 else None
        if m.group("h24"):
            h, minute = int(m.group("h24")), int(m.group("m24"))
            return (h, minute) if h <= 23 and minute <= 59 else None
        return None  # "at 4": morning or afternoon
    if m := ZH_TIME.fullmatch(t):
        h = int(m.group("h"))
        minute = 30 if m.group("half") else 15 * (1 if m.group("q") == "一" else 3) if m.group("q") else int(m.group("m") or 0)
        if m.group("part") is None and h <= 12:
            return None  # "3点": morning or afternoon
        hour = on_24h(h, None, m.group("part"))
        return (hour, minute) if hour is not None and hour <= 23 and minute <= 59 else None
    return None


def hour_said(text: str) -> tuple[int, int, bool] | None:
    """(hour, minute, whether the half of the day is said) of one time of day: "5 pm" (17, 0, True), "17:30",
    "下午5点"; "5", "5 o'clock", "5:30", "12点25分" (5, 0, False): either half of the day, which the caller picks
    (the next to come). ``None`` when ``text`` is no time of day."""
    t = " ".join(text.strip().casefold().split()).removeprefix("at ").replace("o'clock", "").replace("oclock", "").strip()
    found = clock_time(t)
    if found is not None:
        h, m = found
        bare = ":" in t and t.replace(":", "").isdigit() and 1 <= h <= 12  # "5:30": morning or afternoon
        return h, m, not bare
    hour, _, rest = t.partition("点") if "点" in t else t.partition(":") if ":" in t else (t, "", "")
    minute = "30" if rest.strip() == "半" else rest.strip().removesuffix("分").strip() or "0"
    if not (hour.isdigit() and minute.isdigit() and int(hour) <= 23 and int(minute) <= 59):
        return None
    return int(hour), int(minute), int(hour) > 12 or int(hour) == 0
