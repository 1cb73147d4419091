"""What every stage of one turn needs, in one object."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from assistant.config import Settings
from assistant.events import Event
from assistant.models.base import ChatMessage, ChatRequest, Role
from assistant.trace import RecordingModel, Trace
from tools import PreviousTurn, Registry, ToolRunner

Emit = Callable[[Event], Awaitable[None] | None]


@dataclass
class TurnContext:
    settings: Settings
    model: RecordingModel
    registry: Registry
    runner: ToolRunner
    question: str
    history: list[ChatMessage]
    trace: Trace
    emit_to: Emit | None = None
    previous: PreviousTurn | None = None  # the session's last turn, for follow-ups
    pending: PreviousTurn | None = None  # a request waiting for the answer to a question asked back
    events: list[Event] = field(default_factory=list)

    async def emit(self, event: Event) -> None:
        self.events.append(event)
        if self.emit_to is not None:
            r = self.emit_to(event)
            if inspect.isawaitable(r):
                await r

    def model_name(self, role: Role) -> str:
        return self.settings.model_for(role)

    def request(self, role: Role, messages: list[ChatMessage], **more: Any) -> ChatRequest:
        """A model call for ``role`` with its model, decoding options and generation cap."""
        return ChatRequest(role=role, model=self.model_name(role), messages=messages, options=self.options(role),
                           max_tokens=self.settings.max_tokens_for(role), **more)

    def options(self, role: Role) -> dict[str, Any]:
        # Deterministic decoding for the stages whose output is a decision, not prose.
        opts: dict[str, Any] = {"num_ctx": self.settings.num_ctx}
        if role != "responder":
            opts["temperature"] = 0
        return opts
