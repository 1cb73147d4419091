"""``assistant batch``: many questions, resumable."""

from __future__ import annotations

import argparse
import asyncio
import sys

from assistant.frontends.cli.common import flag_overrides, notice, settings_for
from assistant.frontends.progress import status_wanted

def batch(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError

    paths, settings = settings_for(flag_overrides(args))
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
        answered = len(store.batches.done(last_job["id"]))
        store.close()
        print(f"\nassistant: interrupted: {answered} of {last_job['total']} answered and saved. Run the same command "
              "again to resume (--fresh starts over).", file=sys.stderr)
        return 130


async def _run_batch(paths, settings, args: argparse.Namespace) -> int:
    from assistant.app import build_assistant
    from assistant.frontends.batch import run_batch

    app = build_assistant(settings, paths, notify=notice)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        stats = await run_batch(app, args.input, out, args.concurrency, args.ordered,
                                progress=args.progress if args.progress is not None else
                                status_wanted() and not (out is sys.stdout and _is_pipe(sys.stdout)),
                                jobs_dir=paths.data_dir / "batch", fresh=args.fresh)
    finally:
        if out is not sys.stdout:
            out.close()
        await app.aclose()
    return 0 if not stats.failed and not stats.unanswered else 1


def _is_pipe(stream) -> bool:
    import os
    import stat

    try:
        return stat.S_ISFIFO(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):
        return False
