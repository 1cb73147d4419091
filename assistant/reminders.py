"""The daemon's side of reminders: it fires each one when it is due, as a desktop notification (the freedesktop
Notifications service over D-Bus on Linux, the platform's own on macOS and Windows, through desktop-notifier), and
marks it ``fired``; one that fell due while the daemon was down fires when it starts, marked ``missed`` and said so
("missed at 09:00"). A reminder is claimed in the store before it is shown (:meth:`tools.reminders.book.Book
.claim_due`), so a ``kill -9`` at any moment loses none and shows none twice. With no notification service the
reminder is still marked, and the daemon carries on (one line in its log)."""

from __future__ import annotations

import asyncio
import html
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

from tools.reminders.book import Book, Reminder
from tools.reminders.tool import when_said

log = logging.getLogger("assistant.daemon")
POLL = 1.0  # seconds between looks at the store: a reminder set by another process is seen within one


def said(reminder: Reminder, now: datetime) -> tuple[str, str]:
    """The notification's title and body, in the language it was set in."""
    zh = reminder.lang == "zh"
    at = reminder.due.astimezone()
    what = reminder.what(zh)
    what = what if reminder.text else what[:1].upper() + what[1:]  # a notification's body is a sentence
    if reminder.state == "missed":
        title = f"错过的提醒({when_said(at, now.astimezone(), True)})" if zh else \
            f"Missed reminder ({when_said(at, now.astimezone(), False).removeprefix('at ')})"
        return title, what
    if zh:
        return ("计时结束" if reminder.kind == "timer" else "提醒"), what
    return ("Timer" if reminder.kind == "timer" else "Reminder"), what


class Notifier:
    """Desktop notifications, best effort: each failure kind is logged once, never raised."""

    def __init__(self) -> None:
        self._notifier: Any = None  # desktop_notifier.DesktopNotifier, made at the first notification
        self._said: set[str] = set()

    def _once(self, key: str, line: str) -> None:
        if key not in self._said:
            self._said.add(key)
            log.warning("%s", line)

    async def send(self, title: str, body: str) -> bool:
        try:
            from desktop_notifier import DesktopNotifier
        except ImportError:
            self._once("missing", "reminders are not shown as desktop notifications: desktop-notifier is not "
                                  "installed (pip install 'assistant[notify]'); they are still marked as fired")
            return False
        if self._notifier is None:
            logging.getLogger("desktop_notifier").setLevel(logging.CRITICAL)  # its failures are said here, once
            self._notifier = DesktopNotifier(app_name="assistant")
        dispatched = asyncio.Event()
        why = "no notification service answered (on Linux: the freedesktop Notifications service on the session bus)"
        try:
            # the body is shown as markup by many servers: what the user typed is text
            await asyncio.wait_for(self._notifier.send(
                title=title, message=html.escape(body), on_dispatched=dispatched.set), timeout=5)
        except Exception as e:  # no session bus, a server that hangs
            why = f"{type(e).__name__}: {e}"
        if dispatched.is_set():
            return True
        self._notifier = None  # connect again next time (the service may start later)
        self._once(f"failed:{why[:40]}", f"a reminder could not be shown as a desktop notification ({why}); it is "
                                         "still marked as fired")
        return False


class Firer:
    """Fires the store's reminders when they are due, while the daemon runs. ``shown``: each one fired, for the
    popup and the log."""

    def __init__(self, database: Path, notifier: Notifier | None = None,
                 shown: Callable[[Reminder], Awaitable[None] | None] | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.book = Book(database)
        self.notifier = notifier or Notifier()
        self.shown = shown
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self.wake = asyncio.Event()
        self.fired = 0

    async def fire_due(self, missed: bool = False) -> list[Reminder]:
        """Claim what is due now and show it; what was claimed. ``missed``: the first look as the daemon starts,
        which finds what fell due while it was down."""
        now = self.clock()
        try:
            claimed = await asyncio.to_thread(self.book.claim_due, now, missed)
        except Exception as e:  # a store that is busy or unreadable: tried again on the next look, said once
            self.notifier._once(f"store:{type(e).__name__}", f"reminders: could not read the store: {e}")
            return []
        for reminder in claimed:
            title, body = said(reminder, now)
            shown = await self.notifier.send(title, body)
            self.fired += 1
            late = (now - reminder.due).total_seconds()
            log.info("reminder #%d %s %.2f s after its time%s", reminder.id, reminder.state, late,
                     "" if shown else " (no desktop notification)")
            if self.shown is not None:
                r = self.shown(reminder)
                if asyncio.iscoroutine(r):
                    await r
        return claimed

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: fire what is due, then sleep until the next is due or :data:`POLL` passes."""
        first = True
        while not stop.is_set():
            await self.fire_due(missed=first)
            first = False
            try:
                upcoming = await asyncio.to_thread(self.book.next_due)
            except Exception:
                upcoming = None
            delay = POLL
            if upcoming is not None:
                delay = max(0.0, min(POLL, (upcoming - self.clock()).total_seconds()))
            self.wake.clear()
            waits = {asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self.wake.wait())}
            _, pending = await asyncio.wait(waits, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
