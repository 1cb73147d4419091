"""The store's upkeep: its size held to its cap (``history_max_mb``), the least needed first, and its full-text index
of the turns rebuilt when a write a full disk interrupted damaged it. Over the store's one connection."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable

from assistant.errors import store_error

CAP_ROOM = 0.9  # past its cap, the store is trimmed to this share of it: not trimmed again at the next turn
RECORD_OVERHEAD = 1.3  # bytes a batch record takes in the file for each byte of its line (its row, its index)
BATCH_TURNS = "session_id IN (SELECT id FROM sessions WHERE frontend = 'batch')"


class Upkeep:
    def __init__(self, db: Any, path: Path, max_bytes: int, notify: Callable[[str], None] | None) -> None:
        self.db, self.path, self.max_bytes, self.notify = db, path, max_bytes, notify
        self._said_over = False  # "unfinished jobs hold the cap": said once a process

    def repair_search_index(self) -> bool:
        """Rebuild the full-text index of the turns when it is damaged, from the turns themselves (it holds nothing
        else). SQLite 3.40's FTS5 was seen to damage it after ~150 writes a full disk interrupted, in a soak and in
        a script that fills a disk again and again; the turns stayed intact, but every later save failed on the
        index's triggers. Returns whether it was damaged (and is rebuilt now)."""
        from assistant.migrations import _m009_turns_search

        raw = self.db._db
        try:
            raw.execute("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 0)")
            return False
        except sqlite3.Error:
            pass
        try:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            raw.execute("PRAGMA writable_schema=ON")  # a damaged FTS5 table cannot even be dropped: forget it
            raw.execute("BEGIN IMMEDIATE")
            raw.execute("DELETE FROM sqlite_master WHERE type = 'table' AND name = 'turns_fts'")
            raw.execute("COMMIT")
            raw.execute("PRAGMA writable_schema=OFF")
            self.db.reopen()
            raw = self.db._db
            raw.execute("BEGIN IMMEDIATE")
            for name in ("turns_fts_data", "turns_fts_idx", "turns_fts_docsize", "turns_fts_config"):
                raw.execute(f"DROP TABLE IF EXISTS {name}")
            for name in ("turns_fts_insert", "turns_fts_delete", "turns_fts_update"):
                raw.execute(f"DROP TRIGGER IF EXISTS {name}")
            _m009_turns_search(raw)
            raw.execute("COMMIT")
        except sqlite3.Error as e:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            raise store_error(self.path, e) from None
        if self.notify:
            self.notify("The history's search index was damaged (a write a full disk interrupted) and has been rebuilt "
                        "from the turns: nothing was lost.")
        return True

    def used_bytes(self) -> int:
        """The bytes the data takes in the file (pages in use; pages freed by deletes are reused before the file grows)."""
        page, count, free = (self.db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "page_count", "freelist_count"))
        return (count - free) * page

    def merge_search_index(self) -> None:
        """The search index keeps deleted turns' entries as markers until its segments are merged: merge them, so
        that deleting turns frees their space."""
        self.db.execute("INSERT INTO turns_fts(turns_fts) VALUES ('optimize')")

    def trim(self) -> int:
        """Past ``max_bytes``, make room down to ``CAP_ROOM`` of it, the least needed first: the records of finished
        batch jobs (their output was written out; a job run again asks again), oldest job first; then the turns of
        batch jobs (their records hold their answers); then the oldest turns, but only where that can bring the
        store under its cap: the records an unfinished job needs to resume stay, and conversations are not deleted
        for them. Says what it did through ``notify``. The file does not shrink: the freed pages take the next turns
        (``logs prune`` compacts it). Returns the turns deleted."""
        used = self.used_bytes()
        if not self.max_bytes or used <= self.max_bytes:
            return 0
        target = int(self.max_bytes * CAP_ROOM)
        jobs = 0
        for (job,) in self.db.execute("SELECT id FROM batch_jobs WHERE status = 'done' ORDER BY updated_at").fetchall():
            if used <= target:
                break
            self.db.execute("DELETE FROM batch_jobs WHERE id = ?", (job,))  # its records go with it (cascade)
            jobs += 1
            used = self.used_bytes()
        # what unfinished jobs need to resume: counted, never deleted, and no turn is deleted for it (it goes when its
        # job ends, and the turns kept then are what the cap has room for: a batch's records never crowd them out)
        resume = int(RECORD_OVERHEAD * self.db.execute(
            "SELECT COALESCE(SUM(length(line)), 0) FROM batch_items WHERE job_id IN "
            "(SELECT id FROM batch_jobs WHERE status != 'done')").fetchone()[0])
        batch_turns, used = self._delete_oldest(used, target, BATCH_TURNS, resume)
        chat_turns, used = self._delete_oldest(used, target, "1", resume)
        if jobs or batch_turns or chat_turns:
            # the freed pages back to the disk (a store made since auto_vacuum; executescript steps it to the end:
            # a single step frees one page), written through at once rather than at the next checkpoint
            self.db.executescript("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(PASSIVE);")
        if self.notify and (jobs or batch_turns or chat_turns):
            kept = self.db.execute("SELECT count(*) FROM turns").fetchone()[0]
            parts = ([f"the records of {jobs:,} finished batch job{'s' if jobs != 1 else ''}"] if jobs else []) + \
                ([f"{batch_turns:,} batch question{'s' if batch_turns != 1 else ''}"] if batch_turns else []) + \
                ([f"the {chat_turns:,} oldest turn{'s' if chat_turns != 1 else ''}"] if chat_turns else [])
            self.notify(f"The history passed its cap of {self.max_bytes / 2**20:g} MB: {', '.join(parts)} "
                        f"{'were' if len(parts) > 1 or jobs + batch_turns + chat_turns != 1 else 'was'} deleted; "
                        f"{kept:,} turn{'s' if kept != 1 else ''} kept (history_max_mb in config.toml; 0 keeps all).")
        if used > self.max_bytes and self.notify and not self._said_over:
            self._said_over = True
            self.notify(f"The history is over its cap of {self.max_bytes / 2**20:g} MB while unfinished batch jobs "
                        f"hold {resume / 2**20:.1f} MB of records to resume from: they go once the jobs finish (run "
                        "the same batch again to finish one), or raise history_max_mb.")
        return batch_turns + chat_turns

    def _delete_oldest(self, used: int, target: int, where: str, aside: int = 0) -> tuple[int, int]:
        """Delete the oldest turns matching ``where`` (SQL) until the data, less ``aside`` bytes, takes ``target``:
        (turns deleted, bytes used now)."""
        deleted, more = 0, 1
        while used - aside > target:
            turns = self.db.execute(f"SELECT count(*) FROM turns WHERE {where}").fetchone()[0]
            if not turns:
                break
            total = self.db.execute("SELECT count(*) FROM turns").fetchone()[0]
            n = min(turns, max(more, -(-(used - aside - target) * total // used)))  # their share of the excess
            removed = self.db.execute(f"DELETE FROM turns WHERE id IN (SELECT id FROM turns WHERE {where} ORDER BY "
                                      "started_at, rowid LIMIT ?)", (n,)).rowcount
            if not removed:
                break
            deleted += removed
            self.merge_search_index()  # its deleted turns' markers go: the index shrinks with the turns
            now = self.used_bytes()
            # a few small turns may free no whole page: take more of this kind next time rather than moving on to
            # the next kind (a conversation) while these are left
            more = 2 * n if now >= used else 1
            used = now
        return deleted, used
