"""Answers as objects (``--schema``): the schema a user gives, in any of its three forms, made one canonical JSON
Schema; and an object held to it. The forms: a JSON Schema inline (``'{"type": "object", …}'``), a file holding
one, or llm's concise form (``"name, age int, tags list, bio: a short biography"``: fields separated by commas or
lines, each a name, an optional type (``str`` (default), ``int``, ``float``, ``bool``, ``list``) and an optional
description after a colon). Validation is jsonschema's (Draft 2020-12), a maintained implementation of the spec."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from tools.lazy_re import lazy_compile

MAX_SCHEMA = 64 << 10  # characters: a schema is a few hundred; a file larger than this is not one

_TYPES: dict[str, dict[str, Any]] = {"str": {"type": "string"}, "string": {"type": "string"}, "int": {"type": "integer"},
          "integer": {"type": "integer"}, "float": {"type": "number"}, "number": {"type": "number"},
          "bool": {"type": "boolean"}, "boolean": {"type": "boolean"},
          "list": {"type": "array", "items": {"type": "string"}}, "array": {"type": "array", "items": {"type": "string"}}}


class SchemaError(ValueError):
    """A schema that cannot be used, said in one line."""


def concise(text: str) -> dict[str, Any]:
    """llm's concise form as a JSON Schema: every field required, no others allowed."""
    properties: dict[str, Any] = {}
    for part in re.split(r"[,\n]", text):
        part = part.strip()
        if not part:
            continue
        head, _, description = part.partition(":")
        words = head.split()
        if not words or len(words) > 2 or not re.fullmatch(r"[A-Za-z_][\w-]*", words[0]):
            raise SchemaError(f"'{part}' is not a field: write 'name', 'name int' or 'name: what it is'")
        kind = words[1].lower() if len(words) == 2 else "str"
        if kind not in _TYPES:
            raise SchemaError(f"'{words[1]}' is not a type here: str, int, float, bool or list")
        field: dict[str, Any] = dict(_TYPES[kind])
        if description.strip():
            field["description"] = description.strip()
        properties[words[0]] = field
    if not properties:
        raise SchemaError("the schema names no field")
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def parse(text: str, base: Path | None = None) -> dict[str, Any]:
    """The schema ``text`` gives: JSON inline, the path of a file holding it (relative to ``base``), or the concise
    form. :class:`SchemaError` says why not."""
    text = text.strip()
    if not text:
        raise SchemaError("the schema is empty")
    if not text.startswith("{"):
        path = Path(text).expanduser()
        if base is not None and not path.is_absolute():
            path = base / path
        if re.search(r"\.json$", text, re.IGNORECASE) or (len(text) < 4096 and "\n" not in text and path.is_file()):
            try:
                from assistant.limits import read_capped

                text = read_capped(str(path), MAX_SCHEMA).decode("utf-8").strip()
            except (OSError, UnicodeDecodeError, ValueError) as e:
                raise SchemaError(f"cannot read the schema file {path}: {getattr(e, 'strerror', None) or e}") from None
        else:
            return checked(concise(text))
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as e:
        raise SchemaError(f"the schema is not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    if not isinstance(schema, dict):
        raise SchemaError("the schema must be a JSON object")
    return checked(schema)


def checked(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` if it is a valid JSON Schema whose answers are JSON values a model can write."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError as Invalid

    try:
        Draft202012Validator.check_schema(schema)
    except Invalid as e:
        raise SchemaError(f"not a valid JSON Schema: {e.message}") from None
    return schema


def canonical(text: str, base: Path | None = None) -> str:
    """The schema as one line of JSON (what the setting holds and a turn carries)."""
    return json.dumps(parse(text, base), ensure_ascii=False, separators=(",", ":"))


def problem(value: Any, schema: dict[str, Any]) -> str | None:
    """Why ``value`` does not follow ``schema`` (the first error, with where it is), or ``None``."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    e = errors[0]
    where = "/".join(str(p) for p in e.absolute_path)
    return f"{e.message}" + (f" (at {where})" if where else "")


_FENCE = lazy_compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def read_object(text: str) -> tuple[Any, str | None]:
    """The one JSON value a model wrote (a code fence around it is let be), or why it is not one."""
    body = _FENCE.sub("", text.strip())
    try:
        return json.loads(body), None
    except json.JSONDecodeError as e:
        return None, f"it is not one JSON value ({e.msg} at character {e.pos})"
