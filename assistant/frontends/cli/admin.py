"""Looking after the assistant: ``config``, ``completion``, ``models``, ``tools``, ``daemon``, ``popup``, ``doctor``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from assistant.errors import AssistantError, ConfigError
from assistant.frontends.cli.common import settings_for
from assistant.frontends.cli.parser import build_parser

def config(args: argparse.Namespace) -> int:
    """Read or mend the settings; none of it is stopped by a broken file (that is what it is for)."""
    from assistant.config import SECRETS
    from assistant.config_load import env_sources, load_settings_lenient
    from assistant.config_file import parse_setting, render_settings, toml_value, write_setting
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    if args.action in ("path", "show") and args.key:
        raise ConfigError(f"unexpected '{args.key}'.", f"Usage: assistant config {args.action}")
    if args.action == "path":
        print(paths.config_file)
        return 0
    if args.action == "show":
        settings, problems = load_settings_lenient(paths)
        print(f"# effective settings (file: {paths.config_file}, data: {paths.data_dir})")
        for problem in problems:
            print(f"# not used until fixed: {problem.message}")
        print(render_settings(settings, env_sources()))
        _say_problems(problems)
        return 0
    if not args.key or (args.action == "set") != (args.value is not None):
        raise ConfigError(f"'config {args.action}' needs " + ("a key and a value." if args.action == "set" else "a key."),
                          "Usage: assistant config set KEY VALUE | assistant config unset KEY")
    if args.action == "set":
        value = parse_setting(args.key, args.value)
        write_setting(paths, args.key, value)
        shown = "(set, not shown)" if args.key in SECRETS else toml_value(value)
        print(f"{args.key} = {shown} in {paths.config_file}")
    else:
        unset(paths, args.key)
    if args.key in env_sources():
        print(f"note: {env_sources()[args.key]} is set in this environment and wins over the file", file=sys.stderr)
    _say_problems(load_settings_lenient(paths)[1])
    return 0


def unset(paths, key: str) -> None:
    """``config unset KEY``: a setting, or a key the file holds that is none (a misspelt one is taken out this way)."""
    import tomllib

    from assistant.config import Settings
    from assistant.config_file import parse_setting, write_setting

    try:
        in_file = key in tomllib.loads(paths.config_file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        in_file = False
    if not in_file and key not in Settings.model_fields:
        parse_setting(key, "")  # no such setting: the same one line as `config set`, with the nearest name
    if not in_file:
        print(f"{key} is not set in {paths.config_file} (its default applies)")
        return
    write_setting(paths, key, None)
    print(f"{key} unset in {paths.config_file} (its default applies)")


def _say_problems(problems: list) -> None:
    for problem in problems:
        print(f"assistant: {problem.message} (not used until fixed: assistant config set KEY VALUE, or "
              "assistant config unset KEY)", file=sys.stderr)


def completion(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError
    from assistant.frontends.completion import SHELLS, values

    if args.values:  # what the scripts ask for at Tab: one candidate a line
        for value in values(args.values):
            print(value)
        return 0
    if not args.shell:
        raise ConfigError("completion needs a shell: bash, zsh or fish.", "For example: source <(assistant completion bash)")
    print(SHELLS[args.shell](build_parser()), end="")
    return 0


def _trust_of(m: dict, backend: str, settings: Any) -> str:
    """How far a listed model's conversation answers would be trusted (the decision a turn makes, with no failures
    remembered): trusted, untrusted, or small talk only."""
    import os

    from assistant.models.sizes import parameters, parameters_in_name
    from assistant.pipeline.answerer import Trust, decide

    built_in = bool(m.get("builtin"))
    if backend == "embedded" and m.get("file") and not built_in:
        from assistant.models.embedded import default_model_path

        default = default_model_path()
        built_in = default is not None and os.path.realpath(m["file"]) == os.path.realpath(default)
    size = parameters(m.get("parameters")) or parameters_in_name(str(m.get("name") or ""))
    level, _ = decide(settings.model_trust, built_in, size, failing=False)
    return {Trust.SMALL_TALK: "small talk only", Trust.STRICT: "untrusted"}.get(level, "trusted")


def models(args: argparse.Namespace) -> int:
    from assistant.config import ROLES
    from assistant.config_file import set_default_model
    from assistant.errors import ConfigError

    if args.action in ("pull", "rm"):
        from assistant.frontends.cli import pull

        return pull.pull(args) if args.action == "pull" else pull.rm(args)
    if args.action == "default":  # a write that mends: a broken setting elsewhere in the file does not stop it
        from assistant.config_file import parse_setting
        from assistant.paths import resolve_paths

        if not args.name:
            raise ConfigError("'models default' needs a model name.", "Usage: assistant models default NAME")
        paths = resolve_paths()
        set_default_model(paths, parse_setting("model", args.name))
        print(f"model = {json.dumps(args.name)} in {paths.config_file}")
        return 0
    paths, settings = settings_for()
    if args.name:
        raise ConfigError(f"unexpected '{args.name}'.", "Usage: assistant models [--json] | assistant models default NAME")
    from assistant.models.select import list_models

    from assistant.errors import ServerUnreachable
    from assistant.models.embedded import available

    try:
        backend, found = asyncio.run(list_models(settings))
    except ServerUnreachable:
        if settings.backend != "auto" or available():
            raise
        # a new machine with neither: nothing answers until one of them is there
        print(f"nothing answers here yet: Ollama is not reachable at {settings.ollama_host}, and the embedded "
              "engine is not installed (pip install 'assistant[embedded]' runs the built-in model with no server)")
        return 0
    in_use = {m: [r for r in ROLES if settings.model_for(r) == m] for m in {settings.model_for(r) for r in ROLES}}
    if backend == "embedded":  # one model answers every role: the one chosen_model loads, else the built-in
        from pathlib import Path

        from assistant.models import model_file
        from assistant.models.embedded import chosen_model, default_model_path

        path, label = chosen_model(settings)
        in_use = {label or Path(path or default_model_path() or model_file.GGUF).stem: list(ROLES)}
    trusts = {m["name"]: _trust_of(m, backend, settings) for m in found}
    if args.json:
        for m in found:
            print(json.dumps({**m, "backend": backend, "roles": in_use.get(m["name"], []), "trust": trusts[m["name"]]},
                             ensure_ascii=False))
        return 0
    if not found:
        print(f"{backend}: no models" + (" (ollama pull NAME)" if backend == "ollama" else ""))
        return 0
    _print_models(found, backend, settings, in_use, trusts)
    return 0


def _print_models(found: list[dict], backend: str, settings: Any, in_use: dict[str, Any],
                  trusts: dict[str, str]) -> None:
    """The table of ``assistant models``: each model, its size and capabilities, the roles it answers and its trust;
    the models pulled for the embedded engine; a configured model the backend lacks (on stderr)."""
    from assistant.config import ROLES
    from assistant.frontends.columns import pad, width as columns

    width = max(columns(m["name"] or "") for m in found) + 2
    print(f"the {backend} backend's models" + (f" (backend = auto; Ollama is not reachable at {settings.ollama_host})"
                                               if settings.backend == "auto" and backend != "ollama" else "") + ":")
    print(f"  {'model':<{width}}{'size':>9}  {'params':<8}capabilities")
    for m in found:
        size = f"{m['size'] / 1e9:.1f} GB" if m.get("size") else "-"
        roles = in_use.get(m["name"], [])
        used = f"  ← {'every role' if len(roles) == len(ROLES) else ', '.join(roles)}" if roles else ""
        print(f"{'*' if roles else ' '} {pad(m['name'], width)}{size:>9}  {m.get('parameters') or '-':<8}"
              f"{', '.join(m['capabilities']) or '-'}{used}  [{trusts[m['name']]}]")
        if m.get("downloaded") is False:
            from assistant.models import model_file

            print(f"    the built-in model: fetched on its first question into {model_file.models_dir()}")
    if all(trusts[m["name"]] == "small talk only" for m in found):
        from assistant.capable import CAPABLE_SIZE, PULL_CAPABLE

        print(f"  a capable model, for facts, code and advice: {PULL_CAPABLE} ({CAPABLE_SIZE})")
    if backend != "embedded":
        from assistant.models.registry import pulled_models

        pulled = pulled_models()
        if pulled:
            print("pulled for the embedded engine (used when Ollama is not):")
            for p in pulled:
                print(f"  {pad(p.name, width)}{p.size / 1e9:>6.1f} GB  {p.license[:40]}")
    missing = [n for n in in_use if n not in {m["name"] for m in found}] if backend != "embedded" else []
    for name in missing:
        print(f"! {name} is configured ({', '.join(in_use[name])}) but the {backend} backend does not have it",
              file=sys.stderr)


def _arguments(schema: dict) -> str:
    """A tool's arguments as a person reads them: ``place (text), when (text, optional)``."""
    kinds = {"string": "text", "number": "number", "integer": "whole number", "boolean": "yes/no", "array": "list",
             "object": "object"}
    required = set(schema.get("required") or [])
    out = []
    for name, prop in (schema.get("properties") or {}).items():
        options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
        enums = [str(v) for p in options for v in p.get("enum", [])]
        kind = ("one of " + ", ".join(enums) if enums else
                " or ".join(kinds.get(p.get("type"), str(p.get("type"))) for p in options if p.get("type")) or "any")
        out.append(f"{name} ({kind}{'' if name in required else ', optional'})")
    return ", ".join(out) or "none"


