"""Caches are disposable: a cache file that fails to read (garbage written over it, a crash mid-write on a disk that
lies, a version this one does not know) is set aside and rebuilt, said once in the log, never a question that
fails until someone deletes the file by hand, and never blamed on the history store."""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from pathlib import Path

log = logging.getLogger("assistant.cache")


class CacheUnusable(Exception):
    """A cache that could not be read nor rebuilt (its folder is read-only or full): names the file."""

    def __init__(self, path: Path, error: BaseException) -> None:
        super().__init__(f"the cache {path} could not be read or rebuilt ({error})")
        self.path = path


# What does not mend by setting a file aside: it is locked, read-only, not ours, or the disk is full or failing.
_NOT_DAMAGE = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_FULL", "SQLITE_IOERR",
               "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_NOMEM", "SQLITE_INTERRUPT")


def damaged(error: BaseException) -> bool:
    """Whether an SQLite error says the file is not (or no longer) the cache it should be (not a database, a
    malformed page, a table missing), as opposed to a locked, read-only or full one, which setting it aside would
    not mend."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    name = getattr(error, "sqlite_errorname", "") or ""
    text = str(error).lower()
    if name.startswith(_NOT_DAMAGE) or any(w in text for w in ("locked", "readonly", "read-only", "full", "unable to open",
                                                                "disk i/o")):
        return False
    return True


def set_aside(path: Path, error: BaseException) -> None:
    """Move ``path`` (and its SQLite companions) out of the way as ``NAME.broken``, replacing an earlier one, so
    that it can be looked at and a new one made."""
    line = f"the cache {path} could not be read ({error}): it is set aside as {path.name}.broken and rebuilt"
    if logging.getLogger("assistant").handlers:  # the daemon's log
        log.warning(line)
    else:  # a tool worker's stderr is the tools' log; a command's, its terminal
        print(line, file=sys.stderr, flush=True)
    for suffix in ("-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except OSError:
            pass
    try:
        os.replace(path, path.with_name(path.name + ".broken"))
    except FileNotFoundError:
        pass
    except OSError:
        path.unlink(missing_ok=True)
