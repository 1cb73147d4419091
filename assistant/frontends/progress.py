"""Terminal presentation of a turn's events: one status line on stderr while a stage runs, replaced
by the answer streaming to stdout. Works on event objects and on the plain dicts the daemon streams,
and imports nothing heavy, so the daemon's thin client can use it.

Every piece of an answer arrives already checked (the pipeline's streamed gate), so what is streamed is
never taken back: on a terminal it is the final answer as it grows; on a pipe only the final answer is
printed, whole."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

from assistant.frontends.columns import fit, terminal_columns
from assistant.frontends.markdown import ends_sentence, is_cjk, is_fence, spans, starts_block, table_line, table_spans
from assistant.frontends.wrap import RowWriter, hanging
from assistant.wire import stage_label

ELAPSED_AFTER = 3.0  # seconds a stage runs before the status line counts them


def terminal(stream: Any) -> bool:
    """A terminal that takes cursor control: a tty, and not ``TERM=dumb`` (Emacs shells, some CI logs)."""
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def status_wanted() -> bool:
    """Show the status line: stderr is a terminal that takes cursor control (``NO_COLOR`` keeps it, without colour)."""
    return terminal(sys.stderr)


_STYLES = {"bold": "1", "italic": "3", "heading": "1;4", "code": "36", "code_block": "36", "quote": "2", "table": "2"}
_COLOURS = {"code", "code_block"}  # dropped under NO_COLOR (bold and italic are not colour)


def _codes(styles: tuple[str, ...], colour: bool) -> str:
    """The SGR codes of a span's styles (colours left out under NO_COLOR)."""
    return ";".join(_STYLES[s] for s in styles if s in _STYLES and (colour or s not in _COLOURS))


