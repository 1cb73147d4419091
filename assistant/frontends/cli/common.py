"""What the commands share: the settings with the flags applied, the store, notices on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from assistant.envnames import OPTIONS
from assistant.frontends.progress import terminal

def settings_for(overrides: dict[str, Any] | None = None):
    """The paths and the settings of a command that answers (or may): its compiled patterns are kept in the cache
    from here on (:func:`tools.lazy_re.keep_programs`), so the next process does not compile them again."""
    from assistant.config_load import load_settings
    from assistant.paths import resolve_paths
    from tools.lazy_re import keep_programs

    paths = resolve_paths()
    keep_programs(paths.cache_dir)
    return paths, load_settings(paths, overrides)


def start_zygote():
    """The fork server of our own pure tools' workers (:mod:`tools.jail.zygote`) for a question answered in this
    process, with the built-in tools' code loaded: started before the settings are read and before any thread runs,
    or ``None``."""
    from tools.jail import Zygote

    return Zygote.start(preload=("tools.builtin",))


def open_store():
    """The store alone: reading the history needs no settings, so a broken config.toml never keeps it out of reach."""
    from assistant.paths import resolve_paths
    from assistant.store import Store

    paths = resolve_paths()
    paths.ensure()
    return Store(paths.database)


def notice(text: str) -> None:
    """One line of ours on stderr; on a terminal, cleared of the status line and wrapped at words to its width."""
    if terminal(sys.stderr):
        from assistant.frontends.columns import terminal_columns, wrapped

        sys.stderr.write("\r\033[K" + wrapped(f"assistant: {text}", terminal_columns() - 1, "  ") + "\n")
    else:
        sys.stderr.write(f"assistant: {text}\n")
    sys.stderr.flush()


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the answering flags set (-m, -o, and each of ``SETTING_FLAGS``), by the settings' own names:
    what the command answers with here, and the per-turn map a question through the daemon carries. No settings
    module is imported (the thin client uses it)."""
    from assistant.envnames import ROLE_NAMES, SETTING_FLAGS

    overrides: dict[str, Any] = {name: getattr(args, name, None) for name in SETTING_FLAGS}
    many = getattr(args, "schema_multi", None)
    if overrides.get("answer_schema") or many:
        overrides["answer_schema"] = schema_flags(overrides.get("answer_schema"), many, "Give a JSON Schema (inline or "
                                                  "a .json file), or fields: {flag} 'name, age int, tags list'.")
    if args.model:
        overrides.update({"model": args.model, **{f"{role}_model": args.model for role in ROLE_NAMES}})
    overrides.update(model_options(args))
    return overrides


def schema_flags(schema: str | None, many: str | None, hint: str) -> str:
    """The schema ``--schema`` or ``--schema-multi`` gives (one of them, read here, where a file's path means
    something), as canonical JSON; one that cannot be used is a one-line error with ``hint`` (its ``{flag}``: the
    flag's name)."""
    from assistant.errors import ConfigError
    from assistant.schema import SchemaError, canonical

    if schema and many:
        raise ConfigError("--schema and --schema-multi: give one of them.", "--schema-multi SCHEMA answers with a "
                          "list of objects that each follow SCHEMA.")
    flag = "--schema-multi" if many else "--schema"
    try:
        return canonical(many or schema or "", Path.cwd(), many=bool(many))
    except SchemaError as e:
        raise ConfigError(f"{flag}: {e}.", hint.format(flag=flag)) from None


def structured(args: argparse.Namespace) -> bool:
    """Whether this command answers with an object (``--schema``, ``--schema-multi``)."""
    return bool(getattr(args, "answer_schema", None) or getattr(args, "schema_multi", None))


def model_options(args: argparse.Namespace) -> dict[str, str]:
    """``-o KEY VALUE`` pairs as settings (checked with the settings: ``-o temperature 9`` is a usage error)."""
    out: dict[str, str] = {}
    for key, value in getattr(args, "option", None) or []:
        if key not in OPTIONS:
            import difflib

            from assistant.errors import ConfigError

            near = difflib.get_close_matches(key, list(OPTIONS), n=1)
            raise ConfigError(f"-o {key}: not a model option" + (f" (did you mean '{near[0]}'?)." if near else "."),
                              "Options: " + ", ".join(OPTIONS) + ".")
        out[OPTIONS[key]] = value
    return out


LOGS_OFF = "logs-off"  # a file in the data dir: one-shot asks are not stored


def logs_off(paths) -> bool:
    return (paths.data_dir / LOGS_OFF).exists()


def session_of(store, ref: str) -> str:
    """A session id from an id prefix given on the command line."""
    from assistant.errors import ConfigError

    sid = store.find_session(ref)
    if sid is None:
        raise ConfigError(f"no session matches '{ref}'.", "See: assistant sessions list")
    return sid
