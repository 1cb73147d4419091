"""``assistant reminders``: the reminders and timers kept in the store, listed or cancelled."""

from __future__ import annotations

import argparse
import json
from datetime import datetime

from assistant.errors import ConfigError


def reminders(args: argparse.Namespace) -> int:
    from assistant.frontends.cli.common import open_store
    from tools.reminders.book import Book
    from tools.reminders.tool import when_said

    store = open_store()  # made and migrated (the reminders table is migration 017)
    book = Book(store.path)
    now = datetime.now().astimezone()
    if args.action == "cancel":
        if not args.id:
            raise ConfigError("say which reminder to cancel.", "assistant reminders cancel 3 (its number, as "
                              "'assistant reminders' lists it), or 'all'.")
        if args.id == ["all"]:
            ids = [r.id for r in book.listed()]
        else:
            try:
                ids = [int(i.lstrip("#")) for i in args.id]
            except ValueError:
                raise ConfigError(f"'{' '.join(args.id)}' is not a reminder's number.",
                                  "assistant reminders lists them with their numbers (#3).") from None
        done = book.cancel(ids)
        unknown = [i for i in ids if i not in {r.id for r in done}]
        for r in done:
            print(f"cancelled #{r.id} {when_said(r.due.astimezone(), now, False)} {r.what(False, fired=False)}")
        if unknown and args.id != ["all"]:
            gone = [(i, book.get(i)) for i in unknown]
            raise ConfigError("; ".join(f"#{i} is {r.state}, not pending" if r else f"there is no reminder #{i}"
                                        for i, r in gone) + ".", "assistant reminders lists them.")
        if not done:
            print("no reminders pending")
        return 0
    kept = book.recent(limit=100000 if args.all else 50)
    if args.json:
        print(json.dumps([r.as_json() for r in kept], ensure_ascii=False))
        return 0
    if not kept:
        print("no reminders yet: set one in words, e.g. assistant ask \"remind me in 10 minutes to stretch\"")
        return 0
    for r in kept:
        state = "" if r.state == "pending" else "  [due: not shown yet]" if r.state == "due" else \
            f"  [{r.state}" + (f" at {r.fired_at.astimezone():%H:%M}" if r.fired_at and r.state != "cancelled" else "") + "]"
        print(f"#{r.id:<4} {when_said(r.due.astimezone(), now, False):<26} {r.what(False, fired=False)}{state}")
    from assistant.paths import resolve_paths
    from assistant.reminders import unshown_said

    if any(r.state == "due" for r in kept) and (waiting := unshown_said(resolve_paths().data_dir)):
        print(f"not shown: {waiting.why}; the daemon tries again every {waiting.retry:g} s (assistant doctor says how "
              "to fix it)")
    return 0
