"""Plugins: tools from installed packages (the ``assistant.tools`` entry point group), confined whole.

No line of a plugin runs in the assistant or the daemon. What the assistant knows of a plugin before it runs is
metadata read without importing anything (the entry point: its name, ``module:object``, package and version).
Everything the plugin's code does — its import, its construction from the settings, its ``permissions``, its
routing rules and checks, its rendering — runs in a *hook host*: one long-lived worker process per plugin, in
the same kernel jail as a tool's ``run()`` (``tools.jail.worker``), with no folders and no network, spoken to over a
pipe. Its ``run()`` goes through the sandbox runner like a built-in tool's, with what the *user* granted
(:mod:`tools.jail.grants`), never what the plugin declared.

On the assistant's side a plugin is a :class:`PluginTool`: its name, description, argument schema and requested
permissions as the hook host described them (kept in the cache, keyed by the package's version and the settings
it sees, so a question does not wait for a description), and each hook the plugin overrides forwarded to the host.
A hook that fails, answers garbage or takes longer than :data:`HOOK_TIMEOUT` costs the plugin that answer (the
hook's neutral value), never the turn; a host that hangs is killed and its plugin rests for a minute."""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from tools.base import TOOL_NAME, Finding, KeyFact, LocalText, Permissions, PreviousTurn, Tool, ToolResult, Verdict
from tools.jail import Decision, Grants, Request, new_home, worker_command, worker_env
from tools.logfile import note, open_log

GROUP = "assistant.tools"
HOOK_TIMEOUT = 2.0  # seconds a rule may take (they are string work: milliseconds)
START_TIMEOUT = 30.0
REST = 60.0  # seconds a plugin whose host failed is left alone
REPLY_LIMIT = 4 * 1024 * 1024
HOOKS = ("route", "follow_up", "depends", "missing", "complete", "grounding", "vet", "check", "render", "render_all",
         "key_facts", "wrong_claims", "derives", "doctor")
EVERY_QUESTION = {"route", "missing", "depends", "wrong_claims", "derives"}  # asked on every question: host kept warm


class HookFailure(Exception):
    pass


# --- the plugin's side: what runs inside the jail (tools.jail.worker) ---------------------------------------------

def build(spec: dict[str, Any]) -> Tool:
    """The plugin's tool, built from its entry point (``module:object``) as the assistant used to build it in
    process: a ``Tool`` subclass through its ``from_settings``, or a function that returns a tool."""
    module_name, _, attr = str(spec["entry"]).partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    settings = SimpleNamespace(**(spec.get("settings") or {}))
    paths = SimpleNamespace(**{k: Path(v) for k, v in (spec.get("paths") or {}).items()})
    return as_tool(obj, settings, paths)


def as_tool(obj: object, settings: Any, paths: Any) -> Tool:
    if isinstance(obj, type) and issubclass(obj, Tool):
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


def describe(tool: Tool) -> dict[str, Any]:
    """What the assistant needs to know of the plugin's tool, as data."""
    perms = tool.permissions
    title = tool.title
    return {
        "name": tool.name, "description": str(tool.description)[:2000],
        "title": title.model_dump() if isinstance(title, LocalText) else None,
        "schema": tool.args_schema(), "renders_directly": bool(tool.renders_directly),
        "permissions": {"network": [str(h) for h in perms.network], "ports": [int(p) for p in perms.ports],
                        "files": [str(f) for f in perms.files]},
        "overrides": [h for h in HOOKS if getattr(type(tool), h, None) is not getattr(Tool, h)],
    }


