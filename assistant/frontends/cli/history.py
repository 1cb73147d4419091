"""What is stored: ``logs`` (and pruning), ``trace``, ``sessions``."""

from __future__ import annotations

import argparse
import json

from assistant.frontends.cli.common import LOGS_OFF, open_store

def confirmed(what: str, yes: bool) -> bool:
    """A destructive command goes ahead: ``--yes``, or "y" at a terminal after being told ``what`` it deletes.
    Without a terminal and without ``--yes`` it does not (a script says so explicitly)."""
    import sys

    from assistant.errors import ConfigError
    from assistant.frontends.progress import terminal

    if yes:
        return True
    if not (terminal(sys.stdin) and terminal(sys.stderr)):
        raise ConfigError(f"this would delete {what}; nothing was deleted.", "Add --yes to delete without asking.")
    try:
        reply = input(f"This deletes {what}. Delete? [y/N] ")
    except EOFError:
        reply = ""
    if reply.strip().casefold() not in ("y", "yes", "是"):
        print("nothing was deleted", file=sys.stderr)
        return False
    return True


def _prune(older_than: str | None, yes: bool = False) -> int:
    """``assistant logs prune --older-than AGE``: delete old turns, their calls and events, and empty sessions."""
    import re
    from datetime import datetime, timedelta, timezone

    from assistant.errors import ConfigError

    older_than = (older_than or "").strip()
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([hdw]?)\s*", older_than)
    if m is None:
        raise ConfigError("logs prune needs --older-than AGE.", "For example: assistant logs prune --older-than 30d "
                          "(h: hours, d: days, w: weeks; a number alone is days).")
    hours = float(m.group(1)) * {"h": 1, "d": 24, "w": 168, "": 24}[m.group(2)]
    before = (datetime.now(timezone.utc) - timedelta(hours=hours)).isoformat(timespec="milliseconds")
    store = open_store()
    would, empty, in_use = store.prune_counts(before)
    if not would and not empty:
        print(f"nothing is older than {older_than}" + (f" ({in_use} session{'s' if in_use != 1 else ''} in "
                                                             "use kept)" if in_use else ""))
        return 0
    kept = f" ({in_use} session{'s' if in_use != 1 else ''} in use by a chat or the daemon kept)" if in_use else ""
    if not confirmed(f"{would:,} turn{'s' if would != 1 else ''} older than {older_than} and {empty:,} "
                     f"session{'s' if empty != 1 else ''} left empty{kept}", yes):
        return 1
    turns, sessions, vacuumed = store.prune(before)
    print(f"deleted {turns} turn{'s' if turns != 1 else ''} older than {older_than} and {sessions} empty "
          f"session{'s' if sessions != 1 else ''}" + ("; the database was compacted" if vacuumed else ""))
    return 0


def logs(args: argparse.Namespace) -> int:
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
        return _prune(args.older_than, args.yes)
    if args.count is not None and args.count < 0:
        raise ConfigError("-n must be 0 (all) or more.")
    data = args.data or args.data_array or args.data_key is not None
    count = args.count if args.count is not None else 0 if data else 3
    store = open_store()
    schema = _schema_wanted(store, args)
    session = None
    if args.session or args.conversation:  # one conversation's turns (llm's logs --cid and -c)
        ref = args.session or "last"
        session = store.find_session(ref, frontend="chat" if args.conversation and not args.session else None)
        if session is None:
            raise ConfigError(f"no session matches '{ref}'.", "assistant sessions list shows them.")
    if args.response or args.extract:  # the last answer alone, for a pipe (as llm logs -r and -x)
        from assistant.frontends.markdown import extracted
        from assistant.control import without_controls

        last = store.logs(1, args.query, args.model, session, schema)
        if not last:
            raise ConfigError("no answer " + ("matches" if args.query or args.model else "is stored yet") + ".",
                              "assistant logs lists the stored turns.")
        answer = without_controls(last[0]["answer"] or "")  # older answers may carry ESC sequences
        if not answer.strip():  # the question failed: said, not printed as an empty answer
            from assistant.errors import AssistantError

            raise AssistantError(f"the last {'matching ' if args.query or args.model else ''}turn has no answer: "
                                 f"{without_controls(last[0]['error'] or 'it was not answered').rstrip('.')}.",
                                 f"assistant trace {last[0]['id']} shows what happened.")
        print(extracted(answer) if args.extract else answer.rstrip("\n") + "\n", end="")
        return 0
    rows = store.logs(count, args.query, args.model, session, schema)
    if data:
        _print_data(rows, args.data_key, args.data_array)
    elif args.json:
        for r in rows:
            print(json.dumps(r, ensure_ascii=False))
    else:
        from assistant.frontends.trace_view import logs_text

        print(logs_text(rows) if rows else "no turns" + (" match" if args.query or args.model else " yet"))
    return 0


def _schema_wanted(store, args: argparse.Namespace) -> str | None:
    """The id of the schema ``logs --schema``/``--schema-multi`` names: given as to ``ask``, or by its id (a prefix)."""
    from assistant.errors import ConfigError
    from assistant.frontends.cli.common import schema_flags
    from assistant.schema import schema_id

    given = args.schema_multi or args.schema
    if not given:
        return None
    if not args.schema_multi and len(given) >= 4 and all(c in "0123456789abcdef" for c in given):
        ids = store.schema_ids(given)
        if len(ids) > 1:
            raise ConfigError(f"more than one stored schema has an id that starts with {given}.", "Give more of it.")
        if ids:
            return ids[0]
    return schema_id(schema_flags(args.schema, args.schema_multi, "Give the schema as you gave it to ask, or its id."))


def _print_data(rows: list[dict], key: str | None, array: bool) -> None:
    """The objects the turns answered (``--data``), or the objects in their ``key`` (``--data-key items``): one JSON
    line each, or one JSON array. An answer that is no JSON object (a decline, a failed turn) is left out."""
    objects: list = []
    for r in rows:
        try:
            value = json.loads(r["answer"] or "") if r["ok"] else None
        except ValueError:
            continue
        if key is not None and isinstance(value, dict) and isinstance(value.get(key), list):
            objects += value[key]
        elif value is not None:
            objects.append(value)
    if array:
        print(json.dumps(objects, ensure_ascii=False))
    else:
        for value in objects:
            print(json.dumps(value, ensure_ascii=False))


def trace(args: argparse.Namespace) -> int:
    from assistant.frontends import trace_view
    from assistant.errors import ConfigError

    store = open_store()
    turn_id = store.find_turn(args.turn)
    if turn_id is None:
        raise ConfigError(f"no turn matches '{args.turn}'.", "Give a turn id (see --json output or /trace), or 'last'.")
    turn = store.turn(turn_id)
    print(trace_view.as_json(turn) if args.json else trace_view.render(turn))
    return 0


def sessions(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError
    from assistant.frontends.repl import sessions_table

    if args.action != "export" and args.format:
        raise ConfigError(f"--format is for 'sessions export', not '{args.action}'.", "For a listing as JSON: --json.")
    if args.action != "list" and (args.limit is not None or args.kind or args.json):
        raise ConfigError(f"-n, --kind and --json are for 'sessions list', not '{args.action}'.")
    store = open_store()
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
        count = len(store.session_turns(sid))
        pid = store.sessions_in_use().get(sid)
        if pid is not None:
            store.delete_session(sid)  # refused, naming the process
        if not confirmed(f"session {sid} and its {count:,} turn{'s' if count != 1 else ''}", args.yes):
            return 1
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
