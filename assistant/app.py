"""Wiring: the pipeline with its real dependencies, from settings."""

from __future__ import annotations

import re
from typing import Callable

from pydantic import BaseModel

from assistant.config import Settings
from assistant.models.select import SelectedBackend
from assistant.paths import Paths
from assistant.pipeline.turn import Assistant
from assistant.store import LazyStore
from tools import Registry, Tool, ToolRunner
from tools.builtin import BUILTIN
from tools.sandbox import SandboxRunner

PLUGIN_GROUP = "assistant.tools"
TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


def build_assistant(settings: Settings, paths: Paths, notify: Callable[[str], None] | None = None,
                    runner: ToolRunner | None = None, status: Callable[[str], None] | None = None) -> Assistant:
    """``notify`` hears, once, which backend answers when the choice was a fallback; ``status`` hears what a
    backend is doing before it can answer ("downloading model…", "loading model…"). Tools run in the sandbox
    unless another ``runner`` is given (tests of the pipeline's logic run them in-process)."""
    paths.ensure()
    backend = SelectedBackend(settings, notify, status)
    registry = build_registry(settings, paths)
    runner = runner or SandboxRunner(timeout=settings.tool_timeout, memory_mb=settings.tool_memory_mb,
                                     cpu_seconds=settings.tool_cpu_seconds, log=paths.log_dir / "tools.log",
                                     allow_unconfined=settings.allow_unconfined_tools)
    store = LazyStore(paths.database, settings.history_max_mb * 2**20, notify)
    return Assistant(settings, backend, registry, runner, store)  # type: ignore[arg-type]


def build_registry(settings: Settings, paths: Paths, refresh_mcp: bool = False) -> Registry:
    """Every tool: the built-in ones configured from ``settings``, then the plugins', then the MCP servers'
    (a broken plugin or server is skipped, with one line in ``registry.skipped`` that ``assistant doctor``
    shows). ``refresh_mcp``: list the MCP servers' tools now rather than from the cache."""
    registry = Registry([tool.from_settings(settings, paths) for tool in BUILTIN])
    plugins, registry.skipped = plugin_tools(registry.names(), settings, paths)
    for tool in plugins:
        registry.add(tool)
    if not settings.mcp_servers:
        return registry
    from tools.mcp_servers import mcp_tools

    external, skipped = mcp_tools(
        settings.mcp_servers, {"timeout": settings.tool_timeout, "memory_mb": settings.tool_memory_mb,
                               "cpu_seconds": settings.tool_cpu_seconds},
        paths.cache_dir / "mcp", paths.log_dir, registry.names(), refresh=refresh_mcp, protected=[str(p) for p in paths.own])
    for tool in external:
        registry.add(tool)
    registry.skipped += skipped
    return registry


def plugin_tools(taken: list[str], settings: Settings | None = None,
                 paths: Paths | None = None) -> tuple[list[Tool], list[str]]:
    """Tools that installed packages add through the ``assistant.tools`` entry point group: each names a
    ``tools.Tool`` subclass (built by its ``from_settings``, as the built-in ones are) or a function that returns
    a tool. Returns the tools
    and, for each plugin skipped, one line saying which and why (it did not import, it is not a tool, its
    argument schema does not build, its name is taken)."""
    from importlib.metadata import entry_points

    found: list[Tool] = []
    skipped: list[str] = []
    names = set(taken) | {"chat", "clarify"}
    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        origin = f"plugin {ep.name!r} ({ep.value}" + (f", from {ep.dist.name}" if ep.dist else "") + ")"
        try:
            tool = _as_tool(ep.load(), settings, paths)
            if tool.name in names:
                raise ValueError(f"the tool name {tool.name!r} is taken")
            tool.source = f"plugin {ep.dist.name}" if ep.dist else f"plugin {ep.value}"  # type: ignore[misc]
        except Exception as e:  # a plugin's own bug must cost its tool, never the assistant
            skipped.append(f"{origin}: skipped, {type(e).__name__}: {e}")
            continue
        names.add(tool.name)
        found.append(tool)
    return found, skipped


def _as_tool(obj: object, settings: Settings | None, paths: Paths | None) -> Tool:
    if isinstance(obj, type) and issubclass(obj, Tool) and settings is not None:
        tool: object = obj.from_settings(settings, paths)
    else:
        tool = obj() if callable(obj) else obj
    if not isinstance(tool, Tool):
        raise TypeError(f"it gives {type(tool).__name__!r}, not a tools.Tool")
    if not isinstance(getattr(tool, "name", None), str) or not TOOL_NAME.fullmatch(tool.name):
        raise ValueError("its name must be lower-case letters, digits and _ (at most 40)")
    if not isinstance(getattr(tool, "description", None), str) or not tool.description.strip():
        raise ValueError("it has no description")
    if not (isinstance(getattr(tool, "Args", None), type) and issubclass(tool.Args, BaseModel)):
        raise TypeError("its Args is not a pydantic model")
    tool.args_schema()  # a schema that does not build would fail every call
    return tool
