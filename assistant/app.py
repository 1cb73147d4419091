"""Wiring: the pipeline with its real dependencies, from settings."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from assistant.config import SECRET, TABLE, Settings, settings_in
from assistant.control import without_controls
from assistant.models.select import SelectedBackend
from assistant.paths import Paths
from assistant.pipeline.turn import Assistant
from assistant.store import LazyStore
from tools import Registry, Tool, ToolRunner
from tools.builtin import BUILTIN
from tools.jail import SandboxRunner, Zygote



def build_assistant(settings: Settings, paths: Paths, notify: Callable[[str], None] | None = None,
                    runner: ToolRunner | None = None, status: Callable[[str], None] | None = None,
                    prepare_places: bool = False, zygote: Zygote | None = None) -> Assistant:
    """``notify`` hears, once, which backend answers when the choice was a fallback; ``status`` hears what a
    backend is doing before it can answer ("downloading model…", "loading model…"). Tools run in the sandbox
    unless another ``runner`` is given (tests of the pipeline's logic run them in-process). ``prepare_places``: the
    daemon and the chat, which live, unpack a missing place index now, in the background. ``zygote``: where the workers of our
    own pure tools are forked from (:mod:`tools.jail.zygote`; a one-shot question and the chat start one)."""
    from assistant.errors import StoreError

    try:
        paths.ensure()
    except StoreError:  # a home that cannot be made: what needs no store (--no-log arithmetic) still answers, and
        pass  # what needs one says so when it opens it
    from assistant.pipeline import language_id

    language_id.use_cache(paths.cache_dir)  # its model is unpacked there, once per py3langid version
    from assistant import notices

    backend = SelectedBackend(settings, notify, status, once=lambda key: notices.first_time(paths, key))
    registry = build_registry(settings, paths, notify=notify)
    if prepare_places and registry.get("weather") is not None:
        from tools import gazetteer

        gazetteer.prepare(Path(gazetteer.index_path(settings, paths)))  # unpacked now, quietly, not by a question
    runner = runner or SandboxRunner(timeout=settings.tool_timeout, memory_mb=settings.tool_memory_mb,
                                     cpu_seconds=settings.tool_cpu_seconds, log=paths.log_dir / "tools.log",
                                     allow_unconfined=settings.allow_unconfined_tools,
                                     folder_mb=settings.tool_folder_mb, folder_files=settings.tool_folder_files,
                                     zygote=zygote)
    store = LazyStore(paths.database, settings.history_max_mb * 2**20, notify)
    return Assistant(settings, backend, registry, runner, store)  # type: ignore[arg-type]  # a Store opened on first use


def build_registry(settings: Settings, paths: Paths, refresh_mcp: bool = False,
                   notify: Callable[[str], None] | None = None) -> Registry:
    """Every tool: the built-in ones configured from ``settings``, then the plugins', then the MCP servers'
    (a broken plugin or server is skipped, with one line in ``registry.skipped`` that ``assistant doctor``
    shows). ``refresh_mcp``: list the MCP servers' tools now rather than from the cache."""
    registry = Registry([tool.from_settings(settings, paths) for tool in BUILTIN])
    plugins, skipped = plugin_tools(registry.names(), settings, paths, notify)
    registry.skipped = [without_controls(line) for line in skipped]
    for tool in plugins:
        registry.add(_cleaned(tool))
    if not settings.mcp_servers:
        return registry
    from tools.mcp_servers import mcp_tools

    external, skipped = mcp_tools(
        settings.mcp_servers, {"timeout": settings.tool_timeout, "memory_mb": settings.tool_memory_mb,
                               "cpu_seconds": settings.tool_cpu_seconds},
        paths.cache_dir / "mcp", paths.log_dir, registry.names(), refresh=refresh_mcp, protected=[str(p) for p in paths.own])
    for tool in external:
        registry.add(_cleaned(tool))
    registry.skipped += [without_controls(line) for line in skipped]
    return registry


def _cleaned(tool: Tool) -> Tool:
    """A third party's tool with its words (its description, read by the model and shown in listings) cleaned of
    terminal controls."""
    tool.description = without_controls(tool.description)
    return tool


def plugin_tools(taken: list[str], settings: Settings, paths: Paths,
                 notify: Callable[[str], None] | None = None) -> tuple[list[Tool], list[str]]:
    """Tools that installed packages add through the ``assistant.tools`` entry point group, confined whole: no line
    of a plugin runs in this process (:mod:`tools.plugins`). Returns the tools and, for each plugin skipped, one
    line saying which and why (it did not import, it is not a tool, its argument schema does not build, its name is
    taken, this system cannot confine it). A plugin reaches only what the user granted (:mod:`tools.jail.grants`)."""
    from tools import plugins
    from tools.jail import Grants

    entries = plugins.discover(paths.cache_dir / "plugins" / "entry-points.json")
    if not entries:
        return [], []
    from tools.jail import report

    confined = report().confined
    hidden = settings_in(SECRET) | settings_in(TABLE)  # no secrets, no MCP servers' commands and environments
    view = settings.model_dump(mode="json", exclude=set(hidden))
    found, skipped = plugins.load(
        entries, taken, view, Grants(paths.config_dir, paths.own), paths.cache_dir / "plugins", _limits(settings),
        paths.log_dir / "tools.log", plugin_folders(paths), may_run=confined or settings.allow_unconfined_tools)
    if found and not confined and notify is not None:
        notify(f"plugin{'s' if len(found) > 1 else ''} {', '.join(t.name for t in found)} run without the kernel's "
               "sandbox: this system cannot confine them, and allow_unconfined_tools = true")
    return list(found), skipped


def plugin_folders(paths: Paths) -> Path:
    """Where a plugin's own folders are suggested: beside the assistant's, never inside them."""
    return paths.cache_dir.parent / "assistant-plugins"


def _limits(settings: Settings) -> dict[str, int]:
    return {"memory_mb": settings.tool_memory_mb, "cpu_seconds": settings.tool_cpu_seconds,
            "folder_mb": settings.tool_folder_mb, "folder_files": settings.tool_folder_files}
