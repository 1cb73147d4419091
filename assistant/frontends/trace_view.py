"""One stored turn as a tree: the route and why, every model call (role, model, tokens, Ollama's own
durations, wall time), every tool call (arguments, result or error, duration, sandbox refusals),
the validator's verdicts and the feedback they sent, and the retries."""

from __future__ import annotations

import json
from typing import Any

from assistant.control import without_controls
from assistant.pipeline import events as turn_events


def _ms(ns: int | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:.0f} ms"


def _short(value: Any, limit: int = 100) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _model_line(c: dict[str, Any]) -> str:
    parts = [f"{c['role']} model call: {c['model']}",
             f"tokens in {c['prompt_tokens'] if c['prompt_tokens'] is not None else '-'}"
             + (f" ({c['cached_tokens']} cached)" if c.get("cached_tokens") else "") +
             f" / out {c['output_tokens'] if c['output_tokens'] is not None else '-'}",
             f"prompt {_ms(c['prompt_eval_ns'])}, eval {_ms(c['eval_ns'])}",
             f"wall {c['wall_ms']:.0f} ms"]
    if c.get("load_ns") and c["load_ns"] > 1e8:
        parts.append(f"load {_ms(c['load_ns'])}")
    reply = c.get("reply")
    thinking = (json.loads(reply) if isinstance(reply, str) else reply or {}).get("thinking")
    if thinking:
        parts.append(f"thought {len(thinking)} characters (kept in --json)")
    if c.get("transport_retries"):
        parts.append(f"{c['transport_retries']} transport retries")
    if c.get("context_full"):
        parts.append("CONTEXT FULL: the prompt may have been cut")
    if c.get("error"):
        parts.append(f"ERROR {c['error']}")
    return " · ".join(parts)


