"""The on-disk store: one SQLite database (WAL) with sessions, turns (the conversation's one source of truth:
each turn's question and answer), the trace of every model and tool call, and the events of each turn. The schema evolves through an ordered list of
small migrations (:mod:`assistant.migrations`), each applied once and recorded."""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

from assistant.database import Connection, connect
from assistant.errors import ConfigError, StoreError, store_error
from assistant.migrations import MIGRATIONS
from assistant.schema import schema_id
from assistant.trace import now_iso
from assistant.batch_book import BatchBook, alive
from assistant.store_upkeep import Upkeep
from assistant.trace_store import insert_trace, kept_events, whole_request
from tools.base import PreviousTurn


class TurnSummary(BaseModel):
    """One turn of a session, as listings and exports show it."""

    id: str
    question: str
    answer: str | None
    ok: bool
    route: str | None
    route_by: str | None
    attempts: int
    model_calls: int
    error: str | None
    started_at: str
    finished_at: str | None


class SessionSummary(BaseModel):
    id: str
    created_at: str
    title: str | None
    turns: int
    last_active: str | None
    frontend: str = "chat"


FEW_MATCHES = 2000  # a search with no more matches than this sorts them; with more, it walks the turns newest first
VACUUM_AFTER = 1000  # turns: a prune this large gives the space back to the disk
CAP_CHECK_EVERY = 100  # turns saved between two looks at the store's size (and at the first one of a process)
LEASE_HOURS = 24  # a session a live process (a chat, the daemon) asked in within this long is in use
PROBE_EVERY = 10  # a model judged too weak to write tool answers is asked again after this many skipped
ROLLING_TITLES = {"ask": "one-shot questions (assistant ask)"}


