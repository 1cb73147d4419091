"""How much room text takes on a terminal: wide characters (Chinese, Japanese, emoji) take two columns, combining
marks none. Standard library only: the thin client, the store's tables and the row writer all measure with it."""

from __future__ import annotations

import unicodedata


def char_width(c: str) -> int:
    if c == "\t":
        return 4
    return 2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1


def width(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    return sum(map(char_width, text))


def fit(text: str, columns: int | None) -> str:
    """``text`` cut to at most ``columns`` terminal columns, an ellipsis marking the cut (None: all of it)."""
    if columns is None or width(text) <= columns:
        return text
    out, used = [], 0
    for c in text:
        w = char_width(c)
        if used + w > columns - 1:
            break
        out.append(c)
        used += w
    return "".join(out) + "…"


def pad(text: str, columns: int) -> str:
    """``text`` filled with spaces to ``columns`` terminal columns (as ``f"{text:<columns}"`` would for ASCII)."""
    return text + " " * max(0, columns - width(text))