def _by_step(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with each plan step's together (steps run concurrently and interleave), placed where the
    step first appeared."""
    out: list[dict[str, Any]] = []
    groups: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        step = e["step"] if e["type"] == "step_done" else e.get("step")
        if step is None:
            out.append(e)
        elif step in groups:
            groups[step].append(e)
        else:
            groups[step] = [e]
            out.append({"type": "_group", "step": step})
    flat: list[dict[str, Any]] = []
    for e in out:
        flat.extend(groups[e["step"]] if e["type"] == "_group" else [e])
    return flat


class _Walk:
    """The trace's events read in order, each as its lines of the tree, with the model calls and tool calls they
    consumed: (depth, text)."""

    def __init__(self, turn: dict[str, Any]) -> None:
        self.calls = list(turn["model_calls"])
        self.tools = list(turn["tool_calls"])
        self.attempt = 0
        self.first_from = "the rule"
        self.planned: dict[int, dict[str, Any]] = {}

    def take(self, role: str, limit: int | None = None) -> list[str]:
        out: list[str] = []
        while self.calls and self.calls[0]["role"] == role and (limit is None or len(out) < limit):
            out.append(_model_line(self.calls.pop(0)))
        return out

    def step_line(self, step: int) -> tuple[int, str]:
        p = self.planned.get(step, {})
        after = f", on the result of step {p['after']}" if p.get("after") else ""
        return 0, f"step {step}: {p.get('route', '?')} «{_short(p.get('request', ''), 60)}»{after}"

    def event(self, e: dict[str, Any]) -> list[tuple[int, str]]:
        t, body = e["type"], []
        if t == "route_decided":
            body += [(0, line) for line in self.take("router")]
            body.append((0, f"route: {e['route']} (by {e['by']}: {e['reason']})"))
            self.planned = {p["index"]: p for p in e.get("steps") or []}
            # a model's route came with its calls (one call decided): the first attempt's arguments are the model's
            self.first_from = "the call that chose the route" if e["by"] == "model" and not self.planned else "the rule"
        elif t == "stage_started" and e["stage"] == "executor":
            self.attempt = e["attempt"]
            body.append((0, f"attempt {self.attempt}/{e['of']}"))
            # one call per attempt (a check that rejects it asks no validator)
            body += [(1, line) for line in self.take("executor", 1)]
        elif t == "tool_call_proposed":
            if e["attempt"] != self.attempt:
                self.attempt = e["attempt"]
                body.append((0, f"attempt {self.attempt} (arguments from {self.first_from})"))
            note = " (recovered from text)" if e.get("recovered_from_text") else ""
            body.append((1, f"proposed {e['name']}({_short(e['args'])}){note}"))
        elif t == "tool_result":
            record = self.tools.pop(0) if self.tools else {}
            outcome = f"ok {_short(e['result'])}" if e["ok"] else f"error: {_short(e['error'], 160)}"
            body.append((1, f"tool {e['name']}({_short(e['args'])}) → {outcome} · {e['duration_ms']:.0f} ms"))
            body += [(2, f"sandbox refused: {r}") for r in e.get("refusals") or json.loads(record.get("refusals") or "[]")]
        elif t == "validation":
            body += [(1, line) for line in (self.take("validator", 1) if e["by"] != "check" else [])]
            tail = "" if e["verdict"] == "PASS" else " → sent back to the executor as feedback"
            body.append((1, f"validation {e['verdict']} (by {e['by']}): {_short(e['reason'], 200)}{tail}"))
        elif t == "retry_stopped":
            body.append((1, f"stopped early: {e['reason']}"))
        elif t == "answer_check":
            body += self.answer_check(e)
        elif t == "turn_done" and e.get("replaced"):
            on_tool = (e.get("route") or "chat") not in ("chat", "clarify")
            body.append((0, "the tool's own rendering shown after what passed the check" if on_tool and e["ok"] else
                            "the model's answer stopped at what passed the check" if e["ok"] else
                            "no model was asked: an honest answer instead" if not e.get("model_calls") else
                            "nothing the model wrote could be shown: an honest answer instead"))
        elif t == "step_done":
            body.append((0, f"step {e['step']} " + ("passed" if e["ok"] else f"failed: {_short(e.get('error') or '', 160)}")))
        return body

    def answer_check(self, e: dict[str, Any]) -> list[tuple[int, str]]:
        body = [(0, _model_line(self.calls.pop(0)))] if self.calls and self.calls[0]["role"] == "responder" else []
        if not e["attempt"]:  # decided before any answer was written: nothing failed, nothing was held back
            return body + [(1, f"no model was asked to write it: {_short(e['reason'], 200)}")]
        tail = "" if e["verdict"] == "PASS" else " → not shown"
        return body + [(1, f"answer check {e['verdict']} (try {e['attempt']}): {_short(e['reason'], 200)}{tail}")]


def render(turn: dict[str, Any]) -> str:
    """The tree as text."""
    status = "ok" if turn["ok"] else f"FAILED: {turn['error']}" if turn["error"] else "no answer"
    lines = [f"turn {turn['id']} · session {turn['session_id']} · {turn['started_at'][:19].replace('T', ' ')} · {status}",
             f"question: {turn['question']}"]
    walk = _Walk(turn)
    body: list[tuple[int, str]] = []  # (depth, text)
    current: int | None = None
    for e in _by_step(turn_events.whole(turn["events"])):
        step = e.get("step") if e["type"] != "step_done" else e["step"]
        if step != current:
            current, walk.attempt = step, 0
            if step is not None:
                body.append(walk.step_line(step))
        indent = 1 if current is not None else 0
        body += [(d + indent, text) for d, text in walk.event(e)]
    body += [(0, line) for line in walk.take("responder")]
    body += [(0, _model_line(c)) for c in walk.calls]  # anything left (a failed call before an error)
    summary = ", ".join(_count(n, what) for n, what in ((len(turn["model_calls"]), "model call"),
                                                           (len(turn["tool_calls"]), "tool call"), (turn["attempts"], "attempt")))
    body.append((0, summary))
    for i, (depth, text) in enumerate(body):
        # The last of its siblings when nothing at its depth follows before the tree climbs out (or ends).
        following = next((d for d, _ in body[i + 1:] if d <= depth), -1)
        lines.append("│  " * depth + ("└─ " if following < depth else "├─ ") + text)
    if turn["answer"] is not None:
        lines.append(f"answer: {turn['answer']}")
    return without_controls("\n".join(lines))  # tool results and stored text may carry ESC sequences


def as_json(turn: dict[str, Any]) -> str:
    """The stored turn as JSON, its stored JSON texts (requests, replies, arguments, results) as JSON again and its
    events whole; ``turn`` is left as it was."""
    data = dict(turn)
    data["events"] = turn_events.whole(turn["events"])
    data["model_calls"] = [{**c, "request": json.loads(c["request"]), "reply": json.loads(c["reply"]) if c["reply"] else None}
                           for c in turn["model_calls"]]
    data["tool_calls"] = [{**t, "args": json.loads(t["args"]), "result": json.loads(t["result"]) if t["result"] else None,
                           "refusals": json.loads(t.get("refusals") or "[]")} for t in turn["tool_calls"]]
    return json.dumps(data, ensure_ascii=False, indent=2)


def logs_text(rows: list[dict[str, Any]]) -> str:
    """Turns as Markdown: a heading line each, the question quoted, then the answer (or why there is none)."""
    out = []
    for r in rows:
        models = f" · {', '.join(r['models'])}" if r["models"] else ""
        out.append(f"## {r['started_at'][:19].replace('T', ' ')} · {r['id']} · {r['route'] or '-'}{models}\n")
        out.append("> " + r["question"].replace("\n", "\n> ") + "\n")
        out.append((r["answer"] if r["answer"] is not None else f"*(no answer: {r['error']})*") + "\n")
    return without_controls("\n".join(out).rstrip())  # questions and older answers may carry ESC sequences


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
