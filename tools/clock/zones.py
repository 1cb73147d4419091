"""A country's time zones and its name, from the zone database's own tables (``zone.tab``, ``iso3166.tab``):
"what time zone is Russia in" has eleven answers, and the assistant says so instead of giving Moscow's alone.

The tables come with the ``tzdata`` package where it is installed (Windows, or any machine that has it), else
from the system's zone database (``/usr/share/zoneinfo``); where neither is found a country is answered by its
capital's zone alone."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tools.clock.dates import utc_offset

_SYSTEM = Path("/usr/share/zoneinfo")


def _table(name: str) -> list[list[str]]:
    """The rows of one of the zone database's tables, comments left out; empty when it is nowhere to be read."""
    text = None
    try:
        text = resources.files("tzdata.zoneinfo").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        try:
            text = (_SYSTEM / name).read_text(encoding="utf-8")
        except OSError:
            return []
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def _zones_by_country() -> dict[str, tuple[str, ...]]:
    by: dict[str, list[str]] = {}
    for row in _table("zone.tab"):
        if len(row) >= 3:
            by.setdefault(row[0], []).append(row[2])
    return {code: tuple(zones) for code, zones in by.items()}


@cache
def _country_of_zone() -> dict[str, str]:
    return {row[2]: row[0] for row in _table("zone.tab") if len(row) >= 3}


def country_of_zone(zone: str) -> str | None:
    """The country a time zone is kept in ("Europe/Paris" → "FR"), or ``None`` (UTC, an unknown name)."""
    return _country_of_zone().get(zone)


@cache
def country_names() -> dict[str, str]:
    """ISO 3166 code → the country's short English name ("RU" → "Russia")."""
    return {row[0]: row[1] for row in _table("iso3166.tab") if len(row) >= 2}


def country_offsets(code: str, at: datetime) -> list[str]:
    """The distinct UTC offsets the country's zones keep at ``at``, west to east (``["UTC+2", …, "UTC+12"]``);
    empty when the tables are not found."""
    offsets: dict[float, str] = {}
    for name in _zones_by_country().get(code.upper(), ()):
        try:
            local = at.astimezone(ZoneInfo(name))
        except (ZoneInfoNotFoundError, ValueError):
            continue
        delta = local.utcoffset()
        if delta is not None:
            offsets[delta.total_seconds()] = utc_offset(local)
    return [offsets[k] for k in sorted(offsets)]


# Time zones people name instead of a place ("the central timezone", "pst", "北京时间"): what each name is, and
# the zone that keeps it. A name with standard or daylight in it is the zone it belongs to, whichever is kept now.
_NAMED: dict[str, tuple[str, str]] = {}
for _names, _zone, _label in (
    ("eastern et est edt east-coast", "America/New_York", "Eastern Time"),
    ("central ct cst cdt", "America/Chicago", "Central Time"),
    ("mountain mt mst mdt", "America/Denver", "Mountain Time"),
    ("pacific pt pst pdt west-coast pacific-coast", "America/Los_Angeles", "Pacific Time"),
    ("alaska akst akdt", "America/Anchorage", "Alaska Time"),
    ("hawaii hawaiian hst hawaii-aleutian", "Pacific/Honolulu", "Hawaii Time"),
    ("atlantic ast adt", "America/Halifax", "Atlantic Time"),
    ("utc gmt zulu coordinated-universal greenwich-mean universal 格林尼治 格林威治 世界协调 协调世界", "UTC", "UTC"),
    ("bst british uk", "Europe/London", "UK time"),
    ("cet cest central-european 欧洲中部", "Europe/Berlin", "Central European Time"),
    ("eet eest eastern-european 欧洲东部", "Europe/Athens", "Eastern European Time"),
    ("wet western-european 欧洲西部", "Europe/Lisbon", "Western European Time"),
    ("ist indian india", "Asia/Kolkata", "India Standard Time"),
    ("jst japan japanese 日本", "Asia/Tokyo", "Japan Standard Time"),
    ("kst korea korean 韩国", "Asia/Seoul", "Korea Standard Time"),
    ("beijing china chinese 北京 中国", "Asia/Shanghai", "China Standard Time"),
    ("aest aedt australian-eastern", "Australia/Sydney", "Australian Eastern Time"),
    ("东部 美东", "America/New_York", "Eastern Time"), ("中部 美中", "America/Chicago", "Central Time"),
    ("山地", "America/Denver", "Mountain Time"), ("太平洋 美西", "America/Los_Angeles", "Pacific Time"),
):
    for _name in _names.split():
        _NAMED[_name.replace("-", " ")] = (_zone, _label)

_ZONE_WORDS = ("standard time", "daylight time", "time zone", "timezone", "standard", "daylight", "time", "zone",
               "标准时间", "夏令时", "时区", "时间")


# Names that are a time zone before they are any place's ("est" is also a village in the Netherlands, "pacific" a
# town in Missouri): asked with a time, they mean the zone.
_ZONE_FIRST = frozenset("""
eastern central mountain pacific atlantic et est edt ct cst cdt mt mst mdt pt pst pdt akst akdt hst ast adt utc gmt
zulu bst cet cest eet eest wet ist jst kst aest aedt east west
""".split())


def zone_first(text: str) -> tuple[str, str] | None:
    """:func:`zone_named` for a name that means the zone before any place of that name ("pst", "eastern time")."""
    named = zone_named(text)
    return named if named is not None and _said(text).split(" ")[0] in _ZONE_FIRST else None


def _said(text: str) -> str:
    """A zone's name as said, folded: lower case, one space, no "the" before it, no stop after it."""
    return " ".join(text.casefold().replace("’", "'").split()).removeprefix("the ").strip(" ?.!,")


def zone_named(text: str) -> tuple[str, str] | None:
    """The zone a time zone's name stands for and its name for people ("the central timezone" →
    ("America/Chicago", "Central Time"), "pst" → Pacific Time, "北京时间" → China Standard Time), or ``None``."""
    name = _said(text)
    for word in _ZONE_WORDS:  # "central standard time", "mountain daylight", "eastern timezone"
        if name.endswith(word) and name != word:
            name = name[: -len(word)].strip()
            break
    name = name.removesuffix("'s").strip()
    if name.endswith(("standard", "daylight")):
        name = name.rsplit(" ", 1)[0]
    return _NAMED.get(name)
