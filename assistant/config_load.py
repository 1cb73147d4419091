"""The settings read in layers, defaults < ``config.toml`` < environment (``ASSISTANT_*``, ``OLLAMA_HOST``) <
command-line flags, and a value a setting refuses said as the line a user reads: the value, where it came from, and
what it must be."""

from __future__ import annotations

import os
from typing import Any

from pydantic import ValidationError

from assistant.config import CONTROLS, FLAGS, SERVER_ENV, TABLES, Settings, plain_rule
from assistant.config_file import toml_value
from assistant.envnames import ENV_PREFIX
from assistant.errors import ConfigError
from assistant.paths import Paths
from tools.mcp_config import McpServerConfig


def _env_overrides(env: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for var, name in SERVER_ENV:
        if env.get(var):
            out[name] = env[var]
    for name in Settings.model_fields:
        if name in TABLES:
            continue
        key = ENV_PREFIX + name.upper()
        if key in env and env[key] != "":
            out[name] = env[key]
    return out


def load_settings(paths: Paths, overrides: dict[str, Any] | None = None, env: dict[str, str] | None = None,
                  ignore_file: bool = False) -> Settings:
    """Merge the layers; a broken file or value is a :class:`ConfigError` naming where it came from.
    ``ignore_file``: leave ``config.toml`` out (``doctor`` checks the rest when it is broken)."""
    settings, _ = _load(paths, overrides, env, ignore_file, lenient=False)
    return settings


def load_settings_lenient(paths: Paths, env: dict[str, str] | None = None) -> tuple[Settings, list[ConfigError]]:
    """The settings with every broken value left out (its default stands in), and what was wrong: for the commands
    that read or repair the settings (``config show``, ``config set``), which a broken file must never block."""
    return _load(paths, None, env, False, lenient=True)


def _load(paths: Paths, overrides: dict[str, Any] | None, env: dict[str, str] | None, ignore_file: bool,
          lenient: bool) -> tuple[Settings, list[ConfigError]]:
    env = dict(os.environ) if env is None else env
    layers: dict[str, dict[str, Any]] = {}
    problems: list[ConfigError] = []
    if paths.config_file.exists() and not ignore_file:
        import tomllib  # here: most homes have no config.toml, and the parser takes a few milliseconds to load

        try:
            with paths.config_file.open("rb") as f:
                layers["file"] = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            problem = ConfigError(f"{paths.config_file} is not valid TOML: {e}.", "Fix the file or remove it.")
            if not lenient:
                raise problem from None
            problems.append(problem)
    layers["env"] = _env_overrides(env)
    layers["flags"] = {k: v for k, v in (overrides or {}).items() if v is not None}
    for _ in range(len(Settings.model_fields) + 1):
        data: dict[str, Any] = {}
        for layer in layers.values():
            data.update(layer)
        try:
            return Settings.model_validate(data), problems
        except ValidationError as e:
            first = e.errors()[0]
            problem = _explain(first, layers, data, env, paths)
            if not lenient:
                raise problem from None
            problems.append(problem)
            key = str(first["loc"][0]) if first["loc"] else ""
            if not any(key in layer for layer in layers.values()):
                break
            for layer in layers.values():  # the broken value goes; its default stands in
                layer.pop(key, None)
    return Settings(), problems


def _explain(first: Any, layers: dict[str, dict[str, Any]], data: dict[str, Any], env: dict[str, str],
             paths: Paths) -> ConfigError:
    """One validation error as the line a user reads: the value, where it came from, and what it must be."""
    key = str(first["loc"][0]) if first["loc"] else ""
    where = ".".join(str(p) for p in first["loc"]) or "settings"
    origin = _origin(key, layers, env, paths)
    if first["type"] == "extra_forbidden":
        import difflib

        if len(first["loc"]) > 1:  # a key inside a table ([mcp_servers.NAME]): named whole, with its table's keys
            fields = list(McpServerConfig.model_fields) if key == "mcp_servers" else []
            near = difflib.get_close_matches(str(first["loc"][-1]), fields, n=1, cutoff=0.6)
            return ConfigError(f"unknown setting '{where}' in {origin}" + (f" (did you mean '{near[0]}'?)." if near else "."),
                               "`assistant config show` lists every setting.")
        near = difflib.get_close_matches(key, list(Settings.model_fields), n=1, cutoff=0.6)
        return ConfigError(f"unknown setting '{key}' in {origin}" + (f" (did you mean '{near[0]}'?)." if near else "."),
                           "`assistant config show` lists every setting; `assistant config unset KEY` takes one out.")
    value = data.get(key) if len(first["loc"]) <= 1 else first.get("input")  # the value at fault, not its table
    if isinstance(value, str) and (len(value) > 120 or CONTROLS.search(value)):  # shown as it can be read
        from assistant.control import one_line

        value = one_line(value.replace("\n", "\\n").replace("\x1b", "ESC"), 80)
    if origin == "the command line" and key in FLAGS:
        return flag_error(first, value)
    elif origin.startswith("environment variable"):
        shown = f"{origin.split()[-1]}={_shortened(value)}"
    else:
        shown = f"{where} = {toml_value(value) if value is not None else '?'} in {origin}"
    return ConfigError(f"{shown}: {plain_rule(first)}.", FIX_A_SETTING)


FIX_A_SETTING = ("`assistant config show` lists every setting with what it means; "
                 "`assistant config set KEY VALUE` changes one.")


def flag_error(first: Any, value: Any) -> ConfigError:
    """A value given on the command line that its setting refuses, as the line says it: ``--max-retries 99: must be
    at most 10.`` (exit 2), whether this process or the daemon read it."""
    key = str(first["loc"][0]) if first["loc"] else ""
    return ConfigError(f"{FLAGS.get(key, key)} {_shortened(value)}: {plain_rule(first)}.", FIX_A_SETTING)


def _shortened(value: Any, room: int = 80) -> str:
    """A value as an error line names it: a schema or a system prompt of many lines is not said back whole."""
    text = " ".join(str(value).split())
    return text if len(text) <= room else text[:room] + "…"


def with_changes(settings: Settings, changes: dict[str, Any]) -> Settings:
    """``settings`` with ``changes`` applied, all or nothing, each checked by the settings' own rules (a
    ``ValidationError`` says which is wrong; :func:`flag_error` says it as the command line would): a question's
    per-turn settings in the daemon, a template in the chat."""
    return Settings.model_validate({**settings.model_dump(), **changes}) if changes else settings


def with_flags(settings: Settings, changes: dict[str, Any]) -> Settings:
    """:func:`with_changes` for the choices a person made for one question (flags, a template, the chat's /model):
    a value its setting refuses is the :class:`ConfigError` the command line says (:func:`flag_error`, exit 2),
    whether this process or the daemon reads it."""
    from pydantic import ValidationError

    try:
        return with_changes(settings, changes)
    except ValidationError as e:
        first = e.errors()[0]
        raise flag_error(first, changes.get(str(first["loc"][0]) if first["loc"] else "")) from None


def _origin(key: str, layers: dict[str, dict[str, Any]], env: dict[str, str], paths: Paths) -> str:
    """Where the value of ``key`` came from: the last layer that set it."""
    if key in layers.get("flags", {}):
        return "the command line"
    if key in layers.get("env", {}):
        return f"environment variable {env_sources(env)[key]}"
    return str(paths.config_file)


def env_sources(env: dict[str, str] | None = None) -> dict[str, str]:
    """The settings the environment sets, each with its variable."""
    env = dict(os.environ) if env is None else env
    names = dict((n, v) for v, n in SERVER_ENV if env.get(v))
    for name in _env_overrides(env):
        names.setdefault(name, ENV_PREFIX + name.upper())
    return names
