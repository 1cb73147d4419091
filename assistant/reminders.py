"""The daemon's side of reminders: it fires each one when it is due, as a desktop notification (the freedesktop
Notifications service over D-Bus on Linux, the platform's own on macOS and Windows, through desktop-notifier), and
marks it ``fired``; one that fell due while the daemon was down fires when it starts, marked ``missed`` and said so
("missed at 09:00"). A reminder is claimed in the store before it is shown (:meth:`tools.reminders.book.Book
.claim_due`) and marked shown only once a notification service accepted it: a ``kill -9`` while notifying, or a
desktop with no notification service, loses none; what was claimed and not shown is tried again every
:data:`RETRY` seconds and at the next start (as missed), and said where the user will see it: the popup, the next
command, ``doctor`` (:data:`UNSHOWN`, a file in the data folder, while any wait). A time of day follows the user's
zone: a reminder set for 9:00 fires at 9:00 where the user is now (:meth:`Book.rezone`, once a minute)."""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, NamedTuple

from assistant.icon import ICON
from tools.reminders.book import Book, Reminder, repeat_said
from tools.reminders.tool import when_said

log = logging.getLogger("assistant.daemon")
POLL = 1.0  # seconds between looks at the store: a reminder set by another process is seen within one
SNOOZE = 600  # seconds a notification's "Snooze" puts a reminder off
RETRY = 30.0  # seconds between tries to show what no notification service accepted (the notify_retry setting)
REZONE = 60.0  # seconds between looks at the user's zone
UNSHOWN = "reminders-unshown.json"  # in the data folder while reminders wait to be shown: what, and why


class Unshown(NamedTuple):
    """What the daemon last wrote of the reminders it could not show: which, why, and how often it tries again."""

    reminders: list[dict[str, Any]]
    why: str
    retry: float


