"""Just enough of the GGUF format to read a model file's metadata (its chat template) without loading it:
a header, then key/value pairs (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md).

A model file may come from anyone, so its header is read within limits (how deep arrays nest, how many keys and
items, how long a string is; real files nest one deep and hold a few dozen keys and a vocabulary): past them the
file is "not one this reads", never a crash or a minute of work. Strings handed out are cleaned of terminal
controls (:mod:`assistant.control`)."""

from __future__ import annotations

import struct
from typing import Any, BinaryIO

from assistant.control import without_controls

_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
STRING, ARRAY = 8, 9
MAX_DEPTH = 4  # arrays within arrays (real files: 1)
MAX_KEYS = 1 << 16  # key/value pairs (real files: a few dozen)
MAX_ITEMS = 1 << 23  # array items in all (a vocabulary: up to a few hundred thousand strings, each with a score)
MAX_STRING = 1 << 24  # bytes of one string (a chat template: a few KB)
MAX_KEY = 1 << 16  # bytes of a key (the format's own limit)


class _Budget:
    def __init__(self) -> None:
        self.items = MAX_ITEMS

    def spend(self, n: int) -> None:
        self.items -= n
        if self.items < 0:
            raise ValueError("its metadata holds more items than a model file does")


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize("<" + fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the file ends inside its header")
    return struct.unpack("<" + fmt, data)[0]


def _string(f: BinaryIO, keep: bool = True, limit: int = MAX_STRING) -> str | None:
    n = _read(f, "Q")
    if n > limit:
        raise ValueError("a metadata string is implausibly long")
    if not keep:
        f.seek(n, 1)
        return None
    data = f.read(n)
    if len(data) != n:
        raise ValueError("the file ends inside its header")
    return data.decode("utf-8", "replace")


def _value(f: BinaryIO, kind: int, keep: bool, budget: _Budget, depth: int = 0) -> Any:
    if kind in _SCALARS:
        return _read(f, _SCALARS[kind])
    if kind == STRING:
        text = _string(f, keep)
        return without_controls(text) if text is not None else None
    if kind == ARRAY:
        if depth >= MAX_DEPTH:
            raise ValueError("its metadata nests arrays deeper than a model file does")
        item, n = _read(f, "I"), _read(f, "Q")
        budget.spend(n)
        if item in _SCALARS:  # skip numbers in one seek (a vocabulary's scores are long)
            f.seek(n * struct.calcsize("<" + _SCALARS[item]), 1)
            return None
        values = [_value(f, item, keep, budget, depth + 1) for _ in range(n)]
        return values if keep else None
    raise ValueError(f"unknown metadata type {kind}")


def metadata(path: str, wanted: set[str]) -> dict[str, Any]:
    """The values of the ``wanted`` keys in a GGUF file's header; ``ValueError`` (or ``OSError``) says why a file
    cannot be read as one."""
    try:
        return _metadata(path, wanted)
    except (struct.error, OverflowError, RecursionError, MemoryError) as e:
        raise ValueError(f"its header is not one this reads ({type(e).__name__})") from None


def _metadata(path: str, wanted: set[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError("not a GGUF file")
        version = _read(f, "I")
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        _read(f, "Q")  # tensors
        keys = _read(f, "Q")
        if keys > MAX_KEYS:
            raise ValueError("its metadata holds more keys than a model file does")
        budget = _Budget()
        for _ in range(keys):
            key = _string(f, limit=MAX_KEY)
            value = _value(f, _read(f, "I"), keep=key in wanted, budget=budget)
            if key in wanted:
                found[key] = value
            if len(found) == len(wanted):
                break
    return found


def chat_template_problem(path: str) -> str | None:
    """Why this GGUF cannot hold a conversation (not a GGUF; no chat template), or ``None``."""
    try:
        meta = metadata(path, {"tokenizer.chat_template"})
    except (OSError, ValueError) as e:
        return f"cannot be read as a model file ({without_controls(str(e))})"
    if not meta.get("tokenizer.chat_template"):
        return "it carries no chat template (a base model, not a chat model), so its answers would be garbled"
    return None


def size_label(path: str) -> str | None:
    """The model's size as its file names it (``general.size_label``: "135M", "1.5B"), or ``None``."""
    try:
        label = metadata(path, {"general.size_label"}).get("general.size_label")
    except (OSError, ValueError):
        return None
    return label if isinstance(label, str) else None