def say(*parts: object, **kwargs: Any) -> None:
    """``print`` for what a plugin's package or an MCP server supplied (names, versions, descriptions, the folders it
    asks for, why it was skipped): its terminal controls taken out."""
    from assistant.control import without_controls

    print(*(without_controls(str(p)) for p in parts), **kwargs)


def tools(args: argparse.Namespace) -> int:
    from assistant.app import build_registry
    from assistant.control import without_controls
    from tools.jail import report
    from tools.plugins import PluginTool

    paths, settings = settings_for()
    if args.action != "list":
        return _grant(args, paths, settings)
    if args.name:
        raise ConfigError(f"unexpected '{args.name}'.", "Usage: assistant tools [--json] | assistant tools grant|revoke NAME")
    registry = build_registry(settings, paths)
    jail = report()
    rows = []
    for tool in registry:
        perms = tool.permissions
        confined = tool.source == "built-in" or jail.confined
        row = {"name": tool.name, "description": without_controls(tool.description),  # an MCP server's words
               "source": tool.source, "network": perms.network, "ports": perms.ports, "folders": perms.files,
               "confined": confined, "runs": confined or settings.allow_unconfined_tools,
               "arguments": tool.args_schema()}
        if isinstance(tool, PluginTool):  # what it asks for, and what is not granted
            decision = tool.decision
            row.update(plugin=tool.entry.name, version=tool.entry.version, asks=tool.requested.items(),
                       pending=decision.pending, refused=[f"{item}: {why}" for item, why in decision.refused])
        rows.append(row)
    if args.json:
        say(json.dumps({"tools": rows, "kernel": jail.lines(), "skipped": registry.skipped}, ensure_ascii=False))
        return 0
    for row in rows:
        say(f"{row['name']}: {row['description']}")
        say(f"  source: {row['source']}" + (f" {row['version']}" if row.get("version") else ""))
        say(f"  arguments: {_arguments(row['arguments'])}")
        say(f"  network: {', '.join(row['network']) or 'none'}" + (f" (ports {', '.join(map(str, row['ports']))})"
                                                                   if row["ports"] else ""))
        say(f"  folders it may write: {', '.join(row['folders']) or 'none'}")
        if row.get("pending"):
            say(f"  asks for, not granted: {', '.join(row['pending'])} (assistant tools grant {row['plugin']})")
        for line in row.get("refused") or []:
            say(f"  asks for, never grantable: {line}")
        if not row["confined"]:
            say(f"  confined: {'no, you allowed unconfined tools' if row['runs'] else 'NO: it will not run (allow_unconfined_tools)'}")
    say("what the kernel enforces here:")
    for line in jail.lines():
        say(f"  {line}")
    for line in registry.skipped:
        say(line, file=sys.stderr)
    return 0


