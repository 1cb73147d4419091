"""Reminders keep wall-clock time: "tomorrow at 9" set the day before a daylight-saving change fires at 9:00 by the
new offset (the zone's rules, not today's offset), a span is elapsed time across the change, a time of day follows
the user to another zone, a date with a year is that date (or refused in one line), and a span that is negative or
too large for any date is one line, never an exception's text."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from assistant.store import Store
from tools.reminders.book import Book


@pytest.fixture
def new_york(monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")
    return ZoneInfo("America/New_York")


@pytest.mark.parametrize("clock, question, due_utc", [
    # spring forward on Sunday 14 March 2027 (EST −5 → EDT −4)
    ("2027-03-13T12:00:00-05:00", "remind me tomorrow at 9 to call the bank", "2027-03-14T13:00:00+00:00"),
    ("2027-03-13T12:00:00-05:00", "remind me on Monday at 8am to pay rent", "2027-03-15T12:00:00+00:00"),
    ("2027-03-13T12:00:00-05:00", "明天早上9点提醒我给银行打电话", "2027-03-14T13:00:00+00:00"),
    # fall back on Sunday 7 November 2027 (EDT −4 → EST −5)
    ("2027-11-06T12:00:00-04:00", "remind me tomorrow at 9 to call the bank", "2027-11-07T14:00:00+00:00"),
    # a span is elapsed time: two hours across the change are two hours
    ("2027-03-14T01:30:00-05:00", "remind me in 2 hours to check the oven", "2027-03-14T08:30:00+00:00"),
    ("2027-11-07T01:30:00-04:00", "set a timer for 90 minutes", "2027-11-07T07:00:00+00:00"),
])
async def test_a_time_of_day_keeps_its_wall_time_across_a_daylight_saving_change(make_app, new_york, clock, question,
                                                                                  due_utc):
    app = make_app(clock=clock)
    result = await app.ask(question)
    assert result.ok and result.model_calls == 0, result.answer
    (kept,) = Book(app.store.path).listed()
    assert kept.due == datetime.fromisoformat(due_utc)


def test_a_time_of_day_follows_the_user_to_another_zone_and_a_span_does_not(tmp_path, new_york):
    book = Book(Store(tmp_path / "assistant.db").path)
    now = datetime(2027, 5, 1, 12, 0, tzinfo=new_york)
    nine = book.add("reminder", "standup", datetime(2027, 5, 2, 9, 0, tzinfo=new_york), "en", now, wall=True)
    span = book.add("timer", "", now + timedelta(hours=3), "en", now)
    assert book.rezone(new_york) == 0  # the same zone: nothing moves
    london = ZoneInfo("Europe/London")
    assert book.rezone(london) == 1
    assert book.get(nine.id).due == datetime(2027, 5, 2, 9, 0, tzinfo=london)  # 9:00 where the user is now
    assert book.get(span.id).due == span.due  # three hours from when it was set, wherever
    assert book.rezone(london) == 0


@pytest.mark.parametrize("question, says", [
    ("remind me on 25 December 2026 at 9 to call grandma", "Fri 25 Dec at 09:00"),
    ("remind me at 9 on 28 Dec 2026 to ring Bob", "Mon 28 Dec at 09:00"),
    ("remind me on December 24, 2026 at 6pm to wrap presents", "Thu 24 Dec at 18:00"),
    ("2026年12月25日早上9点提醒我给奶奶打电话", "12月25日 09:00"),
    ("remind me on 30 February 2027 at 10 to pay", "there is no such date"),
    ("remind me on 3 March 2031 at 10 to renew the passport", "more than a year ahead"),
    ("remind me on 1 January 2025 at 9 to file taxes", "already passed"),
    ("remind me in -5 minutes to call mum", "cannot be negative"),
    ("set a timer for -10 minutes", "cannot be negative"),
    ("提醒我-5分钟后喝水", "不能是负数"),
    ("remind me in 99999999999 years to look up", "more than a year ahead"),
    ("set a timer for 9999999999999 hours", "more than a year ahead"),
])
async def test_dates_with_years_and_impossible_spans_are_read_or_refused_in_one_line(make_app, question, says):
    app = make_app(clock="2026-11-27T10:00:00+00:00")
    result = await app.ask(question)
    assert says in result.answer and "\n" not in result.answer.split("It fires")[0].split("提醒在后台")[0].strip(), result.answer
    assert "Error" not in result.answer and "error" not in result.answer and result.model_calls == 0
    for r in Book(app.store.path).listed():  # what was set keeps no date in its words
        assert not any(w in r.text for w in ("2026", "Dec", "12月", "on ", "-"))


async def test_a_long_reminder_is_kept_whole_or_refused_never_cut(make_app):
    app = make_app()
    words = "buy " + ", ".join(["milk and eggs and bread"] * 12)  # about 300 characters
    result = await app.ask(f"remind me in 10 minutes to {words}")
    assert result.ok and [r.text for r in Book(app.store.path).listed()] == [words]
