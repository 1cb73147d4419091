"""``config.toml`` as the user keeps it: a setting typed on the command line checked and written back one key at a
time (every other line kept as it was), the effective settings shown as a file one could save (``config show``),
and the settings' reference (docs/configuration.md)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from assistant.config import (
    ANSWERS, DAEMON, FLAGS, SECRET, SECRETS, SERVER_ENV, TABLE, TABLES, TURN, Settings, declared, plain_rule,
)
from assistant.envnames import ENV_PREFIX
from assistant.errors import ConfigError
from assistant.paths import Paths


def render_settings(settings: Settings, from_env: dict[str, str] | None = None) -> str:
    """The effective settings as a ``config.toml`` a user could save (and load again); ``from_env`` marks the values
    that came from the environment (saved in the file, they would outlive it)."""
    lines = []
    from_env = from_env or {}
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        if name in TABLES:
            continue
        if name in from_env and name not in SECRETS:
            lines.append(f"{name} = {toml_value(value)}  # from the environment ({from_env[name]}); {field.description}")
            continue
        if value is None:
            lines.append(f"# {name} = ...  # {field.description}")
            continue
        if name in SECRETS:
            lines.append(f"# {name} = (set, not shown)  # {field.description}")
            continue
        lines.append(f"{name} = {toml_value(value)}  # {field.description}")
    for name, config in settings.mcp_servers.items():
        lines += ["", f"[mcp_servers.{toml_key(name)}]"]
        lines += [f"{k} = {toml_value(v)}" for k, v in config.model_dump(exclude_defaults=True).items()]
    return "\n".join(lines)


def toml_key(key: str) -> str:
    return key if key and all(c.isalnum() or c in "_-" for c in key) and key.isascii() else toml_value(key)


def toml_value(value: Any) -> str:
    """A TOML literal: strings with TOML's escapes (those of JSON), true/false, arrays and inline tables."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def set_default_model(paths: Paths, name: str) -> None:
    """Write ``model = name`` into ``config.toml`` (``models default``, a pull's offer)."""
    write_setting(paths, "model", name)


def parse_setting(key: str, text: str) -> Any:
    """``config set KEY VALUE``: the value typed, checked and converted by the setting's own rules (``3`` for a
    number, ``true``/``false``, ``a, b`` for a list). A usage error names what the setting must be."""
    import difflib

    if key not in Settings.model_fields:
        near = difflib.get_close_matches(key, list(Settings.model_fields), n=1, cutoff=0.6)
        raise ConfigError(f"no setting named '{key}'" + (f" (did you mean '{near[0]}'?)." if near else "."),
                          "`assistant config show` lists every setting.")
    if key in TABLES:
        raise ConfigError(f"{key} is a table of its own ([{key}.NAME] in config.toml), not one value.",
                          "Edit the file: `assistant config path` prints where it is.")
    value: Any = text
    if text.lower() in ("true", "false") and Settings.model_fields[key].annotation is bool:
        value = text.lower() == "true"
    try:
        checked = Settings.model_validate({key: value})
    except ValidationError as e:
        shown = "(not shown)" if key in SECRETS else text
        raise ConfigError(f"{key} {shown}: {plain_rule(e.errors()[0])}.",
                          f"`assistant config show` says what {key} means.") from None
    return getattr(checked, key)


def write_setting(paths: Paths, key: str, value: Any | None) -> None:
    """Set ``key = value`` in ``config.toml`` (``None``: take the key out), keeping every other line as it was, its
    comments included. The file is written whole or not at all (a temporary file, then a rename), and only when it
    reads back with the new value: a value spread over several lines, which this does not rewrite, is refused with
    the way to edit it. Other problems in the file do not stop it (this is how a broken file is mended)."""
    path = paths.config_file
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = text.splitlines()
    first_table = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    at = [i for i in range(first_table) if re.match(rf"\s*{re.escape(key)}\s*=", lines[i])]
    line = None if value is None else f"{key} = {toml_value(value)}"
    for i in reversed(at[1:]):  # a key given twice (TOML refuses that): one is left
        del lines[i]
    if at:
        if line is None:
            del lines[at[0]]
        else:
            lines[at[0]] = line
    elif line is not None:  # after the last top-level key, else before the first table (a file's opening comments stay first)
        keys = [i for i in range(first_table) if re.match(r"\s*[\w\"'.-]+\s*=", lines[i])]
        end = first_table
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        lines.insert(keys[-1] + 1 if keys else end, line)
    new = "\n".join(lines) + "\n" if lines else ""
    import tomllib

    try:
        parsed = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        parsed = None
    took = parsed is not None and (key not in parsed if value is None else parsed.get(key) == value)
    if not took:
        raise ConfigError(f"{path} could not take {key} on one line (its value spans several, or the file is not "
                          "valid TOML).", f"Edit the file: {path}")
    tmp = path.with_suffix(".toml.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:  # the file as it was is kept: the new one is written aside, then moved over it
        tmp.unlink(missing_ok=True)
        import errno

        if e.errno == errno.ENOSPC:
            raise ConfigError(f"the disk holding {path} is full: {key} was not set.",
                              "Free some space and run it again; the file is as it was.") from None
        raise ConfigError(f"cannot write {path}: {e.strerror or e}; {key} was not set.",
                          f"Check the permissions of {path.parent}.") from None


def settings_reference() -> str:
    """The settings as a Markdown table, from their fields (docs/configuration.md holds it; a test keeps the two the
    same, so the page cannot lag behind a new setting): each with its default, where else it can be set and what
    it means."""
    servers = {name: var for var, name in SERVER_ENV}
    rows = ["| setting | default | also set by | meaning |", "| --- | --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        scopes = declared(field).get("scopes", [])
        if field.default_factory is not None:
            default = "empty"
        elif field.default is None:
            default = "unset"
        else:
            default = f"`{toml_value(field.default)}`"
        also = [] if TABLE in scopes else [f"`{ENV_PREFIX}{name.upper()}`"]
        if name in servers:
            also.append(f"`{servers[name]}`")
        if name in FLAGS:
            also.append(f"`{FLAGS[name]}`")
        notes = [n for n, kind in (("per question", TURN), ("keys a batch job", ANSWERS), ("the daemon's own", DAEMON),
                                   ("never shown", SECRET), ("config.toml only", TABLE)) if kind in scopes]
        meaning = (field.description or "").replace("|", "\\|") + (f" ({'; '.join(notes)})" if notes else "")
        rows.append(f"| `{name}` | {default} | {', '.join(also) or '—'} | {meaning} |")
    return "\n".join(rows)
