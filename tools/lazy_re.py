"""Patterns compiled at their first use, not at import, and compiled once an install rather than once a process.

Compiling the rules' patterns was a third of the start of a question answered by rule, and most of them are never
used by one question (``2+3`` needs the calculator's, not the weather's). :func:`lazy_compile` is ``re.compile``
whose work waits for the first search; ``pattern`` and ``flags`` are known at once, so a pattern built from
another's text compiles neither.

What compiling makes (the program the regular-expression engine runs) is the same in every process of the same
Python, so it is kept: :func:`keep_programs` names a file in the cache, read at the first compile and written, with
what was new, when the process ends (or when :func:`compile_all` is done). A pattern found there costs a look-up
instead of a parse: 0.2 ms against 1 to 60 ms. The file names this Python's version and engine: another Python's
file, a damaged one or one of an unknown shape is not read (the patterns compile as before and it is written again);
the engine checks every program it is given (``_sre.compile`` refuses one that is not well formed). Anything
unexpected here falls back to ``re.compile``: the store saves time, it never decides what a pattern means."""

from __future__ import annotations

import _sre
import atexit
import marshal
import os
import re
import sys
from pathlib import Path
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer", "scanner")


class _Lazy:
    __slots__ = ("pattern", "flags", "_compiled", *_METHODS)

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None
        _MADE.append(self)

    def _compile(self) -> re.Pattern[str]:
        if self._compiled is None:
            compiled = _programs.compile(self.pattern, self.flags)
            for name in _METHODS:  # bound once: later calls cost what the compiled pattern's do
                object.__setattr__(self, name, getattr(compiled, name))
            self._compiled = compiled
        return self._compiled

    def __getattr__(self, name: str) -> Any:  # only what is not bound yet: the first call, groups, groupindex
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._compile(), name)

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}, {self.flags!r})"


_MADE: list[_Lazy] = []  # every lazy pattern made so far (module constants, for the most part)

Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]  # what _sre.compile takes after the text
# Each program is kept marshalled on its own: reading the file makes one bytes object a program, and only the programs
# a process uses are unmarshalled (a question answered by rule uses a fifth of them; the file is ~800 KB of them).
_FORMAT = 2
_MOST = 4000  # programs kept at most: a file of patterns no release uses any more starts again


class _Programs:
    """The compiled programs kept on disk, by (pattern, flags)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.owner = 0  # the process that may write the file (not a worker forked from it)
        self.known: dict[tuple[str, int], bytes] | None = None  # read at the first compile, each program marshalled
        self.new: dict[tuple[str, int], bytes] = {}
        self.found = self.compiled = 0  # counts, for tests and the bench

    def keep(self, folder: Path) -> None:
        path = folder / f"patterns-{sys.implementation.cache_tag}-{_sre.MAGIC}.marshal"
        if path == self.path and self.owner == os.getpid():
            return
        if self.path is None:
            atexit.register(self.save)
        self.save()  # what another folder was promised
        self.path, self.owner, self.known = path, os.getpid(), None

    def _header(self) -> tuple[Any, ...]:
        return (_FORMAT, sys.version, _sre.MAGIC, _sre.CODESIZE, sys.maxunicode)

    def _read(self) -> dict[tuple[str, int], bytes]:
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as f:
                header, programs = marshal.loads(f.read())  # marshal.load(f) reads the file a few bytes at a time
            if header == self._header() and isinstance(programs, dict):
                return programs
        except (OSError, EOFError, ValueError, TypeError):  # missing, damaged, another shape: compiled as before
            pass
        return {}

    def compile(self, pattern: str, flags: int) -> re.Pattern[str]:
        flags = int(flags)
        if self.path is None:
            return re.compile(pattern, flags)
        if self.known is None:
            self.known = self._read()
        kept = self.known.get((pattern, flags))
        if kept is not None:
            try:
                compiled = cast(re.Pattern[str], _sre.compile(pattern, *marshal.loads(kept)))
                self.found += 1
                return compiled
            except Exception:  # noqa: BLE001 - a program the engine refuses: compiled from the text instead
                del self.known[(pattern, flags)]
        self.compiled += 1
        try:
            made = _program(pattern, flags)
            compiled = cast(re.Pattern[str], _sre.compile(pattern, *made))
        except re.error:
            raise
        except Exception:  # noqa: BLE001 - another Python's compiler: no program to keep
            return re.compile(pattern, flags)
        self.known[(pattern, flags)] = self.new[(pattern, flags)] = marshal.dumps(made)
        return compiled

    def save(self) -> None:
        """Write what was compiled here beside what the file holds (another process may have added to it since),
        atomically; quietly nothing on any failure (a read-only or full cache costs the next process time, no more)."""
        if not self.new or self.path is None or os.getpid() != self.owner:
            return
        try:
            from tools.cache_file import partial_file

            programs = self._read()
            if len(programs) + len(self.new) > _MOST:
                programs = {}
            programs.update(self.new)
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with partial_file(self.path) as tmp:
                with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
                    marshal.dump((self._header(), programs), f)
                os.replace(tmp, self.path)
            self.new = {}
        except Exception:  # noqa: BLE001 - see above
            pass


def _program(pattern: str, flags: int) -> Program:
    """What ``re.compile`` hands the engine, made by the compiler ``re`` itself uses."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    index = dict(parsed.state.groupdict)
    names: list[str | None] = [None] * parsed.state.groups
    for name, number in index.items():
        names[number] = name
    return int(flags | parsed.state.flags), [int(c) for c in code], parsed.state.groups - 1, index, tuple(names)


_programs = _Programs()


def keep_programs(folder: Path) -> None:
    """Keep compiled programs in ``folder`` (the cache) from now on: read at the first compile, written at the end
    of this process (not of a worker forked from it)."""
    _programs.keep(folder)


def compile_all() -> int:
    """Compile every lazy pattern made so far, now: what a process that lives (the chat, the daemon) does while it
    waits, so that its first question does not pay for them; the programs are kept at once. How many were compiled."""
    waiting = [p for p in _MADE if p._compiled is None]
    for p in waiting:
        p._compile()
    _programs.save()
    return len(waiting)


def lazy_compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done at the first use. Typed as the pattern it stands for."""
    return cast(re.Pattern[str], _Lazy(pattern, int(flags)))
