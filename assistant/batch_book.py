"""Batch jobs in the store: a job is its input and the settings that change answers, owned by one live process at a
time; each answered question is a record, written before it is shown, so a job killed anywhere resumes where it
stopped (:mod:`assistant.frontends.batch`)."""

from __future__ import annotations

import os
from typing import Any

from assistant.errors import ConfigError
from assistant.store_upkeep import Upkeep
from assistant.trace import now_iso


class BatchBusy(ConfigError):
    """Another live process runs this batch job."""

    def __init__(self, job_id: str, pid: int) -> None:
        super().__init__(f"batch job {job_id} is already running (process {pid}).",
                         "Wait for it to finish, or stop it (kill " + str(pid) + ") and run the same command to resume.")


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BatchBook:
    def __init__(self, db: Any, upkeep: Upkeep) -> None:
        self.db, self.upkeep = db, upkeep

    def open(self, job_id: str, input_name: str, total: int, settings: str = "{}", fresh: bool = False) -> None:
        """Start or resume job ``job_id`` in this process; ``fresh`` forgets what earlier runs answered. A job has one
        owner at a time: while another live process runs it, :class:`BatchBusy` says which (checked and taken in one
        transaction, so two runs started at once cannot both take it)."""
        now = now_iso()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            row = self.db.execute("SELECT status, pid FROM batch_jobs WHERE id = ?", (job_id,)).fetchone()
            if row is not None and row["status"] == "running" and row["pid"] not in (None, os.getpid()) \
                    and alive(row["pid"]):
                raise BatchBusy(job_id, row["pid"])
            if fresh:
                self.db.execute("DELETE FROM batch_items WHERE job_id = ?", (job_id,))
            self.db.execute(
                "INSERT INTO batch_jobs (id, input, total, status, created_at, updated_at, settings, pid) "
                "VALUES (?, ?, ?, 'running', ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET status = 'running', updated_at = excluded.updated_at, pid = excluded.pid",
                (job_id, input_name, total, now, now, settings, os.getpid()),
            )
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self, job_id: str, done: bool) -> None:
        """The process leaves the job: ``done`` when every question has its record, else interrupted."""
        self.db.execute("UPDATE batch_jobs SET status = ?, pid = NULL, updated_at = ? WHERE id = ?",
                        ("done" if done else "interrupted", now_iso(), job_id))
        if done and self.upkeep.max_bytes:  # its records (written out now) go before any turn, now rather than later
            self.upkeep.trim()

    def done(self, job_id: str) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT idx FROM batch_items WHERE job_id = ?", (job_id,))}

    def line(self, job_id: str, index: int) -> str:
        return self.db.execute("SELECT line FROM batch_items WHERE job_id = ? AND idx = ?", (job_id, index)).fetchone()[0]

    def lines(self, job_id: str):  # -> Iterator[str], in the order they were answered
        cur = self.db.cursor()
        for row in cur.execute("SELECT line FROM batch_items WHERE job_id = ? ORDER BY finished_at, idx", (job_id,)):
            yield row[0]

    def record(self, job_id: str, index: int, ok: bool, line: str) -> None:
        now = now_iso()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT OR REPLACE INTO batch_items VALUES (?, ?, ?, ?, ?)", (job_id, index, int(ok), line, now))
            self.db.execute("UPDATE batch_jobs SET updated_at = ? WHERE id = ?", (now, job_id))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def jobs(self) -> list[dict[str, Any]]:
        """Every job with its counts; ``running`` only while its process lives (a killed one is ``interrupted``)."""
        rows = [dict(r) for r in self.db.execute(
            "SELECT j.*, COUNT(i.idx) AS done, COALESCE(SUM(1 - i.ok), 0) AS failed FROM batch_jobs j "
            "LEFT JOIN batch_items i ON i.job_id = j.id GROUP BY j.id ORDER BY j.updated_at DESC")]
        for r in rows:
            if r["status"] == "running" and not alive(r["pid"]):
                r["status"] = "interrupted"
        return rows
