"""How much room text takes on a terminal: wide characters (Chinese, Japanese, emoji) take two columns, combining
marks none. Standard library only: the thin client, the store's tables and the row writer all measure with it."""

from __future__ import annotations

import os
import shutil
import sys
import unicodedata


def terminal_columns(fallback: int = 80) -> int:
    """The width of the terminal the answer is shown on: what the terminal itself says (stdout, else stderr), then
    ``COLUMNS``, then ``fallback``. The terminal first: a ``COLUMNS`` exported once and inherited goes stale when
    the window is resized or the program runs in another terminal (tmux, a pane)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            size = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            continue
        if size > 0:
            return size
    return shutil.get_terminal_size((fallback, 24)).columns


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


def wrapped(text: str, columns: int, indent: str = "") -> str:
    """``text`` broken at spaces into rows of at most ``columns`` terminal columns (a word longer than a row is
    left whole), each row after the first starting with ``indent``; its own line breaks kept."""
    rows: list[str] = []
    for paragraph in text.split("\n"):
        row = ""
        for word in paragraph.split(" "):
            candidate = f"{row} {word}" if row else word
            if row and width(candidate) > columns:
                rows.append(row)
                row = indent + word
            else:
                row = candidate
        rows.append(row)
    return "\n".join(rows)
