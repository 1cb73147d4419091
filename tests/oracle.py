"""A responder that answers as a good model would: from the tool results in its request, with their figures,
in the request's language. Scripts use it where a test is about something other than the answer's wording."""

from __future__ import annotations

import json
import re
from typing import Any

from fake_ollama import Reply

_CJK = re.compile(r"[\u3400-\u9fff]")


def _task(request: dict[str, Any]) -> str:
    for m in reversed(request["messages"]):
        if m["role"] == "user" and "Tool results:" in (m.get("content") or ""):
            return m["content"]
    raise LookupError("not a responder request with tool results")


def results_of(request: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(the question, the tool results) of a responder request."""
    task = _task(request)
    question, _, results = task.partition("\n\nTool results:\n")
    return question.strip(), json.loads(results)


def written_answer(question: str, results: list[dict[str, Any]]) -> str:
    zh = bool(_CJK.search(question))
    parts = []
    for r in results:
        data, args = r["result"] or {}, r["arguments"]
        if r["tool"] == "weather":
            place = args["place"]
            parts.append(f"{place}现在{data['temperature']},{data['conditions']}。" if zh
                         else f"In {place} it is {data['temperature']} now, {data['conditions']}.")
        elif "value" in data:
            parts.append(f"结果是 {data['value']}。" if zh else f"The result is {data['value']}.")
        else:
            parts.append(json.dumps(data, ensure_ascii=False))
    return "".join(parts) if zh else " ".join(parts)


def grounded(request: dict[str, Any]) -> Reply:
    """A scripted responder reply built from the request's own tool results."""
    question, results = results_of(request)
    return Reply(content=written_answer(question, results))
