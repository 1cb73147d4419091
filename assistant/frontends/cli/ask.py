"""``assistant ask``: one question, through the running daemon (the thin path: no model code is imported) or in
this process."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from typing import Any, NamedTuple

from assistant.envnames import MODEL_NAME, NOT_A_MODEL_NAME
from assistant.errors import ConfigError
from assistant.frontends.cli.common import (
    flag_overrides, logs_off, notice, open_store, session_of, settings_for, start_zygote, structured,
)
from assistant.frontends.progress import status_wanted

def piped() -> bool:
    """Standard input is a pipe or a file (``cmd | assistant ask …``, ``< notes.txt``): not a terminal, and not
    /dev/null or a closed descriptor, so reading it never waits on a person or hangs a script."""
    import stat

    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


class Composed(NamedTuple):
    """A question as the user composed it, and whether it carries text they did not type (a file, or what was piped
    beside the words): quoted material, which no rule reads as a request."""

    text: str
    quoted: bool


def read_question(parts: list[str], files: list[str] | None = None, stdin: bool = True,
                  images: list[bytes] | None = None) -> Composed:
    """The question as a user composed it: each ``-f`` file, then what was piped in, then the words given (the
    order llm uses); ``-`` alone, or piped text with no words, is the whole question from stdin. An ``-f`` file that
    is an image (PNG, JPEG, GIF, WebP) goes to ``images`` when a list is given (named in the question), and is
    refused where none is."""
    from assistant.control import one_line
    from assistant.limits import MAX_IMAGE, MAX_TEXT, decode_text, image_kind, read_capped

    pieces: list[str] = []
    for name in files or []:
        try:
            data = read_capped(name, max(MAX_IMAGE, MAX_TEXT))
        except OSError as e:
            raise ConfigError(f"cannot read {name}: {e.strerror or e}.", "Check the path given to -f.") from None
        shown = one_line(os.path.basename(name), 120)  # a file's name is shown and sent, never obeyed
        if image_kind(data) is None and len(data) > MAX_TEXT:
            raise ConfigError(f"{name} is larger than {MAX_TEXT >> 20} MB: too long to attach.",
                              "Attach the part that matters (head, tail, grep).")
        if image_kind(data) is not None:
            if images is None:
                raise ConfigError(f"{name} is an image, and only `ask` takes images.",
                                  f"assistant ask -f {name} \"what is in it?\"")
            if len(data) > MAX_IMAGE:
                raise ConfigError(f"{name} is larger than {MAX_IMAGE >> 20} MB.", "Send a smaller copy of it.")
            images.append(data)
            pieces.append(f"[{shown}: an image, attached]")
            continue
        text = decode_text(data, name).strip()
        if text:
            pieces.append(f"{shown}:\n{text}")
    if stdin and (parts == ["-"] or piped()):
        data = sys.stdin.buffer.read(MAX_TEXT + 1)
        if len(data) > MAX_TEXT:
            raise ConfigError(f"the standard input is larger than {MAX_TEXT >> 20} MB: too long to ask about.",
                              "Pipe in the part that matters (head, tail, grep).")
        text = decode_text(data, "standard input").strip()
        if text:
            pieces.append(text)
    words = " ".join(p for p in parts if p != "-").strip() if parts != ["-"] else ""
    if words:
        pieces.append(words)
    elif images:  # a picture alone: the question people mean by it
        pieces.append("What is in this image?" if len(images) == 1 else "What is in these images?")
    question = "\n\n".join(pieces)
    if not question:
        raise ConfigError("the question is empty.", "Give it as arguments, pipe it in, or attach a file with -f.")
    return Composed(question, quoted=bool(files) or len(pieces) > 1)


def ask(args: argparse.Namespace) -> int:
    if args.model and not re.fullmatch(MODEL_NAME, args.model):  # before the daemon is asked: the same words either way
        raise ConfigError(f"--model {args.model}: {NOT_A_MODEL_NAME}.", "`assistant models` lists the models there are.")
    images: list[bytes] = []
    question, quoted = read_question(args.question, args.file, images=images)
    if getattr(args, "selection", False):
        from assistant.frontends.selection import attached, how, read_selection

        selected = read_selection()
        if selected is None:
            raise ConfigError("no text is selected, and the clipboard is empty.",
                              f"Select the text first (read with {how()}), or attach a file with -f.")
        if not question.strip():
            raise ConfigError("ask something about the selected text.", "assistant ask --selection 'explain this'")
        question, quoted = attached(selected, question), True
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    if not args.no_daemon and not images and paths.daemon_may_run:  # images: the daemon's requests carry text
        from assistant.frontends.client import connect

        client = connect(paths.run_dir)
        if client is not None:  # the thin path: no model stack imported here
            from assistant.frontends.client import DaemonError, DaemonUnavailable, answer_here_after

            try:
                return _ask_remote(client, question, args, paths, quoted)
            except DaemonUnavailable:  # gone before the question reached it, and not back: answered here
                notice("the daemon is not running any more; answering here instead.")
            except DaemonError as e:
                answer_here_after(e, notice, "answering here instead (`assistant daemon restart` gives the daemon "
                                  "these settings).")
    zygote = start_zygote()
    paths, settings = settings_for(flag_overrides(args))
    result = asyncio.run(_run_ask(paths, settings, question, args, images, zygote, quoted))
    if args.json:
        print_ask_json(result.model_dump(), structured=structured(args))
    elif args.extract:
        print_extracted(result.answer, result.ok)
    print_usage(args, result.turn_id)
    return 0 if result.ok else 1


def print_usage(args: argparse.Namespace, turn_id: str | None) -> None:
    """``-u``: the tokens the turn's model calls used, read from its trace (in-process or the daemon's alike)."""
    if not getattr(args, "usage", False):
        return
    if not turn_id or args.no_log:
        print("usage: not kept (--no-log)" if args.no_log else "usage: unknown", file=sys.stderr)
        return
    calls, used_in, used_out = open_store().usage(turn_id)
    print(f"usage: {used_in} input, {used_out} output tokens in {calls} model call{'' if calls == 1 else 's'}"
          + (" (answered by rule)" if calls == 0 else ""), file=sys.stderr)


def print_extracted(answer: str, ok: bool) -> None:
    """``-x``: the answer's code blocks on stdout, once the answer is whole (what is not shown is not extracted)."""
    from assistant.frontends.markdown import extracted

    if answer:
        sys.stdout.write(extracted(answer) if ok else answer.rstrip("\n") + "\n")
        sys.stdout.flush()


