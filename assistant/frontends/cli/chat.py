"""``assistant chat``: the REPL, through the daemon when it runs."""

from __future__ import annotations

import argparse
import asyncio
import sys

from assistant.frontends.cli.ask import Composed, read_question
from assistant.frontends.cli.common import flag_overrides, notice, settings_for, start_zygote
from assistant.frontends.progress import status_wanted

def chat(args: argparse.Namespace) -> int:
    from assistant.paths import resolve_paths

    client, paths = None, resolve_paths()
    if not args.no_daemon and paths.daemon_may_run:
        from assistant.frontends.client import connect

        client = connect(paths.run_dir)
    zygote = start_zygote() if client is None else None  # answered here: before the settings are read
    paths, settings = settings_for(flag_overrides(args))
    # the first message: files, then the words (standard input stays the chat's own: one message a line)
    first = read_question(args.message, args.file, stdin=False) if args.message or args.file else None
    return asyncio.run(_run_chat(paths, settings, args, first, client, zygote))


async def _run_chat(paths, settings, args: argparse.Namespace, first: Composed | None, client, zygote) -> int:
    from assistant.answering import Answering
    from assistant.app import build_assistant
    from assistant.errors import ConfigError
    from assistant.frontends.remote import RemoteAssistant
    from assistant.frontends.repl import Repl
    from assistant.store import Store

    if client is not None:  # the daemon answers with warm models; the store is shared
        paths.ensure()
        from assistant.envnames import setting_env

        app: Answering = RemoteAssistant(client, settings, Store(paths.database), env=setting_env(),
                                         local=lambda: build_assistant(settings, paths, notify=notice), notice=notice)
    else:  # a chat typed in lives while you type: the place index (a new home's) is built meanwhile, not by a question
        app = build_assistant(settings, paths, notify=notice, zygote=zygote, prepare_places=sys.stdin.isatty())
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
        code = await repl.run(first.text, first.quoted) if first else await repl.run()
        await warming
        return code
    finally:
        await app.aclose()
