"""Reading what small models write: JSON replies (possibly fenced or wrapped in prose) and tool calls written
as text in ``content`` instead of ``tool_calls``. Defensive: a reply may be anything (random bytes, ``[`` × 5,000,
megabytes of JSON), and reading it is bounded in depth, size and work; what cannot be read is simply not a value."""

from __future__ import annotations

import json
from typing import Any, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from assistant.models.base import ToolCall

M = TypeVar("M", bound=BaseModel)
MAX_DEPTH = 20  # nesting of any JSON value we read from a model
MAX_TEXT = 256 * 1024  # characters of a reply that are searched for JSON
MAX_CANDIDATES = 64  # opening brackets tried per reply
_decoder = json.JSONDecoder()


def _too_deep(text: str, start: int = 0, one_value: bool = False) -> bool:
    """Brackets nest deeper than :data:`MAX_DEPTH` from ``start`` on (scanned without parsing; strings are
    skipped, so brackets inside them do not count). ``one_value``: stop where the value opened at ``start`` ends."""
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif c in "]}":
            depth -= 1
            if one_value and depth == 0:
                return False
    return False


def too_deep(text: str) -> bool:
    """Some JSON value in ``text`` nests deeper than :data:`MAX_DEPTH`."""
    return _too_deep(text)


def loads(text: str) -> Any:
    """``json.loads`` for untrusted text: ``ValueError`` when it is too large, too deep or not JSON."""
    if len(text) > MAX_TEXT:
        raise ValueError("the JSON text is too large")
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{") and _too_deep(stripped, 0, one_value=True):
        raise ValueError(f"the JSON nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON nests too deeply") from None


def json_values(text: str) -> Iterator[Any]:
    """Every shallow JSON object or array embedded in ``text``, outermost first, left to right."""
    text = text[:MAX_TEXT]
    i, tried = 0, 0
    while i < len(text) and tried < MAX_CANDIDATES:
        if text[i] in "{[":
            tried += 1
            if _too_deep(text, i, one_value=True):
                i += 1
                continue
            try:
                value, end = _decoder.raw_decode(text, i)
            except (json.JSONDecodeError, RecursionError):
                i += 1
                continue
            yield value
            i = end
        else:
            i += 1


def parse_structured(text: str, model: type[M]) -> M | None:
    """The first JSON object in ``text`` that validates as ``model``."""
    for value in json_values(text):
        try:
            return model.model_validate(value)
        except ValidationError:
            continue
    return None


def arguments_object(args: Any) -> dict[str, Any] | None:
    """Tool-call arguments as an object: an object, or a JSON string holding one (as OpenAI-compatible servers
    send them); anything else (a list, null, a number, a deep or broken string) is ``None``."""
    if isinstance(args, str):
        try:
            args = loads(args)
        except ValueError:
            return None
    return args if isinstance(args, dict) else None


def _as_call(value: Any, tool_names: list[str]) -> ToolCall | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = value.get("name") or value.get("tool")
    args = arguments_object(value.get("arguments", value.get("parameters", value.get("args"))))
    if isinstance(name, str) and name in tool_names and args is not None:
        return ToolCall(name=name, arguments=args)
    return None


def recover_tool_calls(text: str, tool_names: list[str], arg_names: set[str]) -> list[ToolCall]:
    """Tool calls written as JSON text. A bare argument object counts when only one tool was offered."""
    calls: list[ToolCall] = []
    for value in json_values(text):
        items = value.get("tool_calls") if isinstance(value, dict) and "tool_calls" in value else value
        for item in items if isinstance(items, list) else [items]:
            call = _as_call(item, tool_names)
            if call is None and len(tool_names) == 1 and isinstance(item, dict) and item and set(item) <= arg_names:
                call = ToolCall(name=tool_names[0], arguments=item)
            if call is not None:
                calls.append(call)
    return calls
