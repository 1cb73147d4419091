"""Code in an answer, on a terminal: framed, its language named, and coloured by Pygments (a maintained highlighter
with lexers for some 500 languages), a line at a time as the answer streams. A block that names no language, or
one Pygments does not know, is shown in one colour; under ``NO_COLOR`` it is shown plain, framed all the same.

Pygments is imported when the first code block is shown, never for an answer without one."""

from __future__ import annotations

from typing import Any
from tools.lazy_re import lazy_compile

_FENCE_INFO = lazy_compile(r"^\s*(?:`{3,}|~{3,})\s*([A-Za-z0-9_+#.-]*)")
FRAME = "2"  # the frame and the language's name: dim
PLAIN_CODE = "36"  # a block without a known language: one colour (as inline code)

# Token kinds, most specific first, and their SGR codes (the 16 colours every terminal has, so they follow its theme)
_PALETTE = [("Comment", "2;3"), ("Keyword", "35"), ("Name.Builtin", "36"), ("Name.Function", "34"),
            ("Name.Class", "34;1"), ("Name.Decorator", "33"), ("Name.Tag", "34"), ("Name.Attribute", "33"),
            ("Literal.String", "32"), ("Literal.Number", "33"), ("Operator.Word", "35"), ("Generic.Deleted", "31"),
            ("Generic.Inserted", "32"), ("Generic.Heading", "1"), ("Generic.Subheading", "1")]


def fence_language(line: str) -> str:
    """The language an opening fence names (```python → python), or ''."""
    m = _FENCE_INFO.match(line)
    return m.group(1).lower() if m else ""


def lexer_for(language: str) -> Any:
    """Pygments' lexer for ``language``, or None (no name, an unknown one, or Pygments not installed)."""
    if not language:
        return None
    try:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        return None
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _codes(kind: Any) -> str:
    from pygments.token import string_to_tokentype

    for name, codes in _PALETTE:
        if kind in string_to_tokentype(name):
            return codes
    return ""


def highlighted(line: str, lexer: Any, colour: bool) -> list[tuple[str, str]]:
    """One line of code as (text, SGR codes) pieces."""
    if not colour:
        return [(line, "")]
    if lexer is None:
        return [(line, PLAIN_CODE)]
    pieces: list[tuple[str, str]] = []
    for kind, text in lexer.get_tokens(line):
        text = text.replace("\n", "")
        if not text:
            continue
        codes = _codes(kind)
        if pieces and pieces[-1][1] == codes:
            pieces[-1] = (pieces[-1][0] + text, codes)
        else:
            pieces.append((text, codes))
    return pieces
