"""Reading what small models write: JSON replies (possibly fenced or wrapped in prose) and tool
calls written as text in ``content`` instead of ``tool_calls``."""

from __future__ import annotations

import json
from typing import Any, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from assistant.models.base import ToolCall

M = TypeVar("M", bound=BaseModel)
_decoder = json.JSONDecoder()


def json_values(text: str) -> Iterator[Any]:
    """Every JSON object or array embedded in ``text``, outermost first, left to right."""
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = _decoder.raw_decode(text, i)
            except json.JSONDecodeError:
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


def _as_call(value: Any, tool_names: list[str]) -> ToolCall | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = value.get("name") or value.get("tool")
    args = value.get("arguments", value.get("parameters", value.get("args")))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    if name in tool_names and isinstance(args, dict):
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
