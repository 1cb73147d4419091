"""Patterns compiled at their first use, not at import.

Compiling the rules' patterns was a third of the start of a question answered by rule, and most of them are never
used by one question (``2+3`` needs the calculator's, not the weather's). :func:`lazy_compile` is ``re.compile``
whose work waits for the first search; ``pattern`` and ``flags`` are known at once, so a pattern built from
another's text compiles neither."""

from __future__ import annotations

import re
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
            compiled = re.compile(self.pattern, self.flags)
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


def compile_all() -> int:
    """Compile every lazy pattern made so far, now: what a process that lives (the chat, the daemon) does while it
    waits, so that its first question does not pay for them. How many were compiled."""
    waiting = [p for p in _MADE if p._compiled is None]
    for p in waiting:
        p._compile()
    return len(waiting)


def lazy_compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done at the first use. Typed as the pattern it stands for."""
    return cast(re.Pattern[str], _Lazy(pattern, int(flags)))
