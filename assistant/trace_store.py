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