def unshown_said(data_dir: Path) -> Unshown | None:
    """The reminders the daemon could not show and why, as it last wrote them; ``None`` when none wait."""
    try:
        record = json.loads((data_dir / UNSHOWN).read_text(encoding="utf-8"))
        return Unshown(list(record["reminders"]), str(record["why"]), float(record.get("retry", RETRY)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def said(reminder: Reminder, now: datetime) -> tuple[str, str]:
    """The notification's title and body, in the language it was set in."""
    zh = reminder.lang == "zh"
    at = reminder.due.astimezone()
    alarm = reminder.is_alarm
    if alarm:  # its time is what it says
        again = repeat_said(reminder.repeat, reminder.due, zh, reminder.span) if reminder.repeat else ""
        what = at.strftime("%H:%M") + ((f"({again})" if zh else f" ({again})") if again else "")
    else:
        what = reminder.what(zh)
        what = what if reminder.text else what[:1].upper() + what[1:]  # a notification's body is a sentence
    if reminder.state == "missed":
        title = f"错过的提醒({when_said(at, now.astimezone(), True)})" if zh else \
            f"Missed reminder ({when_said(at, now.astimezone(), False).removeprefix('at ')})"
        return title, what
    if zh:
        return ("计时结束" if reminder.kind == "timer" else "闹钟" if alarm else "提醒"), what
    return ("Timer" if reminder.kind == "timer" else "Alarm" if alarm else "Reminder"), what


async def _takes_markup() -> bool:
    """Whether the desktop's notification server reads a body as markup (the freedesktop ``body-markup``
    capability). Only that server does: elsewhere (macOS, Windows, a server without it) a body is shown as it is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        from dbus_fast import Message, MessageType
        from dbus_fast.aio import MessageBus
    except ImportError:
        return False
    bus = None
    try:
        bus = await asyncio.wait_for(MessageBus().connect(), timeout=3)
        reply = await asyncio.wait_for(bus.call(Message(
            destination="org.freedesktop.Notifications", path="/org/freedesktop/Notifications",
            interface="org.freedesktop.Notifications", member="GetCapabilities")), timeout=3)
        return reply is not None and reply.message_type == MessageType.METHOD_RETURN and "body-markup" in reply.body[0]
    except Exception:  # noqa: BLE001 - no bus, no server: the send says so; escaped, as most servers read markup
        return True
    finally:
        if bus is not None:
            bus.disconnect()


class Notifier:
    """Desktop notifications, best effort: each failure kind is logged once, never raised."""

    def __init__(self) -> None:
        self._notifier: Any = None  # desktop_notifier.DesktopNotifier, made at the first notification
        self._markup: bool | None = None  # whether the server reads a body as markup (asked once it answers)
        self._said: set[str] = set()

    def warn_once(self, key: str, line: str) -> None:
        """Log ``line`` the first time ``key`` is met (a failure of each kind is said once, never raised)."""
        if key not in self._said:
            self._said.add(key)
            log.warning("%s", line)

    why = ""  # the last failure, in words

    async def send(self, title: str, body: str, buttons: tuple[tuple[str, Callable[[], Any]], ...] = ()) -> bool:
        """Show one notification, with ``buttons`` (a title, and what pressing it does) where the server has
        actions; whether a notification service took it."""
        try:
            from desktop_notifier import Button, DesktopNotifier
        except ImportError:
            self.why = "desktop-notifier is not installed (pip install 'assistant[notify]')"
            self.warn_once("missing", f"reminders are not shown as desktop notifications: {self.why}; they wait, listed "
                                  "by `assistant reminders`")
            return False
        if self._notifier is None:
            from desktop_notifier import Icon

            logging.getLogger("desktop_notifier").setLevel(logging.CRITICAL)  # its failures are said here, once
            self._notifier = DesktopNotifier(app_name="assistant", app_icon=Icon(path=ICON))
            self._markup = None
        if self._markup is None:
            self._markup = await _takes_markup()
        dispatched = asyncio.Event()
        why = "no notification service answered (on Linux: the freedesktop Notifications service on the session bus)"
        try:
            # a server that reads markup would read what the user typed as markup: it is escaped there, and only there
            await asyncio.wait_for(self._notifier.send(
                title=title, message=html.escape(body, quote=False) if self._markup else body,
                buttons=[Button(title=t, on_pressed=pressed) for t, pressed in buttons],
                on_dispatched=dispatched.set), timeout=5)
        except Exception as e:  # no session bus, a server that hangs
            why = f"{type(e).__name__}: {e}"
        if dispatched.is_set():
            return True
        self._notifier = None  # connect again next time (the service may start later)
        self.why = why
        self.warn_once(f"failed:{why[:40]}", f"a reminder could not be shown as a desktop notification ({why}); it "
                                         "waits and is tried again")
        return False


class Firer:
    """Fires the store's reminders when they are due, while the daemon runs. ``shown``: each one due, for the popup
    and the log (whether a notification service took it or not). ``data_dir``: where :data:`UNSHOWN` is kept."""

    def __init__(self, database: Path, notifier: Notifier | None = None,
                 shown: Callable[[Reminder], Awaitable[None] | None] | None = None,
                 clock: Callable[[], datetime] | None = None, data_dir: Path | None = None,
                 retry: float = RETRY) -> None:
        self.book = Book(database)
        self.notifier = notifier or Notifier()
        self.shown = shown
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self.data_dir = data_dir
        self.retry = retry
        self.wake = asyncio.Event()
        self.fired = 0
        self.waiting: dict[int, Reminder] = {}  # claimed, not yet accepted by a notification service
        self._retry_at = 0.0
        self._rezone_at = 0.0
        self.held = False  # this process holds the reminders in the store (:meth:`hold`)
        self._tasks: set[asyncio.Future[Any]] = set()  # a button's work, kept until done

    async def fire_due(self, missed: bool = False) -> list[Reminder]:
        """Claim what is due now and show it; what was claimed. ``missed``: the first look as the daemon starts,
        which finds what fell due while it was down (and what an earlier daemon claimed and never showed)."""
        now = self.clock()
        try:
            if time.monotonic() >= self._rezone_at:
                self._rezone_at = time.monotonic() + REZONE
                from tools.reading.when import local_zone

                if (moved := await asyncio.to_thread(self.book.rezone, local_zone(fresh=True))):
                    log.info("the zone is now %s: %d reminder%s set for a time of day moved to it",
                             getattr(local_zone(), "key", "?"), moved, "" if moved == 1 else "s")
            claimed = await asyncio.to_thread(self.book.claim_due, now, missed)
        except Exception as e:  # a store that is busy or unreadable: tried again on the next look, said once
            self.notifier.warn_once(f"store:{type(e).__name__}", f"reminders: could not read the store: {e}")
            return []
        for reminder in claimed:
            self.waiting[reminder.id] = reminder
            if self.shown is not None:  # the popup lists it, shown as a notification or not
                r = self.shown(reminder)
                if asyncio.iscoroutine(r):
                    await r
        if claimed or (self.waiting and time.monotonic() >= self._retry_at):
            await self._notify(now)
        return claimed

    async def _notify(self, now: datetime) -> None:
        """Show what waits, oldest first, each marked shown as soon as a notification service took it; at the first
        refusal the rest wait for the next try."""
        for reminder in sorted(self.waiting.values(), key=lambda r: (r.due, r.id)):
            title, body = said(reminder, now)
            accepted = await self.notifier.send(title, body, self._buttons(reminder))
            late = (now - reminder.due).total_seconds()
            if not accepted:
                log.info("reminder #%d due %.2f s ago: no notification service took it; tried again in %.0f s",
                         reminder.id, late, self.retry)
                break
            nxt = await asyncio.to_thread(self.book.shown, reminder, self.clock())
            if nxt is not None:  # one that comes back: kept again at its next time
                log.info("reminder #%d comes back as #%d at %s", reminder.id, nxt.id, nxt.due.astimezone().isoformat())
            del self.waiting[reminder.id]
            self.fired += 1
            log.info("reminder #%d %s %.2f s after its time", reminder.id, reminder.state, late)
        self._retry_at = time.monotonic() + self.retry if self.waiting else 0.0
        await asyncio.to_thread(self._say_waiting)

    def _buttons(self, reminder: Reminder) -> tuple[tuple[str, Callable[[], Any]], ...]:
        """A notification's actions, in its language: snooze it ten minutes, or done (the notification closes)."""
        zh = reminder.lang == "zh"
        return ((f"{SNOOZE // 60}分钟后再提醒" if zh else f"Snooze {SNOOZE // 60} min",
                 lambda: self._spawn(self.snooze(reminder))),
                ("完成" if zh else "Done", lambda: None))

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def snooze(self, reminder: Reminder) -> Reminder | None:
        """``reminder``, shown, pending again :data:`SNOOZE` seconds from now (its notification's button)."""
        try:
            again = await asyncio.to_thread(self.book.snooze, reminder.id,
                                            self.clock() + timedelta(seconds=SNOOZE))
        except Exception as e:  # a store that is busy or unreadable: said once
            self.notifier.warn_once(f"store:{type(e).__name__}", f"reminders: could not write the store: {e}")
            return None
        if again is not None:
            log.info("reminder #%d snoozed until %s", reminder.id, again.due.astimezone().isoformat())
            self.wake.set()
        return again

    def _say_waiting(self) -> None:
        """What waits to be shown, where the next command, ``doctor`` and the popup read it (:func:`unshown_said`)."""
        if self.data_dir is None:
            return
        path = self.data_dir / UNSHOWN
        try:
            if not self.waiting:
                path.unlink(missing_ok=True)
                return
            record = {"why": self.notifier.why or "no notification service answered", "retry": self.retry,
                      "reminders": [{"id": r.id, "text": r.what(r.lang == "zh"), "due": r.due.isoformat()}
                                    for r in sorted(self.waiting.values(), key=lambda r: (r.due, r.id))]}
            temp = path.with_name(f".{UNSHOWN}.{os.getpid()}")
            temp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            os.replace(temp, path)
        except OSError:
            pass  # a full or read-only home: the log has said it

    def hold(self) -> bool:
        """Say in the store that this process fires the reminders (a reminder set elsewhere asks it); ``False``
        when the store cannot be written (said once)."""
        try:
            self.book.hold_firer(os.getpid(), self.clock())
            self.held = True
            return True
        except Exception as e:  # a store that is busy or unreadable: the reminders still fire
            self.notifier.warn_once(f"store:{type(e).__name__}", f"reminders: could not write the store: {e}")
            return False

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: fire what is due, then sleep until the next is due or :data:`POLL` passes. Holds the
        reminders in the store while it runs (:meth:`hold`, unless already held)."""
        try:
            await self._run(stop)
        finally:
            try:
                self.book.release_firer(os.getpid())
            except Exception:  # noqa: BLE001 - a dead pid is no firer: the next look at the store says so
                pass

    async def _run(self, stop: asyncio.Event) -> None:
        if not self.held:
            self.hold()
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