class Hooks:
    """Answers hook calls inside the jail: arguments arrive as JSON and are rebuilt with the plugin's own models."""

    def __init__(self, tool: Tool, loop: asyncio.AbstractEventLoop) -> None:
        self.tool = tool
        self.loop = loop
        self.derived: dict[int, Callable[[str], set[float]]] = {}

    def _args(self, data: Any) -> BaseModel:
        return self.tool.Args.model_validate(data)

    def _executed(self, pairs: Any) -> list[tuple[BaseModel, ToolResult]]:
        return [(self._args(a), ToolResult.model_validate(r)) for a, r in pairs]

    def call(self, hook: str, p: dict[str, Any]) -> Any:
        t = self.tool
        dump = _dump
        if hook == "route":
            return dump(t.route(p["question"]))
        if hook == "follow_up":
            return dump(t.follow_up(p["question"], PreviousTurn.model_validate(p["previous"])))
        if hook == "depends":
            return bool(t.depends(p["question"], p["route"]))
        if hook == "missing":
            return t.missing(p["question"])
        if hook == "complete":
            return dump(t.complete(p["question"], p["reply"]))
        if hook == "grounding":
            return t.grounding(p["question"])
        if hook == "vet":
            return dump(t.vet(p["question"], self._args(p["args"])))
        if hook == "check":
            return dump(t.check(p["question"], self._args(p["args"]), ToolResult.model_validate(p["result"])))
        if hook == "render":
            return t.render(p["question"], self._args(p["args"]), ToolResult.model_validate(p["result"]))
        if hook == "render_all":
            return t.render_all(p["question"], self._executed(p["executed"]))
        if hook == "key_facts":
            return dump(t.key_facts(self._args(p["args"]), ToolResult.model_validate(p["result"])))
        if hook == "wrong_claims":
            return list(t.wrong_claims(p["text"]))
        if hook == "derives":
            found = t.derives(p["evidence"])
            if found is None:
                return None
            handle = max(self.derived, default=0) + 1
            self.derived = {k: v for k, v in self.derived.items() if k > handle - 8}
            self.derived[handle] = found
            return handle
        if hook == "derived":
            return sorted(float(x) for x in self.derived[int(p["handle"])](p["sentence"]))
        if hook == "doctor":
            return dump(self.loop.run_until_complete(t.doctor()))
        raise ValueError(f"no hook {hook!r}")


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    return value


# --- the assistant's side -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """A plugin as its package's metadata names it: read without importing anything."""

    name: str  # the entry point's name: the plugin's name in grants and messages
    value: str  # module:object
    package: str
    version: str
    fingerprint: str  # changes when the installed package does

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    def origin(self) -> str:
        return f"plugin {self.name!r} ({self.value}" + (f", from {self.package}" if self.package else "") + ")"


def discover(cache: Path | None = None) -> list[Entry]:
    """The plugins installed: every entry point of :data:`GROUP`, by name. ``cache``: a file that keeps what the
    last scan found, with the import path and, for each of its folders that holds installed packages, when it last
    changed; while the path is the same and none of those has changed (a package installed, upgraded or removed
    changes the folder it goes in), it is read instead of every installed package's metadata (10 to 20 ms a
    command, most of it reading files). A folder of the path that holds no package (the working folder of ``python
    -m``, which changes all day) is not watched. Damaged or stale, it is scanned again and rewritten."""
    if cache is not None:
        try:
            kept = json.loads(cache.read_text(encoding="utf-8"))
            if kept["path"] == sys.path and all(_changed_at(folder) == at for folder, at in kept["folders"]):
                entries = [Entry(**e) for e in kept["entries"]]
                if all(isinstance(v, str) for e in entries for v in vars(e).values()):  # else: of another shape
                    return entries
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            pass  # missing, damaged or of another shape: scanned again
    folders = [folder for folder in sys.path if _holds_packages(folder)]
    stamp = [[folder, _changed_at(folder)] for folder in folders]  # before the scan: a change during it rescans
    found = _scan()
    if cache is not None:
        try:
            from tools.cache_file import partial_file

            cache.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with partial_file(cache) as tmp:
                tmp.write_text(json.dumps({"path": sys.path, "folders": stamp, "entries": [vars(e) for e in found]}),
                               encoding="utf-8")
                os.replace(tmp, cache)
        except OSError:
            pass  # a read-only or full cache: the next command scans again
    return found


def _changed_at(folder: str) -> int | None:
    try:
        return os.stat(folder or ".").st_mtime_ns
    except OSError:
        return None


def _holds_packages(folder: str) -> bool:
    """Whether ``folder`` of the import path holds an installed package's metadata (or is an archive, which may)."""
    try:
        return any(name.endswith((".dist-info", ".egg-info")) for name in os.listdir(folder or "."))
    except NotADirectoryError:
        return True
    except OSError:
        return False


def _scan() -> list[Entry]:
    from importlib.metadata import entry_points

    found = []
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        dist = ep.dist
        where = getattr(dist, "_path", None)
        try:
            stamp = f"{where}:{os.stat(where).st_mtime_ns}" if where is not None else ""
        except OSError:
            stamp = str(where)
        package = dist.name if dist is not None else ""
        version = dist.version if dist is not None else ""
        found.append(Entry(ep.name, ep.value, package, version, f"{package}=={version}@{stamp}"))
    return found


