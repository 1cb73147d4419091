"""Answers as objects (``--schema``): the schema a user gives, in any of its three forms, made one canonical JSON
Schema; and an object held to it. The forms: a JSON Schema inline (``'{"type": "object", …}'``), a file holding
one, or llm's concise form (``"name, age int, tags list, bio: a short biography"``: fields separated by commas or
lines, each a name, an optional type (``str`` (default), ``int``, ``float``, ``bool``, ``list``) and an optional
description after a colon). Validation is jsonschema's (Draft 2020-12), a maintained implementation of the spec.

A schema is data someone else may have written (a template shared, a file downloaded), so it is never a way out:
only references inside the document are followed (``#/$defs/…``, ``#anchor``; nothing is fetched or read, whatever
a ``$ref``, ``$id`` or ``$schema`` names), a reference that loops without reading further into the object is
refused, size and depth are bounded, and its ``pattern`` expressions run on RE2, a linear-time engine (a pattern
written to backtrack takes as long as any other). A model's reply is parsed within the same bounds, and ``NaN`` or
``Infinity`` are not JSON. Every problem is one line (:class:`SchemaError`)."""

from __future__ import annotations

import errno
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from tools.lazy_re import lazy_compile

MAX_SCHEMA = 64 << 10  # characters: a schema is a few hundred; a file larger than this is not one
MAX_DEPTH = 32  # nesting of a schema's objects and arrays (a real one is a handful deep)
MAX_NODES = 4096  # objects, arrays and values in a schema
MAX_PATTERN = 1000  # characters of one pattern
MAX_REPLY_DEPTH = 64  # nesting of a model's object

_TYPES: dict[str, dict[str, Any]] = {"str": {"type": "string"}, "string": {"type": "string"}, "int": {"type": "integer"},
          "integer": {"type": "integer"}, "float": {"type": "number"}, "number": {"type": "number"},
          "bool": {"type": "boolean"}, "boolean": {"type": "boolean"},
          "list": {"type": "array", "items": {"type": "string"}}, "array": {"type": "array", "items": {"type": "string"}}}
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")
# Keywords whose subschemas apply to the very same value: a reference loop through these alone never ends.
_SAME_VALUE_ONE = ("not", "if", "then", "else")
_SAME_VALUE_LIST = ("allOf", "anyOf", "oneOf")


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
            raise SchemaError(f"'{_short(part)}' is not a field: write 'name', 'name int' or 'name: what it is'")
        if len(words[0]) > 200:
            raise SchemaError(f"the field name '{_short(words[0])}' is {len(words[0])} characters long: a field "
                              "name is a word or a few")
        kind = words[1].lower() if len(words) == 2 else "str"
        if kind not in _TYPES:
            raise SchemaError(f"'{_short(words[1])}' is not a type here: str, int, float, bool or list")
        field: dict[str, Any] = dict(_TYPES[kind])
        if description.strip():
            field["description"] = description.strip()
        properties[words[0]] = field
    if not properties:
        raise SchemaError("the schema names no field")
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _short(text: str, room: int = 40) -> str:
    return text if len(text) <= room else text[:room] + "…"


