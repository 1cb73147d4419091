"""Time and dates without a model: the time now in a place (the gazetteer's timezone through ``zoneinfo``), the
time difference between places, the weekday of a date, the days until a date or holiday (春节, 中秋 and the other
lunar ones through the maintained ``lunardate``), the days between dates, and the date of a day phrase or holiday.

The clock is injected (``ClockConfig.clock``), so tests and reproducible runs are exact. The tool (:mod:`.tool`)
is put together from reading the question (:mod:`.question`), dates and holidays (:mod:`.dates`) and the answer
(:mod:`.answer`)."""

from tools.clock.config import ClockArgs, ClockConfig
from tools.clock.dates import read_date
from tools.clock.tool import Clock


__all__ = ["Clock", "ClockArgs", "ClockConfig", "read_date"]
