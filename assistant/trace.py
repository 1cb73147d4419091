"""Records of every model and tool call in a turn, and the wrapper that records model calls."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, Field

from assistant.models.base import ChatReply, ChatRequest, DeltaSink, ModelBackend, Wrapping


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class ModelCallRecord(BaseModel):
    role: str
    model: str
    backend: str
    request: ChatRequest
    reply: ChatReply | None = None
    error: str | None = None
    wall_ms: float
    started_at: str
    context_full: bool = False  # the prompt filled num_ctx: Ollama may have cut it silently


def _context_full(request: ChatRequest, reply: ChatReply) -> bool:
    context = request.settings.context
    used = reply.usage.input_tokens
    return bool(context and used and used >= 0.95 * context)


class ToolCallRecord(BaseModel):
    attempt: int
    name: str
    args: dict[str, Any]
    ok: bool
    result: dict[str, Any] | None = None
    error: str | None = None
    duration_ms: float
    started_at: str
    refusals: list[str] = Field(default_factory=list)  # what the sandbox refused during the call
    step: int | None = None  # the plan step it belongs to (None: a one-step turn)


class Trace(BaseModel):
    model_calls: list[ModelCallRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)


class RecordingModel(Wrapping):
    """Wraps any backend and appends a :class:`ModelCallRecord` to ``trace`` for every call, failed or not."""

    def __init__(self, inner: ModelBackend, trace: Trace) -> None:
        super().__init__(inner)
        self.trace = trace

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        started, t0 = now_iso(), time.perf_counter()
        try:
            reply = await self.inner.chat(request, on_delta, on_thinking)
        except BaseException as e:
            self.trace.model_calls.append(ModelCallRecord(
                role=request.role, model=request.model, backend=self.name, request=request,
                error=f"{type(e).__name__}: {e}", wall_ms=(time.perf_counter() - t0) * 1000, started_at=started,
            ))
            raise
        self.trace.model_calls.append(ModelCallRecord(
            role=request.role, model=reply.model or request.model, backend=self.name, request=request, reply=reply,
            wall_ms=(time.perf_counter() - t0) * 1000, started_at=started, context_full=_context_full(request, reply),
        ))
        return reply