def _is_file(path: Path) -> bool:
    """Whether ``path`` names a file; a name no file can have (too long, a NUL in it) names none."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def parse(text: str, base: Path | None = None, files: bool = True) -> dict[str, Any]:
    """The schema ``text`` gives: JSON inline, the path of a file holding it (relative to ``base``; only where
    ``files``: a setting or a daemon's request names none), or the concise form. :class:`SchemaError` says why not."""
    text = text.strip()
    if not text:
        raise SchemaError("the schema is empty")
    if len(text) > MAX_SCHEMA:
        raise SchemaError(f"the schema is {len(text) >> 10} KB: larger than {MAX_SCHEMA >> 10} KB, which no answer's "
                          "schema needs")
    if not text.startswith("{"):
        path = Path(text).expanduser() if files and len(text) < 4096 and "\n" not in text else None
        if path is not None and base is not None and not path.is_absolute():
            path = base / path
        if path is not None and (re.search(r"\.json$", text, re.IGNORECASE) or _is_file(path)):
            text = _read_file(path)
        elif not files and re.search(r"\.json$", text, re.IGNORECASE):
            raise SchemaError(f"{_short(text, 80)} names a file, which only --schema and /schema read: give the "
                              "schema itself here (JSON, or 'name, age int')")
        else:
            return checked(concise(text))
    return checked(loads_bounded(text, "the schema"))


def _read_file(path: Path) -> str:
    from assistant.limits import read_capped

    try:
        data = read_capped(str(path), MAX_SCHEMA)
    except (OSError, ValueError) as e:
        why = "the name is too long" if getattr(e, "errno", None) == errno.ENAMETOOLONG else \
            getattr(e, "strerror", None) or str(e)
        raise SchemaError(f"cannot read the schema file {_short(str(path), 80)}: {why}") from None
    if len(data) > MAX_SCHEMA:
        raise SchemaError(f"the schema file {_short(str(path), 80)} is larger than {MAX_SCHEMA >> 10} KB, which no "
                          "answer's schema needs")
    try:
        return data.decode("utf-8-sig").strip()
    except UnicodeDecodeError:
        raise SchemaError(f"the schema file {_short(str(path), 80)} is not UTF-8 text") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class _TooDeep(Exception):
    pass


def _parsed(text: str, depth: int) -> Any:
    """``text`` as one JSON value: ``NaN`` and ``Infinity`` are not JSON (as the spec says, though Python reads
    them; a ``ValueError``), and nothing nests deeper than ``depth`` (:class:`_TooDeep`)."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise _TooDeep() from None
    if _depth(value, depth) > depth:
        raise _TooDeep()
    return value


def loads_bounded(text: str, what: str, depth: int = MAX_DEPTH) -> Any:
    """``text`` as one JSON value within bounds (:func:`_parsed`), or :class:`SchemaError` in one line."""
    try:
        return _parsed(text, depth)
    except json.JSONDecodeError as e:
        raise SchemaError(f"{what} is not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except ValueError as e:
        raise SchemaError(f"{what} is not JSON: {e}") from None
    except _TooDeep:
        raise SchemaError(f"{what} nests deeper than {depth} levels") from None


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests, counted no further than one past ``limit``."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            level += 1
            deepest = max(deepest, level)
            if level <= limit:
                stack.extend((v, level) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def checked(schema: Any) -> dict[str, Any]:
    """``schema`` if it is a valid JSON Schema whose answers are JSON values a model can write, held within
    bounds, that refers only to itself."""
    from jsonschema.exceptions import SchemaError as Invalid

    if not isinstance(schema, dict):
        raise SchemaError("the schema must be a JSON object")
    if _depth(schema, MAX_DEPTH) > MAX_DEPTH:
        raise SchemaError(f"the schema nests deeper than {MAX_DEPTH} levels")
    nodes = list(_nodes(schema))
    if len(nodes) > MAX_NODES:
        raise SchemaError(f"the schema has more than {MAX_NODES} parts, which no answer's schema needs")
    for where, node in nodes:
        _check_node(where, node)
    try:
        _validator_class().check_schema(schema)
    except Invalid as e:
        raise SchemaError(f"not a valid JSON Schema: {_short(e.message, 200)}") from None
    except RecursionError:
        raise SchemaError("the schema refers to itself without end") from None
    _check_references(schema)
    return schema


def _nodes(value: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object in ``value`` with its JSON pointer (depth already bounded)."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        here, item = stack.pop()
        if isinstance(item, dict):
            yield here, item
            stack.extend((f"{here}/{_escape(str(k))}", v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{here}/{i}", v) for i, v in enumerate(item))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _check_node(where: str, node: dict[str, Any]) -> None:
    """One object of the schema: its references stay inside the document, its patterns are RE2's."""
    for key in _REFS:
        ref = node.get(key)
        if isinstance(ref, str) and not ref.startswith("#"):
            raise SchemaError(f"the schema refers to {_short(ref, 80)} (at {where}/{key}), outside "
                              "itself: only references inside it (#/$defs/…) are followed, nothing is fetched or read")
    schema_uri = node.get("$schema")
    if isinstance(schema_uri, str) and not _known_dialect(schema_uri):
        raise SchemaError(f"the schema names the dialect {_short(schema_uri, 80)}, which is not a JSON Schema draft "
                          "this reads (leave $schema out, or name Draft 2020-12)")
    if isinstance(node.get("patternProperties"), dict) and node["patternProperties"]:
        raise SchemaError(f"patternProperties (at {where or '/'}) is not followed in an answer's schema: name the "
                          "fields in properties")
    if isinstance(node.get("pattern"), str):
        _pattern(node["pattern"])


def _known_dialect(uri: str) -> bool:
    from referencing.jsonschema import UnknownDialect, specification_with

    try:
        specification_with(uri)
        return True
    except UnknownDialect:
        return False


@lru_cache(maxsize=256)
def _pattern(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (linear time whatever the pattern); :class:`SchemaError` for one it refuses
    (look-arounds and back-references, which only a backtracking engine runs) or that is too long."""
    if len(pattern) > MAX_PATTERN:
        raise SchemaError(f"a pattern is {len(pattern)} characters long (at most {MAX_PATTERN})")
    try:
        import re2
    except ImportError:
        raise SchemaError("patterns need google-re2, which is not installed (pip install google-re2)") from None
    options = re2.Options()
    options.log_errors = False  # its parse errors are ours to say, in one line
    try:
        return re2.compile(pattern, options)
    except Exception as e:
        why = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        raise SchemaError(f"the pattern {_short(pattern)!r} is not one this follows ({why}): patterns run on a "
                          "linear-time engine, without look-arounds, back-references or repeats over 1000") from None


def _re2_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _pattern(pattern).search(instance):
        yield ValidationError(f"{_short(instance)!r} does not match {_short(pattern)!r}")


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    missing: Any = NoSuchResource  # an attrs class, which the type checker does not read
    raise missing(ref=uri)  # nothing outside the document is fetched or read


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    """Draft 2020-12, its patterns on RE2."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": _re2_pattern})


