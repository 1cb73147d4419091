"""An in-process backend whose replies come from a function (as PydanticAI's ``FunctionModel``): pipeline logic
runs with no server at all. Tests script it per role; the wire-level fake Ollama stays for the backend's own
contract (streaming, errors, retries)."""

from __future__ import annotations

from typing import Any, Callable

from assistant.models.sizes import size_fields
from assistant.models.base import (
    ChatReply, ModelProfile, ChatRequest, DeltaSink, Role, StopGeneration, ToolCall, Usage, deliver,
)

Scripted = str | dict | ChatReply | Callable[[ChatRequest], "str | dict | ChatReply"]


def as_reply(item: Scripted, request: ChatRequest) -> ChatReply:
    """A scripted item as a reply: text, a dict (a JSON reply, or ``{"tool_calls": [...]}``), or a ChatReply."""
    import json

    if callable(item) and not isinstance(item, ChatReply):
        item = item(request)
    if isinstance(item, ChatReply):
        return item.model_copy(deep=True)
    if isinstance(item, dict):
        if "tool_calls" in item:
            return ChatReply(tool_calls=[ToolCall.model_validate(c) for c in item["tool_calls"]])
        return ChatReply(content=json.dumps(item, ensure_ascii=False))
    return ChatReply(content=str(item))


class FunctionBackend:
    """Replies from ``fn(request)``; streams them in pieces of ``chunk`` characters, honouring the generation cap
    (a piece is a token here) and :class:`StopGeneration`. Every request is kept in ``requests``."""

    name = "function"

    def __init__(self, fn: Callable[[ChatRequest], Scripted], profile: ModelProfile | None = None,
                 chunk: int = 4) -> None:
        self.fn = fn
        self.described = profile  # None: the configured model, with native tool calls
        self.chunk = chunk
        self.requests: list[ChatRequest] = []

    def roles(self) -> list[Role]:
        return [r.role for r in self.requests]

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        return self.described or ModelProfile(label=model, backend=self.name, tools=True,
                                              **size_fields(None, "server", model))

    async def count_tokens(self, text: str) -> int | None:
        return None

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        self.requests.append(request)
        reply = as_reply(self.fn(request), request)
        pieces = [reply.content[i:i + self.chunk] for i in range(0, len(reply.content), self.chunk)]
        cap = request.settings.max_tokens
        if cap and len(pieces) > cap:
            pieces, reply.done_reason = pieces[:cap], "length"
        reply.content = "".join(pieces)
        reply.done_reason = reply.done_reason or "stop"
        reply.usage = Usage(input_tokens=sum(len(m.content) for m in request.messages) // 4 or 1,
                            output_tokens=max(1, len(pieces)))
        await deliver(on_thinking, reply.thinking)
        if on_delta is not None:
            shown: list[str] = []
            try:
                for piece in pieces:
                    shown.append(piece)
                    await deliver(on_delta, piece)
            except StopGeneration as e:
                reply.content, reply.done_reason, reply.problem = "".join(shown), "cut", str(e) or "stopped"
        return reply

    async def aclose(self) -> None:
        pass


class RoleScript:
    """Replies per role, consumed in order; ``always`` answers a role once its queue is empty. Running out is
    an ``AssertionError`` naming the role (a test that asked for more model calls than it scripted)."""

    def __init__(self, **queues: list[Scripted] | Scripted) -> None:
        self.queues: dict[str, list[Scripted]] = {k: list(v) if isinstance(v, list) else [v] for k, v in queues.items()}
        self.repeat: dict[str, Scripted] = {}

    def always(self, role: str, item: Scripted) -> "RoleScript":
        self.repeat[role] = item
        return self

    def __call__(self, request: ChatRequest) -> Any:
        if request.role == "router" and request.tools and not self._has("decide"):
            return self._decide(request)
        role = "decide" if request.role == "router" and request.tools else request.role
        return self._take(role)

    def _has(self, role: str) -> bool:
        return bool(self.queues.get(role)) or role in self.repeat

    def _take(self, role: str) -> Any:
        queue = self.queues.get(role)
        if queue:
            return queue.pop(0)
        if role in self.repeat:
            return self.repeat[role]
        raise AssertionError(f"no scripted reply left for the {role}")

    def _decide(self, request: ChatRequest) -> Any:
        """The deciding call (every tool offered, answer streamed), scripted as the stages a model without tool
        calls would take: the router's choice says which; chat is the responder's reply, a tool the executor's
        call. A choice listing further requests makes the deciding call name them all (the pipeline then asks the
        routing call itself, which takes the router's reply)."""
        item = self._take("router") if self._has("router") else None
        choice = decide_choice(as_reply(item, request).content) if item is not None else ("chat", [])
        route, also = choice
        if also and item is not None:
            self.queues.setdefault("router", []).insert(0, item)
            return ChatReply(tool_calls=[ToolCall(name=r, arguments={}) for r in [route, *also]])
        if route in ("chat", "clarify", None):
            return self._take("responder")
        # the tool call the executor was scripted to make; none scripted: it called the tool with nothing to go on
        return self._take("executor") if self._has("executor") else ChatReply(tool_calls=[ToolCall(name=route, arguments={})])


def decide_choice(text: str) -> tuple[str | None, list[str]]:
    """A scripted router reply's route and further routes (``None``: not a route at all: answered as chat)."""
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None, []
    if not isinstance(value, dict) or not isinstance(value.get("route"), str):
        return None, []
    also = [str(a["route"]) for a in value.get("also") or [] if isinstance(a, dict) and isinstance(a.get("route"), str)]
    return value["route"], also
