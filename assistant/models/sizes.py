"""A model's size in parameters, as its server, its file or its name says it: a fact of its profile
(:class:`assistant.models.base.ModelProfile`), read by the trust decision and by doctor."""

from __future__ import annotations

import re
from typing import Any, Literal

from tools.lazy_re import lazy_compile


def parameters(size: str | None) -> float | None:
    """A model's size as its server or file says it (Ollama's ``parameter_size`` "3.1B", "494.03M"; a GGUF's
    ``general.size_label`` "135M", "8x7B")."""
    if not size:
        return None
    m = re.fullmatch(r"\s*(?:(\d+)x)?(\d+(?:\.\d+)?)\s*([KMBT])\s*", size, re.IGNORECASE)
    if not m:
        return None
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m.group(3).upper()]
    return float(m.group(2)) * scale * int(m.group(1) or 1)


_NAMED_SIZE = lazy_compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([mb])(?![a-z0-9])", re.IGNORECASE)


def parameters_in_name(name: str) -> float | None:
    """A model's size as its name says it, the way models are named ("qwen2.5-0.5b-instruct", "llama3.2:1b",
    "SmolLM2-135M-Instruct", "mixtral-8x7b"): for a server that does not say. None when the name says no size (or
    two different ones)."""
    found = {float(m.group(2)) * (1e9 if m.group(3).lower() == "b" else 1e6) * int(m.group(1) or 1)
             for m in _NAMED_SIZE.finditer(name.replace("_", "-"))}
    return found.pop() if len(found) == 1 else None


def size_fields(own: float | None, own_from: Literal["server", "file"], name: str) -> dict[str, Any]:
    """A profile's size and where it came from: the server's or the file's own figure, else the size the model's
    name says (a server that does not say: LM Studio, vLLM), else none."""
    if own is not None:
        return {"parameters": own, "parameters_from": own_from}
    named = parameters_in_name(name)
    return {"parameters": named, "parameters_from": "name" if named is not None else ""}
