"""Public holidays: the next one in a country, from a maintained calendar of every country's (``holidays``, the
Open World Holidays Framework: fixed days, Easter and the other moving ones, lunar days, days in lieu, each
country's as its law has them), where our own table would be a few festivals of one or two countries.

The country is the one named, else the home city's, else the machine's time zone's (``zone.tab``), else the
region of the locale (``en_US`` → US). The library is imported only for such a question (its import costs about
0.1 s); where it is missing, the tool says it cannot tell instead of guessing."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class PublicDay:
    day: date
    name: str


def country_of_locale() -> str | None:
    """The region of the user's locale (``LC_ALL``, ``LC_TIME``, ``LANG``: "en_GB.UTF-8" → "GB"), or ``None``."""
    for var in ("LC_ALL", "LC_TIME", "LANG"):
        value = os.environ.get(var, "")
        lang = value.split(".", 1)[0]
        if "_" in lang:
            region = lang.split("_", 1)[1][:2].upper()
            if region.isalpha() and len(region) == 2:
                return region
    return None


def _language(country: str, zh: bool) -> str | None:
    import holidays

    supported = holidays.country_holidays(country).supported_languages
    wanted = ("zh_CN", "zh_TW") if zh else ("en_US", "en_GB")
    return next((lang for lang in wanted if lang in supported), None)


def next_public_day(country: str, today: date, zh: bool = False) -> PublicDay | None:
    """The first public holiday in ``country`` after ``today`` (within a year and a day), named in Chinese or
    English where the calendar has the name in it; ``None`` when the country has no calendar here (or none is
    installed)."""
    try:
        import holidays
    except ImportError:
        return None
    try:
        calendar = holidays.country_holidays(country, years=[today.year, today.year + 1],
                                             language=_language(country, zh))
    except (NotImplementedError, KeyError):
        return None
    after = sorted((d, name) for d, name in calendar.items() if d > today)
    return PublicDay(after[0][0], after[0][1].split(";")[0].strip()) if after else None