class TurnRow(BaseModel):
    """A finished (or failed) turn as the store keeps it; its trace is saved with it."""

    id: str
    session_id: str
    question: str
    answer: str | None
    ok: bool
    route: str | None
    route_by: str | None
    route_reason: str | None
    attempts: int
    model_calls: int
    error: str | None
    started_at: str
    finished_at: str
    request: str | None = None  # the request answered, when a rule completed the words typed (a follow-up)
    answer_schema: str | None = None  # the schema its answer followed (canonical JSON), found again by ``logs --schema``


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class Store:
    """A thin, synchronous layer: every operation is one short transaction, safe to call from the event loop."""

    def __init__(self, path: Path, max_bytes: int = 0, notify: Callable[[str], None] | None = None) -> None:
        """Open (and migrate) the store; a full disk, a read-only folder or a damaged file is a :class:`StoreError`
        that says which, and what to do. ``max_bytes`` (0: none) caps the history: past it the oldest turns are
        deleted, and ``notify`` hears it."""
        self.path = path
        self._saves = 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db: Any = Connection(connect(path), path)
            self.upkeep = Upkeep(self.db, path, max_bytes, notify)  # the cap, the search index's repair
            self.batches = BatchBook(self.db, self.upkeep)  # batch jobs and their records
            self.migrate()
        except StoreError:
            raise
        except (sqlite3.Error, OSError) as e:
            raise store_error(path, e) from None

    def close(self) -> None:
        self.db.close()

    def migrate(self) -> None:
        self.db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = {r[0] for r in self.db.execute("SELECT name FROM schema_migrations")}
        for name, fn in MIGRATIONS:
            if name in done:
                continue
            self.db.execute("BEGIN IMMEDIATE")  # one writer: the migration is applied by whoever gets here first
            try:
                if self.db.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                    self.db.execute("COMMIT")  # another process applied it while this one waited for the lock
                    continue
                fn(self.db)
                self.db.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, now_iso()))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    @property
    def schema_version(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0]

    # sessions and history

    def create_session(self, title: str | None = None, frontend: str = "chat") -> str:
        sid = new_id()
        self.db.execute("INSERT INTO sessions (id, created_at, title, frontend) VALUES (?, ?, ?, ?)",
                        (sid, now_iso(), title, frontend))
        return sid

    def rolling_session(self, frontend: str, title: str | None = None) -> str:
        """The one session that collects a front end's turns (every one-shot ``ask``; a batch job's questions)."""
        row = self.db.execute("SELECT id FROM sessions WHERE frontend = ? AND (title IS ? OR ? IS NULL) "
                              "ORDER BY created_at DESC LIMIT 1", (frontend, title, title)).fetchone()
        return row[0] if row else self.create_session(title or ROLLING_TITLES.get(frontend), frontend)

    def session_exists(self, session_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None

    def recent_messages(self, session_id: str, turns: int) -> list[tuple[str, str]]:
        """The last ``turns`` answered turns of a session as (role, content), oldest first."""
        rows = self.db.execute(
            "SELECT question, answer FROM turns WHERE session_id = ? AND answer IS NOT NULL "
            "ORDER BY started_at DESC, rowid DESC LIMIT ?", (session_id, turns),
        ).fetchall()
        out: list[tuple[str, str]] = []
        for r in reversed(rows):
            out += [("user", r["question"]), ("assistant", r["answer"])]
        return out

    def last_turn(self, session_id: str) -> PreviousTurn | None:
        """The session's last answered turn, with the tool calls of its passing attempt."""
        row = self.db.execute(
            "SELECT id, COALESCE(request, question) AS question, route, attempts FROM turns WHERE session_id = ? "
            "AND answer IS NOT NULL "
            "ORDER BY started_at DESC, rowid DESC LIMIT 1", (session_id,)).fetchone()
        if row is None:
            return None
        calls = [(json.loads(r["args"]), json.loads(r["result"]) if r["result"] else None) for r in self.db.execute(
            "SELECT args, result FROM tool_calls WHERE turn_id = ? AND attempt = ? AND ok = 1 ORDER BY seq",
            (row["id"], row["attempts"]))]
        return PreviousTurn(question=row["question"], route=row["route"], calls=calls)

    def pending(self, session_id: str) -> PreviousTurn | None:
        row = self.db.execute("SELECT route, question FROM pending WHERE session_id = ?", (session_id,)).fetchone()
        return PreviousTurn(question=row["question"], route=row["route"]) if row else None

    def set_pending(self, session_id: str, pending: PreviousTurn | None) -> None:
        """Remember (or forget) a request waiting for the user's answer to a question asked back."""
        if pending is None:
            self.db.execute("DELETE FROM pending WHERE session_id = ?", (session_id,))
        else:
            self.db.execute("INSERT OR REPLACE INTO pending VALUES (?, ?, ?, ?)",
                            (session_id, pending.route, pending.question, now_iso()))

    # turns

    def record_answer(self, model: str, outcome: str) -> None:
        """How a model's answer from tool results fared: ``passed``, ``failed`` (the gate held it), or ``skipped``."""
        self.db.execute("INSERT INTO answer_quality (model, outcome, at) VALUES (?, ?, datetime('now'))", (model, outcome))
        self.db.execute("DELETE FROM answer_quality WHERE model = ? AND id <= (SELECT id FROM answer_quality WHERE "
                        "model = ? ORDER BY id DESC LIMIT 1 OFFSET 100)", (model, model))  # the recent past is enough

    def weak_writer(self, model: str, window: int) -> bool:
        """The model's last ``window`` answers from tool results all failed the gate, and it has not yet been skipped
        :data:`PROBE_EVERY` times since (then it is asked again)."""
        if window <= 0:
            return False
        rows = [r[0] for r in self.db.execute(
            "SELECT outcome FROM answer_quality WHERE model = ? ORDER BY id DESC LIMIT ?", (model, window + PROBE_EVERY))]
        skipped = 0
        while skipped < len(rows) and rows[skipped] == "skipped":
            skipped += 1
        tried = [r for r in rows[skipped:] if r != "skipped"][:window]
        return len(tried) == window and all(r == "failed" for r in tried) and skipped < PROBE_EVERY

    def save_turn(self, turn: TurnRow, model_calls: list[Any], tool_calls: list[Any], events: list[Any]) -> None:
        """Write a finished (or failed) turn with its whole trace in one transaction (a full disk, a read-only or
        damaged file: :class:`StoreError`). A damaged search index is rebuilt from the turns, and the turn saved."""
        for attempt in (1, 2):
            try:
                self._save_turn(turn, model_calls, tool_calls, events)
                if self.upkeep.max_bytes and self._saves % CAP_CHECK_EVERY == 0:
                    self.upkeep.trim()
                self._saves += 1
                return
            except (sqlite3.Error, OSError) as e:
                raise store_error(self.path, e) from None
            except StoreError:
                if attempt == 2 or not self.upkeep.repair_search_index():
                    raise

    def _save_turn(self, row: TurnRow, model_calls: list[Any], tool_calls: list[Any], events: list[Any]) -> None:
        db = self.db
        turn = {**row.model_dump(), "ok": int(row.ok), "schema_id": schema_id(row.answer_schema) if row.answer_schema else None}
        db.execute("BEGIN IMMEDIATE")
        try:
            if row.answer_schema:
                db.execute("INSERT OR IGNORE INTO schemas (id, content) VALUES (?, ?)", (turn["schema_id"], row.answer_schema))
            db.execute(
                "INSERT INTO turns (id, session_id, question, answer, ok, route, route_by, route_reason, attempts, "
                "model_calls, error, started_at, finished_at, request, schema_id) VALUES (:id, :session_id, :question, "
                ":answer, :ok, :route, :route_by, :route_reason, :attempts, :model_calls, :error, :started_at, "
                ":finished_at, :request, :schema_id)",
                turn,
            )
            db.execute("UPDATE sessions SET title = ? WHERE id = ? AND title IS NULL", (turn["question"][:80], turn["session_id"]))
            insert_trace(db, turn["id"], model_calls, tool_calls, events)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def turn(self, turn_id: str) -> dict[str, Any] | None:
        """A turn with its model calls, tool calls and events, as plain data (for traces and tests). Its events are as
        kept, their empty fields left out: ``assistant.pipeline.events.whole`` reads them whole."""
        row = self.db.execute("SELECT * FROM turns WHERE id = ?", (turn_id,)).fetchone()
        if row is None:
            return None
        out = dict(row)
        out["model_calls"] = [{**dict(r), "request": whole_request(r["request"], self._shared_text)} for r in
                              self.db.execute("SELECT * FROM model_calls WHERE turn_id = ? ORDER BY seq", (turn_id,))]
        out["tool_calls"] = [dict(r) for r in self.db.execute("SELECT * FROM tool_calls WHERE turn_id = ? ORDER BY seq", (turn_id,))]
        stored = self.db.execute("SELECT data FROM turn_events WHERE turn_id = ?", (turn_id,)).fetchone()
        out["events"] = kept_events(stored[0]) if stored else []
        return out

    def usage(self, turn_id: str) -> tuple[int, int, int]:
        """(model calls, input tokens, output tokens) of a turn, as its trace kept them."""
        row = self.db.execute("SELECT count(*), sum(prompt_tokens), sum(output_tokens) FROM model_calls "
                              "WHERE turn_id = ?", (turn_id,)).fetchone()
        return row[0], row[1] or 0, row[2] or 0

    def used_bytes(self) -> int:
        """The bytes the data takes in the file (:meth:`Upkeep.used_bytes`)."""
        return self.upkeep.used_bytes()

    def _shared_text(self, digest: str) -> str | None:
        row = self.db.execute("SELECT text FROM shared_texts WHERE hash = ?", (digest,)).fetchone()
        return row[0] if row else None

    def logs(self, limit: int = 3, text: str | None = None, model: str | None = None,
             session_id: str | None = None, schema: str | None = None) -> list[dict[str, Any]]:
        """The last ``limit`` turns (0: all), oldest first, with their models: those whose question or answer
        contains ``text`` (any language; case does not matter), that ``model`` answered a call of, of
        ``session_id`` (one conversation), and answered with ``schema`` (its id)."""
        where: list[str] = ["t.session_id = ?"] if session_id else []
        params: list[Any] = [session_id] if session_id else []
        if schema:
            where.append("t.schema_id = ?")
            params.append(schema)
        order = "t.started_at DESC, t.rowid DESC"
        if text and len(text.strip()) >= 3:
            phrase = '"' + text.strip().replace('"', '""') + '"'
            where.append("t.rowid IN (SELECT rowid FROM turns_fts WHERE turns_fts MATCH ?)")
            params.append(phrase)
            few = self.db.execute("SELECT count(*) FROM (SELECT 1 FROM turns_fts WHERE turns_fts MATCH ? LIMIT ?)",
                                  (phrase, FEW_MATCHES + 1)).fetchone()[0] <= FEW_MATCHES
            if few:  # sorted from the matches; walking every turn newest first for them grew with the history
                order = "+t.started_at DESC, +t.rowid DESC"
        elif text and text.strip():
            where.append("(t.question LIKE ? ESCAPE '\\' OR t.answer LIKE ? ESCAPE '\\')")
            like = "%" + text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            params += [like, like]
        if model:
            where.append("EXISTS (SELECT 1 FROM model_calls m WHERE m.turn_id = t.id AND m.model = ?)")
            params.append(model)
        sql = ("SELECT t.id, t.session_id, t.question, t.answer, t.ok, t.route, t.error, t.started_at, t.schema_id, "
               "(SELECT GROUP_CONCAT(DISTINCT m.model) FROM model_calls m WHERE m.turn_id = t.id) AS models "
               f"FROM turns t {'WHERE ' + ' AND '.join(where) if where else ''} "
               f"ORDER BY {order} LIMIT ?")
        rows = [dict(r) for r in self.db.execute(sql, (*params, limit or -1))]
        for r in rows:
            r["ok"] = bool(r["ok"])
            r["models"] = sorted((r["models"] or "").split(",")) if r["models"] else []
        return rows[::-1]

    def schema_ids(self, prefix: str) -> list[str]:
        """The stored schemas whose id starts with ``prefix`` (``logs --schema ID``)."""
        return [r[0] for r in self.db.execute("SELECT id FROM schemas WHERE id >= ? AND id < ? LIMIT 2",
                                              (prefix, prefix + "\uffff"))]

    def find_turn(self, ref: str, session_id: str | None = None) -> str | None:
        """A turn id from ``last``, ``last-N`` (N turns before the last), or a unique id prefix."""
        where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
        if ref == "last" or ref.startswith("last-") and ref[5:].isdigit():
            back = int(ref[5:]) if ref != "last" else 0
            row = self.db.execute(f"SELECT id FROM turns {where} ORDER BY started_at DESC, rowid DESC LIMIT 1 OFFSET ?",
                                  (*params, back)).fetchone()
            return row[0] if row else None
        rows = self.db.execute("SELECT id FROM turns WHERE id LIKE ? LIMIT 2", (ref + "%",)).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def sessions(self, limit: int | None = None, frontend: str | None = None,
                 exclude: str | None = None) -> list[SessionSummary]:
        """Sessions, the most recently active first; ``frontend``: only chat, ask or batch ones; ``exclude``: not those."""
        where, params = ("WHERE s.frontend = ?", [frontend]) if frontend else \
            ("WHERE s.frontend != ?", [exclude]) if exclude else ("", [])
        # the sessions' own rows, in the order of their last turn (kept by triggers, migration 018): nothing here
        # reads the turns, so the listing costs the same at 1k turns and at 100k
        rows = [dict(r) for r in self.db.execute(
            "SELECT s.id, s.created_at, s.title, s.frontend, s.turn_count AS turns, "
            "CASE WHEN s.turn_count > 0 THEN s.last_active END AS last_active "
            f"FROM sessions s {where} ORDER BY s.last_active DESC LIMIT ?", (*params, limit or -1))]
        return [SessionSummary.model_validate(r) for r in rows]

    def find_session(self, ref: str, frontend: str | None = None, exclude: str | None = None) -> str | None:
        """A session id from ``last`` (of ``frontend``'s sessions, when given; not ``exclude``'s) or a unique id prefix."""
        if ref == "last":
            recent = self.sessions(1, frontend, exclude)
            return recent[0].id if recent else None
        rows = self.db.execute("SELECT id FROM sessions WHERE id LIKE ? LIMIT 2", (ref + "%",)).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def session_turns(self, session_id: str) -> list[TurnSummary]:
        return [TurnSummary.model_validate(dict(r)) for r in self.db.execute(
            "SELECT id, question, answer, ok, route, route_by, attempts, model_calls, error, started_at, finished_at "
            "FROM turns WHERE session_id = ? ORDER BY started_at, rowid", (session_id,))]

    # sessions in use: leased by the process that has them open (a chat, the daemon for the popup)

    def lease_session(self, session_id: str) -> None:
        """This process has ``session_id`` open: pruning and ``sessions delete`` leave it alone while it lives."""
        if session_id:
            self.db.execute("INSERT INTO session_leases VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
                            "pid = excluded.pid, at = excluded.at", (session_id, os.getpid(), now_iso()))

    def sessions_in_use(self) -> dict[str, int]:
        """Sessions a live process asked in within the last :data:`LEASE_HOURS`, with its pid (other leases are
        dropped)."""
        from datetime import datetime, timedelta, timezone

        since = (datetime.now(timezone.utc) - timedelta(hours=LEASE_HOURS)).isoformat(timespec="milliseconds")
        live, dead = {}, []
        for sid, pid, at in self.db.execute("SELECT session_id, pid, at FROM session_leases"):
            if alive(pid) and at >= since:
                live[sid] = pid
            else:
                dead.append((sid,))
        if dead:
            self.db.executemany("DELETE FROM session_leases WHERE session_id = ?", dead)
        return live

    _PRUNED_TURNS = "started_at < :before AND session_id NOT IN (SELECT session_id FROM session_leases)"
    _PRUNED_SESSIONS = ("created_at < :before AND NOT EXISTS (SELECT 1 FROM turns WHERE turns.session_id = sessions.id "
                        "AND NOT ({turns})) AND id NOT IN (SELECT session_id FROM pending) AND id NOT IN "
                        "(SELECT session_id FROM session_leases)")

    def prune_counts(self, before: str) -> tuple[int, int, int]:
        """What :meth:`prune` would delete: (turns, sessions, sessions in use that it keeps)."""
        in_use = self.sessions_in_use()
        turns = self.db.execute(f"SELECT count(*) FROM turns WHERE {self._PRUNED_TURNS}", {"before": before}).fetchone()[0]
        sessions = self.db.execute("SELECT count(*) FROM sessions WHERE " + self._PRUNED_SESSIONS.format(
            turns=self._PRUNED_TURNS), {"before": before}).fetchone()[0]
        return turns, sessions, len(in_use)

    def prune(self, before: str) -> tuple[int, int, bool]:
        """Delete the turns started before ``before`` (ISO time) with their calls and events, and the sessions left
        empty, but nothing of a session in use; returns (turns, sessions, vacuumed). After a large prune the file is
        compacted (VACUUM)."""
        self.sessions_in_use()  # leases of processes gone are dropped first
        self.db.execute("BEGIN IMMEDIATE")
        try:
            turns = self.db.execute(f"DELETE FROM turns WHERE {self._PRUNED_TURNS}", {"before": before}).rowcount
            sessions = self.db.execute("DELETE FROM sessions WHERE " + self._PRUNED_SESSIONS.format(
                turns=self._PRUNED_TURNS), {"before": before}).rowcount
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        vacuumed = turns >= VACUUM_AFTER
        if vacuumed:
            self.upkeep.merge_search_index()
            self.db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # a store made before gives freed pages back from now
            self.db.execute("VACUUM")
        return turns, sessions, vacuumed

    def delete_session(self, session_id: str) -> bool:
        """Delete a session with its turns; one in use by a live process (a chat, the daemon) is refused."""
        pid = self.sessions_in_use().get(session_id)
        if pid is not None and pid != os.getpid():
            raise ConfigError(f"session {session_id} is open in a running process (pid {pid}): a chat or the daemon.",
                              "Leave that chat (or stop the daemon) first, then delete it.")
        return self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    # batch jobs: one per distinct input; each answered question is committed before it is written out


class LazyStore:
    """A :class:`Store` opened on first use: a question that needs no store (arithmetic with ``--no-log``) is answered
    even when the database cannot be opened (damaged, read-only); anything that needs it gets the StoreError then."""

    def __init__(self, path: Path, max_bytes: int = 0, notify: Callable[[str], None] | None = None) -> None:
        self.path, self.max_bytes, self.notify = path, max_bytes, notify
        self._store: Store | None = None

    def __getattr__(self, name: str) -> Any:
        if self._store is None:
            self._store = Store(self.path, self.max_bytes, self.notify)
        return getattr(self._store, name)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
