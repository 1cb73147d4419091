"""Just enough of the GGUF format to read a model file's metadata (its chat template) without loading it:
a header, then key/value pairs (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md)."""

from __future__ import annotations

import struct
from typing import Any, BinaryIO

_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
STRING, ARRAY = 8, 9


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize("<" + fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the file ends inside its header")
    return struct.unpack("<" + fmt, data)[0]


def _string(f: BinaryIO) -> str:
    n = _read(f, "Q")
    if n > 1 << 24:
        raise ValueError("a metadata string is implausibly long")
    return f.read(n).decode("utf-8", "replace")


def _value(f: BinaryIO, kind: int, keep: bool) -> Any:
    if kind in _SCALARS:
        return _read(f, _SCALARS[kind])
    if kind == STRING:
        return _string(f)
    if kind == ARRAY:
        item, n = _read(f, "I"), _read(f, "Q")
        if item in _SCALARS:  # skip numbers in one seek (a vocabulary's scores are long)
            f.seek(n * struct.calcsize("<" + _SCALARS[item]), 1)
            return None
        values = [_value(f, item, keep) for _ in range(n)]
        return values if keep else None
    raise ValueError(f"unknown metadata type {kind}")


def metadata(path: str, wanted: set[str]) -> dict[str, Any]:
    """The values of the ``wanted`` keys in a GGUF file's header."""
    found: dict[str, Any] = {}
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError("not a GGUF file")
        version = _read(f, "I")
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        _read(f, "Q")  # tensors
        for _ in range(_read(f, "Q")):
            key = _string(f)
            value = _value(f, _read(f, "I"), keep=False)
            if key in wanted:
                found[key] = value
            if len(found) == len(wanted):
                break
    return found


def chat_template_problem(path: str) -> str | None:
    """Why this GGUF cannot hold a conversation (not a GGUF; no chat template), or ``None``."""
    try:
        meta = metadata(path, {"tokenizer.chat_template"})
    except (OSError, ValueError, struct.error) as e:
        return f"cannot be read as a model file ({e})"
    if not meta.get("tokenizer.chat_template"):
        return "it carries no chat template (a base model, not a chat model), so its answers would be garbled"
    return None


def size_label(path: str) -> str | None:
    """The model's size as its file names it (``general.size_label``: "135M", "1.5B"), or ``None``."""
    try:
        label = metadata(path, {"general.size_label"}).get("general.size_label")
    except (OSError, ValueError, struct.error):
        return None
    return label if isinstance(label, str) else None
