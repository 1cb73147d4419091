"""The ``assistant`` command: the grammar (``parser``) and one module per group of commands, imported only when
its command runs, so that ``assistant --version`` and ``--help`` stay instant and ``ask`` through the daemon
imports no model code."""

from __future__ import annotations

import gc
import importlib
import json
import os
import sys
import traceback
from typing import Sequence

from assistant.errors import AssistantError
from assistant.frontends.cli.parser import build_parser, short_help

# command -> (module in this package, function)
COMMANDS = {"ask": ("ask", "ask"), "chat": ("chat", "chat"), "batch": ("batch", "batch"), "logs": ("history", "logs"),
            "sessions": ("history", "sessions"), "trace": ("history", "trace"), "config": ("admin", "config"),
            "models": ("admin", "models"), "completion": ("admin", "completion"), "tools": ("admin", "tools"),
            "doctor": ("admin", "doctor"), "daemon": ("admin", "daemon"), "popup": ("admin", "popup"),
            "templates": ("templates", "templates"), "reminders": ("reminders", "reminders"),
            "ps": ("admin", "ps")}


def bare_question(argv: list[str]) -> list[str]:
    """``assistant "question"`` (llm's and aichat's bare form) as ``assistant ask "question"``; a word that is close
    to a command is a misspelt command ("did you mean"), said in one line with exit 2."""
    if not argv or argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version"):
        return argv
    if argv[0].startswith("-"):  # ask's own flags first ("assistant -u 'question'"): ask, unless a command follows
        return argv if any(a in COMMANDS for a in argv) else ["ask", *argv]
    first = argv[0]
    if len(argv) == 1 and " " not in first.strip() and first.isascii():
        import difflib

        close = difflib.get_close_matches(first.lower(), list(COMMANDS), n=1, cutoff=0.75)
        if close:
            print(f"assistant: '{first}' is not a command: did you mean '{close[0]}'? (a question: assistant ask "
                  f"\"{first}\")", file=sys.stderr)
            raise SystemExit(2)
    return ["ask", *argv]


def _say_unshown() -> None:
    """Reminders came due that no notification service took: said once (each set of them) after whatever command
    the user runs next, so none is lost in silence. One small file is looked at; nothing else is read."""
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    if not (paths.data_dir / "reminders-unshown.json").exists():
        return
    from assistant.notices import first_time
    from assistant.reminders import unshown_said

    waiting = unshown_said(paths.data_dir)
    if not waiting or not waiting.reminders or \
            not first_time(paths, "unshown:" + ",".join(str(r.get("id")) for r in waiting.reminders)):
        return
    items, why = waiting.reminders, waiting.why
    listed = "; ".join(str(r.get("text", ""))[:60] for r in items[:3]) + ("; …" if len(items) > 3 else "")
    from assistant.frontends.cli.common import notice

    notice(f"{len(items)} reminder{'s' if len(items) != 1 else ''} came due but could not be shown ({why}): "
           f"{listed}. `assistant reminders` lists {'them' if len(items) != 1 else 'it'}; `assistant doctor` says how "
           "to fix it.")


# A command's objects are almost all alive until it exits: the modules it loads, their tables and the reader's
# weights. The collector's young generation is examined every 700 new objects by default, about 90 times in one
# question answered by rule, finding nothing (a tenth of its CPU); and the collection at exit walks every object only
# for the process to end. Here the young generation is examined every 100,000 new objects (a long chat, batch or
# daemon still collects its cycles, a few MB apart), and what is alive at the end is left to the exit.
_YOUNG = 100_000


def main(argv: Sequence[str] | None = None) -> int:
    """The command (``argv`` None: this process is the command, and its garbage collector is tuned to it)."""
    if argv is not None:
        return _main(argv)
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(_YOUNG, older, oldest)
    try:
        return _main(None)
    finally:
        gc.freeze()  # the exit's own collection skips them all; files, the database and the zygote are closed


def _main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(bare_question(list(sys.argv[1:] if argv is None else argv)))
    if extra:  # a mistake in a command's arguments gets that command's usage, not the top-level one
        (args._commands.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:  # `assistant` alone: what it can do, in a few lines
        print(short_help(parser))
        return 0
    debug = getattr(args, "debug", False)
    # Pydantic looks for plugins among every installed package's entry points at the first model it builds (a
    # hundredth of a second on each start); this program uses none, and a plugin installed for another would see
    # our settings and questions.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.name == "posix":
        os.umask(0o077)  # the database, logs and caches it creates are the user's alone: 0600 files, 0700 folders
    try:
        if getattr(args, "save", None) or getattr(args, "template", None):  # ask, chat, batch: before anything reads them
            from assistant.frontends.cli.templates import save_or_apply

            if save_or_apply(args):
                return 0
        module, function = COMMANDS[args.command]
        code = getattr(importlib.import_module(f"assistant.frontends.cli.{module}"), function)(args)
        if args.command not in ("reminders", "daemon", "completion") and not getattr(args, "json", False):
            _say_unshown()
        return code
    except AssistantError as e:
        if debug:
            traceback.print_exc()
        from assistant.control import without_controls

        e.message, e.hint = without_controls(e.message), without_controls(e.hint)  # they may quote a server or a file
        if getattr(args, "json", False) and args.command == "ask":
            from assistant.frontends.cli.ask import print_ask_json

            print_ask_json({"ok": False, "answer": "", "error": e.one_line(), "exit_code": e.exit_code})
        elif getattr(args, "json", False):
            print(json.dumps({"ok": False, "error": e.one_line(), "exit_code": e.exit_code}, ensure_ascii=False))
        from assistant.frontends.cli.common import notice

        notice(e.one_line())  # wrapped at words on a terminal, one line on a pipe
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
            from assistant.control import without_controls

            print(f"assistant: internal error: {type(e).__name__}: {without_controls(str(e))} (run with --debug for "
                  "details)", file=sys.stderr)
        return 1
