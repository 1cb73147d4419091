"""Tools from Model Context Protocol servers (stdio transport, through the official ``mcp`` SDK).

Each server listed in ``config.toml`` runs as its own subprocess, started through :mod:`tools.jail.mcp_launch`
(memory and CPU limits; on Linux the kernel's jail: its folders only, no network unless granted), kept open
while the assistant runs and restarted after
it dies. Its tools join the registry as :class:`McpTool`: named ``<server>_<tool>``, described and typed by
their MCP definitions. A server that crashes, hangs or reports an error costs one tool error, never the turn.

The tool lists are cached on disk (listing means starting the server, about a second for a Python one), and
refreshed whenever a server starts. The SDK is an optional extra (``assistant[mcp]``): without it, configured
servers are skipped with one line saying how to install it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel

from tools.base import LocalText, Permissions, Tool, ToolResult
from tools.jail import mcp_command
from tools.logfile import open_log
from tools.mcp_config import McpServerConfig
from tools.schema_args import args_model

STARTUP_TIMEOUT = 30.0
IDLE_PING_AFTER = 5.0  # a server idle this long is checked before a call: it may have died in between
FAILURE_KEPT = 300.0  # seconds a server that did not start is not tried again while building the registry
MAX_TEXT = 16_000  # characters of a result's text kept for the model
CONNECTION_CLOSED = -32000  # the SDK's error code when the server's pipe closed


class ServerFailure(Exception):
    """The server could not be started, or stopped answering."""


def sdk_missing() -> bool:
    """Whether the optional SDK is absent (found without importing it: the import takes most of a second)."""
    import importlib.util

    return importlib.util.find_spec("mcp") is None


class McpServer:
    """One running server: started on first use, shared by its tools, restarted after it dies or hangs."""

    def __init__(self, name: str, config: McpServerConfig, limits: dict[str, Any], log: Path | None = None,
                 cache: Path | None = None) -> None:
        self.name = name
        self.config = config
        self.limits = limits  # memory_mb, cpu_seconds, network: handed to the launcher
        self.log = log
        self.cache = cache  # where its tool list is kept (refreshed on every start)
        self.starts = 0
        self.listing: list[dict[str, Any]] | None = None
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._last_used = 0.0
        self._reaping: set[asyncio.Task[None]] = set()

    def command(self) -> list[str]:
        """The launcher with the limits, then the server's own command line."""
        return mcp_command(self.limits, self.config.command, list(self.config.args))

    async def _connect(self) -> Any:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        launcher = self.command()
        params = StdioServerParameters(command=launcher[0], args=launcher[1:], env=self.config.env or None,
                                       cwd=self.config.cwd, encoding_error_handler="replace")
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        stop = asyncio.Event()

        async def hold() -> None:
            # The SDK's client must be entered and left in one task: this one, which lives as long as the server.
            errlog = None
            try:
                errlog = _open_log(self.log)
                async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
                    ready.set_result(client)
                    await stop.wait()
            except BaseException as e:  # noqa: BLE001 - reported to the caller that waits for the start
                if not ready.done():
                    closed = getattr(e, "code", None) == CONNECTION_CLOSED or "Connection closed" in _describe(e)
                    ready.set_exception(ServerFailure("it exited before answering" if closed else _describe(e)))
                if isinstance(e, asyncio.CancelledError):
                    raise
            finally:
                if errlog is not None:
                    errlog.close()

        logged = self.log.stat().st_size if self.log is not None and self.log.exists() else 0
        task = asyncio.create_task(hold(), name=f"mcp server {self.name}")
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), STARTUP_TIMEOUT)
        except asyncio.TimeoutError:
            ready.cancel()  # nobody waits for it any more: the cancelled start must not be reported as an error
            task.cancel()
            raise ServerFailure(f"it did not answer within {STARTUP_TIMEOUT:g} s of starting{self._said(logged)}") from None
        except ServerFailure as e:
            raise ServerFailure(f"{e}{self._said(logged)}") from None
        self._client, self._stop, self._task, self.starts = client, stop, task, self.starts + 1
        return client

    def _said(self, offset: int) -> str:
        """The last line the server wrote to stderr since ``offset`` of its log (why it did not start)."""
        if self.log is None:
            return ""
        try:
            with open(self.log, "rb") as f:
                f.seek(offset)
                lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
        except OSError:
            return ""
        return f"; it said: {lines[-1][:200]}" if lines else ""

    async def _session(self) -> Any:
        """The open client, started (or restarted) when needed."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (a test, a worker thread): the old connection is unusable
            self._client, self._task, self._loop, self._lock = None, None, loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            if self._client is not None and self._task is not None and self._task.done():
                self._client = None
            if self._client is not None and time.monotonic() - self._last_used > IDLE_PING_AFTER:
                # Alive? (tools/list, not ping: ping is gone from the protocol as of 2026-07-28)
                try:
                    await asyncio.wait_for(self._client.list_tools(), 2.0)
                except Exception:  # noqa: BLE001 - died or hung while idle: start afresh, the call has not been sent
                    await self._drop(wait=False)
            if self._client is None:
                await self._connect()
                await self._refresh_cache()
                self._last_used = time.monotonic()
            return self._client

    async def _drop(self, wait: bool = True) -> None:
        """Stop the server (the SDK closes its stdin, then terminates its process group). ``wait=False``: the
        next call starts a new one at once and the old one is reaped in the background (a hung server takes
        the SDK's grace period to die)."""
        task, stop = self._task, self._stop
        self._client, self._task, self._stop = None, None, None
        if stop is not None:
            stop.set()
        if task is None:
            return
        if not wait:
            self._reaping.add(task)
            task.add_done_callback(self._reaping.discard)
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), 10.0)
        except BaseException:  # noqa: BLE001 - it is gone either way
            task.cancel()

    async def list_tools(self) -> list[dict[str, Any]]:
        """Its tools, as listed when it (last) started."""
        await self._session()
        if self.listing is None:
            raise ServerFailure("it did not list its tools")
        return self.listing

    async def _listing(self, client: Any) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(100):  # pages; a server that never stops paginating is cut off
            page = await asyncio.wait_for(client.list_tools(cursor=cursor), STARTUP_TIMEOUT)
            tools += [{"name": t.name, "description": t.description or "", "input_schema": t.input_schema}
                      for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _refresh_cache(self) -> None:
        try:
            self.listing = await self._listing(self._client)
        except Exception:  # noqa: BLE001 - the listing is a convenience; the call goes on
            self.listing = None
            return
        if self.cache is not None:
            save_listing(self.cache, self.config, self.listing)

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> ToolResult:
        """One call; every failure is a tool error. A server that crashed or hung is stopped and starts again
        on the next call; such an error is not the arguments' fault, so it is marked unfixable."""
        from mcp import MCPError

        label = f"the MCP server '{self.name}'"
        try:
            client = await self._session()
        except ServerFailure as e:
            return _unfixable(f"{label} could not be started: {e}", self.name)
        except Exception as e:  # noqa: BLE001
            return _unfixable(f"{label} could not be started: {_describe(e)}", self.name)
        try:
            result = await asyncio.wait_for(client.call_tool(tool, arguments), timeout)
        except asyncio.TimeoutError:
            await self._drop(wait=False)
            return _unfixable(f"{label} did not answer {tool} within {timeout:g} s; it was stopped", self.name)
        except MCPError as e:
            if e.code == CONNECTION_CLOSED:
                await self._drop()
                return _unfixable(f"{label} stopped during the call to {tool} ({e.message})", self.name)
            return ToolResult.failure(f"{tool}: {e.message}")  # a protocol error: unknown tool, invalid params
        except Exception as e:  # noqa: BLE001 - a malformed result, a broken pipe
            await self._drop()
            return _unfixable(f"{label} failed during the call to {tool}: {_describe(e)}", self.name)
        finally:
            self._last_used = time.monotonic()
        return convert_result(tool, result)

    async def aclose(self) -> None:
        if self._loop is asyncio.get_running_loop():
            await self._drop()
            if self._reaping:
                await asyncio.wait(self._reaping, timeout=10.0)


def _open_log(log: Path | None) -> Any:
    """Where the server's stderr goes: the MCP log, which ``assistant doctor`` points to."""
    import os

    return open_log(log, text=True) or open(os.devnull, "w")  # noqa: SIM115 - closed by the caller


def _describe(e: BaseException) -> str:
    """One line for an error, also for the exception groups anyio raises."""
    while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        e = e.exceptions[0]
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _unfixable(error: str, server: str) -> ToolResult:
    result = ToolResult.failure(error, LocalText(zh=f"外部工具服务 {server} 出了故障，没能给出结果。",
                                                  en=f"The external tool server '{server}' failed and gave no result."))
    result.fixable = False
    return result


def convert_result(tool: str, result: Any) -> ToolResult:
    """An MCP ``CallToolResult`` as our result: structured content when the server gives it, else its text;
    an ``isError`` result is a tool error whose text the executor can act on."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource" and getattr(block.resource, "text", None):
            parts.append(block.resource.text)
        else:
            parts.append(f"[{kind or 'content'} not shown]")
    text = "\n".join(parts)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"… [cut at {MAX_TEXT} characters]"
    if result.is_error:
        said = text or "the server reported an error"
        short = said if len(said) <= 200 else said[:199] + "…"
        return ToolResult.failure(f"{tool}: {said}", LocalText(zh=f"{tool} 报错:{short}", en=f"{tool} said: {short}"))
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict) and structured:
        return ToolResult.success(**structured)
    return ToolResult.success(text=text)


# --- tool definitions -------------------------------------------------------------------------------------

def tool_name(server: str, tool: str) -> str:
    """``<server>_<tool>`` in the registry's alphabet (lower-case letters, digits, _; at most 40)."""
    raw = re.sub(r"[^a-z0-9_]+", "_", f"{server}_{tool}".lower()).strip("_")
    if not raw or not raw[0].isalpha():
        raw = "mcp_" + raw
    return raw[:40].rstrip("_")


class McpTool(Tool[BaseModel]):
    """One tool of an MCP server. Runs in the server's process (``external``), so the runner calls it directly."""

    external = True
    Args = BaseModel  # replaced per instance from the tool's inputSchema

    def __init__(self, server: McpServer, definition: dict[str, Any]) -> None:
        super().__init__()
        self.server = server
        self.remote_name: str = definition["name"]
        self.name = tool_name(server.name, self.remote_name)
        self.description = (definition.get("description") or "").strip() or f"{self.remote_name} (MCP server {server.name})"
        raw = definition.get("input_schema")
        schema: dict[str, Any] = raw if isinstance(raw, dict) else {}
        self.schema = {k: v for k, v in schema.items() if k not in ("title", "$schema")} or {"type": "object", "properties": {}}
        self.Args = args_model(self.name, self.schema)
        self.source = f"MCP server {server.name}"
        self.title = LocalText(zh=f"{server.name} 服务的 {self.remote_name}", en=f"{server.name} server's {self.remote_name}")

    @property
    def permissions(self) -> Permissions:
        return Permissions(network=["any host"] if self.server.config.network else [], files=list(self.server.config.folders))

    def args_schema(self) -> dict[str, Any]:
        return dict(self.schema)

    async def start(self) -> None:
        await self.server._session()

    async def run(self, args: BaseModel) -> ToolResult:
        timeout = self.server.config.timeout or self.server.limits.get("timeout") or 10.0
        return await self.server.call(self.remote_name, args.model_dump(exclude_unset=True), timeout)

    async def aclose(self) -> None:
        await self.server.aclose()


# --- the listing cache, and building the tools -------------------------------------------------------------

def fingerprint(config: McpServerConfig) -> str:
    return hashlib.sha256(config.model_dump_json().encode()).hexdigest()[:16]


def save_listing(path: Path, config: McpServerConfig, tools: list[dict[str, Any]] | str) -> None:
    """Keep a server's tool list, or why it did not start (``str``), for the next runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = "tools" if isinstance(tools, list) else "error"
    data = {"fingerprint": fingerprint(config), "listed_at": time.time(), key: tools}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, default=str), encoding="utf-8")
    tmp.replace(path)


def cached_listing(path: Path, config: McpServerConfig) -> list[dict[str, Any]] | str | None:
    """The kept tool list; a failure to start is kept for :data:`FAILURE_KEPT` seconds (so that a server that
    hangs does not hold up every question), after which it is tried again. ``None``: list it now."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint(config):
        return None
    if isinstance(data.get("tools"), list):
        return data["tools"]
    if isinstance(data.get("error"), str) and time.time() - float(data.get("listed_at", 0)) < FAILURE_KEPT:
        return data["error"]
    return None


def run_sync(coro: Any) -> Any:
    """Run ``coro`` to completion from synchronous code, also when this thread already runs an event loop."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, name="mcp listing")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


async def _list_fresh(server: McpServer) -> list[dict[str, Any]]:
    try:
        return await server.list_tools()
    finally:
        await server.aclose()


def mcp_tools(servers: dict[str, McpServerConfig], defaults: dict[str, Any], cache_dir: Path, log_dir: Path | None,
              taken: list[str], refresh: bool = False,
              protected: Sequence[str] = ()) -> tuple[list[Tool], list[str]]:
    """The tools of every configured server, and one line for each server or tool skipped (and why).
    ``defaults``: timeout, memory_mb, cpu_seconds for servers that set none. Each server's stderr goes to
    ``log_dir/mcp-NAME.log``. ``refresh``: list every server now instead of trusting the cache (``assistant
    doctor``). ``protected``: the assistant's own folders, which no server may be granted (nor the secret stores:
    :func:`tools.jail.grants.refusal`); a server granted one is skipped, never started."""
    from tools.jail import refusal

    if not servers:
        return [], []
    never = {name: why for name, config in servers.items()
             if (why := next((f"its folder {f} can never be granted: {r}" for f in config.folders
                              if (r := refusal(f, list(protected))) is not None), None)) is not None}
    refused = [f"mcp server '{name}' ({servers[name].command}): skipped, {why}" for name, why in never.items()]
    servers = {name: config for name, config in servers.items() if name not in never}
    if not servers:
        return [], refused
    if sdk_missing():
        return [], [f"mcp server '{n}': skipped, the MCP SDK is not installed (pip install 'assistant[mcp]')"
                    for n in servers]
    built: list[McpServer] = []
    for name, config in servers.items():
        limits = {
            "memory_mb": defaults["memory_mb"] if config.memory_mb is None else config.memory_mb,
            "cpu_seconds": defaults["cpu_seconds"] * 10 if config.cpu_seconds is None else config.cpu_seconds,
            "network": config.network, "timeout": defaults["timeout"], "folders": config.folders, "cwd": config.cwd,
            "processes": config.processes, "protected": [str(p) for p in protected],
        }
        log = log_dir / f"mcp-{name}.log" if log_dir is not None else None
        built.append(McpServer(name, config, limits, log, cache_dir / f"{name}.json"))
    listings: dict[str, list[dict[str, Any]] | str] = {}
    stale = []
    for server in built:
        cached = None if refresh or server.cache is None else cached_listing(server.cache, server.config)
        if cached is None:
            stale.append(server)
        else:
            listings[server.name] = cached
    if stale:
        async def list_all() -> list[Any]:
            return await asyncio.gather(*(_list_fresh(s) for s in stale), return_exceptions=True)

        for server, listing in zip(stale, run_sync(list_all()), strict=True):
            listings[server.name] = (listing if isinstance(listing, list) else
                                     str(listing) if isinstance(listing, ServerFailure) else _describe(listing))
            if isinstance(listings[server.name], str) and server.cache is not None:
                save_listing(server.cache, server.config, listings[server.name])
    tools: list[Tool] = []
    skipped: list[str] = refused
    names = set(taken) | {"chat", "clarify"}
    for server in built:
        listing = listings[server.name]
        if isinstance(listing, str):
            skipped.append(f"mcp server '{server.name}' ({server.config.command}): skipped, it did not start: {listing}")
            continue
        wanted = server.config.tools
        for definition in listing:
            if wanted is not None and definition.get("name") not in wanted:
                continue
            try:
                tool = McpTool(server, definition)
                if tool.name in names:
                    raise ValueError(f"the tool name {tool.name!r} is taken")
                tool.args_schema()
            except Exception as e:  # noqa: BLE001 - one odd definition costs that tool only
                skipped.append(f"mcp server '{server.name}': tool {definition.get('name')!r} skipped, {_describe(e)}")
                continue
            names.add(tool.name)
            tools.append(tool)
    return tools, skipped
