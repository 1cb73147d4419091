"""The Markdown that models write, read by a CommonMark parser (``markdown-it-py``, with tables) into styled spans
for a front end to show as formatting rather than as asterisks, pipes and backticks.

Pure text in, ``[(text, styles)]`` out: the popup turns the styles into Tk text tags, the terminal into escape
codes (:class:`assistant.frontends.progress.LineRenderer`, a line at a time). Two departures from CommonMark,
both for what people here write:

- emphasis next to Chinese and Japanese text and punctuation opens and closes (``这是**“重点”**的``), as the
  cjk-friendly amendment to CommonMark has it;
- a ``*`` between two letters or digits of Latin script is arithmetic, never emphasis (``2*3*4``, ``a*b*c``).

The parser is imported on first use, so that an answer that is never shown as formatting costs nothing."""

from __future__ import annotations

import unicodedata
from typing import Any
from tools.lazy_re import lazy_compile

Span = tuple[str, tuple[str, ...]]

_FENCE = lazy_compile(r"^\s*(```|~~~)")
_TABLE_ROW = lazy_compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = lazy_compile(r"^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*$")
_parser: Any = None


def ends_sentence(text: str) -> bool:
    """``text`` ends a sentence (or announces what follows): a newline after it is kept, as the writer meant it."""
    return text.rstrip()[-1:] in SENTENCE_ENDS


SENTENCE_ENDS = set(".!?:;。！？：；…")


def is_fence(line: str) -> bool:
    """The line opens or closes a code block (it is not shown)."""
    return bool(_FENCE.match(line))


def is_cjk(ch: str) -> bool:
    """A character of Chinese or Japanese text, or its punctuation."""
    if not ch:
        return False
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F
            or 0x20000 <= o <= 0x2FA1F) and unicodedata.category(ch) != "Zs"


def _md() -> Any:
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt
        from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
        from markdown_it.rules_inline import state_inline

        class Scanned(state_inline.StateInline):
            def scanDelims(self, start: int, canSplitWord: bool) -> Any:  # noqa: N802 (markdown-it's name)
                marker = self.src[start]
                last = self.src[start - 1] if start > 0 else " "
                pos = start
                while pos < self.posMax and self.src[pos] == marker:
                    pos += 1
                nxt = self.src[pos] if pos < self.posMax else " "
                last_punct = isMdAsciiPunct(ord(last)) or isPunctChar(last)
                next_punct = isMdAsciiPunct(ord(nxt)) or isPunctChar(nxt)
                last_space, next_space = isWhiteSpace(ord(last)), isWhiteSpace(ord(nxt))
                last_cjk, next_cjk = is_cjk(last), is_cjk(nxt)
                left = not (next_space or (next_punct and not (last_space or last_punct or last_cjk)))
                right = not (last_space or (last_punct and not (next_space or next_punct or next_cjk)))
                can_open = left and (canSplitWord or not right or last_punct or last_cjk)
                can_close = right and (canSplitWord or not left or next_punct or next_cjk)
                if marker == "*" and last.isascii() and nxt.isascii() and last.isalnum() and nxt.isalnum():
                    can_open = can_close = False  # 2*3*4: arithmetic
                return state_inline.Scanned(can_open, can_close, pos - start)

        import markdown_it.parser_inline as parser_inline

        parser_inline.StateInline = Scanned  # type: ignore[misc]  # this process's only Markdown parser
        _parser = MarkdownIt("commonmark", {"html": False}).enable("table").disable("html_inline")
    return _parser


def _inline(token: Any, base: tuple[str, ...]) -> list[Span]:
    out: list[Span] = []
    styles = list(base)
    children = token.children or []
    for i, child in enumerate(children):
        kind = child.type
        if kind == "text":
            out.append((child.content, tuple(styles)))
        elif kind == "code_inline":
            out.append((child.content, (*styles, "code")))
        elif kind == "softbreak":  # a newline inside a sentence is a space; between Chinese characters, nothing
            before = out[-1][0][-1:] if out else ""
            after = next((c.content[:1] for c in children[i + 1:] if c.content), "")
            joined = "\n" if ends_sentence(before) else "" if is_cjk(before) and is_cjk(after) else " "
            out.append((joined, tuple(styles)))
        elif kind == "hardbreak":
            out.append(("\n", tuple(styles)))
        elif kind in ("strong_open", "em_open"):
            styles.append("bold" if kind == "strong_open" else "italic")
        elif kind in ("strong_close", "em_close"):
            style = "bold" if kind == "strong_close" else "italic"
            if style in styles:
                styles.reverse()
                styles.remove(style)
                styles.reverse()
        elif kind == "image":
            out.append((child.content or "", tuple(styles)))
        elif child.content:
            out.append((child.content, tuple(styles)))
    return out


