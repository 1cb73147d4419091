"""The ``assistant`` command. Heavy imports (the model client) happen inside commands, so that
``assistant --version`` and ``--help`` stay instant."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import traceback
from typing import Any, Sequence

from assistant import __version__
from assistant.envnames import ENV_PREFIX, OPTIONS
from assistant.errors import EXIT_CODES_HELP, AssistantError
from assistant.frontends.progress import status_wanted, terminal



def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="assistant",
        description="A local-first assistant on models served by Ollama: it routes each question to chat or a tool, "
                    "checks the tool's result, and streams a grounded answer.",
        epilog="State lives under the platform's config/data dirs, or under $ASSISTANT_HOME when set.",
    )
    p.add_argument("--version", action="version", version=f"assistant {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    ask = sub.add_parser(
        "ask", help="answer one question",
        description="Answer one question and stream the answer to stdout. Progress goes to stderr when it is a terminal.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ask.add_argument("question", nargs="*", help="the question; text piped in comes first (as with llm and ollama run), "
                                                 "and '-' alone reads the whole question from stdin")
    ask.add_argument("-f", "--file", action="append", default=[], metavar="FILE",
                     help="a text file to put before the question (repeatable)")
    ask.add_argument("--json", action="store_true", help="print one JSON object instead of streaming text")
    ask.add_argument("--plain", action="store_true", help="on a terminal, show the answer's Markdown as it is "
                                                          "(on a pipe it always is)")
    ask.add_argument("-m", "--model", help="use this model for every role")
    ask.add_argument("-c", "--continue", dest="resume_last", action="store_true",
                     help="continue the last conversation (its earlier turns are the context)")
    ask.add_argument("--session", metavar="ID", help="continue this session (an id prefix; see: assistant sessions list)")
    ask.add_argument("--no-log", action="store_true", help="store nothing of this question")
    ask.add_argument("-s", "--system", metavar="TEXT", help="your own instructions for this answer (a system prompt)")
    ask.add_argument("-o", "--option", nargs=2, action="append", default=[], metavar=("KEY", "VALUE"),
                     help="a model option for this question: " + ", ".join(OPTIONS) + " (repeatable)")
    ask.add_argument("--max-retries", type=int, metavar="N", help="executor retries after a failed check (default 3)")
    ask.add_argument("--debug", action="store_true", help="show tracebacks")
    ask.add_argument("--no-daemon", action="store_true", help="answer in this process even when the daemon runs")

    cfg = sub.add_parser("config", help="where the settings file is, and the effective settings",
                         description="Settings come from config.toml, then ASSISTANT_* environment variables "
                                     "(and OLLAMA_HOST), then command-line flags.")
    cfg.add_argument("action", choices=["path", "show"], help="path: print the config file's path; show: print the effective settings")

    batch = sub.add_parser(
        "batch", help="answer many questions from a file or stdin, as JSONL",
        description="Answer every question of INPUT and write one JSON object per question: id, question, ok, "
                    "answer, route, attempts, model_calls, latency_ms, turn_id, error (JSONL input fields are "
                    "copied through). INPUT is a text file (one question per line; blank lines and # comments "
                    "skipped), a JSONL file ({\"id\": ..., \"question\": ...} per line), or '-' for stdin. "
                    "A batch is resumable: it is a job keyed by its input's content and the settings that change "
                    "answers (the models, the backend, the tools), and running the same "
                    "command again after an interruption answers only what is missing; the output then holds "
                    "every question exactly once.",
        epilog="--concurrency sends N questions at once. Ollama answers up to OLLAMA_NUM_PARALLEL requests per "
               "model in parallel and queues the rest, so N above that only queues inside Ollama; set both "
               "together (memory permitting).\n\n"
               "exit codes:\n  0  every question answered and checked\n"
               "  1  some questions failed or were left unanswered by server errors (rerun to retry those)\n"
               "  2  bad usage or input\n  3  Ollama not reachable: the batch stopped, progress saved\n"
               "  4  model not installed: the batch stopped, progress saved",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    batch.add_argument("input", nargs="?", help="questions: a .txt or .jsonl file, or '-' for stdin")
    batch.add_argument("-o", "--output", help="write JSONL here instead of stdout")
    batch.add_argument("--concurrency", "-j", type=int, default=4, metavar="N", help="questions in flight at once (default 4)")
    batch.add_argument("--ordered", action="store_true", help="write records in input order (default: as they finish)")
    batch.add_argument("--status", action="store_true", help="list batch jobs, their progress and the settings that key them")
    batch.add_argument("--fresh", action="store_true", help="forget what earlier runs of this job answered and start over")
    batch.add_argument("--model", help="use this Ollama model for every role")
    batch.add_argument("--max-retries", type=int, metavar="N", help="executor retries after a failed check")
    batch.add_argument("--debug", action="store_true", help="show tracebacks")

    models = sub.add_parser("models", help="the models of the configured backend, or set the default one",
                            description="List the models the backend that answers has (Ollama: with size and "
                                        "capabilities such as tools and thinking), marking the ones in use; "
                                        "'models default NAME' writes model = NAME into config.toml.")
    models.add_argument("action", nargs="?", choices=["list", "default"], default="list")
    models.add_argument("name", nargs="?", help="with 'default': the model every role uses unless it names its own")
    models.add_argument("--json", action="store_true", help="one JSON object per model")

    sub.add_parser("tools", help="list the tools with their source (built-in, plugin, MCP server), argument schema and permissions")

    chat = sub.add_parser("chat", help="interactive chat with sessions, follow-ups and traces",
                          description="An interactive chat. Answers stream; follow-ups use the session's context; "
                                      "type /help inside for the commands.")
    chat.add_argument("message", nargs="*", help="a first message to send (the -f files come before it)")
    chat.add_argument("-f", "--file", action="append", default=[], metavar="FILE",
                      help="a text file to put before the first message (repeatable)")
    chat.add_argument("-c", "--continue", dest="resume_last", action="store_true", help="resume the most recent chat")
    chat.add_argument("--session", metavar="ID", help="resume this session (an id prefix)")
    chat.add_argument("--model", help="use this model for every role")
    chat.add_argument("--plain", action="store_true", help="show answers' Markdown as it is, not as formatting")
    chat.add_argument("--debug", action="store_true", help="show tracebacks")
    chat.add_argument("--no-daemon", action="store_true", help="answer in this process even when the daemon runs")

    daemon = sub.add_parser(
        "daemon", help="the background daemon: warm models, a local API, the global hotkey",
        description="start: run it in the background; stop; restart; status: is it running, and is the hotkey active "
                    "(and why not); run: stay in the foreground (for service managers); install: write a systemd user "
                    "unit (Linux) or a launchd agent (macOS) that carries OLLAMA_HOST and your ASSISTANT_* variables. "
                    "The daemon rereads config.toml when it changes (or on SIGHUP); a question asked with other "
                    "settings than the daemon's (another OLLAMA_HOST, say) is answered in the asking process.",
    )
    daemon.add_argument("action", choices=["start", "stop", "restart", "status", "run", "install"])
    sub.add_parser("popup", help="open the popup through the running daemon (bind this to a desktop shortcut)")

    doctor = sub.add_parser("doctor", help="check Ollama, the models, the embedded backend, state, weather and hotkey",
                            description="Check what the assistant needs and print each finding with what to do. "
                                        "Exits 1 only on problems that stop it from answering.")
    doctor.add_argument("--json", action="store_true", help="print the findings as JSON")

    sessions = sub.add_parser("sessions", help="list, show, delete or export sessions",
                              description="Sessions are chats (and the popup's), the one rolling session of one-shot "
                                          "`ask` questions, and one per batch job.")
    sessions.add_argument("action", choices=["list", "show", "delete", "export"])
    sessions.add_argument("id", nargs="?", help="a session id (or a unique prefix, or 'last')")
    sessions.add_argument("--format", choices=["jsonl", "markdown"], help="export: jsonl or markdown (default)")
    sessions.add_argument("-n", "--limit", type=int, metavar="N", help="list: the N most recent (default 20; 0: all)")
    sessions.add_argument("--kind", choices=["chat", "ask", "batch"], help="list: only chats, the ask session, or batch jobs")
    sessions.add_argument("--json", action="store_true", help="list: one JSON object per session")

    logs = sub.add_parser("logs", help="every stored turn, newest last: search them, or switch logging of asks off",
                          description="Print stored turns (questions, answers, models), the most recent last. "
                                      "`assistant logs off` stops storing one-shot `ask` questions (chats keep their "
                                      "turns: they are the chat's context); `assistant logs on` starts again.")
    logs.add_argument("switch", nargs="?", choices=["on", "off", "status", "prune"],
                      help="switch the logging of asks, or show it; prune: delete turns older than --older-than")
    logs.add_argument("--older-than", metavar="AGE", help="with prune: 30d, 12h, 2w (a number alone is days)")
    logs.add_argument("-n", "--count", type=int, default=3, metavar="N", help="how many turns (default 3; 0: all)")
    logs.add_argument("-q", "--query", metavar="TEXT", help="only turns whose question or answer contains TEXT")
    logs.add_argument("-m", "--model", help="only turns that MODEL answered a call of")
    logs.add_argument("--json", action="store_true", help="one JSON object per turn")

    trace = sub.add_parser("trace", help="show one turn as a tree: route, model calls, tool calls, verdicts, retries")
    trace.add_argument("turn", nargs="?", default="last", help="a turn id (or prefix), 'last' (default) or 'last-N'")
    trace.add_argument("--json", action="store_true", help="print the whole turn as JSON")
    completion = sub.add_parser("completion", help="a shell completion script: bash, zsh or fish",
                                description="Print a completion script for your shell. bash: add "
                                            "'source <(assistant completion bash)' to ~/.bashrc; zsh: "
                                            "'source <(assistant completion zsh)' to ~/.zshrc; fish: "
                                            "'assistant completion fish > ~/.config/fish/completions/assistant.fish'.")
    completion.add_argument("shell", choices=["bash", "zsh", "fish"])
    p.set_defaults(_commands=sub.choices)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # a mistake in a command's arguments gets that command's usage, not the top-level one
        (args._commands.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        _parser().print_help()
        return 2
    debug = getattr(args, "debug", False)
    if os.name == "posix":
        os.umask(0o077)  # the database, logs and caches it creates are the user's alone: 0600 files, 0700 folders
    commands = {"ask": _ask, "config": _config, "models": _models, "completion": _completion, "tools": _tools, "batch": _batch, "chat": _chat, "logs": _logs,
                "sessions": _sessions, "trace": _trace, "doctor": _doctor, "daemon": _daemon, "popup": _popup}
    try:
        return commands[args.command](args)
    except AssistantError as e:
        if debug:
            traceback.print_exc()
        if getattr(args, "json", False) and args.command == "ask":
            _print_ask_json({"ok": False, "answer": "", "error": e.one_line(), "exit_code": e.exit_code}, [])
        elif getattr(args, "json", False):
            print(json.dumps({"ok": False, "error": e.one_line(), "exit_code": e.exit_code}, ensure_ascii=False))
        print(f"assistant: {e.one_line()}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("\nassistant: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`assistant ... | head`): stop quietly, like other tools
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception as e:  # a bug: say so in one line unless asked for the details
        if debug:
            traceback.print_exc()
        else:
            print(f"assistant: internal error: {type(e).__name__}: {e} (run with --debug for details)", file=sys.stderr)
        return 1


def _settings(overrides: dict[str, Any] | None = None):
    from assistant.config import load_settings
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    return paths, load_settings(paths, overrides)


def _config(args: argparse.Namespace) -> int:
    from assistant.config import env_sources, render_settings

    paths, settings = _settings()
    if args.action == "path":
        print(paths.config_file)
    else:
        print(f"# effective settings (file: {paths.config_file}, data: {paths.data_dir})")
        print(render_settings(settings, env_sources()))
    return 0


def _completion(args: argparse.Namespace) -> int:
    from assistant.frontends.completion import SHELLS

    print(SHELLS[args.shell](_parser()), end="")
    return 0


def _models(args: argparse.Namespace) -> int:
    from assistant.config import ROLES, set_default_model
    from assistant.errors import ConfigError

    paths, settings = _settings()
    if args.action == "default":
        if not args.name:
            raise ConfigError("'models default' needs a model name.", "Usage: assistant models default NAME")
        set_default_model(paths, args.name)
        print(f"model = {json.dumps(args.name)} in {paths.config_file}")
        return 0
    if args.name:
        raise ConfigError(f"unexpected '{args.name}'.", "Usage: assistant models [--json] | assistant models default NAME")
    from assistant.models.select import list_models

    backend, found = asyncio.run(list_models(settings))
    in_use = {m: [r for r in ROLES if settings.model_for(r) == m] for m in {settings.model_for(r) for r in ROLES}}
    if args.json:
        for m in found:
            print(json.dumps({**m, "backend": backend, "roles": in_use.get(m["name"], [])}, ensure_ascii=False))
        return 0
    if not found:
        print(f"{backend}: no models" + (" (ollama pull NAME)" if backend == "ollama" else ""))
        return 0
    from assistant.frontends.progress import pad, width as columns

    width = max(columns(m["name"] or "") for m in found) + 2
    print(f"the {backend} backend's models" + (" (backend = auto; Ollama is not reachable)"
                                               if settings.backend == "auto" and backend != "ollama" else "") + ":")
    print(f"  {'model':<{width}}{'size':>9}  {'params':<8}capabilities")
    for m in found:
        size = f"{m['size'] / 1e9:.1f} GB" if m.get("size") else "-"
        roles = in_use.get(m["name"], [])
        used = f"  ← {'every role' if len(roles) == len(ROLES) else ', '.join(roles)}" if roles else ""
        print(f"{'*' if roles else ' '} {pad(m['name'], width)}{size:>9}  {m.get('parameters') or '-':<8}"
              f"{', '.join(m['capabilities']) or '-'}{used}")
    missing = [n for n in in_use if n not in {m["name"] for m in found}] if backend != "embedded" else []
    for name in missing:
        print(f"! {name} is configured ({', '.join(in_use[name])}) but the {backend} backend does not have it",
              file=sys.stderr)
    return 0


def _tools(args: argparse.Namespace) -> int:
    from assistant.app import build_registry

    from assistant.pipeline.control import without_controls
    from tools.jail_report import report

    paths, settings = _settings()
    registry = build_registry(settings, paths)
    jail = report()
    for tool in registry:
        perms = tool.permissions
        print(without_controls(f"{tool.name}: {tool.description}"))  # an MCP server writes its own descriptions
        print(f"  source: {tool.source}")
        print(f"  network: {', '.join(perms.network) or 'none'}" + (f" (ports {', '.join(map(str, perms.ports))})"
                                                                   if perms.ports else ""))
        print(f"  folders it may write: {', '.join(perms.files) or 'none'}")
        if tool.source != "built-in" and not jail.confined:
            print(f"  confined: {'yes, you allowed unconfined tools' if settings.allow_unconfined_tools else 'NO: it will not run (allow_unconfined_tools)'}")
        print(f"  arguments: {json.dumps(tool.args_schema(), ensure_ascii=False)}")
    print("what the kernel enforces here:")
    for line in jail.lines():
        print(f"  {line}")
    for line in registry.skipped:
        print(line, file=sys.stderr)
    return 0


def _store():
    from assistant.store import Store

    paths, _ = _settings()
    paths.ensure()
    return Store(paths.database)


def _daemon(args: argparse.Namespace) -> int:
    from assistant.frontends import daemon

    paths, settings = _settings()
    if args.action == "run":
        daemon.setup_logging(paths)
        asyncio.run(daemon.serve(settings, paths))
        return 0
    if args.action == "start":
        print(daemon.start(paths))
    elif args.action == "stop":
        print(daemon.stop(paths))
    elif args.action == "restart":
        print(daemon.restart(paths))
    elif args.action == "install":
        print(daemon.install(paths))
    else:
        from assistant.frontends.client import connect

        client = connect(paths.run_dir)
        if client is None:
            print("the daemon is not running (start it with: assistant daemon start)")
            return 1
        h = client.get("/v1/health")
        print(f"running: pid {h['pid']}, up {h['uptime_s']:.0f} s, {h['transport']} transport, backend {h['backend']}, {h['warm']}")
        print(f"hotkey: {h['hotkey']}")
    return 0


def _popup(args: argparse.Namespace) -> int:
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


def _doctor(args: argparse.Namespace) -> int:
    from assistant.frontends.doctor import report, run_checks
    from assistant.health import Check
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    try:
        _, settings = _settings()
        config: list[Check] = []
    except AssistantError as e:  # a broken config is a finding: the rest is checked with the defaults
        from assistant.config import load_settings

        try:  # the environment's settings, without the file; or, when those are what is broken, the defaults
            settings = load_settings(paths, ignore_file=True)
        except AssistantError:
            settings = load_settings(paths, env={}, ignore_file=True)
        config = [Check(name="settings", level="fail", blocking=True, detail=e.message,
                        fix=(e.hint + " Until then the checks below use the defaults.").strip())]
    text, code = report(config + asyncio.run(run_checks(settings, paths)), args.json)
    print(text)
    return code


LOGS_OFF = "logs-off"  # a file in the data dir: one-shot asks are not stored


def _prune(older_than: str | None) -> int:
    """``assistant logs prune --older-than AGE``: delete old turns, their calls and events, and empty sessions."""
    import re
    from datetime import datetime, timedelta, timezone

    from assistant.errors import ConfigError

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([hdw]?)\s*", older_than or "")
    if m is None:
        raise ConfigError("logs prune needs --older-than AGE.", "For example: assistant logs prune --older-than 30d "
                          "(h: hours, d: days, w: weeks; a number alone is days).")
    hours = float(m.group(1)) * {"h": 1, "d": 24, "w": 168, "": 24}[m.group(2)]
    before = (datetime.now(timezone.utc) - timedelta(hours=hours)).isoformat(timespec="milliseconds")
    turns, sessions, vacuumed = _store().prune(before)
    print(f"deleted {turns} turn{'s' if turns != 1 else ''} older than {older_than.strip()} and {sessions} empty "
          f"session{'s' if sessions != 1 else ''}" + ("; the database was compacted" if vacuumed else ""))
    return 0


def _logs_off(paths) -> bool:
    return (paths.data_dir / LOGS_OFF).exists()


def _logs(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError
    from assistant.paths import resolve_paths

    flag = resolve_paths().data_dir / LOGS_OFF
    if args.switch in ("on", "off"):
        flag.parent.mkdir(parents=True, exist_ok=True)
        flag.touch() if args.switch == "off" else flag.unlink(missing_ok=True)
        print("asks are logged" if args.switch == "on" else "asks are not logged (assistant logs on to start again)")
        return 0
    if args.switch == "status":
        print("asks are not logged" if flag.exists() else "asks are logged")
        return 0
    if args.switch == "prune":
        return _prune(args.older_than)
    if args.count < 0:
        raise ConfigError("-n must be 0 (all) or more.")
    store = _store()
    rows = store.logs(args.count, args.query, args.model)
    if args.json:
        for r in rows:
            print(json.dumps(r, ensure_ascii=False))
    else:
        from assistant.frontends.trace_view import logs_text

        print(logs_text(rows) if rows else "no turns" + (" match" if args.query or args.model else " yet"))
    return 0


def _trace(args: argparse.Namespace) -> int:
    from assistant.frontends import trace_view
    from assistant.errors import ConfigError

    store = _store()
    turn_id = store.find_turn(args.turn)
    if turn_id is None:
        raise ConfigError(f"no turn matches '{args.turn}'.", "Give a turn id (see --json output or /trace), or 'last'.")
    turn = store.turn(turn_id)
    print(trace_view.as_json(turn) if args.json else trace_view.render(turn))
    return 0


def _sessions(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError
    from assistant.frontends.repl import sessions_table

    if args.action != "export" and args.format:
        raise ConfigError(f"--format is for 'sessions export', not '{args.action}'.", "For a listing as JSON: --json.")
    if args.action != "list" and (args.limit is not None or args.kind or args.json):
        raise ConfigError(f"-n, --kind and --json are for 'sessions list', not '{args.action}'.")
    store = _store()
    if args.action == "list":
        if args.limit is not None and args.limit < 0:
            raise ConfigError("-n must be 0 (all) or more.")
        rows = store.sessions(None if args.limit == 0 else args.limit or 20, args.kind)
        if args.json:
            for r in rows:
                print(r.model_dump_json())
        else:
            print(sessions_table(rows))
        return 0
    if not args.id:
        raise ConfigError(f"'sessions {args.action}' needs a session id.", "See: assistant sessions list")
    sid = store.find_session(args.id)
    if sid is None:
        raise ConfigError(f"no session matches '{args.id}'.", "See: assistant sessions list")
    if args.action == "delete":
        store.delete_session(sid)
        print(f"deleted session {sid}")
        return 0
    turns = store.session_turns(sid)
    if args.action == "export" and args.format == "jsonl":
        for t in turns:
            print(json.dumps({"session_id": sid, **t.model_dump()}, ensure_ascii=False))
        return 0
    print(f"# Session {sid}\n")
    for t in turns:
        print(f"**You** ({t.started_at[:19].replace('T', ' ')}):\n\n{t.question}\n")
        if t.answer is not None:
            route = f", {t.route}" if t.route else ""
            print(f"**Assistant**{route}:\n\n{t.answer}\n")
        elif t.error:
            print(f"*(no answer: {t.error})*\n")
    return 0


def _chat(args: argparse.Namespace) -> int:
    paths, settings = _settings(_overrides(args))
    # the first message: files, then the words (standard input stays the chat's own: one message a line)
    first = _read_question(args.message, args.file, stdin=False) if args.message or args.file else None
    return asyncio.run(_run_chat(paths, settings, args, first))


async def _run_chat(paths, settings, args: argparse.Namespace, first: str | None = None) -> int:
    from assistant.answering import Answering
    from assistant.app import build_assistant
    from assistant.frontends.client import connect
    from assistant.errors import ConfigError
    from assistant.frontends.remote import RemoteAssistant
    from assistant.frontends.repl import Repl
    from assistant.store import Store

    client = None if args.no_daemon else connect(paths.run_dir)
    if client is not None:  # the daemon answers with warm models; the store is shared
        paths.ensure()
        app: Answering = RemoteAssistant(client, settings, Store(paths.database))
    else:
        app = build_assistant(settings, paths, notify=_notice)
    try:
        ref = args.session or ("last" if args.resume_last else None)
        session = app.store.find_session(ref, frontend="chat" if ref == "last" else None) if ref else \
            app.store.create_session()
        if session is None:
            if args.session:
                raise ConfigError(f"no session matches '{args.session}'.", "See: assistant sessions list")
            session = app.store.create_session()
        warming = asyncio.create_task(app.warm())  # tool workers start while you type
        repl = Repl(app, session, paths.data_dir / "chat_history.txt",
                    progress_enabled=status_wanted(), render=not args.plain,
                    via="the daemon" if client is not None else None)
        code = await repl.run(first)
        await warming
        return code
    finally:
        await app.aclose()


def _notice(text: str) -> None:
    sys.stderr.write(f"\r\033[Kassistant: {text}\n" if terminal(sys.stderr) else f"assistant: {text}\n")
    sys.stderr.flush()


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    from assistant.config import ROLES

    overrides: dict[str, Any] = {"max_retries": getattr(args, "max_retries", None)}
    if args.model:
        overrides.update({"model": args.model, **{f"{role}_model": args.model for role in ROLES}})
    overrides.update(_options(args))
    return overrides


def _options(args: argparse.Namespace) -> dict[str, str]:
    """``-o KEY VALUE`` pairs as settings (checked with the settings: ``-o temperature 9`` is a usage error)."""
    import difflib

    from assistant.errors import ConfigError

    out: dict[str, str] = {}
    for key, value in getattr(args, "option", None) or []:
        if key not in OPTIONS:
            near = difflib.get_close_matches(key, list(OPTIONS), n=1)
            raise ConfigError(f"-o {key}: not a model option" + (f" (did you mean '{near[0]}'?)." if near else "."),
                              "Options: " + ", ".join(OPTIONS) + ".")
        out[OPTIONS[key]] = value
    return out


def _batch(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError

    paths, settings = _settings(_overrides(args))
    if args.status:
        from assistant.frontends.batch import jobs_table
        from assistant.store import Store

        paths.ensure()
        store = Store(paths.database)
        print(jobs_table(store))
        store.close()
        return 0
    if not args.input:
        raise ConfigError("no input given.", "Usage: assistant batch INPUT [-o OUTPUT]; see assistant batch --help.")
    if args.concurrency < 1:
        raise ConfigError("--concurrency must be at least 1.")
    try:
        return asyncio.run(_run_batch(paths, settings, args))
    except KeyboardInterrupt:
        from assistant.frontends.batch import last_job
        from assistant.store import Store

        if not last_job:
            raise
        store = Store(paths.database)
        answered = len(store.batch_done(last_job["id"]))
        store.close()
        print(f"\nassistant: interrupted: {answered} of {last_job['total']} answered and saved. Run the same command "
              "again to resume (--fresh starts over).", file=sys.stderr)
        return 130


async def _run_batch(paths, settings, args: argparse.Namespace) -> int:
    from assistant.app import build_assistant
    from assistant.frontends.batch import run_batch

    app = build_assistant(settings, paths, notify=_notice)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        stats = await run_batch(app, args.input, out, args.concurrency, args.ordered,
                                progress=status_wanted(),
                                jobs_dir=paths.data_dir / "batch", fresh=args.fresh)
    finally:
        if out is not sys.stdout:
            out.close()
        await app.aclose()
    return 0 if not stats.failed and not stats.unanswered else 1


def _piped() -> bool:
    """Standard input is a pipe or a file (``cmd | assistant ask …``, ``< notes.txt``): not a terminal, and not
    /dev/null or a closed descriptor, so reading it never waits on a person or hangs a script."""
    import stat

    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def _read_question(parts: list[str], files: list[str] | None = None, stdin: bool = True) -> str:
    """The question as a user composed it: each ``-f`` file, then what was piped in, then the words given (the
    order llm uses); ``-`` alone is the whole question from stdin."""
    from assistant.errors import ConfigError
    from assistant.limits import decode_text

    pieces: list[str] = []
    for name in files or []:
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ConfigError(f"cannot read {name}: {e.strerror or e}.", "Check the path given to -f.") from None
        text = decode_text(data, name).strip()
        if text:
            pieces.append(f"{os.path.basename(name)}:\n{text}")
    if stdin and (parts == ["-"] or _piped()):
        text = decode_text(sys.stdin.buffer.read(), "standard input").strip()
        if text:
            pieces.append(text)
    words = " ".join(p for p in parts if p != "-").strip() if parts != ["-"] else ""
    if words:
        pieces.append(words)
    question = "\n\n".join(pieces)
    if not question:
        raise ConfigError("the question is empty.", "Give it as arguments, pipe it in, or attach a file with -f.")
    return question


def _ask(args: argparse.Namespace) -> int:
    question = _read_question(args.question, args.file)
    if not args.no_daemon:
        from assistant.frontends.client import connect
        from assistant.paths import resolve_paths

        paths = resolve_paths()
        client = connect(paths.run_dir)
        if client is not None:  # the thin path: no model stack imported here
            from assistant.frontends.client import DaemonError

            try:
                return _ask_remote(client, question, args, paths)
            except DaemonError as e:
                if e.status != 409:
                    raise AssistantError(f"the daemon refused the question: {e}.", "Try --no-daemon.") from None
                _notice(f"{e}; answering here instead (`assistant daemon restart` gives the daemon these settings).")
    paths, settings = _settings(_overrides(args))
    result = asyncio.run(_run_ask(paths, settings, question, args))
    if args.json:
        _print_ask_json(result.model_dump(), [t.model_dump() for t in result.tool_calls])
    return 0 if result.ok else 1


ASK_JSON_KEYS = ("ok", "answer", "route", "attempts", "model_calls", "tool_calls", "turn_id", "error", "replaced", "steps",
                 "exit_code")


def _print_ask_json(turn: dict[str, Any], tool_calls: list[dict[str, Any]]) -> None:
    """The one shape of `ask --json`, whether the turn ran here or in the daemon, answered or not: every key on
    every outcome (``null`` where unknown)."""
    out = {k: tool_calls if k == "tool_calls" else turn.get(k) for k in ASK_JSON_KEYS}
    out["steps"] = out["steps"] or []
    if out["exit_code"] is None:
        out["exit_code"] = 0 if out["ok"] else 1
    print(json.dumps(out, ensure_ascii=False))


def _ask_remote(client, question: str, args: argparse.Namespace, paths) -> int:
    from assistant.frontends.progress import Progress
    from assistant.wire import Follower

    progress = Progress(enabled=not args.json and status_wanted(), stream_answer=not args.json, render=not args.plain)
    from assistant.envnames import setting_env

    session = "last" if args.resume_last else args.session
    if session and session != "last":  # an id prefix: resolved here (the daemon takes whole ids, and "last")
        store = _store()
        try:
            session = _session_of(store, session)
        finally:
            store.close()
    options = {f"{ENV_PREFIX}{name.upper()}": value for name, value in _options(args).items()}
    events = client.ask(question, session_id=session, model=args.model, max_retries=args.max_retries,
                        env={**setting_env(), **options}, system=args.system,
                        one_shot=None if session else "ask", log=False if args.no_log or _logs_off(paths) else None)
    if args.debug:
        _notice(f"answered by the daemon ({client.endpoint.get('transport')} transport)")
    turn = Follower()
    try:
        for event in events:
            turn.see(event)
            progress.on_event(event)
    finally:
        progress.finish()
    done = turn.outcome()
    if args.json:
        _print_ask_json(done, turn.tool_calls)
    return 0 if done["ok"] else 1


def _session_of(store, ref: str) -> str:
    """A session id from an id prefix given on the command line."""
    from assistant.errors import ConfigError

    sid = store.find_session(ref)
    if sid is None:
        raise ConfigError(f"no session matches '{ref}'.", "See: assistant sessions list")
    return sid


async def _run_ask(paths, settings, question: str, args: argparse.Namespace):
    from assistant.app import build_assistant
    from assistant.frontends.progress import Progress

    as_json = args.json
    progress = Progress(enabled=not as_json and status_wanted(), stream_answer=not as_json, render=not args.plain)
    app = build_assistant(settings, paths, notify=_notice, status=progress.status)
    try:
        session = app.store.find_session("last", exclude="batch") if args.resume_last else \
            _session_of(app.store, args.session) if args.session else None
        return await app.ask(question, session_id=session, emit=progress.on_event, system=args.system,
                             one_shot=None if session else "ask", log=not args.no_log and not _logs_off(paths))
    finally:
        progress.finish()
        await app.aclose()
