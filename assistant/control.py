"""Control sequences never reach a screen from a model, a tool, a registry or a file. A text may carry ESC
sequences (an OSC 52 clipboard write, a window title, a screen clear), other C0/C1 control characters that a terminal
obeys, or the Unicode bidirectional controls (U+202A–U+202E, U+2066–U+2069) that reorder what is shown (a "Trojan
source"). They are taken out of every answer the pipeline shows or stores, of every tool result before the model or
the store sees it, and of every text a remote party or a file on disk supplies before a terminal shows it (a
registry's licence and status lines, a model file's metadata, template names and texts, plugin and MCP
descriptions, file names, and the error lines that quote any of them); newlines and tabs stay, but in
:func:`one_line`."""

from __future__ import annotations

from tools.lazy_re import lazy_compile

# ESC sequences (CSI … final byte, OSC/DCS/APC/PM/SOS … BEL or ST, two-byte ESC x), their 8-bit C1 forms, and the
# rest of C0/C1 but \t and \n; \r only before \n (a lone \r rewrites the line).
_SEQUENCES = lazy_compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?|\x1b[\]P^_X][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[@-Z\\-~]?"
    r"|[\x9b][0-?]*[ -/]*[@-~]?|[\x90\x9d\x9e\x9f\x98][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]")


_COMPLETE = lazy_compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]P^_X][^\x07\x1b]*(?:\x07|\x1b\\)|(?![\[\]P^_X])[@-~])")
MAX_SEQUENCE = 256  # an ESC sequence still open after this many characters is not one: taken out as it stands


def split_open_sequence(text: str) -> tuple[str, str]:
    """(text before an ESC sequence still being written, that unfinished sequence): a stream may cut one in two."""
    i = text.rfind("\x1b")
    if i < 0 or len(text) - i > MAX_SEQUENCE or _COMPLETE.match(text, i):
        return text, ""
    return text[:i], text[i:]


def without_controls(text: str) -> str:
    """``text`` with every terminal control sequence and control character removed (newlines and tabs kept)."""
    return _SEQUENCES.sub("", text) if text else text


def clean_value(value: object) -> object:
    """``value`` (a tool result's data: JSON) with :func:`without_controls` applied to every string in it."""
    if isinstance(value, str):
        return without_controls(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, dict):
        return {clean_value(k) if isinstance(k, str) else k: clean_value(v) for k, v in value.items()}
    return value


def one_line(text: str, limit: int = 200) -> str:
    """``text`` for one line of a listing or a message: no controls, its whitespace runs as one space, at most
    ``limit`` characters (an ellipsis says where it was cut)."""
    flat = " ".join(without_controls(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
