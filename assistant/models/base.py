"""The interface every model backend implements, and the messages that cross it."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Literal, Protocol

from pydantic import BaseModel, Field

Role = Literal["router", "executor", "validator", "responder"]
DeltaSink = Callable[[str], Awaitable[None] | None]


class StopGeneration(Exception):
    """Raised by a :data:`DeltaSink` to end a stream early (a model repeating itself); the backend stops
    generating and returns what it has, with ``done_reason="cut"``."""


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] | None = None
    tool_name: str | None = None

    def to_ollama(self) -> dict[str, Any]:
        m: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            m["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in self.tool_calls]
        if self.tool_name:
            m["tool_name"] = self.tool_name
        return m


class ChatRequest(BaseModel):
    """One model call. ``format`` (a JSON schema) and ``tools`` are never sent together."""

    role: Role
    model: str
    messages: list[ChatMessage]
    format: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    max_tokens: int | None = None  # the role's generation cap
    stream: bool = False


class Metrics(BaseModel):
    """Ollama's own counters (durations in nanoseconds), from the final chunk of a reply."""

    total_duration: int | None = None
    load_duration: int | None = None
    prompt_eval_count: int | None = None
    prompt_eval_duration: int | None = None
    eval_count: int | None = None
    eval_duration: int | None = None


class ChatReply(BaseModel):
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    done_reason: str | None = None  # "stop", "length" (the cap), "cut" (stopped early), "unreadable"
    problem: str | None = None  # why the reply was cut or could not be read
    metrics: Metrics = Field(default_factory=Metrics)
    transport_retries: int = 0
    model: str | None = None  # the model that actually answered, when the backend chose it (embedded)


class ModelBackend(Protocol):
    """What the pipeline needs from a model server."""

    @property
    def name(self) -> str: ...

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatReply:
        """Run one call; with ``on_delta``, stream the text to it as it is generated."""
        ...

    async def capabilities(self, model: str) -> frozenset[str]:
        """What the model can do (``completion``, ``tools``, …)."""
        ...

    async def aclose(self) -> None: ...
