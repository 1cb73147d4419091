"""A pydantic model built from a JSON schema, for tools whose argument model lives in another process: an MCP
server's ``inputSchema``, a plugin's ``Args`` (whose class is never imported here). Lenient where JSON schema says
more than Python types can (``$ref``, patterns: ``Any``); the tool's own process validates exactly."""

from __future__ import annotations

import keyword
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def _python_type(schema: Any) -> Any:
    """The Python type a JSON-schema property validates as (lenient: what cannot be expressed is ``Any``)."""
    if not isinstance(schema, dict):
        return Any
    if isinstance(schema.get("enum"), list) and schema["enum"] and all(isinstance(v, (str, int)) for v in schema["enum"]):
        return Literal[tuple(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            options = tuple(_python_type(s) for s in schema[key])
            return Any if Any in options else _union(options)
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(tuple(_python_type({**schema, "type": k}) for k in kind))
    if kind == "array":
        return list[_python_type(schema.get("items"))]  # type: ignore[misc]  # a type made at run time from the schema
    if kind == "object":
        return dict[str, Any]
    return _TYPES.get(kind, Any)  # type: ignore[arg-type]  # Any is a typing form, not a class


def _union(options: tuple[Any, ...]) -> Any:
    from typing import Union

    return Union[options] if len(options) > 1 else options[0]  # noqa: UP007


def args_model(name: str, schema: dict[str, Any]) -> type[BaseModel]:
    """A pydantic model that validates a model's arguments against an MCP tool's ``inputSchema``: types,
    required keys, enums; unknown keys are refused unless the schema allows them. Keys that cannot be Python
    names keep their spelling through aliases."""
    raw = schema.get("properties")
    properties: dict[str, Any] = raw if isinstance(raw, dict) else {}
    required = set(schema.get("required") or [])
    fields: dict[str, Any] = {}
    for i, (key, prop) in enumerate(properties.items()):
        kind = _python_type(prop)
        description = prop.get("description") if isinstance(prop, dict) else None
        safe = key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("_") and not hasattr(BaseModel, key)
        field_name = key if safe else f"arg_{i}"
        if key in required:
            fields[field_name] = (kind, Field(..., alias=key, description=description))
        else:
            default = prop.get("default") if isinstance(prop, dict) else None
            fields[field_name] = (kind | None if kind is not Any else Any, Field(default, alias=key, description=description))
    extra: Literal["allow", "forbid"] = "allow" if schema.get("additionalProperties") is True else "forbid"
    config = ConfigDict(extra=extra, populate_by_name=True, serialize_by_alias=True)
    return create_model(f"{name}Args", __config__=config, **fields)
