"""The private folders workers run in: one per worker, empty, removed when the worker stops.

A process that dies without stopping its workers (killed, out of memory, the machine's power) cannot remove them, so
they are made where the next process finds them: ``<tmp>/assistant-<uid>[-<pid namespace>]/<kind>-<pid>-<random>``, in
a folder of the user's own (mode 0700), and the first home a process makes removes those whose process is gone (the
namespace in the name: a process id means the same process to everyone who sweeps that folder). A folder of that name
that is not the user's own private folder (another user made it first, or it is a link) is never used: the homes are
then made in the temporary folder itself, as before, and nothing is swept."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile

_swept = False


def _parent() -> str | None:
    """The user's own folder for workers' homes, made if missing; ``None`` when that name is not safely ours."""
    try:
        space = f"-{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        space = ""
    folder = os.path.join(tempfile.gettempdir(), f"assistant-{os.getuid()}{space}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def sweep(folder: str) -> None:
    """Remove the homes in ``folder`` whose process is gone."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        parts = entry.name.split("-")
        if len(parts) == 3 and parts[1].isdigit() and int(parts[1]) != os.getpid() and not _alive(int(parts[1])):
            shutil.rmtree(entry.path, ignore_errors=True)


def new_home(kind: str) -> str:
    """A new private, empty folder for one worker (``kind``: "tool", "plugin"); the caller removes it."""
    global _swept
    folder = _parent()
    if folder is None:
        return tempfile.mkdtemp(prefix=f"assistant-{kind}-")
    if not _swept:
        _swept = True
        sweep(folder)
    return tempfile.mkdtemp(prefix=f"{kind}-{os.getpid()}-", dir=folder)