class HookHost:
    """One confined worker answering a plugin's hooks, synchronously (the hooks are plain functions the pipeline
    calls in its loop; each is a pipe round trip, a fraction of a millisecond warm)."""

    def __init__(self, entry: Entry, spec: dict[str, Any], limits: dict[str, Any], log: Path | None) -> None:
        self.entry = entry
        self.spec = spec
        self.limits = limits
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.home: str | None = None
        self.ready: dict[str, Any] | None = None
        self.resting_until = 0.0
        self._buffer = b""
        self._next = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the process (without waiting for it)."""
        if self.proc is not None:
            return
        self.home = new_home("plugin")
        env = worker_env(False, self.home)
        stderr: Any = open_log(self.log) or subprocess.DEVNULL  # best effort: a read-only home stops no plugin
        try:
            self.proc = subprocess.Popen(worker_command(), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=self.home,
                                         start_new_session=True)
        finally:
            if stderr is not subprocess.DEVNULL:
                stderr.close()
        init = {"tool": self.spec, "permissions": {"network": [], "files": [], "ports": []}, "limits": self.limits,
                "describe": True}
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(init) + "\n").encode())
        self.proc.stdin.flush()
        self._buffer = b""

    def describe(self) -> dict[str, Any]:
        """The plugin's description, or ``{"error": why}``; starts the host if needed and waits for it."""
        self.start()
        if self.ready is None:
            try:
                self.ready = json.loads(self._line(START_TIMEOUT))
            except (HookFailure, ValueError) as e:
                self.stop()
                return {"error": f"its jailed process did not start ({e})"}
        if not isinstance(self.ready, dict):
            self.stop()
            return {"error": "its jailed process sent an unreadable reply"}
        if not self.ready.get("ready"):
            error = str(self.ready.get("error") or "it did not start")
            self.stop()
            return {"error": error}
        return self.ready.get("describe") or {"error": "it did not describe itself"}

    def _line(self, timeout: float) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise HookFailure(f"no answer within {timeout:g} s")
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise HookFailure("its process exited")
            self._buffer += chunk
            if len(self._buffer) > REPLY_LIMIT:
                raise HookFailure("its reply was too large")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def call(self, hook: str, params: dict[str, Any]) -> Any:
        with self._lock:
            if time.monotonic() < self.resting_until:
                raise HookFailure("it is resting after a failure")
            described = self.describe()
            if "error" in described:
                self.resting_until = time.monotonic() + REST
                raise HookFailure(described["error"])
            assert self.proc is not None and self.proc.stdin is not None
            self._next += 1
            try:
                self.proc.stdin.write((json.dumps({"id": self._next, "hook": hook, "params": params},
                                                  ensure_ascii=False) + "\n").encode())
                self.proc.stdin.flush()
                reply = json.loads(self._line(HOOK_TIMEOUT))
                if not isinstance(reply, dict) or reply.get("id") != self._next:
                    raise HookFailure("it answered another call")
            except (HookFailure, OSError, ValueError) as e:
                self._note(f"plugin {self.entry.name!r}: its {hook}() failed ({e}); it rests for {REST:g} s")
                self.stop()
                self.resting_until = time.monotonic() + REST
                raise HookFailure(str(e)) from None
            if "error" in reply:
                raise HookFailure(str(reply["error"]))
            return reply.get("value")

    def _note(self, line: str) -> None:
        note(self.log, line)

    def stop(self) -> None:
        proc, self.proc, self.ready = self.proc, None, None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close() if stream is not None else None
                except OSError:
                    pass
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None


