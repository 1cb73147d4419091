"""Tool framework (base types, registry, runner) and the tools themselves.

The names below are loaded at their first use: importing a light module of the package (``tools.lazy_re``,
``tools.jail.zygote``) does not import pydantic and the framework with it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tools.jail import LAUNCHED_IN  # noqa: F401 - read first thing, before anything changes folder

if TYPE_CHECKING:
    from tools.base import (
        CJK, Finding, Grounding, KeyFact, Language, LocalText, Permissions, PreviousTurn, Tool, ToolResult, Verdict,
        language_of,
    )
    from tools.registry import InProcessRunner, Registry, ToolRunner

_FROM = {
    **dict.fromkeys(("CJK", "Finding", "Grounding", "KeyFact", "Language", "LocalText", "Permissions", "PreviousTurn",
                     "Tool", "ToolResult", "Verdict", "language_of"), "tools.base"),
    **dict.fromkeys(("InProcessRunner", "Registry", "ToolRunner"), "tools.registry"),
}

__all__ = [
    "CJK", "Finding", "Grounding", "InProcessRunner", "KeyFact", "Language", "LocalText", "Permissions", "PreviousTurn",
    "Registry", "Tool", "ToolResult", "ToolRunner", "Verdict", "language_of",
]


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module 'tools' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
