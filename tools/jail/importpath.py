"""The import path a confined process gets: the interpreter's own folders (standard library, site-packages and what
their ``.pth`` files add) and the folders of the code it must run, never the folder it was launched from.

``python -m assistant`` puts the working directory first on ``sys.path`` (a script, its own folder): handed on as
it is, a worker could read whatever lies in the folder the user happened to be in. Where the code itself lives in
such a folder (a checkout run with ``python -m``), the worker reaches it through a folder of its own holding only
a link to the ``tools`` package."""

from __future__ import annotations

import os
import sys

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent


def _launcher_entries() -> set[str]:
    """The entries Python put on ``sys.path`` for how it was launched: the working directory (``-m``, ``-c``, the
    REPL) and a script's folder."""
    from tools.jail import LAUNCHED_IN

    entries = {"", os.curdir, os.getcwd(), *([LAUNCHED_IN] if LAUNCHED_IN else [])}
    if sys.argv and sys.argv[0] and sys.argv[0] not in ("-c", "-m"):
        entries.add(os.path.dirname(os.path.abspath(sys.argv[0])))
    return {os.path.realpath(e) if e else e for e in entries}


def interpreter_path() -> list[str]:
    """``sys.path`` without the launcher's entries (absolute, existing folders, in order)."""
    launcher = _launcher_entries()
    out = []
    for p in sys.path:
        if not p or not os.path.isdir(p):
            continue
        real = os.path.realpath(p)
        if real in launcher:
            continue
        out.append(os.path.abspath(p))
    return list(dict.fromkeys(out))


def worker_path(private: str) -> list[str]:
    """The ``PYTHONPATH`` of a worker whose private folder is ``private``: :func:`interpreter_path`, plus a folder in
    ``private`` that links to ``tools`` when ``tools`` is not reached through it."""
    path = interpreter_path()
    holder = os.path.dirname(TOOLS_DIR)
    if os.path.realpath(holder) not in {os.path.realpath(p) for p in path} and not _found_by_finder():
        shim = os.path.join(private, ".code")
        os.makedirs(shim, exist_ok=True)
        link = os.path.join(shim, "tools")
        if not os.path.islink(link):
            os.symlink(TOOLS_DIR, link)
        path.insert(0, shim)
    return path


def _found_by_finder() -> bool:
    """Whether ``tools`` is found by an import finder an editable install registered (not by a ``sys.path`` folder)."""
    for finder in sys.meta_path:
        module = type(finder).__module__ or ""
        if module.startswith("__editable__") and hasattr(finder, "find_spec"):
            try:
                spec = finder.find_spec("tools", None)
            except Exception:  # noqa: BLE001 - a finder of someone else's
                continue
            if spec is not None:
                return True
    return False
