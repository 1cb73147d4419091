"""The registry of tools, and the runner that executes a call. Routes and schemas come from here,
so adding a tool adds a route. The runner is an interface so that a sandboxed runner can replace the
in-process one without the pipeline changing."""

from __future__ import annotations

import asyncio
from typing import Protocol

from pydantic import BaseModel

from tools.base import Tool, ToolResult, run_direct


class ToolRunner(Protocol):
    async def run(self, tool: Tool, args: BaseModel) -> ToolResult: ...

    async def warm(self, tools: list[Tool]) -> None: ...

    async def aclose(self) -> None: ...


class InProcessRunner:
    """Runs a tool in this process with a wall-clock timeout; any exception becomes a tool error.
    For tests and measurements only: the application runs tools through :class:`tools.jail.runner.SandboxRunner`."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout

    async def run(self, tool: Tool, args: BaseModel) -> ToolResult:
        return await run_direct(tool, args, None if tool.external else self.timeout)

    async def warm(self, tools: list[Tool]) -> None:
        pass

    async def aclose(self) -> None:
        pass


class Registry:
    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self.skipped: list[str] = []  # tools that could not join (a broken plugin), one line each saying why
        for t in tools or []:
            self.add(t)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools or tool.name in ("chat", "clarify"):
            raise ValueError(f"tool name {tool.name!r} is taken")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __iter__(self):
        return iter(self._tools.values())

    def names(self) -> list[str]:
        return list(self._tools)

    async def aclose(self) -> None:
        """Stop what tools hold open (MCP servers)."""
        await asyncio.gather(*(t.aclose() for t in self._tools.values()), return_exceptions=True)
