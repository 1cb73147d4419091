"""Tool framework (base types, registry, runner) and the tools themselves."""

from tools.base import (
    CJK, Finding, Grounding, KeyFact, Language, LocalText, Permissions, PreviousTurn, Tool, ToolResult, Verdict, language_of,
)
from tools.registry import InProcessRunner, Registry, ToolRunner

__all__ = [
    "CJK",
    "Finding",
    "Grounding",
    "InProcessRunner",
    "KeyFact",
    "Language",
    "LocalText",
    "Permissions",
    "PreviousTurn",
    "Registry",
    "Tool",
    "ToolResult",
    "ToolRunner",
    "Verdict",
    "language_of",
]