def print_ask_json(outcome: dict[str, Any], structured: bool = False) -> None:
    """The one shape of ``ask --json``, whether the turn ran here or in the daemon, answered or not: every field of
    the turn's result (:class:`assistant.wire.TurnOutcome`), ``null`` where unknown, and the exit code.
    ``structured`` (``--schema``): an answer is the object itself, not its text."""
    from assistant.wire import TurnOutcome

    out = {key: outcome.get(key) for key in TurnOutcome.__annotations__}
    if structured and out["ok"] and out["answer"]:
        out["answer"] = json.loads(out["answer"])
    out["tool_calls"], out["steps"] = out["tool_calls"] or [], out["steps"] or []
    out["exit_code"] = outcome.get("exit_code", 0 if out["ok"] else 1)
    print(json.dumps(out, ensure_ascii=False))


def _ask_remote(client, question: str, args: argparse.Namespace, paths, quoted: bool = False) -> int:
    from assistant.envnames import setting_env
    from assistant.frontends.client import Turn
    from assistant.frontends.progress import Progress

    streamed = not args.json and not args.extract
    progress = Progress(enabled=not args.json and status_wanted(), stream_answer=streamed, render=not args.plain,
                        live=False if args.no_stream else None)
    session = "last" if args.resume_last else args.session
    if session and session != "last":  # an id prefix: resolved here (the daemon takes whole ids, and "last")
        store = open_store()
        try:
            session = session_of(store, session)
        finally:
            store.close()
    chosen = {name: value for name, value in flag_overrides(args).items() if value is not None}
    turn = Turn(client, {"question": question, "session_id": session, "settings": chosen or None, "env": setting_env(),
                         "one_shot": None if session else "ask",
                         "log": False if args.no_log or logs_off(paths) else None, "quoted": quoted or None})
    if args.debug:
        notice(f"answered by the daemon ({client.endpoint.get('transport')} transport)")
    try:
        for event in turn:
            progress.on_event(event)
    finally:
        progress.finish()
    outcome = turn.outcome()
    if args.json:
        print_ask_json(dict(outcome), structured=structured(args))
    elif args.extract:
        print_extracted(outcome["answer"], outcome["ok"])
    print_usage(args, outcome.get("turn_id"))
    return 0 if outcome["ok"] else 1


async def _run_ask(paths, settings, question: str, args: argparse.Namespace, images: list[bytes] | None = None,
                   zygote=None, quoted: bool = False):
    from assistant.app import build_assistant
    from assistant.frontends.progress import Progress

    as_json = args.json
    progress = Progress(enabled=not as_json and status_wanted(), stream_answer=not as_json and not args.extract,
                        render=not args.plain, live=False if args.no_stream else None)
    app = build_assistant(settings, paths, notify=notice, status=progress.status, zygote=zygote)
    try:
        session = app.store.find_session("last", exclude="batch") if args.resume_last else \
            session_of(app.store, args.session) if args.session else None
        from assistant.pipeline.question import Question

        asked = Question(question=question, session_id=session, one_shot=None if session else "ask",
                         log=not args.no_log and not logs_off(paths), images=images or None, quoted=quoted)
        return await app.ask(asked, emit=progress.on_event)
    finally:
        progress.finish()
        await app.aclose()