class LineRenderer:
    """Markdown, line by line, as terminal styles: the little Markdown models write (``markdown.spans``), with the
    state a line needs from the lines before it (inside a code block or not)."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self.in_code = False
        self.lexer: Any = None  # the open code block's highlighter (None: one colour)

    def paragraph(self, text: str) -> bool:
        """``text`` is a line of a paragraph that stops inside a sentence (not code, a fence, a list item, a heading,
        a quote or a table row, and not after a sentence's end): a single newline after it is a space."""
        return not self.in_code and bool(text.strip()) and starts_block(text) is not True and not ends_sentence(text)

    def line(self, text: str) -> Rendered:
        """One complete line as styled pieces. A code block is framed (its language named above it) and its lines
        highlighted."""
        from assistant.frontends.highlight import FRAME, fence_language, highlighted, lexer_for

        if is_fence(text):
            self.in_code = not self.in_code
            if not self.in_code:
                return Rendered([("╰─", FRAME)], prose=False)
            language = fence_language(text)
            self.lexer = lexer_for(language)
            return Rendered([(f"╭─ {language}" if language else "╭─", FRAME)], prose=False)
        if self.in_code:
            return Rendered([("│ ", FRAME), *highlighted(text.expandtabs(4), self.lexer, self.colour)], prose=False)
        table = table_line(text)
        body = text.lstrip(" ")  # a nested list item keeps its place: the line alone would read as a top-level item
        indent = text[:len(text) - len(body)] if table is None and body else ""  # (or, past 3 spaces, as code)
        parts = table if table is not None else spans(body)
        pieces = [(indent, "")] if indent else []
        for piece, styles in parts:
            piece = piece.rstrip("\n")
            if piece:
                pieces.append((piece, _codes(styles, self.colour)))
        return Rendered(pieces=pieces, prose=table is None)


class Rendered:
    """A line as the terminal shows it: (text, SGR codes) pieces, and whether it is prose (wrapped at words)."""

    def __init__(self, pieces: list[tuple[str, str]], prose: bool) -> None:
        self.pieces, self.prose = pieces, prose
        self.plain = "".join(p for p, _ in pieces)
        self.styled = "".join(f"\033[{c}m{p}\033[0m" if c else p for p, c in pieces)


class Progress:
    def __init__(self, enabled: bool, stream_answer: bool = True, live: bool | None = None, render: bool = True) -> None:
        """``enabled``: show the status line; ``stream_answer``: print the answer at all; ``live``: stream it as it
        comes (default: when stdout is a terminal), else print only the final answer; ``render``: show a live
        answer's Markdown as formatting (each line as it completes; the line being written stays plain)."""
        self.enabled = enabled
        self.stream_answer = stream_answer
        self.live = terminal(sys.stdout) if live is None else live
        self.colour = not os.environ.get("NO_COLOR")
        self.render = render
        self._status = False
        self._answered = False
        self._line = ""  # the line being written, as it came
        self._renderer = LineRenderer(self.colour)
        self._row = RowWriter()  # prose broken at words, and the rows each line took
        self._marked = False  # the line being written has begun on screen
        # A paragraph's single newline is a space, as CommonMark has it: after a paragraph's line the break is held
        # until the next line's first characters say whether it continues the paragraph.
        self._held = False
        self._next = ""  # the next line's start, not yet written
        self._last = ""  # the last line ended, as it came
        self._label, self._since = "", 0.0  # the stage shown, and since when (its seconds show after a while)
        self._table: list[str] = []  # a table's rows as they came: laid out whole when it ends, aligned
        self._lock = threading.Lock()
        self._ticking: threading.Event | None = None

    def status(self, text: str) -> None:
        """A backend's own status before it answers ("loading model…"); safe to call from a worker thread."""
        self._show(text)

    def _write_answer(self, text: str) -> None:
        if not self.render:
            sys.stdout.write(text)
            self._line += text
            return
        row = self._row
        while text:
            if self._held:
                self._next += text
                block = starts_block(self._next)
                if block is None:
                    return  # too little of the next line yet
                self._held, text, self._next = False, self._next, ""
                if block:
                    row.newline()
                elif not (is_cjk(self._last[-1:]) and is_cjk(text[:1])):  # the paragraph goes on, after a space
                    row.space()  # (between Chinese characters, nothing)
            if not self._marked and not text.startswith("\n"):
                self._begin_line(text)
            if "\n" in text:
                head, text = text.split("\n", 1)
                line = self._line + head
                paragraph = self._renderer.paragraph(line)
                self._last = line.rstrip()
                self._end_line(line, newline=not paragraph)
                self._held = paragraph
                continue
            row.write(text)
            self._line += text
            text = ""

    def _begin_line(self, start: str) -> None:
        """A line begins: prose is wrapped at words as it streams; code and table rows are written as they are."""
        if self._table and not start.lstrip().startswith("|"):
            self._flush_table()
        self._row.mark(wrap=not self._renderer.in_code and not start.lstrip().startswith(("|", "```", "~~~")))
        self._marked = True

    def _flush_table(self) -> None:
        """The table that just ended, laid out whole to the terminal's width (columns aligned, cells wrapped where
        it is too wide), as the popup shows it: its rows were kept back as they came."""
        lines, self._table = self._table, []
        spans = table_spans("\n".join(lines), terminal_columns() - 1)
        if spans is None:  # rows that are not one table after all: each as it came
            for line in lines:
                self._row.mark(wrap=False)
                for piece, codes in self._renderer.line(line).pieces:
                    self._row.write(piece, codes)
                self._row.end()
                self._row.newline()
            return
        self._row.mark(wrap=False)
        for piece, styles in spans:
            for n, part in enumerate(piece.split("\n")):
                if n:
                    self._row.end()
                    self._row.newline()
                    self._row.mark(wrap=False)
                if part:
                    self._row.write(part, _codes(styles, self.colour))
        self._row.end()

    def _end_line(self, line: str, newline: bool) -> None:
        """Replace the line being written (shown as it came) by its rendering; ``line`` is what is on screen of it
        and what came after."""
        raw, self._line = self._line, ""
        if not self._marked:
            self._begin_line(line)
        self._marked = False
        if not self._renderer.in_code and table_line(line) is not None and not is_fence(line):
            self._row.back()  # a table's row: taken off the screen, and kept until the table ends
            self._table.append(line)
            return
        shown = self._renderer.line(line)
        row = self._row
        if shown.styled == line and shown.prose == row.wrap:
            row.write(line[len(raw):])  # nothing to format: the rest of the line is written, no redraw
        else:
            row.back()
            row.mark(wrap=shown.prose, indent=hanging(shown.plain) if shown.prose else "")
            for piece, codes in shown.pieces:
                if piece.isspace() and row.col == row.start:  # the line's own indentation, kept
                    row.lead(piece)
                else:
                    row.write(piece, codes)
        row.end()
        if newline:
            row.newline()

    def _clear(self) -> None:
        with self._lock:
            if self._status:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
                self._status = False

    def _show(self, text: str) -> None:
        if self.enabled and not self._answered:
            with self._lock:
                self._label, self._since = text, time.monotonic()
                self._draw(text)
            if self._ticking is None:
                self._ticking = threading.Event()
                threading.Thread(target=self._tick, args=(self._ticking,), daemon=True).start()

    def _draw(self, text: str) -> None:
        # one row, always: a label of several lines or wider than the terminal would leave rows behind that
        # "\r\033[K" does not clear (a multi-line question's expression, a long tool call)
        text = fit(" ".join(text.split()), terminal_columns() - 1)
        sys.stderr.write("\r\033[K" + ("\033[2m" + text + "\033[0m" if self.colour else text))
        sys.stderr.flush()
        self._status = True

    def _tick(self, stop: threading.Event) -> None:
        """A stage that takes a while shows its seconds (``routing… 14 s``): a hung model is not a frozen screen."""
        while not stop.wait(1.0):
            with self._lock:
                waited = time.monotonic() - self._since
                if self._status and not self._answered and waited >= ELAPSED_AFTER:
                    self._draw(f"{self._label} {waited:.0f} s")

    def on_event(self, event: Any) -> None:
        e = event if isinstance(event, dict) else event.model_dump()
        kind = e.get("type")
        if (label := stage_label(e)) is not None:
            self._show(label)
        elif kind == "answer_delta" and self.stream_answer and self.live:
            self._clear()
            self._answered = True
            self._write_answer(e["text"])
            sys.stdout.flush()
        elif kind == "turn_done":
            self._clear()
            if self.stream_answer and not self.live and e.get("answer"):
                sys.stdout.write(e["answer"])
                sys.stdout.flush()
                self._answered = True

    def finish(self) -> None:
        if self._ticking is not None:
            self._ticking.set()
        self._clear()
        if self.render and self._next:  # the answer ended within a line's first characters
            held, self._held, rest, self._next = self._held, False, self._next, ""
            if held and starts_block(rest + "\n"):
                self._row.newline()
            elif held:
                self._row.space()
            self._begin_line(rest)
            self._row.write(rest)
            self._line = rest
        if self.render and self._line:
            self._end_line(self._line, newline=False)
        if self._table:
            self._flush_table()
        self._row.end()
        if self._answered:
            sys.stdout.write("\n")
            sys.stdout.flush()
