"""The little Markdown that models write (emphasis, inline code, code blocks, lists, headings), read into
styled spans for a front end to show as formatting rather than as asterisks and backticks.

Pure text in, ``[(text, styles)]`` out: the popup turns the styles into Tk text tags. A half-streamed answer
reads as well as a finished one (an unclosed ``**`` stays literal until its partner arrives)."""

from __future__ import annotations

import re

Span = tuple[str, tuple[str, ...]]

_FENCE = re.compile(r"^\s*```")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^(\s*)(\d{1,3})[.)]\s+(.*)$")
# Inline: `code`, **bold** / __bold__, *italic* / _italic_ (not inside words, so 2*3*4 and snake_case stay).
_INLINE = re.compile(r"`([^`\n]+)`|\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__"
                     r"|(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])|(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")


def is_fence(line: str) -> bool:
    """The line opens or closes a code block (it is not shown)."""
    return bool(_FENCE.match(line))


def inline(text: str, base: tuple[str, ...] = ()) -> list[Span]:
    spans: list[Span] = []
    at = 0
    for m in _INLINE.finditer(text):
        if m.start() > at:
            spans.append((text[at:m.start()], base))
        code, bold, bold2, italic, italic2 = m.groups()
        if code is not None:
            spans.append((code, base + ("code",)))
        elif bold is not None or bold2 is not None:
            spans.extend(inline(bold if bold is not None else bold2, base + ("bold",)))
        else:
            spans.extend(inline(italic if italic is not None else italic2, base + ("italic",)))
        at = m.end()
    if at < len(text):
        spans.append((text[at:], base))
    return spans


def spans(text: str) -> list[Span]:
    """``text`` as styled spans; the styles are ``bold``, ``italic``, ``code``, ``code_block``, ``heading`` and
    ``list`` (a bullet or number is written as ``•`` or ``1.``)."""
    out: list[Span] = []
    in_code = False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        end = "\n" if i < len(lines) - 1 else ""
        if is_fence(line):
            in_code = not in_code
            continue  # the fence itself is not shown
        if in_code:
            out.append((line + end, ("code_block",)))
            continue
        if m := _HEADING.match(line):
            out.extend(inline(m.group(2), ("heading",)))
            out.append((end, ()))
            continue
        if m := _BULLET.match(line):
            out.append((f"{m.group(1)}• ", ("list",)))
            out.extend(inline(m.group(2), ("list",)))
            out.append((end, ()))
            continue
        if m := _NUMBERED.match(line):
            out.append((f"{m.group(1)}{m.group(2)}. ", ("list",)))
            out.extend(inline(m.group(3), ("list",)))
            out.append((end, ()))
            continue
        out.extend(inline(line))
        out.append((end, ()))
    return [(t, s) for t, s in out if t]


def plain(text: str) -> str:
    """What ``spans`` shows, without the styles."""
    return "".join(t for t, _ in spans(text))