def _table(rows: list[list[list[Span]]], limit: int | None = None) -> list[Span]:
    """A table as aligned rows (a wide character takes two columns), the header bold, a rule under it. ``limit``:
    the columns it may take (a terminal's width): past it, the widest columns narrow and their cells wrap onto more
    lines (as plain text), so no row breaks across the screen."""
    from assistant.frontends.columns import width

    texts = [["".join(t for t, _ in cell) for cell in row] for row in rows]
    columns = max(len(r) for r in texts)
    widths = [max((width(r[i]) for r in texts if i < len(r)), default=0) for i in range(columns)]
    wrap = limit is not None and sum(widths) + 3 * (columns - 1) > limit
    if wrap:
        room = max(columns * 4, (limit or 0) - 3 * (columns - 1))
        while sum(widths) > room:
            widest = max(range(columns), key=lambda i: widths[i])
            widths[widest] -= 1
    out: list[Span] = []
    for n, row in enumerate(rows):
        styles = ("table_cell", "bold") if n == 0 else ("table_cell",)
        if wrap:
            cells = [_wrapped(texts[n][i] if i < len(texts[n]) else "", widths[i]) for i in range(columns)]
            for k in range(max(len(c) for c in cells)):
                for i in range(columns):
                    if i:
                        out.append((" │ ", ("table",)))
                    piece = cells[i][k] if k < len(cells[i]) else ""
                    out.append((piece + " " * (widths[i] - width(piece)), styles))
                out.append(("\n", ("table_cell",)))
        else:
            for i in range(columns):
                cell = row[i] if i < len(row) else []
                if i:
                    out.append((" │ ", ("table",)))
                out.extend((t, (*s, *styles)) for t, s in cell)
                out.append((" " * (widths[i] - width(texts[n][i] if i < len(texts[n]) else "")), ("table_cell",)))
            out.append(("\n", ("table_cell",)))
        if n == 0:
            out.append(("─┼─".join("─" * w for w in widths) + "\n", ("table",)))
    return out


def _wrapped(text: str, columns: int) -> list[str]:
    """``text`` in lines of at most ``columns`` (a wide character counts two), broken at spaces where it can."""
    from assistant.frontends.columns import width

    lines, line = [], ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if width(candidate) <= columns:
            line = candidate
            continue
        if line:
            lines.append(line)
        while width(word) > columns:  # a word longer than the column: cut
            cut = len(word)
            while width(word[:cut]) > columns:
                cut -= 1
            lines.append(word[:max(1, cut)])
            word = word[max(1, cut):]
        line = word
    lines.append(line)
    return lines or [""]


