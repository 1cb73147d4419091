"""Prose on a terminal, broken into rows at word boundaries as it streams: a word that would not fit on the row
goes to the next one whole (Chinese and Japanese text between any two characters, as it is set), a space never
begins a row, and a word wider than a whole row is the only thing cut. Code and tables are written as they are
(their lines are their meaning); the terminal folds what is wider than it.

The writer keeps the cursor's column and the rows the current line has taken, so that a line shown as it came can
be taken back exactly and drawn again as formatting (:class:`assistant.frontends.progress.Progress`)."""

from __future__ import annotations

from typing import Callable, TextIO

from assistant.frontends.columns import char_width, terminal_columns, width
from assistant.frontends.markdown import is_cjk
from tools.lazy_re import lazy_compile

# A list item's or a quote's marker, as the model wrote it or as it is shown: wrapped rows start under its text
_HANGING = lazy_compile(r"^(?:[ ]*(?:[•│>*+-] |\d+[.)] ))+")


def columns() -> int:
    return max(10, terminal_columns())


def hanging(line: str) -> str:
    """What a wrapped row of ``line`` starts with: spaces under a list item's text, a quote's bar (never past half
    a row)."""
    m = _HANGING.match(line)
    if not m:
        return ""
    prefix = "".join(c if c == "│" else " " for c in m.group(0))
    return prefix if width(prefix) <= columns() // 2 else ""


class RowWriter:
    """Writes text to ``out`` row by row. ``col`` is the cursor's column; ``rows`` the rows taken since :meth:`mark`
    (where the line being written began: ``start``)."""

    def __init__(self, out: TextIO | None = None, width: Callable[[], int] = columns) -> None:
        self._out = out  # None: sys.stdout as it is at each write (a test or a front end may replace it)
        self.width = width
        self.col = 0
        self.start = 0
        self.rows = 1
        self.indent = ""  # what a wrapped row starts with
        self._auto = True  # the indent is read from the line itself at its first wrapped row
        self._text: list[str] = []  # what this line has shown so far
        self.wrap = True
        self._word: list[tuple[str, str]] = []  # (character, its style codes) of the word not yet placed
        self._space: str | None = None  # the style of a space owed before the next word (dropped at a row's start)
        self._space_at_mark: str | None = None
        self._sgr = ""  # the style the terminal is in now
        self._fresh = True  # nothing written on this row yet (a space here is dropped; no break is needed)

    def out(self) -> TextIO:
        import sys

        return self._out or sys.stdout

    def mark(self, wrap: bool = True, indent: str | None = None) -> None:
        """A new line begins here: wrapped (prose) or not (code, a table row), its rows counted from now; ``indent``:
        what its wrapped rows start with (None: read from the line's own start, a list's or a quote's marker)."""
        self.flush()
        self.start, self.rows, self.wrap = self.col, 1, wrap
        self.indent, self._auto, self._text = indent or "", indent is None, []
        self._space_at_mark = self._space
        self._fresh = self.col == 0

    def lead(self, indent: str) -> None:
        """A line's own indentation (a nested list item's), written as it is: spaces a row starts with are otherwise
        dropped."""
        self.flush()
        for c in indent:
            self._emit(c, "")

    def space(self, style: str = "") -> None:
        self.flush()
        if self.wrap:
            self._space = style
        else:
            self._put(" ", style)

    def newline(self) -> None:
        self.end()
        self._space = None
        self.out().write("\n")
        self.col = 0
        self.rows += 1
        self._fresh = True

    def end(self) -> None:
        """The word being gathered placed, and the terminal's style back to plain."""
        self.flush()
        if self._sgr:
            self.out().write("\033[0m")
            self._sgr = ""

    def write(self, text: str, style: str = "") -> None:
        """``text`` (no newlines) in ``style`` (SGR codes such as ``1;4``, or none)."""
        for c in text:
            if not self.wrap:
                self._put(c, style)
            elif c == " ":
                self.space(style)
            elif is_cjk(c):
                self.flush()
                self._place([(c, style)])
            else:
                self._word.append((c, style))

    def flush(self) -> None:
        """Place the word being gathered (at a space, a line's end, or the answer's end)."""
        if self._word:
            word, self._word = self._word, []
            self._place(word)

    def _place(self, unit: list[tuple[str, str]]) -> None:
        room = self.width()
        w = sum(char_width(c) for c, _ in unit)
        space = 1 if self._space is not None and not self._fresh else 0
        if self.col + space + w > room and not self._fresh:
            self._break()  # the word goes to the next row whole
            space = 0
        if space:
            self._emit(" ", self._space or "")
        self._space = None
        for c, style in unit:  # a word wider than a row is cut where the row ends
            if self.col + char_width(c) > room and not self._fresh:
                self._break()
            self._emit(c, style)

    def _break(self) -> None:
        if self._sgr:
            self.out().write("\033[0m")
            self._sgr = ""
        if self._auto:
            self.indent, self._auto = hanging("".join(self._text)), False
        self.out().write("\n" + self.indent)
        self.col = width(self.indent)
        self.rows += 1
        self._fresh = True

    def _put(self, c: str, style: str) -> None:
        """A character where the terminal puts it (no wrapping of ours: it folds at its edge)."""
        if self.col + char_width(c) > self.width():
            self.col = 0
            self.rows += 1
        self._emit(c, style)

    def _emit(self, c: str, style: str) -> None:
        if style != self._sgr:  # styles switched only where they change: a styled run is one pair of codes
            self.out().write(("\033[0m" if self._sgr else "") + (f"\033[{style}m" if style else ""))
            self._sgr = style
        self.out().write(c)
        self.col += char_width(c)
        self._fresh = False
        if self._auto and len(self._text) < 16:
            self._text.append(c)

    def back(self) -> None:
        """Take the line begun at :meth:`mark` off the screen, leaving the cursor where it began (up one row for each
        row it took, then clear below), with the space that was owed before it still owed."""
        self._word = []
        if self._sgr:
            self.out().write("\033[0m")
            self._sgr = ""
        self.out().write("\r" + "\033[1A" * (self.rows - 1) + (f"\033[{self.start}C" if self.start else "") + "\033[J")
        self.col, self.rows, self._space = self.start, 1, self._space_at_mark
        self._fresh = self.col == 0
