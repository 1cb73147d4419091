"""The daemon's wire protocol, in one light module (no pydantic: the thin ``ask`` imports it). A question goes in
as one :class:`TurnRequest` (``POST /v1/ask``, checked by the server's ``AskBody``); the turn streams back as
NDJSON, one event per line, each shaped as its model in :mod:`assistant.pipeline.events`; a client follows it with
:class:`Follower` to one :class:`TurnOutcome`, the shape of the turn's result in-process (a test holds each of
these to its model). The server writes lines with :func:`line`; every client (``ask``, the chat, the popup, through
:class:`assistant.frontends.client.Turn`) reads them with :func:`events`; progress lines and the popup name a stage
with :func:`stage_label`."""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Literal, TypedDict

from assistant.errors import AssistantError, from_failure

EventType = Literal["turn_started", "stage_started", "route_decided", "tool_call_proposed", "tool_result", "validation",
                    "retry_stopped", "thinking", "answer_delta", "answer_check", "step_done", "turn_done", "turn_failed"]


class TurnRequest(TypedDict, total=False):
    """One question for the daemon. Per-turn choices (-m, -o, --max-retries, a template, the chat's /model) travel
    in ``settings``, by the settings' own names, checked by the settings' own rules; ``env`` is the client's
    OLLAMA_HOST and ASSISTANT_* variables, by which the daemon tells whether it can answer with the client's settings
    at all. A key left out (or None) is the daemon's default."""

    question: str
    session_id: str | None  # a whole id, or "last"
    settings: dict[str, str | int | float | bool | None] | None
    env: dict[str, str] | None
    one_shot: Literal["ask"] | None  # a question on its own, filed under the rolling session of `ask`
    log: bool | None  # False: store nothing
    system: str | None  # the user's instructions for this answer
    quoted: bool | None  # the question carries attached, piped or selected text: quoted material, never a request


class TurnStarted(TypedDict):
    type: Literal["turn_started"]
    turn_id: str
    session_id: str
    question: str


class StageStarted(TypedDict):
    type: Literal["stage_started"]
    step: int | None
    stage: Literal["router", "executor", "tool", "validator", "responder"]
    attempt: int
    of: int
    detail: str


class ToolResult(TypedDict):
    type: Literal["tool_result"]
    attempt: int
    name: str
    args: dict[str, Any]
    ok: bool
    result: dict[str, Any] | None
    error: str | None


class AnswerDelta(TypedDict):
    type: Literal["answer_delta"]
    text: str


class TurnDone(TypedDict):
    type: Literal["turn_done"]
    turn_id: str
    ok: bool
    answer: str
    route: str | None
    attempts: int
    model_calls: int
    error: str | None
    replaced: str | None
    steps: list[dict[str, Any]]
    model: str | None
    cut: Literal["length", "repeats"] | None
    declined: Literal["out_of_reach", "refused", "asked_back", "too_small", "language"] | None


class TurnFailed(TypedDict):
    type: Literal["turn_failed"]
    turn_id: str | None
    message: str
    hint: str
    exit_code: int


class TurnOutcome(TypedDict):
    """What a turn came to, as a client builds it from the stream: the fields of the in-process result
    (``TurnResult``), so every record of a turn (``ask --json``, a batch record, a stored row) is one projection of it
    whichever side answered."""

    turn_id: str
    session_id: str
    ok: bool
    answer: str
    route: str | None
    route_by: str | None
    attempts: int
    model_calls: int
    tool_calls: list[dict[str, Any]]
    error: str | None
    replaced: str | None
    steps: list[dict[str, Any]]
    model: str | None
    cut: Literal["length", "repeats"] | None
    declined: Literal["out_of_reach", "refused", "asked_back", "too_small", "language"] | None


# A stream that ends without its last event (the daemon stopped, or its connection broke, while answering).
ENDED_EARLY = "the daemon ended the answer early (it stopped, or the connection broke)."
ASK_AGAIN = "Ask again (`assistant daemon status` says whether it runs; its log, why it stopped), or use --no-daemon."

# The keys of a tool call as `ask --json` and a turn's result report it.
TOOL_CALL_KEYS = ("name", "args", "ok", "result", "error")
STAGE_LABELS = {"router": "routing…", "validator": "checking…", "responder": "answering…"}


def line(event_json: bytes) -> bytes:
    """One event on the wire (the server's side)."""
    return event_json + b"\n"


def events(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """The events of a stream, one per non-blank line."""
    for raw in lines:
        if raw.strip():
            yield json.loads(raw)


def stage_label(event: dict[str, Any]) -> str | None:
    """What a status line says while this event's stage runs (``calculator try 2/4…``), or None for an event that
    starts none."""
    kind = event.get("type")
    if kind == "thinking":
        return "thinking…"
    if kind != "stage_started":
        return None
    if event["stage"] in ("executor", "tool"):
        label = event.get("detail") or "tool"
        return f"{label} try {event['attempt']}/{event['of']}…" if event.get("attempt", 0) > 1 else f"{label}…"
    return STAGE_LABELS.get(event["stage"], "working…")


class Follower:
    """Follows one turn's events as a client reads them: a ``turn_failed`` becomes its error (with its exit code);
    what the turn came to is kept (its session, how it was routed, its tool calls, its last event)."""

    def __init__(self, session_id: str | None = None) -> None:
        self.session_id = session_id or ""
        self.route_by: str | None = None
        self.tool_calls: list[dict[str, Any]] = []
        self.done: dict[str, Any] | None = None

    def see(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "turn_failed":
            raise from_failure(event)
        if kind == "turn_started":
            self.session_id = event["session_id"]
        elif kind == "route_decided":
            self.route_by = event.get("by")
        elif kind == "tool_result":
            self.tool_calls.append({k: event.get(k) for k in TOOL_CALL_KEYS})
        elif kind == "turn_done":
            self.done = event

    def outcome(self) -> TurnOutcome:
        """What the turn came to, from its last event and what came before it; a stream that ended without a last
        event is an error."""
        done = self.done
        if done is None:
            raise AssistantError(ENDED_EARLY, ASK_AGAIN)
        return TurnOutcome(turn_id=done.get("turn_id") or "", session_id=self.session_id, ok=bool(done.get("ok")),
                           answer=done.get("answer") or "",
                           route=done.get("route"), route_by=self.route_by, attempts=done.get("attempts") or 0,
                           model_calls=done.get("model_calls") or 0, tool_calls=self.tool_calls,
                           error=done.get("error"), replaced=done.get("replaced"), steps=done.get("steps") or [],
                           model=done.get("model"), cut=done.get("cut"), declined=done.get("declined"))
