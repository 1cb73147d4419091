"""How a turn's trace is kept lean on disk, and read back whole.

A model call's request repeats what every call of its kind sends (the system prompt, the tools offered: 4 KB of a
4.4 KB request): those parts are kept once in ``shared_texts`` by their hash and named from the request
(``{"$shared": HASH}``). A turn's events are kept as one compressed row, without their empty fields, the pieces of a
streamed answer as one piece. Reading a turn back gives what was sent (:func:`whole_request`) and what was
emitted, as kept (:func:`kept_events`; the pipeline's event types fill in the empty fields)."""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any, Callable

SHARED = "$shared"
MIN_SHARED = 256  # characters: shorter texts are kept where they are (a reference would not save much)


def _ref(text: str, keep: Callable[[str, str], None]) -> dict[str, str]:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    keep(digest, text)
    return {SHARED: digest}


def lean_request(request: dict[str, Any], keep: Callable[[str, str], None]) -> dict[str, Any]:
    """``request`` (a model call's, as JSON data) with its system messages' text and its tools replaced by references;
    ``keep(hash, text)`` stores each referenced text."""
    out = dict(request)
    messages = out.get("messages")
    if isinstance(messages, list):
        out["messages"] = [
            {**m, "content": _ref(m["content"], keep)}
            if isinstance(m, dict) and m.get("role") == "system" and isinstance(m.get("content"), str)
            and len(m["content"]) >= MIN_SHARED else m
            for m in messages]
    tools = out.get("tools")
    if isinstance(tools, list) and tools:
        text = json.dumps(tools, ensure_ascii=False, sort_keys=True)
        if len(text) >= MIN_SHARED:
            out["tools"] = _ref(text, keep)
    return out


def whole_request(text: str, shared: Callable[[str], str | None]) -> str:
    """A stored request (JSON text) with its references filled in again (``shared(hash)``: the text, or ``None``
    when it is gone: then the reference stays, and says so)."""
    if SHARED not in text:
        return text
    try:
        request = json.loads(text)
    except ValueError:
        return text

    def filled(ref: Any, as_json: bool) -> Any:
        if not (isinstance(ref, dict) and set(ref) == {SHARED}):
            return ref
        found = shared(str(ref[SHARED]))
        if found is None:
            return f"(shared text {ref[SHARED]} no longer stored)"
        return json.loads(found) if as_json else found

    for m in request.get("messages") or []:
        if isinstance(m, dict):
            m["content"] = filled(m.get("content"), False)
    if "tools" in request:
        request["tools"] = filled(request["tools"], True)
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"))


def lean_events(events: list[Any]) -> bytes:
    """A turn's events as kept: one compressed JSON array, consecutive answer pieces of one step as one, empty
    fields left out."""
    out: list[dict[str, Any]] = []
    for e in events:
        data = e.model_dump(mode="json", exclude_none=True)
        last = out[-1] if out else None
        if data.get("type") == "answer_delta" and last is not None and last.get("type") == "answer_delta" \
                and last.get("step") == data.get("step"):
            last["text"] = last.get("text", "") + data.get("text", "")
            continue
        out.append(data)
    return zlib.compress(json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)


def kept_events(stored: bytes | str) -> list[dict[str, Any]]:
    """A turn's events as kept (their empty fields left out): what :func:`lean_events` wrote. Filling those fields in
    again takes the event types, which are the pipeline's (``assistant.pipeline.events.whole``)."""
    text = zlib.decompress(stored).decode("utf-8") if isinstance(stored, bytes) else stored
    events = json.loads(text)
    return events if isinstance(events, list) else []


def insert_trace(db: Any, turn_id: str, model_calls: list[Any], tool_calls: list[Any], events: list[Any]) -> None:
    """A turn's model calls (each request lean: its long shared parts kept once in ``shared_texts``), tool calls and
    events, written in the transaction the store holds open for the turn."""
    shared: dict[str, str] = {}
    for seq, c in enumerate(model_calls):
        u = c.reply.usage if c.reply else None
        db.execute(
            "INSERT INTO model_calls (turn_id, seq, role, model, backend, request, reply, error, prompt_tokens, "
            "output_tokens, prompt_eval_ns, eval_ns, load_ns, total_ns, transport_retries, context_full, wall_ms, "
            "started_at, cached_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (turn_id, seq, c.role, c.model, c.backend,
             json.dumps(lean_request(c.request.model_dump(mode="json"), shared.__setitem__),
                        ensure_ascii=False, separators=(",", ":")),
             c.reply.model_dump_json() if c.reply else None, c.error,
             u.input_tokens if u else None, u.output_tokens if u else None,
             u.prompt_ns if u else None, u.generation_ns if u else None,
             u.load_ns if u else None, u.total_ns if u else None,
             c.reply.transport_retries if c.reply else 0, int(c.context_full), c.wall_ms, c.started_at,
             u.cached_tokens if u else None),
        )
    for seq, t in enumerate(tool_calls):
        db.execute(
            "INSERT INTO tool_calls (turn_id, seq, attempt, name, args, ok, result, error, duration_ms, started_at, "
            "refusals, step) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (turn_id, seq, t.attempt, t.name, json.dumps(t.args, ensure_ascii=False), int(t.ok),
             json.dumps(t.result, ensure_ascii=False) if t.result is not None else None, t.error,
             t.duration_ms, t.started_at, json.dumps(t.refusals, ensure_ascii=False), t.step),
        )
    if shared:
        db.executemany("INSERT OR IGNORE INTO shared_texts (hash, text) VALUES (?, ?)", shared.items())
    if events:
        db.execute("INSERT INTO turn_events (turn_id, data) VALUES (?, ?)", (turn_id, lean_events(events)))
