"""Typed events a turn emits. The CLI shows them as progress, the store records them, and later
front ends (daemon, popup) stream them: one pipeline, many front ends."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from assistant.trace import ToolCallRecord

R = TypeVar("R", bound=BaseModel)
Stage = Literal["router", "executor", "tool", "validator", "responder"]


class TurnStarted(BaseModel):
    type: Literal["turn_started"] = "turn_started"
    turn_id: str
    session_id: str
    question: str


class StageStarted(BaseModel):
    type: Literal["stage_started"] = "stage_started"
    step: int | None = None  # the plan step (None: a one-step turn)
    stage: Stage
    attempt: int = 0
    of: int = 0
    detail: str = ""


class RouteDecided(BaseModel):
    type: Literal["route_decided"] = "route_decided"
    route: str
    by: Literal["rule", "model", "default", "check"]
    reason: str
    steps: list["PlannedStep"] = []  # a question with several requests: its plan


class PlannedStep(BaseModel):
    index: int
    route: str
    request: str
    after: int | None = None  # the step whose result it needs


class ToolCallProposed(BaseModel):
    type: Literal["tool_call_proposed"] = "tool_call_proposed"
    step: int | None = None  # the plan step (None: a one-step turn)
    attempt: int
    name: str
    args: dict[str, Any]
    recovered_from_text: bool = False


class ToolResultEvent(ToolCallRecord):
    """A tool call finished: the same record the trace keeps."""

    type: Literal["tool_result"] = "tool_result"


class ValidationDone(BaseModel):
    type: Literal["validation"] = "validation"
    step: int | None = None  # the plan step (None: a one-step turn)
    attempt: int
    verdict: Literal["PASS", "FAIL"]
    reason: str
    by: Literal["check", "model", "default"]


class RetryStopped(BaseModel):
    type: Literal["retry_stopped"] = "retry_stopped"
    step: int | None = None  # the plan step (None: a one-step turn)
    attempt: int
    reason: str


class Thinking(BaseModel):
    """A thinking model began to think before it answers (front ends show "thinking…"; the text stays in the trace)."""

    type: Literal["thinking"] = "thinking"
    stage: Stage = "responder"


class AnswerDelta(BaseModel):
    type: Literal["answer_delta"] = "answer_delta"
    text: str


class AnswerChecked(BaseModel):
    """The answer check (third gate) judged a written answer."""

    type: Literal["answer_check"] = "answer_check"
    attempt: int
    verdict: Literal["PASS", "FAIL"]
    reason: str


class StepDone(BaseModel):
    """One step of a plan finished (passed its checks, or failed)."""

    type: Literal["step_done"] = "step_done"
    step: int
    route: str
    ok: bool
    error: str | None = None


# How an answer that was shown stopped short (said in its last line too): at the generation cap, or where it began
# to repeat itself.
Cut = Literal["length", "repeats"]
# A turn that gave no answer on purpose (``ok`` false, exit 1): an action no tool here performs, a request for the
# assistant's instructions, a question back for a missing detail, a question past what the model may answer, a
# language the model does not write.
Declined = Literal["out_of_reach", "refused", "asked_back", "too_small", "language"]


class TurnDone(BaseModel):
    type: Literal["turn_done"] = "turn_done"
    turn_id: str
    ok: bool
    answer: str
    route: str | None
    attempts: int
    model_calls: int
    error: str | None = None
    replaced: str | None = None  # why the model's answer was replaced by the tool's own rendering
    steps: list[dict[str, Any]] = []  # a question with several requests: {route, request, ok, error, tool_calls} each
    model: str | None = None  # the model in use, by the name the user gave it (None: rules alone answered)
    cut: Cut | None = None
    declined: Declined | None = None


class TurnFailed(BaseModel):
    """The turn ended without an answer: the model server failed, or a bug. The same shape everywhere the turn
    is streamed; :func:`assistant.errors.from_failure` turns it back into the error."""

    type: Literal["turn_failed"] = "turn_failed"
    turn_id: str | None = None
    message: str
    hint: str = ""
    exit_code: int = 1


# What a turn comes to: what ``Assistant.ask`` returns in-process, and what a daemon client builds from the stream.

class ToolCallSummary(BaseModel):
    name: str
    args: dict
    ok: bool
    result: dict | None = None
    error: str | None = None


class StepSummary(BaseModel):
    """One request of a question that held several."""

    route: str
    request: str
    ok: bool
    error: str | None = None
    tool_calls: list[ToolCallSummary] = []


class TurnResult(BaseModel):
    turn_id: str
    session_id: str
    ok: bool
    answer: str
    route: str | None = None
    route_by: Literal["rule", "model", "default", "check"] | None = None
    attempts: int = 0
    model_calls: int = 0
    tool_calls: list[ToolCallSummary] = []
    error: str | None = None
    replaced: str | None = None  # why the model's answer was replaced by the tool's own rendering
    steps: list[StepSummary] = []  # a question with several requests: each one (empty for a one-step turn)
    model: str | None = None  # the model in use, by the name the user gave it (a GGUF's file stem); None: no model
    # was asked or judged (a rule answered)
    cut: Cut | None = None  # the answer stopped before its end: at the length limit, or where it began to repeat
    declined: Declined | None = None  # no answer was given, and why: ``ok`` is false (a script tells it by this)

    def projected(self, record: type[R], **own: Any) -> R:
        """This result as another record of the turn holds it (the ``turn_done`` event, the stored row, a batch
        record): the fields they share, by name, with what only that record has (``own``, which wins)."""
        shared = self.model_dump(include=set(record.model_fields) - set(own))
        return record.model_validate({**shared, **own})


Event = Annotated[
    Union[
        TurnStarted, StageStarted, RouteDecided, ToolCallProposed, ToolResultEvent,
        ValidationDone, RetryStopped, Thinking, AnswerDelta, AnswerChecked, StepDone, TurnDone, TurnFailed,
    ],
    Field(discriminator="type"),
]
RouteDecided.model_rebuild()
EventAdapter: TypeAdapter[Event] = TypeAdapter(Event)


def whole(kept: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stored turn's events (as the store keeps them, their empty fields left out) as the trace reads them: each
    with those fields filled in again from its type's own defaults; an event of a type this version does not know
    is given as it was stored."""
    out = []
    for data in kept:
        try:
            out.append(EventAdapter.validate_python(data).model_dump(mode="json"))
        except ValidationError:
            out.append(data)
    return out
