"""The interface every model backend implements, and the backend-neutral types that cross it: messages with
tool-call ids, typed per-call settings, a capability profile per model, and usage metrics. Each backend maps
these to and from its own wire format in its own module."""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable, Literal, Protocol

from pydantic import BaseModel, Field, field_serializer

Role = Literal["router", "executor", "validator", "responder"]
DeltaSink = Callable[[str], Awaitable[None] | None]


async def deliver(sink: DeltaSink | None, text: str) -> None:
    """Give ``text`` to a sink, awaiting it when it is async; nothing for no sink or no text."""
    if sink is not None and text:
        r = sink(text)
        if inspect.isawaitable(r):
            await r


class StopGeneration(Exception):
    """Raised by a :data:`DeltaSink` to end a stream early (a model repeating itself); the backend stops
    generating and returns what it has, with ``done_reason="cut"``."""


class ToolCall(BaseModel):
    id: str | None = None  # OpenAI-compatible servers require it on the tool message that answers the call
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] | None = None
    tool_name: str | None = None  # on a tool message: the tool that produced it
    tool_call_id: str | None = None  # on a tool message: the call it answers
    images: list[bytes] | None = None  # pictures for a model with vision (PNG, JPEG, GIF, WebP), as their files hold them

    @field_serializer("images")
    def _images(self, images: list[bytes] | None) -> list[str] | None:
        """In a trace or a store: what was sent, not the megabytes (the files are the user's to keep)."""
        return None if images is None else [f"(an image of {len(b):,} bytes)" for b in images]


class CallSettings(BaseModel):
    """How one call decodes; each backend maps these to its own options."""

    temperature: float | None = None  # None: the model's default
    max_tokens: int | None = None  # the role's generation cap
    context: int | None = None  # the context window to ask for (Ollama's default is small and truncates silently)
    seed: int | None = None
    top_p: float | None = None
    think: bool | None = None  # thinking models: False for decisions, None to leave the model's default


class ChatRequest(BaseModel):
    """One model call. ``format`` (a JSON schema) and ``tools`` are never sent together."""

    role: Role
    model: str
    messages: list[ChatMessage]
    format: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None  # JSON-schema function descriptions: {"type": "function", "function": …}
    settings: CallSettings = Field(default_factory=CallSettings)
    stream: bool = False


class ModelProfile(BaseModel):
    """What the model in use is: one typed description that every backend fills for the model it would answer with
    (PydanticAI's model profile), read by the turn instead of asking a backend for loose attributes. A new backend
    fills all of it (``tests/models/test_profile.py`` holds every backend to that)."""

    label: str  # the model as the user named it: the configured name, a pulled model's, a GGUF file's stem
    backend: str  # "ollama", "openai", "embedded", ...
    built_in: bool = False  # the built-in tiny model: it answers small talk, and writes no answer from tool results
    languages: frozenset[str] | None = None  # the languages its answers can be in, when fewer than all
    parameters: float | None = None  # its size
    parameters_from: Literal["server", "file", "name", ""] = ""  # where that figure came from ("": nowhere)
    tools: bool = False  # native tool calls
    structured_output: bool = True  # output constrained to a JSON schema
    thinking: bool = False
    vision: bool = False  # it takes images (Ollama's 'vision' capability)

    @property
    def size_said(self) -> str:
        """Where its size came from, in the words doctor shows."""
        return {"server": "as the server reports it", "file": "as its GGUF header says",
                "name": "as its name says"}.get(self.parameters_from, "")


class Usage(BaseModel):
    """What a call cost, in neutral units (tokens; durations in nanoseconds), where the backend reports it."""

    input_tokens: int | None = None
    cached_tokens: int | None = None  # of the input, taken from the server's prefix cache (not evaluated again)
    output_tokens: int | None = None
    load_ns: int | None = None
    prompt_ns: int | None = None
    generation_ns: int | None = None
    total_ns: int | None = None


class ChatReply(BaseModel):
    content: str = ""
    thinking: str = ""  # a thinking model's reasoning: kept in the trace, never shown or parsed
    tool_calls: list[ToolCall] = Field(default_factory=list)
    done_reason: str | None = None  # "stop", "length" (the cap), "cut" (stopped early), "unreadable"
    problem: str | None = None  # why the reply was cut or could not be read
    usage: Usage = Field(default_factory=Usage)
    transport_retries: int = 0
    model: str | None = None  # the model that actually answered, when the backend chose it (embedded)
    notes: list[str] = Field(default_factory=list)  # what the backend adapted to this server (kept in the trace)


class ModelBackend(Protocol):
    """What the pipeline needs from a model server."""

    @property
    def name(self) -> str: ...

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        """Run one call; with ``on_delta``, stream the text to it as it is generated, and the thinking of a
        thinking model to ``on_thinking`` (never to ``on_delta``)."""
        ...

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        """What the model that answers for the configured ``model`` is (:class:`ModelProfile`). ``ask=False``: only
        what is known without asking its server (the label, built-in or not, its languages, the size its file or
        its name says), for a header or a decline that must not wait for a server or import its client."""
        ...

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s tokens by the model's own tokenizer, where the backend offers one; else ``None``."""
        ...

    async def aclose(self) -> None: ...


class Wrapping:
    """A backend around another (PydanticAI's ``WrapperModel``): what a wrapper does not change is the inner
    backend's, so a wrapper says only what it adds (it overrides :meth:`chat`)."""

    def __init__(self, inner: ModelBackend) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name  # a selecting backend knows its name only after the first call

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        return await self.inner.chat(request, on_delta, on_thinking)

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        return await self.inner.profile(model, ask)

    async def count_tokens(self, text: str) -> int | None:
        return await self.inner.count_tokens(text)

    async def aclose(self) -> None:
        await self.inner.aclose()