class PluginTool(Tool[BaseModel]):
    """A plugin's tool as the assistant holds it: data from its description, hooks forwarded to its host."""

    def __init__(self, entry: Entry, described: dict[str, Any], host: HookHost, decision: Decision) -> None:
        from tools.schema_args import args_model

        super().__init__()
        self.entry = entry
        self.host = host
        self.decision = decision
        self.name = described["name"]
        self.description = described["description"]
        title = described.get("title")
        self.title = LocalText.model_validate(title) if isinstance(title, dict) else None
        raw = described.get("schema")
        schema: dict[str, Any] = raw if isinstance(raw, dict) else {}
        self.schema = {k: v for k, v in schema.items() if k not in ("title", "$schema")} or {"type": "object", "properties": {}}
        self.Args = args_model(self.name, self.schema)
        self.renders_directly = bool(described.get("renders_directly"))
        self.overrides = set(described.get("overrides") or [])
        self.requested = Request.of(described.get("permissions") or {})
        self.source = f"plugin {entry.package}" if entry.package else f"plugin {entry.value}"

    # what it may touch: what the user granted of what it asked for
    @property
    def permissions(self) -> Permissions:
        g = self.decision.granted
        return Permissions(network=list(g.network), ports=list(g.ports), files=list(g.files))

    def spec(self) -> dict[str, Any]:
        return dict(self.host.spec)

    def args_schema(self) -> dict[str, Any]:
        return dict(self.schema)

    async def aclose(self) -> None:
        self.host.stop()

    async def run(self, args: BaseModel) -> ToolResult:
        return ToolResult.failure(f"{self.name} is a plugin: it runs only in the sandbox (tools.jail.runner.SandboxRunner)")

    def _call(self, hook: str, default: Any, **params: Any) -> Any:
        try:
            return self.host.call(hook, params)
        except HookFailure:
            return default

    def _args(self, value: Any) -> list[BaseModel] | None:
        if not isinstance(value, list) or not value:
            return None
        try:
            return [self.Args.model_validate(v) for v in value[:8]]
        except (ValidationError, TypeError):
            return None

    @staticmethod
    def _json(args: BaseModel) -> dict[str, Any]:
        return args.model_dump(mode="json", by_alias=True)

    @staticmethod
    def _text(value: Any) -> str | None:
        return value[:20000] if isinstance(value, str) else None

    @staticmethod
    def _model(kind: type[BaseModel], value: Any) -> Any:
        try:
            return kind.model_validate(value) if isinstance(value, dict) else None
        except ValidationError:
            return None

    def route(self, question: str) -> list[BaseModel] | None:
        return self._args(self._call("route", None, question=question)) if "route" in self.overrides else None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        if "follow_up" not in self.overrides:
            return None
        return self._args(self._call("follow_up", None, question=question, previous=previous.model_dump(mode="json")))

    def depends(self, question: str, route: str) -> bool:
        return "depends" in self.overrides and self._call("depends", False, question=question, route=route) is True

    def missing(self, question: str) -> str | None:
        return self._text(self._call("missing", None, question=question)) if "missing" in self.overrides else None

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        return self._args(self._call("complete", None, question=question, reply=reply)) if "complete" in self.overrides else None

    def grounding(self, question: str) -> Any:
        if "grounding" not in self.overrides:
            return super().grounding(question)
        value = self._call("grounding", "ungrounded", question=question)
        return value if value in ("grounded", "ask", "ungrounded") else "ungrounded"

    def vet(self, question: str, args: BaseModel) -> Verdict | None:
        if "vet" not in self.overrides:
            return None
        return self._model(Verdict, self._call("vet", None, question=question, args=self._json(args)))

    def check(self, question: str, args: BaseModel, result: ToolResult) -> Verdict | None:
        if "check" not in self.overrides:
            return super().check(question, args, result)
        if not result.ok:  # a failed call fails, whatever the plugin says
            return super().check(question, args, result)
        return self._model(Verdict, self._call("check", None, question=question, args=self._json(args),
                                               result=result.model_dump(mode="json")))

    def render(self, question: str, args: BaseModel, result: ToolResult) -> str | None:
        if "render" not in self.overrides:
            return None
        return self._text(self._call("render", None, question=question, args=self._json(args),
                                     result=result.model_dump(mode="json")))

    def render_all(self, question: str, executed: list[tuple[BaseModel, ToolResult]]) -> str:
        if "render_all" in self.overrides:
            text = self._text(self._call("render_all", None, question=question, executed=[
                (self._json(a), r.model_dump(mode="json")) for a, r in executed]))
            if text is not None:
                return text
        return super().render_all(question, executed)

    def key_facts(self, args: BaseModel, result: ToolResult) -> list[KeyFact]:
        if "key_facts" not in self.overrides:
            return []
        value = self._call("key_facts", [], args=self._json(args), result=result.model_dump(mode="json"))
        facts = [self._model(KeyFact, v) for v in value] if isinstance(value, list) else []
        return [f for f in facts if f is not None][:32]

    def wrong_claims(self, text: str) -> list[str]:
        if "wrong_claims" not in self.overrides:
            return []
        value = self._call("wrong_claims", [], text=text)
        return [v[:2000] for v in value if isinstance(v, str)][:16] if isinstance(value, list) else []

    def derives(self, evidence: str) -> Callable[[str], set[float]] | None:
        if "derives" not in self.overrides:
            return None
        handle = self._call("derives", None, evidence=evidence)
        if not isinstance(handle, int):
            return None

        def derived(sentence: str) -> set[float]:
            value = self._call("derived", [], handle=handle, sentence=sentence)
            return {float(v) for v in value if isinstance(v, (int, float))} if isinstance(value, list) else set()

        return derived

    async def doctor(self) -> list[Finding]:
        if "doctor" not in self.overrides:
            return []
        value = await asyncio.to_thread(self._call, "doctor", [])
        found = [self._model(Finding, v) for v in value] if isinstance(value, list) else []
        return [f for f in found if f is not None]


