"""The reminders kept in the user's store (its ``reminders`` table, made by migrations 017 and 019): set, listed,
moved, cancelled and claimed when due; and which process fires them while it runs (``reminder_firer``, 020). One place for their SQL, used by the tool, ``assistant reminders`` and the daemon
that fires them. Each change is one short transaction, so a reminder is stored whole or not at all. One that is due
is claimed (``pending`` → ``due``) before it is shown, and marked shown (``fired``, or ``missed`` when it was shown
late: found overdue as the daemon starts) only once a notification service has accepted it: a daemon killed at any
moment, or a desktop with no notification service, loses none; one claimed and never shown is shown at the next
start, as missed."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Literal

State = Literal["pending", "due", "fired", "missed", "cancelled"]
MAX_PENDING = 1000  # more pending at once is a script gone wrong, not a person's day
MIN_INTERVAL = 60  # a reminder that comes back, at most once a minute ("every 30 seconds" is a script, not a reminder)


@dataclass(frozen=True)
class Reminder:
    id: int
    kind: str
    text: str
    due: datetime  # aware, UTC
    lang: str
    state: State
    fired_at: datetime | None = None
    span: float | None = None  # seconds it was said to run (a timer, a delay); None: a time of day was said
    repeat: str | None = None  # "daily", "weekdays", "weekly", "interval" (each ``span``): it comes back; None: once

    @property
    def is_alarm(self) -> bool:
        """Set with no subject ("wake me up at 6:30", "明早七点的闹钟"): an alarm, listed, shown and cancelled as one."""
        return self.kind == "reminder" and not self.text.strip()

    def what(self, zh: bool, fired: bool = True) -> str:
        """What it is about: its own words, else what a reminder or a timer without any is called (an alarm; a timer that has
        fired: its time is up; one still running: a timer), a timer with its length ("tea (10 minutes)", "a
        10-minute timer"). The one wording of the notification, the popup's line, the tool's and the command's list."""
        length = span_said(self.span, zh) if self.kind == "timer" and self.span else ""
        if self.repeat:  # "call mum (every weekday)", "开会(每天)"
            again = repeat_said(self.repeat, self.due, zh, self.span)
            said = self.text or ("闹钟" if zh else "alarm")  # set with no subject: an alarm ("wake me up at 6:30")
            return f"{said}({again})" if zh else f"{said} ({again})"
        if self.text:
            return f"{self.text}({length})" if zh and length else f"{self.text} ({length})" if length else self.text
        if self.kind == "timer":
            if length and fired:  # "10 minutes are up", "1 hour is up", "10分钟的计时到了"
                return f"{length}的计时到了" if zh else f"{length} {'is' if ' ' not in length[2:] and length.startswith('1 ') else 'are'} up"
            if length:
                return f"计时({length})" if zh else f"timer ({length})"
            return ("计时结束" if fired else "计时") if zh else ("time's up" if fired else "timer")
        return "闹钟" if zh else "alarm"  # a reminder set with no subject is an alarm, and is cancelled as one

    def as_json(self) -> dict[str, object]:
        """The record ``assistant reminders --json`` prints: ``due`` in ISO 8601 with the local UTC offset."""
        return {"id": self.id, "kind": self.kind, "text": self.text, "due": self.due.astimezone().isoformat(),
                "state": self.state, "fired_at": self.fired_at.astimezone().isoformat() if self.fired_at else None,
                "span": self.span, "repeat": self.repeat}


class TooMany(Exception):
    pass


def _row(r: sqlite3.Row) -> Reminder:
    return Reminder(id=r["id"], kind=r["kind"], text=r["text"], due=datetime.fromisoformat(r["due"]), lang=r["lang"],
                    state=r["state"], fired_at=datetime.fromisoformat(r["fired_at"]) if r["fired_at"] else None,
                    span=r["span"] if "span" in r.keys() else None,
                    repeat=r["repeat"] if "repeat" in r.keys() else None)


_WEEKDAYS_ZH = "一二三四五六日"


_ONE_UNIT = {"1 hour": "hour", "1 minute": "minute", "1小时": "小时", "1分钟": "分钟"}


def repeat_said(repeat: str, due: datetime, zh: bool, span: float | None = None) -> str:
    """How a reminder comes back, as a person says it: "every day", "every weekday", "every Monday", "every 2 hours"
    / "每天", "每2小时"…"""
    day = due.astimezone()
    if repeat == "interval":  # "every 2 hours", "every hour", "每2小时", "每小时"
        length = span_said(span or 0, zh)
        length = _ONE_UNIT.get(length, length)  # one whole unit is said without its 1; "1 hour 30 minutes" with it
        return f"每{length}" if zh else f"every {length}"
    if repeat == "daily":
        return "每天" if zh else "every day"
    if repeat == "weekdays":
        return "每个工作日" if zh else "every weekday"
    return f"每周{_WEEKDAYS_ZH[day.weekday()]}" if zh else f"every {day.strftime('%A')}"


def next_after(repeat: str, due: datetime, span: float | None = None) -> datetime:
    """When a reminder that comes back is due next, at the same wall time in ``due``'s zone (across a daylight-saving
    change too): the next day, the next weekday (Monday after a Friday), or a week on; one that comes back each
    ``span`` seconds, that long after (the time that passes, whatever the clocks say)."""
    if repeat == "interval":
        return due + timedelta(seconds=max(span or 0, MIN_INTERVAL))
    nxt = due.replace(tzinfo=None) + timedelta(days=7 if repeat == "weekly" else 1)
    while repeat == "weekdays" and nxt.weekday() >= 5:
        nxt += timedelta(days=1)
    if getattr(due.tzinfo, "key", None):  # a zone: its wall time, whatever its offset is that day
        return nxt.replace(tzinfo=due.tzinfo)
    return due + (nxt - due.replace(tzinfo=None))  # a fixed offset


def _zone(key: str) -> tzinfo | None:
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(key)
    except Exception:  # noqa: BLE001 - a zone this machine does not know: the instant's own offset
        return None


def span_said(seconds: float, zh: bool) -> str:
    """A length as a person says it: "1 minute 30 seconds", "2 hours" / "1分钟30秒"."""
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if zh:
        return "".join(f"{v}{u}" for v, u in ((h, "小时"), (m, "分钟"), (s, "秒")) if v) or "0秒"
    parts = [f"{v} {u}{'' if v == 1 else 's'}" for v, u in ((h, "hour"), (m, "minute"), (s, "second")) if v]
    return " ".join(parts) or "0 seconds"


def _by_id(db: sqlite3.Connection, id: int) -> Reminder | None:
    row = db.execute("SELECT * FROM reminders WHERE id = ?", (id,)).fetchone()
    return _row(row) if row else None


def _insert(db: sqlite3.Connection, kind: str, text: str, due: datetime, lang: str, now: datetime, zone: str | None,
            span: float | None, repeat: str | None) -> Reminder:
    """One reminder kept, in the caller's transaction: a new one (:meth:`Book.add`), or the next of one that comes
    back (:meth:`Book.shown`). ``zone``: its wall time is kept in that zone (a time of day was said)."""
    cur = db.execute("INSERT INTO reminders (kind, text, due, lang, created_at, wall, zone, span, repeat) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (kind, text, _iso(due), lang, _iso(now),
                      due.replace(tzinfo=None).isoformat(timespec="seconds") if zone else None, zone, span,
                      repeat or None))
    kept = _by_id(db, cur.lastrowid or 0)
    assert kept is not None  # just written, in this transaction
    return kept


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="microseconds")