def table_spans(text: str, limit: int | None = None) -> list[Span] | None:
    """A whole Markdown table (its lines, header and rule first) as aligned spans fitted to ``limit`` columns;
    ``None`` when the lines are not one table."""
    tokens = _md().parse(text)
    rows: list[list[list[Span]]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(_inline(token, ()))
    if not rows or not any(t.type == "table_open" for t in tokens):
        return None
    return _table(rows, limit)


def _list_item(line: str) -> bool:
    """A list item's line: up to three spaces, a bullet ("-", "*", "+") or a number of up to three digits with "." or
    ")", a space, then its text."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body:
        return False
    marker = 1 if body[0] in "-*+" else next((i + 1 for i in range(min(3, len(body))) if not body[i].isdigit()
                                               and i and body[i] in ".)"), 0)
    return bool(marker) and body[marker:marker + 1].isspace() and bool(body[marker:].strip())


def _new_sentence(line: str) -> bool:
    """A line that begins a sentence: a capital, a CJK character, a full-width sign or an opening quote."""
    first = line[:1]
    return first.isupper() or is_cjk(first) or first in "\"“" or "\uff01" <= first <= "\uff5e"


def _lists_ended(text: str) -> str:
    """A sentence on the line right after a list's last item, not indented, as a paragraph of its own: CommonMark
    reads it as the item's lazy continuation ("- two\nThe end." is one bullet, "two The end."), which a model
    rarely means. A line that goes on in lower case still continues the item."""
    if "\n" not in text:
        return text
    lines, fenced, in_list = text.split("\n"), False, False
    for i, line in enumerate(lines):
        if is_fence(line):
            fenced, in_list = not fenced, False
            continue
        if fenced:
            continue
        if _list_item(line):
            in_list = True
        elif not line.strip():
            in_list = False
        elif in_list and not line[0].isspace() and _new_sentence(line) and not starts_block(line):
            lines[i] = "\n" + line
            in_list = False
    return "\n".join(lines)


def spans(text: str) -> list[Span]:
    """``text`` as styled spans; the styles are ``bold``, ``italic``, ``code``, ``code_block``, ``heading``,
    ``list`` (a bullet or number is written as ``•`` or ``1.``), ``quote`` (a block quote, marked ``│``),
    ``table_cell`` (a table's text, aligned for a monospace font) and ``table`` (its rules)."""
    out: list[Span] = []
    lists: list[list[Any]] = []  # [kind, next number]
    quote = 0
    table: list[list[list[Span]]] | None = None
    item_start = False  # the next paragraph begins a list item: its marker is already written
    heading = False
    for token in _md().parse(_lists_ended(text)):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append(["•" if kind == "bullet_list_open" else "n", int(token.attrGet("start") or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                out.append(("\n", ()))
        elif kind == "list_item_open":
            marker, number = lists[-1]
            shown = "• " if marker == "•" else f"{number}. "
            if marker != "•":
                lists[-1][1] += 1
            out.append(("│ " * quote + "  " * (len(lists) - 1) + shown, ("list",)))
            item_start = True
        elif kind == "blockquote_open":
            quote += 1
        elif kind == "blockquote_close":
            quote -= 1
            if not quote:
                out.append(("\n", ()))
        elif kind == "heading_open":
            heading = True
        elif kind == "heading_close":
            heading = False
            out.append(("\n\n" if not lists else "\n", ()))
        elif kind == "paragraph_open":
            if quote and not item_start:
                out.append(("│ " * quote, ("quote",)))
        elif kind == "inline":
            if table is not None:
                table[-1].append(_inline(token, ()))
            else:
                base: tuple[str, ...] = ("heading",) if heading else ("list",) if lists else ("quote",) if quote else ()
                out.extend(_inline(token, base))
            item_start = False
        elif kind == "paragraph_close":
            out.append(("\n" if lists or quote or token.hidden else "\n\n", ()))
        elif kind in ("fence", "code_block"):
            body = token.content if token.content.endswith("\n") else token.content + "\n"
            out.append((body, ("code_block",)))
            if not lists:
                out.append(("\n", ()))
        elif kind == "table_open":
            table = []
        elif kind == "tr_open" and table is not None:
            table.append([])
        elif kind == "table_close" and table is not None:
            out.extend(_table(table))
            out.append(("\n", ()))
            table = None
        elif kind == "hr":
            out.append(("───\n\n", ("table",)))
    while out and out[-1][0].strip("\n") == "" and out[-1][1] in ((), ("table",)):
        out.pop()  # no blank line after the last block
    return _merged(out)


def _merged(out: list[Span]) -> list[Span]:
    """Neighbouring pieces of one style as one piece, and no empty ones."""
    merged: list[Span] = []
    for text, styles in out:
        if not text:
            continue
        if merged and merged[-1][1] == styles:
            merged[-1] = (merged[-1][0] + text, styles)
        else:
            merged.append((text, styles))
    return merged


_BLOCK_START = lazy_compile(r"\s*(?:[-*+]\s|\d{1,3}[.)]\s|#{1,6}\s|>|\||```|~~~)|\s{4}")
_MAYBE_BLOCK = lazy_compile(r"\s{0,3}(?:[-*+]|\d{1,3}[.)]?|#{1,6}|`{1,2}|~{1,2})?$")


def starts_block(start: str) -> bool | None:
    """Whether a line beginning with ``start`` begins a block of its own (a list item, a heading, a quote, a table,
    a fence, an indented or blank line) rather than continuing a paragraph; ``None`` while too little is known."""
    if start.startswith("\n") or _BLOCK_START.match(start):  # a blank line ends the paragraph
        return True
    if "\n" not in start and _MAYBE_BLOCK.fullmatch(start):
        return None
    return False


def table_line(line: str) -> list[Span] | None:
    """One line of a table, as the terminal shows it while the answer streams (the whole table is not known yet):
    its cells between ``│``, its rule as ``─``; ``None`` for a line that is not one."""
    if _TABLE_RULE.match(line):
        return [("─" * max(3, len(line.strip())), ("table",))]
    if not _TABLE_ROW.match(line):
        return None
    cells = [c.strip() for c in line.strip()[1:-1].split("|")]
    out: list[Span] = []
    for i, cell in enumerate(cells):
        if i:
            out.append((" │ ", ("table",)))
        out.extend(s for s in spans(cell) if s[0] != "\n")
    return out


def plain(text: str) -> str:
    """What ``spans`` shows, without the styles."""
    return "".join(t for t, _ in spans(text))


def code_blocks(text: str) -> list[str]:
    """The contents of the answer's fenced code blocks, in order (``ask -x``, ``/copy code``), as CommonMark reads
    them: a fence inside a list or a quote counts, a fence shown inside another block does not."""
    return [t.content for t in _md().parse(text) if t.type == "fence"]


def code_text(text: str) -> str | None:
    """Every code block of ``text``, one after the other (``/copy code``), or None when it has none."""
    blocks = code_blocks(text)
    return "\n".join(b.rstrip("\n") for b in blocks) + "\n" if blocks else None


def extracted(text: str) -> str:
    """``-x``: every code block of ``text``, or the whole text when it has none (as llm's -x)."""
    return code_text(text) or text.rstrip("\n") + "\n"
