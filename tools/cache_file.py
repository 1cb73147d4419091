"""Caches are disposable: a cache file that fails to read (garbage written over it, a crash mid-write on a disk that
lies, a version this one does not know) is set aside and rebuilt, said once in the log, never a question that
fails until someone deletes the file by hand, and never blamed on the history store.

A rebuild is one process's at a time (:func:`one_builder`: a lock beside the file, which every process and every
sandboxed worker takes), and what it writes goes to a partial file that is removed on every way out but success
(:func:`partial_file`): a busy daemon whose cache was damaged builds it once, and a build cut short (a full disk, a
worker killed at its deadline) leaves nothing behind to fill the disk."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Iterator

log = logging.getLogger("assistant.cache")


class CacheUnusable(Exception):
    """A cache that could not be read nor rebuilt (its folder is read-only or full): names the file."""

    def __init__(self, path: Path, error: BaseException) -> None:
        self.full = disk_full(error)
        super().__init__(f"the disk is full: the cache {path} could not be rebuilt" if self.full else
                         f"the cache {path} could not be read or rebuilt ({error})")
        self.path = path


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` is a full disk (ENOSPC, a quota, SQLite's 'database or disk is full')."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return isinstance(error, sqlite3.Error) and ("full" in str(error).lower() or
                                                 (getattr(error, "sqlite_errorname", "") or "") == "SQLITE_FULL")


@contextlib.contextmanager
def one_builder(path: Path, wait: float = 120.0) -> Iterator[None]:
    """Hold the lock on building ``path`` (``NAME.lock`` beside it) while the block runs. Another holder is waited
    for up to ``wait`` seconds (a build takes seconds); past that, :class:`CacheUnusable` (the question is answered
    without the cache, or says so). Where the system has no ``flock`` (Windows), builds are not serialised."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as e:
        raise CacheUnusable(path, e) from None
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    waited = TimeoutError(f"another process has been building it for over {wait:.0f} s")
                    raise CacheUnusable(path, waited) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # the lock goes with the descriptor, and with the process however it ends


def remove_partials(path: Path) -> None:
    """Remove what builds of ``path`` left behind (``NAME.partial*`` and their SQLite companions): called under
    :func:`one_builder`, when no build can be running."""
    for stale in path.parent.glob(f"{path.name}.partial*"):
        stale.unlink(missing_ok=True)


@contextlib.contextmanager
def partial_file(path: Path) -> Iterator[Path]:
    """A file to build ``path`` in, moved into place by the caller (``os.replace``) and removed, with its SQLite
    companions, on every other way out of the block (an error, a full disk, an interrupt)."""
    partial = path.with_name(f"{path.name}.partial{os.getpid()}")
    try:
        yield partial
    finally:
        for leftover in (partial, *(Path(f"{partial}{s}") for s in ("-journal", "-wal", "-shm"))):
            leftover.unlink(missing_ok=True)


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


def set_aside(path: Path, error: BaseException, seen: os.stat_result | None = None) -> None:
    """Move ``path`` (and its SQLite companions) out of the way as ``NAME.broken``, replacing an earlier one, so
    that it can be looked at and a new one made. ``seen``: the file found damaged; when another process has already
    put a new one in its place, that one is left be."""
    if seen is not None:
        try:
            now = os.stat(path)
        except OSError:
            return  # already set aside by another process
        if (now.st_ino, now.st_dev) != (seen.st_ino, seen.st_dev):
            return
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
        try:
            path.unlink(missing_ok=True)
        except OSError:  # a folder this process may not write (a sandboxed reader): the next open says so
            pass
