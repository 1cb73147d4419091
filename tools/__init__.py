"""Tool framework (base types, registry, runner) and the tools themselves."""

from tools.base import Permissions, PreviousTurn, Tool, ToolResult, Verdict
from tools.registry import InProcessRunner, Registry, ToolRunner, default_registry

__all__ = [
    "InProcessRunner",
    "Permissions",
    "PreviousTurn",
    "Registry",
    "Tool",
    "ToolResult",
    "ToolRunner",
    "Verdict",
    "default_registry",
]
