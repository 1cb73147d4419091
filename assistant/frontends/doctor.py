"""``assistant doctor``: what works and what does not on this machine, each with what to do."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import sqlite3
import sys
import tempfile

from assistant.config import Settings
from assistant.health import Check
from assistant.models.select import backend_checks
from assistant.paths import Paths

MARK = {"ok": "✓", "warn": "!", "fail": "✗"}
MIN_FREE = 1 << 20  # bytes: less free than this where state is kept is a full disk


def check_state(paths: Paths, max_mb: int = 0) -> list[Check]:
    checks = []
    for label, d in (("config dir", paths.config_dir), ("data dir", paths.data_dir), ("cache dir", paths.cache_dir),
                     ("log dir", paths.log_dir)):
        try:
            d.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=d):
                pass
            free = shutil.disk_usage(d).free
            if free < MIN_FREE:  # writable, but a turn, a setting or a log line would not fit
                checks.append(Check(name=label, level="fail", blocking=True,
                                    detail=f"{d} is on a full disk ({free / 2**20:.1f} MB free)",
                                    fix="free some space: answers are stored there, and settings written"))
            else:
                checks.append(Check(name=label, level="ok", detail=f"{d} is writable ({free / 2**30:.1f} GB free)"))
        except OSError as e:
            checks.append(Check(name=label, level="fail", blocking=True, detail=f"{d} is not writable ({e.strerror})",
                                fix=f"fix the permissions of {d}, or set ASSISTANT_HOME to a writable directory"))
    from assistant.errors import StoreError, store_error

    try:
        from assistant.store import MIGRATIONS, Store

        store = Store(paths.database)
        result = store.db.execute("PRAGMA quick_check").fetchone()[0]
        version = store.schema_version
        used = store.used_bytes() / 2**20
        store.close()
        if result != "ok":
            raise sqlite3.DatabaseError(result)
        cap = f" of its {max_mb:,} MB cap" if max_mb else ", no cap"
        checks.append(Check(name="database", level="ok", detail=f"{paths.database} healthy, schema {version}/{len(MIGRATIONS)}, "
                                                                  f"{used:,.1f} MB{cap} (history_max_mb)"))
    except (sqlite3.Error, OSError, StoreError) as e:
        err = e if isinstance(e, StoreError) else store_error(paths.database, e)
        checks.append(Check(name="database", level="fail", blocking=True, detail=err.message, fix=err.hint))
    return checks


async def check_tools(settings: Settings, paths: Paths) -> list[Check]:
    """The tools there are, what each tool checks of itself (a service it reaches), and one line for each plugin
    or MCP server that had to be skipped."""
    from assistant.app import build_registry
    from tools.plugins import PluginTool

    registry = build_registry(settings, paths, refresh_mcp=True)  # MCP servers are started and listed afresh
    own = await asyncio.gather(*(tool.doctor() for tool in registry))
    checks = [Check(name="tools", level="ok", detail=", ".join(registry.names()))]
    for line in registry.skipped:  # "plugin 'x' (module:object, from package): skipped, why" / "mcp server 'x' ..."
        name, _, why = line.partition(": ")
        if name.startswith("mcp server"):
            server = name.split("'")[1]
            fix = ("pip install 'assistant[mcp]'" if "not installed" in why else
                   f"check [mcp_servers.{server}] in {paths.config_file} and {paths.log_dir / f'mcp-{server}.log'}")
        else:
            fix = "update or uninstall the package that provides it; the other tools work"
        checks.append(Check(name=name, level="warn", detail=why, fix=fix))
    for tool in registry:  # a plugin that asks for what is not granted (or never grantable) works with what it has
        if isinstance(tool, PluginTool) and (tool.decision.pending or tool.decision.refused):
            decision, name = tool.decision, tool.entry.name
            asks = decision.pending + [f"{item} (never grantable: {why})" for item, why in decision.refused]
            checks.append(Check(name=f"plugin '{name}'", level="warn", detail=f"asks for, not granted: {', '.join(asks)}",
                                fix=f"assistant tools grant {name}" if decision.pending else "nothing to do: it runs without it"))
    return checks + [Check(**finding.model_dump()) for findings in own for finding in findings]


def check_sandbox(settings: Settings) -> Check:
    """What the kernel enforces for tools here, said plainly; a warning when something is missing."""
    from tools.jail import report

    jail = report()
    if jail.confined and jail.landlock_abi >= 6 and jail.user_namespaces:
        return Check(name="sandbox", level="ok", detail="; ".join(jail.lines()))
    fix = ("plugins and MCP servers will not run until you set allow_unconfined_tools = true"
           if not jail.confined and not settings.allow_unconfined_tools else
           "a newer kernel (Landlock ABI 6+) and libseccomp would enforce the rest")
    return Check(name="sandbox", level="warn", detail="; ".join(jail.lines()), fix=fix)


def check_hotkey() -> Check:
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        where = "Wayland" if os.environ.get("WAYLAND_DISPLAY") else "no graphical session"
        return Check(name="hotkey", level="warn", detail=f"no X11 display ({where}): a global hotkey cannot be grabbed",
                     fix="bind a desktop shortcut to `assistant popup` (see docs/daemon.md)")
    if importlib.util.find_spec("pynput") is None:
        return Check(name="hotkey", level="warn", detail="pynput is not installed",
                     fix="pip install 'assistant[hotkey]' (in a checkout: pip install '.[hotkey]') for the global hotkey")
    return Check(name="hotkey", level="ok", detail="pynput available for the global hotkey")


def check_notifications(paths: Paths) -> Check:
    """Whether reminders reach the screen: desktop-notifier installed, and no reminder waiting that no notification
    service took (the daemon says which, and why, in its data folder)."""
    from assistant.reminders import unshown_said

    waiting = unshown_said(paths.data_dir)
    if waiting and waiting.reminders:
        n = len(waiting.reminders)
        fix = "pip install 'assistant[notify]'" if "not installed" in waiting.why else \
            "start a notification service (on Linux one comes with the desktop; dunst or mako on a bare window " \
            f"manager); the daemon shows them within {waiting.retry:g} s"
        return Check(name="notifications", level="warn", detail=f"{n} reminder{'s' if n != 1 else ''} came due and "
                     f"could not be shown: {waiting.why}", fix=fix)
    if importlib.util.find_spec("desktop_notifier") is None:
        return Check(name="notifications", level="warn", detail="desktop-notifier is not installed: reminders wait, "
                     "listed by `assistant reminders`, and are not shown", fix="pip install 'assistant[notify]'")
    return Check(name="notifications", level="ok", detail="reminders are shown as desktop notifications by the daemon")


def check_daemon(paths: Paths) -> Check:
    """Whether the daemon runs, what it answers with, and whether this shell's settings are ones it answers with
    (else `ask` and `chat` answer in their own process)."""
    from assistant.envnames import setting_env
    from assistant.frontends.client import DaemonError, DaemonUnavailable, connect

    client = connect(paths.run_dir)
    if client is None:
        return Check(name="daemon", level="ok", detail="not running: asks are answered in their own process",
                     fix="assistant daemon start (warm models, the hotkey)")
    try:
        health = client.get("/v1/health")
        differs = client.post("/v1/settings", {"env": setting_env()}).get("differs") or []
    except (DaemonError, DaemonUnavailable) as e:
        return Check(name="daemon", level="warn", detail=f"running but not answering ({e})", fix="assistant daemon restart")
    running = f"running (pid {health['pid']}, {health['backend']}, {health['warm']}; hotkey {health['hotkey']})"
    if differs:
        return Check(name="daemon", level="warn", detail=f"{running}; this shell's settings differ ({', '.join(differs)}): "
                     "asks from here are answered in their own process",
                     fix="assistant daemon restart in this shell gives the daemon these settings")
    return Check(name="daemon", level="ok", detail=f"{running}; it answers with this shell's settings")


async def check_trust(settings: Settings) -> list[Check]:
    """Which trust the model that answers conversation gets, and why: its size and where that came from, and the
    setting that changes it (the same decision a turn makes, :func:`assistant.pipeline.answerer.decide`)."""
    from assistant.errors import AssistantError
    from assistant.models.select import SelectedBackend
    from assistant.pipeline.answerer import Trust, decide

    backend = SelectedBackend(settings)
    model = settings.model_for("responder")
    try:
        known = await backend.profile(model, ask=False)  # the model that answers (the built-in one, a GGUF's stem)
        built_in, shown = known.built_in, known.label
        described = known if built_in else await backend.profile(model)
        size, source = (None, "") if built_in else (described.parameters, described.size_said)
    except AssistantError:
        return []  # no model answers: the backend's own check says so
    finally:
        await backend.aclose()
    level, why = decide(settings.model_trust, built_in, size, failing=False)
    label = "held to small talk" if level is Trust.SMALL_TALK else \
        "untrusted" if level is Trust.STRICT else "trusted"
    sized = "" if built_in or size is None else f"; {size / 1e9:.2g}B parameters, {source}"
    from assistant.pipeline.language import PULL_CAPABLE

    change = f"a capable model: {PULL_CAPABLE}" if built_in else \
        f"model_trust = {settings.model_trust}; the setting model_trust changes it"
    return [Check(name="model trust", level="ok", detail=f"{shown}: {label} ({why}{sized}; {change})", fix="")]


async def run_checks(settings: Settings, paths: Paths) -> list[Check]:
    backends, tools, trusted = await asyncio.gather(backend_checks(settings), check_tools(settings, paths),
                                                    check_trust(settings))
    return [*backends, *trusted, *check_state(paths, settings.history_max_mb), *tools, check_sandbox(settings),
            check_hotkey(), check_notifications(paths), check_daemon(paths)]


def report(checks: list[Check], as_json: bool) -> tuple[str, int]:
    code = 1 if any(c.level == "fail" and c.blocking for c in checks) else 0
    if as_json:
        return json.dumps({"ok": code == 0, "checks": [c.model_dump() for c in checks]}, ensure_ascii=False, indent=2), code
    lines = []
    for c in checks:
        lines.append(f"{MARK[c.level]} {c.name}: {c.detail}")
        if c.fix and c.level != "ok":
            lines.append(f"    → {c.fix}")
    lines.append("ready to answer" if code == 0 else "not ready: fix the ✗ items above")
    return "\n".join(lines), code
