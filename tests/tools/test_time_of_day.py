"""A time of day read alone (tools/reading/time_of_day.py): certain only when its hour is."""

from __future__ import annotations

import pytest

from tools.reading.time_of_day import clock_time


@pytest.mark.parametrize("text, expected", [
    ("3pm", (15, 0)), ("3 p.m.", (15, 0)), ("12am", (0, 0)), ("12pm", (12, 0)), ("8:30 pm", (20, 30)),
    ("15:00", (15, 0)), ("07:05", (7, 5)), ("noon", (12, 0)), ("midnight", (0, 0)), ("下午3点", (15, 0)),
    ("晚上8点半", (20, 30)), ("上午10点15分", (10, 15)), ("早上9点一刻", (9, 15)), ("中午1点", (13, 0)), ("15点", (15, 0)),
    ("凌晨2点", (2, 0)),
    # the hour is not certain, or it is no time
    ("3", None), ("3点", None), ("at 4", None), ("13pm", None), ("25:00", None), ("3pm tomorrow", None), ("下午", None),
])
def test_a_time_of_day_is_read_when_its_hour_is_certain(text, expected):
    assert clock_time(text) == expected