# --- building the registry's plugins ------------------------------------------------------------------------

def _cache_key(entry: Entry, view: dict[str, Any]) -> str:
    blob = json.dumps([entry.name, entry.value, entry.fingerprint, view], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _cached(path: Path, key: str) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("described") if isinstance(data, dict) and data.get("key") == key else None


def _save(path: Path, key: str, described: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"key": key, "described": described}, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass


def load(entries: list[Entry], taken: list[str], view: dict[str, Any], grants: Grants, cache: Path,
         limits: dict[str, Any], log: Path | None, plugin_dirs: Path, may_run: bool) -> tuple[list[PluginTool], list[str]]:
    """Every plugin of ``entries`` (:func:`discover`) as a :class:`PluginTool`, and one line for each skipped (and why). ``view``: the
    settings a plugin sees (no secrets); ``plugin_dirs``: where a plugin's own folders are suggested (``paths``
    it is built with: ``plugin_dirs/NAME``); ``may_run``: the kernel can confine it, or the user consented."""
    if not may_run:
        return [], [f"{e.origin()}: skipped, this system cannot confine third-party code (no Landlock or no seccomp "
                    "allow-list); set allow_unconfined_tools = true to run it anyway" for e in entries]
    hosts: dict[str, HookHost] = {}
    described: dict[str, dict[str, Any]] = {}
    keys: dict[str, str] = {}
    for entry in entries:
        own = plugin_dirs / entry.name
        spec = {"module": entry.module, "qualname": entry.value, "path": None, "config": None,
                "plugin": {"entry": entry.value, "name": entry.name, "settings": view, "host": __name__,
                           "paths": {"cache_dir": str(own / "cache"), "log_dir": str(own / "log")}}}
        hosts[entry.name] = HookHost(entry, spec, limits, log)
        keys[entry.name] = _cache_key(entry, view)
        found = _cached(cache / f"{entry.name}.json", keys[entry.name])
        if found is not None:
            described[entry.name] = found
        else:
            hosts[entry.name].start()  # all at once: they start in parallel
    for entry in entries:
        if entry.name not in described:
            described[entry.name] = hosts[entry.name].describe()
            _save(cache / f"{entry.name}.json", keys[entry.name], described[entry.name])
    tools: list[PluginTool] = []
    skipped: list[str] = []
    names = set(taken) | {"chat", "clarify"}
    for entry in entries:
        info, host = described[entry.name], hosts[entry.name]
        try:
            if "error" in info:
                raise _Skip(str(info["error"]))
            if info.get("name") in names:
                raise _Skip(f"ValueError: the tool name {info.get('name')!r} is taken")
            request = Request.of(info.get("permissions") or {})
            tool = PluginTool(entry, info, host, grants.decide(entry.name, entry.package, entry.version, request))
        except (_Skip, KeyError, TypeError, ValueError) as e:
            host.stop()
            skipped.append(f"{entry.origin()}: skipped, {e}")
            continue
        if tool.overrides & EVERY_QUESTION:
            host.start()  # warm before the first question needs it
        else:
            host.stop()  # started on demand
        names.add(tool.name)
        tools.append(tool)
    return tools, skipped


class _Skip(Exception):
    pass