class Book:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        return db

    def add(self, kind: str, text: str, due: datetime, lang: str, now: datetime, wall: bool = False,
            span: float | None = None, repeat: str | None = None) -> Reminder:
        """Keep one; :class:`TooMany` when :data:`MAX_PENDING` are pending already (checked in the same write).
        ``wall``: a time of day was said, kept as the wall time in ``due``'s zone (:meth:`rezone`). ``span``: the
        seconds a timer or a delay was said to run."""
        zone = getattr(due.tzinfo, "key", None) if wall else None
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            (pending,) = db.execute("SELECT count(*) FROM reminders WHERE state = 'pending'").fetchone()
            if pending >= MAX_PENDING:
                db.execute("ROLLBACK")
                raise TooMany(pending)
            kept = _insert(db, kind, text, due, lang, now, zone, span, repeat)
            db.execute("COMMIT")
            return kept
        finally:
            db.close()

    def listed(self, states: tuple[str, ...] = ("pending",), limit: int = 1000) -> list[Reminder]:
        db = self._db()
        try:
            marks = ",".join("?" * len(states))
            rows = db.execute(f"SELECT * FROM reminders WHERE state IN ({marks}) ORDER BY due, id LIMIT ?",
                              (*states, limit)).fetchall()
            return [_row(r) for r in rows]
        finally:
            db.close()

    def recent(self, limit: int = 50) -> list[Reminder]:
        """The ones due and not yet shown, the pending ones, then the latest that fired, were missed or cancelled."""
        db = self._db()
        try:
            rows = db.execute("SELECT * FROM reminders ORDER BY CASE state WHEN 'due' THEN 0 WHEN 'pending' THEN 1 "
                              "ELSE 2 END, CASE WHEN state IN ('pending', 'due') THEN due END, id DESC LIMIT ?",
                              (limit,)).fetchall()
            return [_row(r) for r in rows]
        finally:
            db.close()

    def cancel(self, ids: list[int]) -> list[Reminder]:
        """Cancel those of ``ids`` still pending (or due and not yet shown); the ones cancelled."""
        if not ids:
            return []
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            marks = ",".join("?" * len(ids))
            rows = db.execute(f"SELECT * FROM reminders WHERE id IN ({marks}) AND state IN ('pending', 'due')",
                              ids).fetchall()
            db.execute(f"UPDATE reminders SET state = 'cancelled' WHERE id IN ({marks}) AND state IN ('pending', 'due')",
                       ids)
            db.execute("COMMIT")
            return [_row(r) for r in rows]
        finally:
            db.close()

    def move(self, id: int, due: datetime, wall: bool = False, span: float | None = None) -> Reminder | None:
        """Give the pending reminder ``id`` a new due time (``wall`` and ``span`` as in :meth:`add`); ``None`` when
        it is no longer pending (it fired or was cancelled meanwhile)."""
        zone = getattr(due.tzinfo, "key", None) if wall else None
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            cur = db.execute("UPDATE reminders SET due = ?, wall = ?, zone = ?, span = ? WHERE id = ? AND "
                             "state = 'pending'", (_iso(due), due.replace(tzinfo=None).isoformat(timespec="seconds")
                                                   if zone else None, zone, span, id))
            db.execute("COMMIT")
            return _by_id(db, id) if cur.rowcount else None
        finally:
            db.close()

    def snooze(self, id: int, due: datetime) -> Reminder | None:
        """The reminder ``id``, shown already, pending again at ``due`` (its notification's "Snooze"); ``None`` when
        it was not shown (still pending, or cancelled)."""
        db = self._db()
        try:
            cur = db.execute("UPDATE reminders SET state = 'pending', due = ?, wall = NULL, zone = NULL, "
                             "claimed_at = NULL, fired_at = NULL WHERE id = ? AND state IN ('fired', 'missed')",
                             (_iso(due), id))
            return _by_id(db, id) if cur.rowcount else None
        finally:
            db.close()

    def get(self, id: int) -> Reminder | None:
        db = self._db()
        try:
            return _by_id(db, id)
        finally:
            db.close()

    def rezone(self, zone: tzinfo) -> int:
        """The pending reminders set for a time of day in another zone than ``zone`` (the user moved, or the
        machine's zone was changed): due again at that wall time in ``zone``. How many moved."""
        name = getattr(zone, "key", None)
        if not name:
            return 0
        db = self._db()
        try:
            rows = db.execute("SELECT id, wall FROM reminders WHERE state = 'pending' AND wall IS NOT NULL AND "
                              "zone IS NOT NULL AND zone != ?", (name,)).fetchall()
            if not rows:
                return 0
            db.execute("BEGIN IMMEDIATE")
            db.executemany("UPDATE reminders SET due = ?, zone = ? WHERE id = ? AND state = 'pending'",
                           [(_iso(datetime.fromisoformat(r["wall"]).replace(tzinfo=zone)), name, r["id"]) for r in rows])
            db.execute("COMMIT")
            return len(rows)
        finally:
            db.close()

    def next_due(self) -> datetime | None:
        db = self._db()
        try:
            row = db.execute("SELECT min(due) FROM reminders WHERE state = 'pending'").fetchone()
            return datetime.fromisoformat(row[0]) if row and row[0] else None
        finally:
            db.close()

    def claim_due(self, now: datetime, missed: bool = False) -> list[Reminder]:
        """Every pending reminder due by ``now``, claimed (``due``) in one transaction before anyone is told: no
        other look claims it again. Each is returned with the state it takes once shown (``fired``; ``missed``: the
        daemon's first look as it starts, which finds what fell due while it was down, and what an earlier daemon
        claimed and never showed)."""
        due = "SELECT * FROM reminders WHERE state = 'pending' AND due <= ? ORDER BY due, id"
        db = self._db()
        try:
            # a look without the write lock first: the daemon looks every second, and the store's turns are written
            # meanwhile; the lock is taken (and the look made again under it) only when something is due
            stale = db.execute("SELECT * FROM reminders WHERE state = 'due' ORDER BY due, id").fetchall() if missed \
                else []
            if not db.execute(due, (_iso(now),)).fetchone():
                return [replace(_row(r), state="missed") for r in stale]
            db.execute("BEGIN IMMEDIATE")
            rows = db.execute(due, (_iso(now),)).fetchall()
            db.executemany("UPDATE reminders SET state = 'due', claimed_at = ? WHERE id = ? AND state = 'pending'",
                           [(_iso(now), r["id"]) for r in rows])
            db.execute("COMMIT")
            state: State = "missed" if missed else "fired"
            return [replace(_row(r), state="missed") for r in stale] + [replace(_row(r), state=state) for r in rows]
        finally:
            db.close()

    def shown(self, reminder: Reminder, at: datetime) -> Reminder | None:
        """``reminder`` (claimed) was accepted by a notification service at ``at``: it takes its final state, and one
        that comes back is kept again at its next time, in the same transaction (the next one, or ``None``)."""
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            done = db.execute("UPDATE reminders SET state = ?, fired_at = ? WHERE id = ? AND state = 'due'",
                              (reminder.state, _iso(at), reminder.id)).rowcount
            row = db.execute("SELECT * FROM reminders WHERE id = ?", (reminder.id,)).fetchone() if done else None
            nxt = None
            if row is not None and row["repeat"]:
                zone = row["zone"]
                local = datetime.fromisoformat(row["due"]).astimezone(_zone(zone) if zone else None)
                due = next_after(row["repeat"], local, row["span"])
                while due <= at:  # the daemon was down for days: the next one still ahead
                    due = next_after(row["repeat"], due, row["span"])
                nxt = _insert(db, row["kind"], row["text"], due, row["lang"], at, zone, row["span"], row["repeat"])
            db.execute("COMMIT")
            return nxt
        finally:
            db.close()

    def hold_firer(self, pid: int, now: datetime) -> None:
        """Process ``pid`` fires the reminders from now on (the daemon, as it starts)."""
        db = self._db()
        try:
            db.execute("INSERT OR REPLACE INTO reminder_firer (id, pid, since) VALUES (1, ?, ?)", (pid, _iso(now)))
        finally:
            db.close()

    def release_firer(self, pid: int) -> None:
        """Process ``pid`` fires them no more (the daemon, as it stops); another's hold is left as it is."""
        db = self._db()
        try:
            db.execute("DELETE FROM reminder_firer WHERE pid = ?", (pid,))
        finally:
            db.close()

    def firing(self) -> bool:
        """Whether a process that fires the reminders runs now: the one that holds them, still alive (a daemon
        killed outright leaves its row, and is then not running)."""
        db = self._db()
        try:
            row = db.execute("SELECT pid FROM reminder_firer WHERE id = 1").fetchone()
        except sqlite3.Error:  # a store from before migration 020
            return False
        finally:
            db.close()
        if row is None:
            return False
        try:
            os.kill(int(row["pid"]), 0)
        except PermissionError:
            return True  # alive, another user's
        except (OSError, ValueError):
            return False
        return True

    def unshown(self) -> list[Reminder]:
        """The reminders claimed as due and not yet shown (no notification service accepted them)."""
        return self.listed(("due",))