@lru_cache(maxsize=1)
def _registry() -> Any:
    from referencing import Registry

    registry: Any = Registry  # an attrs class, which the type checker does not read
    return registry(retrieve=_refuse)


def _validator(schema: dict[str, Any]) -> Any:
    return _validator_class()(schema, registry=_registry())


def _check_references(schema: dict[str, Any]) -> None:
    """Every reference resolves inside the document, and none loops on the same value without end."""
    from referencing.exceptions import Unresolvable

    resolver = _validator(schema)._resolver
    targets: dict[str, Any] = {}
    for where, node in _nodes(schema):
        for key in _REFS:
            ref = node.get(key)
            if isinstance(ref, str) and ref not in targets:
                try:
                    targets[ref] = resolver.lookup(ref).contents
                except (Unresolvable, RecursionError, ValueError):
                    raise SchemaError(f"the reference {_short(ref, 80)} (at {where}/{key}) points at nothing "
                                      "in the schema") from None
    # A loop: following references through keywords that read the very same value comes back where it started.
    for ref, target in targets.items():
        seen: set[int] = set()
        stack = [target]
        while stack:
            node = stack.pop()
            if not isinstance(node, dict) or id(node) in seen:
                continue
            seen.add(id(node))
            for key in _REFS:
                if isinstance(node.get(key), str):
                    nxt = targets.get(node[key])
                    if nxt is target:
                        raise SchemaError(f"the reference {_short(ref, 80)} refers to itself without end")
                    stack.append(nxt)
            stack.extend(node.get(k) for k in _SAME_VALUE_ONE)
            stack.extend(s for k in _SAME_VALUE_LIST if isinstance(node.get(k), list) for s in node[k])


def multi(schema: dict[str, Any]) -> dict[str, Any]:
    """``--schema-multi``: a list of such objects, as llm asks for it (``{"items": [...]}``)."""
    return {"type": "object", "properties": {"items": {"type": "array", "items": schema}}, "required": ["items"]}


def canonical(text: str, base: Path | None = None, files: bool = True, many: bool = False) -> str:
    """The schema as one line of JSON (what the setting holds and a turn carries); ``many``: a list of its objects."""
    schema = parse(text, base, files)
    return json.dumps(multi(schema) if many else schema, ensure_ascii=False, separators=(",", ":"))


def schema_id(canonical_text: str) -> str:
    """The id a schema is stored and found by (``logs --schema``): a hash of its canonical JSON."""
    import hashlib

    return hashlib.blake2b(canonical_text.encode(), digest_size=16).hexdigest()


def problem(value: Any, schema: dict[str, Any], zh: bool = False) -> str | None:
    """Why ``value`` does not follow ``schema`` (the first error, where it is, in words a person reads: English, or
    Chinese for ``zh``), or ``None``."""
    from assistant.schema_words import in_words

    try:
        errors = sorted(_validator(schema).iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    except RecursionError:
        return "该对象嵌套过深" if zh else "the object nests deeper than the schema can be followed"
    except SchemaError as refused:
        return str(refused)
    return in_words(errors[0], zh) if errors else None


_FENCE = lazy_compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def read_object(text: str, zh: bool = False) -> tuple[Any, str | None]:
    """The one JSON value a model wrote (a code fence around it is let be), or why it is not one (in Chinese for
    ``zh``)."""
    from assistant.schema_words import not_json

    body = _FENCE.sub("", text.strip())
    try:
        return _parsed(body, MAX_REPLY_DEPTH), None
    except json.JSONDecodeError as e:
        return None, not_json(e, zh)
    except ValueError as e:  # NaN, Infinity: "NaN is not a JSON number"
        return None, f"它不是一个 JSON 值({e})" if zh else f"it is not one JSON value ({e})"
    except _TooDeep:
        return None, f"嵌套超过 {MAX_REPLY_DEPTH} 层" if zh else f"it nests deeper than {MAX_REPLY_DEPTH} levels"