def _grant(args: argparse.Namespace, paths, settings) -> int:
    """``tools grant NAME``: show what the plugin asks for and grant it (what may be granted); ``tools revoke NAME``."""
    from assistant.app import build_registry
    from tools.jail import Grants
    from tools.plugins import PluginTool

    grants = Grants(paths.config_dir, paths.own)
    if not args.name:
        raise ConfigError(f"'tools {args.action}' needs a plugin's name.",
                          f"Usage: assistant tools {args.action} NAME (the names: assistant tools)")
    if args.action == "revoke":
        if grants.revoke(args.name):
            say(f"revoked everything granted to {args.name}: it has no folders and no network now")
        else:
            say(f"{args.name} had nothing granted")
        return 0
    plugin = next((t for t in build_registry(settings, paths)
                   if isinstance(t, PluginTool) and args.name in (t.entry.name, t.name)), None)
    if plugin is None:
        raise AssistantError(f"no plugin named {args.name!r} is installed (the plugins: assistant tools)")
    entry, decision = plugin.entry, plugin.decision
    for item, why in decision.refused:
        say(f"never granted: {item}: {why}")
    if not decision.pending:
        say(f"{entry.name} ({entry.package} {entry.version}) has everything it may be granted"
              + (": it asks for nothing" if not plugin.requested.items() else ""))
        return 0
    say(f"{entry.name} ({entry.package} {entry.version}) asks for:" + (" (an update asks for more)"
                                                                          if decision.version_changed else ""))
    for item in decision.pending:
        say(f"  {item}")
    if not args.yes:
        if not sys.stdin.isatty():
            raise AssistantError("not granted: confirm with --yes (no terminal to ask on)")
        try:
            answer = input("grant these? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            say("nothing granted")
            return 1
    grants.grant(entry.name, entry.package, entry.version, decision.pending)
    say(f"granted to {entry.name}; revoke with: assistant tools revoke {entry.name}")
    return 0


def daemon(args: argparse.Namespace) -> int:
    from assistant.frontends import daemon
    from assistant.paths import resolve_paths

    paths = resolve_paths()  # status, stop and uninstall read no settings: a broken file never keeps them from working
    if args.action == "run":
        _, settings = settings_for()
        daemon.setup_logging(paths)
        asyncio.run(daemon.serve(settings, paths))
        return 0
    if args.action == "start":
        settings_for()  # a broken setting is said here, not found later in the daemon's log
        print(daemon.start(paths))
    elif args.action == "stop":
        print(daemon.stop(paths))
    elif args.action == "restart":
        print(daemon.stop(paths))
        settings_for()
        print(daemon.start(paths))
    elif args.action == "install":
        print(daemon.install(paths))
    elif args.action == "uninstall":
        print(daemon.uninstall(paths))
    else:
        from assistant.frontends.client import connect

        client = connect(paths.run_dir)
        if client is None:
            print("the daemon is not running (start it with: assistant daemon start)")
            return 1
        h = client.get("/v1/health")
        print(f"running: pid {h['pid']}, up {h['uptime_s']:.0f} s, {h['transport']} transport, backend {h['backend']}, {h['warm']}")
        print(f"hotkey: {h['hotkey']}")
        for note in h.get("notes") or []:
            print(f"note: {note}")
    return 0


def popup(args: argparse.Namespace) -> int:
    from assistant.frontends.client import DaemonError, connect
    from assistant.errors import AssistantError
    from assistant.paths import resolve_paths

    client = connect(resolve_paths().run_dir)
    if client is None:
        raise AssistantError("the daemon is not running.", "Start it with: assistant daemon start")
    try:
        print(client.post("/v1/popup", {})["popup"])
    except DaemonError as e:
        raise AssistantError(f"the daemon could not open the popup: {e}.") from None
    return 0


def doctor(args: argparse.Namespace) -> int:
    from assistant.frontends.doctor import report, run_checks
    from assistant.health import Check
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    try:
        _, settings = settings_for()
        config: list[Check] = []
    except AssistantError as e:  # a broken config is a finding: the rest is checked with the defaults
        from assistant.config_load import load_settings

        try:  # the environment's settings, without the file; or, when those are what is broken, the defaults
            settings = load_settings(paths, ignore_file=True)
        except AssistantError:
            settings = load_settings(paths, env={}, ignore_file=True)
        config = [Check(name="settings", level="fail", blocking=True, detail=e.message,
                        fix=(e.hint + " Until then the checks below use the defaults.").strip())]
    text, code = report(config + asyncio.run(run_checks(settings, paths)), args.json)
    print(text)
    return code


def ps(args: argparse.Namespace) -> int:
    """``assistant ps``: the models loaded now, on each Ollama host (its /api/ps, as ``ollama ps`` shows it), and
    what a running daemon's embedded engine holds."""
    from datetime import datetime, timezone

    from assistant.frontends.client import connect
    from assistant.frontends.columns import fit

    paths, settings = settings_for({})
    rows: list[str] = []
    daemon = connect(paths.run_dir)
    if daemon is not None:
        try:
            health = daemon.get("/v1/health", timeout=3)
            rows.append(f"daemon (pid {health.get('pid', '?')}): answers with {health.get('answering') or 'its model'}, "
                        f"{health.get('warm') or 'not warmed'}")
        except Exception as e:  # noqa: BLE001 - a daemon going away: said, the servers still listed
            rows.append(f"daemon: not answering ({e})")
    if settings.backend in ("auto", "ollama"):
        import ollama

        async def loaded(host: str) -> list[str]:
            try:
                listed = await ollama.AsyncClient(host=host, timeout=5).ps()
            except Exception as e:  # noqa: BLE001 - one line per host that cannot say
                return [f"{host}: not reachable ({type(e).__name__})"]
            if not listed.models:
                return [f"{host}: no model loaded"]
            now = datetime.now(timezone.utc)
            out = []
            for m in listed.models:
                size = (m.size or 0) / 1e9
                gpu = f"{(m.size_vram or 0) / m.size:.0%} GPU" if m.size else "?"
                until = f"unloads in {max(0, int((m.expires_at - now).total_seconds() // 60))} min" if m.expires_at else ""
                out.append(f"{host}: {m.name}  {size:.1f} GB  {gpu}  {until}".rstrip())
            return out
        hosts = settings.hosts or [settings.ollama_host]
        for listed_rows in asyncio.run(_gather([loaded(h) for h in hosts])):
            rows += listed_rows
    if settings.backend == "embedded" and daemon is None:
        rows.append("embedded engine: loaded by the process that answers; no daemon holds it now "
                    "(assistant daemon start keeps it loaded)")
    for row in rows:
        print(fit(row, None))
    return 0


async def _gather(tasks: list[Any]) -> list[Any]:
    return list(await asyncio.gather(*tasks))
