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
        if r["tool"] == "weather" and "days" in data:
            place, hours = args["place"], data.get("hours")
            if data.get("now"):
                parts.append(f"{place}现在{data['now']['temperature']},{data['now']['conditions']}。" if zh
                             else f"In {place} it is {data['now']['temperature']} now, {data['now']['conditions']}.")
            if hours:
                parts.append(f"{place}{hours['from']}到{hours['to']}气温{hours['temperature_low']}到{hours['temperature_high']},"
                             f"{hours['conditions']}。" if zh else f"In {place} from {hours['from']} to {hours['to']}: "
                             f"{hours['temperature_low']} to {hours['temperature_high']}, {hours['conditions']}.")
            for day in [] if hours else data["days"]:
                parts.append(f"{place}{day['day']}{day['conditions']},最低{day['low']},最高{day['high']}。" if zh
                             else f"In {place} {day['day']}: {day['conditions']}, low {day['low']}, high {day['high']}.")
        elif r["tool"] == "weather":
            place = args["place"]
            parts.append(f"{place}现在{data['temperature']},{data['conditions']}。" if zh
                         else f"In {place} it is {data['temperature']} now, {data['conditions']}.")
        elif r["tool"] == "units":
            value = f"{args['value']:g}"
            parts.append(f"{value}{args['from_unit']}等于{data['shown']}{args['to_unit']}。" if zh
                         else f"{value} {args['from_unit']} is {data['shown']} {args['to_unit']}.")
        elif r["tool"] == "clock":
            zh_days, en_days = "一二三四五六日", ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
            said = [data["time"]] if "time" in data else []
            said += [f"{abs(data['hours']):g}{'小时' if zh else ' hours'}"] if "hours" in data else []
            said += [f"{data['days']}{'天' if zh else ' days'}"] if "days" in data else []
            if "weekday" in data and args.get("ask") in ("weekday", "date"):
                said.append(f"星期{zh_days[data['weekday']]}" if zh else en_days[data["weekday"]])
            parts.append(("答案:" if zh else "The answer: ") + ("，".join(said) if zh else ", ".join(said)) + ("。" if zh else "."))
        elif "value" in data:
            parts.append(f"结果是 {data['value']}。" if zh else f"The result is {data['value']}.")
        else:
            parts.append(json.dumps(data, ensure_ascii=False))
    return "".join(parts) if zh else " ".join(parts)


def grounded(request: dict[str, Any]) -> Reply:
    """A scripted responder reply built from the request's own tool results."""
    question, results = results_of(request)
    return Reply(content=written_answer(question, results))


def _zh(text: str) -> bool:
    return bool(_CJK.search(text))


class Oracle:
    """Every stage answered as a correct model would, for a known set of questions: the expected route, the
    expected arguments, PASS, and an answer built from the tool results (or a plain chat answer, or a question
    back) in the question's language. ``cases``: dicts with ``question``, ``route`` and ``args``."""

    def __init__(self, cases: list[dict[str, Any]], weak: bool = False) -> None:
        self.by_question = {c["question"]: c for c in cases}
        self.weak = weak  # answer conversation as a weak model would: the case's bad answer

    def case(self, request: dict[str, Any]) -> dict[str, Any]:
        for m in reversed(request["messages"]):
            if m["role"] != "user":
                continue
            content = m.get("content") or ""
            first = content.split("\n")[0]
            for candidate in (content, content.split("\n\nTool results:")[0].strip(), first, first.removeprefix("User request: ")):
                if candidate in self.by_question:
                    return self.by_question[candidate]
        raise LookupError("the oracle does not know this question")

    def __call__(self, request: dict[str, Any]) -> Reply:
        from fake_ollama import kind_of

        case, kind = self.case(request), kind_of(request)
        if kind == "router":
            return Reply(content=json.dumps({"route": case["route"]}))
        if kind == "executor" or (kind == "decide" and case["route"] not in ("chat", "clarify") and case["args"]):
            # a capable model offered every tool calls the right one at once (the deciding call)
            calls = [{"name": case["route"], "arguments": a} for a in case["args"] or []]
            if request.get("tools"):
                return Reply(tool_calls=calls)
            return Reply(content=json.dumps(calls[0]["arguments"] if calls else {}, ensure_ascii=False))
        if kind == "validator":
            return Reply(content='{"verdict": "PASS", "reason": "the arguments fit the request"}')
        try:
            if self.weak and case["expect"].get("bad"):
                _task(request)  # a weak model's answer from tool results (tool-sentence cases)
                return Reply(content=case["expect"]["bad"])
            return grounded(request)
        except LookupError:
            pass
        zh = _zh(case["question"])
        written = case["expect"].get("bad" if self.weak else "good")
        if written:
            return Reply(content=written)
        if case["route"] == "clarify":
            return Reply(content="请问您说的是哪个城市?" if zh else "Which city do you mean?")
        return Reply(content="这是一个简短的回答。" if zh else "Here is a short answer to that.")


def answered(request: Any) -> str:
    """The in-process model's answer from the tool results in its (neutral) request, as a good model writes it."""
    for m in reversed(request.messages):
        if m.role == "user" and "Tool results:" in m.content:
            question, _, results = m.content.partition("\n\nTool results:\n")
            return written_answer(question.strip(), json.loads(results))
    raise LookupError("not a responder request with tool results")
