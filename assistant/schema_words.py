"""Why an object does not follow its schema, in words a person reads (English, or Chinese for a question in
Chinese): "it lacks the field 'age'", "the field 'age' is text, where the schema wants a whole number", where
jsonschema says "'age' is a required property" or "'x' is not of type 'integer'". The same words go back to the
model when it tries again, and to the user when no try followed the schema."""

from __future__ import annotations

import json
from typing import Any

_KINDS = {"string": ("text", "文本"), "integer": ("a whole number", "整数"), "number": ("a number", "数字"),
          "boolean": ("true or false", "真或假"), "array": ("a list", "列表"), "object": ("an object", "对象"),
          "null": ("null", "空值")}


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _kinds(wanted: Any, zh: bool) -> str:
    names = [_KINDS.get(w, (str(w), str(w)))[zh] for w in (wanted if isinstance(wanted, list) else [wanted])]
    return "或".join(names) if zh else " or ".join(names)


def _where(path: Any) -> str:
    """``items[2].name`` for the path items → 2 → name; ``""`` at the top."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out[:60] + ("…" if len(out) > 60 else "")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:40] + "…"


def in_words(error: Any, zh: bool = False) -> str:
    """A jsonschema ``ValidationError`` said plainly, naming the field it is about."""
    where, keyword, want, value = _where(error.absolute_path), error.validator, error.validator_value, error.instance
    this = (f"字段 '{where}'" if where else "该对象") if zh else (f"the field '{where}'" if where else "it")
    inside = ((f"(在 '{where}' 中)" if zh else f" (in '{where}')") if where else "")
    if keyword == "required":
        missing = [name for name in want if isinstance(value, dict) and name not in value][:3]
        names = ", ".join(f"'{n}'" for n in missing)
        return f"缺少字段 {names}{inside}" if zh else f"it lacks the field{'s' if len(missing) > 1 else ''} {names}{inside}"
    if keyword == "type":
        got = _KINDS.get(_kind_of(value), ("", ""))[zh]
        return f"{this}是{got},而结构要求{_kinds(want, zh)}" if zh else \
            f"{this} is {got}, where the schema wants {_kinds(want, zh)}"
    if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(value, dict):
        known = set((error.schema.get("properties") or {}))
        extra = ", ".join(f"'{n}'" for n in list(value) if n not in known)[:120] or "?"
        return f"多了结构里没有的字段 {extra}{inside}" if zh else f"it has fields the schema does not: {extra}{inside}"
    if keyword in ("enum", "const"):
        allowed = ", ".join(_shown(v) for v in (want if keyword == "enum" else [want])[:6])
        return f"{this}是 {_shown(value)},不在允许的值中:{allowed}" if zh else \
            f"{this} is {_shown(value)}, which is not one of {allowed}"
    bounds = {"minimum": ("below the least allowed,", "小于最小值"), "exclusiveMinimum": ("not above", "不大于"),
              "maximum": ("above the most allowed,", "大于最大值"), "exclusiveMaximum": ("not below", "不小于")}
    if keyword in bounds:
        return f"{this}是 {_shown(value)},{bounds[keyword][1]} {want}" if zh else \
            f"{this} is {_shown(value)}, {bounds[keyword][0]} {want}"
    sizes = {"minLength": ("shorter than {} characters", "短于 {} 个字符"),
             "maxLength": ("longer than {} characters", "长于 {} 个字符"),
             "minItems": ("fewer than {} items", "少于 {} 项"), "maxItems": ("more than {} items", "多于 {} 项"),
             "minProperties": ("fewer than {} fields", "少于 {} 个字段"),
             "maxProperties": ("more than {} fields", "多于 {} 个字段")}
    if keyword in sizes:
        if zh:
            return f"{this}{sizes[keyword][1].format(want)}"
        return f"{this} {'is' if 'Length' in keyword else 'has'} {sizes[keyword][0].format(want)}"
    if keyword == "pattern":
        return f"{this}不符合结构要求的格式" if zh else f"{this} does not have the form the schema's pattern asks for"
    if keyword == "format":
        return f"{this}不是有效的 {want}" if zh else f"{this} is not a valid {want}"
    if keyword == "uniqueItems":
        return f"{this}有重复的项" if zh else f"{this} repeats an item"
    if keyword in ("anyOf", "oneOf"):
        return f"{this}不符合结构允许的任何一种形式" if zh else f"{this} matches none of the forms the schema allows"
    message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
    return message + (f"(在 {where})" if zh and where else f" (at {where})" if where else "")


def not_json(error: json.JSONDecodeError, zh: bool = False) -> str:
    """Why a reply is not one JSON value, plainly."""
    if error.msg == "Extra data":
        return "JSON 值后面还有别的内容" if zh else "there is more after the JSON value"
    if error.msg == "Expecting value" and error.pos == 0:
        return "它是文字,不是 JSON" if zh else "it is words, not JSON"
    if error.msg.startswith("Unterminated string"):
        return "其中有一段文本没有闭合的引号" if zh else "a text in it has no closing quote"
    return f"它不是有效的 JSON(第 {error.pos} 个字符处)" if zh else \
        f"it is not valid JSON (something is missing or out of place at character {error.pos})"
