"""What every stage of one turn needs, in one object."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from assistant.config import Settings
from assistant.pipeline.events import Event
from assistant.models.base import CallSettings, ChatMessage, ChatRequest, Role
from assistant.pipeline.answerer import Answerer
from assistant.trace import RecordingModel, Trace
from tools import PreviousTurn, Registry, ToolRunner

Emit = Callable[[Event], Awaitable[None] | None]


SMALL_TALK_TOKENS = 200  # the answer cap of a model trusted with small talk only, unless responder_max_tokens is set


@dataclass
class TurnContext:
    settings: Settings
    model: RecordingModel
    registry: Registry
    runner: ToolRunner
    question: str  # the request the stages answer: the user's words, or a pending request they complete
    history: list[ChatMessage]
    trace: Trace
    emit_to: Emit | None = None
    previous: PreviousTurn | None = None  # the session's last turn, for follow-ups
    pending: PreviousTurn | None = None  # a request waiting for the answer to a question asked back
    events: list[Event] = field(default_factory=list)
    said: str = ""  # the user's own words this turn, kept beside ``question``
    step: int | None = None  # the plan step these stages work on (stamped on the events they emit)
    log: bool = True  # False: nothing of this turn is stored (`--no-log`)
    images: list[bytes] | None = None  # pictures attached to the question, for a model with vision
    quoted: bool = False  # the question carries attached, piped or selected text: no rule reads it as a request
    who: Answerer | None = None  # which model answers this turn, and how far it is trusted (set as the turn opens)

    def __post_init__(self) -> None:
        self.said = self.said or self.question

    @property
    def answerer(self) -> Answerer:
        assert self.who is not None, "a turn's context is opened with its answerer"
        return self.who

    async def emit(self, event: Event) -> None:
        if self.step is not None and "step" in type(event).model_fields and getattr(event, "step", None) is None:
            event = event.model_copy(update={"step": self.step})
        self.events.append(event)
        if self.emit_to is not None:
            r = self.emit_to(event)
            if inspect.isawaitable(r):
                await r

    def model_name(self, role: Role) -> str:
        return self.settings.model_for(role)

    def request(self, role: Role, messages: list[ChatMessage], **more: Any) -> ChatRequest:
        """A model call for ``role`` with its model, decoding settings and generation cap."""
        return ChatRequest(role=role, model=self.model_name(role), messages=messages, settings=self.call_settings(role), **more)

    def call_settings(self, role: Role) -> CallSettings:
        # Deterministic decoding for the stages whose output is a decision, not prose; thinking as each role's
        # setting says (off by default: a thinking model would spend seconds on a one-word decision).
        decision = role != "responder"
        cap = self.settings.max_tokens_for(role)
        decided = self.who.decided if self.who is not None else None  # the trust, once the turn decided it
        if not decision and "responder_max_tokens" not in self.settings.model_fields_set and decided is not None \
                and decided[0].name == "SMALL_TALK":
            cap = SMALL_TALK_TOKENS  # a tiny model's small talk: a long one only rambles
        return CallSettings(temperature=0 if decision else self.settings.temperature,
                            top_p=None if decision else self.settings.top_p, max_tokens=cap,
                            context=self.settings.num_ctx, seed=self.settings.seed, think=self.settings.think_for(role))
