"""The logs the tools' processes write to (their stderr: plugins' hook hosts, tool workers, MCP servers), opened
best effort: a read-only or full home, a log folder that is a file, a log that is a FIFO, each leaves the log out
(the child's stderr goes nowhere) instead of stopping the tool, or the question, at its start."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Any


def open_log(path: Path | None, text: bool = False) -> IO[Any] | None:
    """``path`` opened for appending (binary, or text), or ``None`` where it cannot be: the caller hands the child
    ``DEVNULL`` then."""
    if path is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device put where the log goes
            os.close(fd)
            return None
        os.set_blocking(fd, True)
        return os.fdopen(fd, "a", encoding="utf-8") if text else os.fdopen(fd, "ab")
    except OSError:
        os.close(fd)
        return None


def note(path: Path | None, line: str) -> None:
    """One line into the log ``path``, or nowhere."""
    log = open_log(path, text=True)
    if log is not None:
        with log:
            log.write(line + "\n")
