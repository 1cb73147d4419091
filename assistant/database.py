"""The store's SQLite connection: WAL, foreign keys, and every error of every query (a full disk, a read-only file,
damage found when a query reaches the page, not only at the open) raised as the store's one line
(:func:`assistant.errors.store_error`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

from assistant.errors import store_error


class Cursor:
    """A cursor whose rows, read one by one, turn SQLite's errors into the store's one line (damage inside a file
    that opened fine shows when a query reaches the page)."""

    def __init__(self, cursor: sqlite3.Cursor, path: Path) -> None:
        self._cursor, self._path = cursor, path

    def __iter__(self) -> Iterator[Any]:
        try:
            yield from self._cursor
        except (sqlite3.Error, OSError) as e:
            raise store_error(self._path, e) from None

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except (sqlite3.Error, OSError) as e:
            raise store_error(self._path, e) from None

    def fetchall(self) -> list[Any]:
        try:
            return self._cursor.fetchall()
        except (sqlite3.Error, OSError) as e:
            raise store_error(self._path, e) from None

    def __getattr__(self, name: str) -> Any:  # rowcount, lastrowid, description
        return getattr(self._cursor, name)


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    # A new store gives pages freed by the history cap back to the disk (PRAGMA incremental_vacuum after a trim);
    # on a store made before, this does nothing until `logs prune` compacts it.
    db.execute("PRAGMA auto_vacuum=INCREMENTAL")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


class Connection:
    """The connection, with every query's SQLite error the store's one line (:func:`assistant.errors.store_error`):
    a full disk, a read-only file or damage found at any query, not only at the open."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db, self._path = db, path

    def reopen(self) -> None:
        """A new connection (after the schema was changed behind this one's back)."""
        self._db.close()
        self._db = connect(self._path)

    def execute(self, sql: str, params: Any = ()) -> Cursor:
        try:
            return Cursor(self._db.execute(sql, params), self._path)
        except (sqlite3.Error, OSError) as e:
            raise store_error(self._path, e) from None

    def executemany(self, sql: str, rows: Any) -> Cursor:
        try:
            return Cursor(self._db.executemany(sql, rows), self._path)
        except (sqlite3.Error, OSError) as e:
            raise store_error(self._path, e) from None

    def executescript(self, script: str) -> Any:
        try:
            return self._db.executescript(script)
        except (sqlite3.Error, OSError) as e:
            raise store_error(self._path, e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)
