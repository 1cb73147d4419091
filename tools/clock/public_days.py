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


def _key(name: str) -> str:
    """A holiday's name as compared across calendars: "Thanksgiving Day" and "thanksgiving", "Labour Day" and "labor
    day", "New Year's Day" and "new year's" are one."""
    text = name.casefold().replace("’", "'").replace("'s", "").replace("'", "").replace(".", "").replace("labour", "labor")
    return " ".join(w for w in text.split() if w not in ("day", "jr", "the", "observed)", "(observed)"))


def public_day_named(country: str, name: str, today: date, this_year: bool = False) -> date | None:
    """The day a holiday named ``name`` (as the date reader knows it: "labor day", "thanksgiving", "independence
    day") falls on in ``country``'s own calendar: the next one, today included (``this_year``: this year's, even
    gone by); ``None`` when the country's calendar has no such day or none is installed. Labor Day is September's in
    the United States and May's in China; Thanksgiving is October's in Canada."""
    try:
        import holidays
    except ImportError:
        return None
    wanted = _key(name)

    def found(subdiv: str | None = None) -> date | None:
        calendar = holidays.country_holidays(country, subdiv=subdiv, years=[today.year, today.year + 1],
                                             language=_language(country, zh=False))
        return next((day for day, names in sorted(calendar.items()) if any(_key(n) == wanted for n in names.split(";"))
                     and (day >= today or this_year and day.year == today.year)), None)

    try:
        if (day := found()) is not None:
            return day
        # a day its regions keep rather than the whole country (Canada's Thanksgiving, England's Easter Monday): the
        # day most of them keep, when most do
        regions = list(holidays.country_holidays(country).subdivisions)
        days = [d for d in (found(r) for r in regions) if d is not None]
    except (NotImplementedError, KeyError):
        return None
    common = max(set(days), key=days.count, default=None)
    return common if common is not None and days.count(common) * 2 > len(regions) else None
