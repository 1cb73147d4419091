"""The clock tool's settings and its arguments."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.clock.dates import Ask


class ClockConfig(BaseModel):
    gazetteer_index: str
    home_city: str | None = None  # "here": this place's timezone; None: the machine's
    clock: str | None = None  # "now" as ISO 8601 (tests, reproducible runs); None: the real time


class ClockArgs(BaseModel):
    ask: Ask = Field(..., description=("now: the time in a place; zone: the time zone a place or country is in; difference: the time difference of two places; "
                                       "convert: a time of day in one place, in another; "
                                       "weekday: the weekday of a date; days_until: days from today to a date or holiday; "
                                       "days_between: days between two dates; date: the date of a day phrase or holiday; "
                                       "holiday: the next public holiday (in place, '' = here); "
                                       "lunar: the Chinese calendar's date of a day phrase; "
                                       "time_until: hours and minutes from now to the time of day 'at'; "
                                       "calendar: the days in a month or a year, and whether it is a leap year (date: "
                                       "'February 2028', 'this month', '2028', '2月')"))
    place: str = Field("", max_length=100, description="for now/zone/difference/holiday: the place as the user wrote it ('' = here)")
    other_place: str = Field("", max_length=100, description="for difference and convert: the second place")
    at: str = Field("", max_length=30, description="for convert and time_until: a time of day, as written: '3pm', '下午3点'; "
                                                   "for now: a span from now as written ('in 45 minutes', '3 hours ago', "
                                                   "'两个小时后'), '' for the time now")
    date: str = Field("", max_length=60, description="a date, holiday or day phrase as written: '2027-01-01', '春节', 'Christmas', '下周五'")
    other_date: str = Field("", max_length=60, description="for days_between: the second date")
    unit: Literal["days", "weeks", "months"] = Field("days", description="for days_until: the span in the unit asked "
                                                     "('how many weeks until Christmas', '还有几个星期')")
