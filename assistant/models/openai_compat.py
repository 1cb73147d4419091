"""The OpenAI-compatible backend over the official ``openai`` client: llama.cpp's ``llama-server``,
llama-cpp-python's server, LM Studio, Jan, LocalAI, vLLM, a LiteLLM proxy, or OpenAI itself.

Servers differ in what they accept, so what a server refuses is learnt once, on the first request that carries it,
and remembered for the server (the adaptation is noted in that call's trace record):
- structured output: OpenAI's ``{"type": "json_schema", …}``; else ``{"type": "json_object", "schema": …}``
  (llama-cpp-python, which answers the first with HTTP 500); else no ``response_format`` at all, the prompt asking
  for the JSON and the reader validating it;
- tool calls: native, the one offered tool named in ``tool_choice``; else the tool's argument schema as
  structured output;
- ``chat_template_kwargs`` (thinking off for Qwen3-style templates) and ``stream_options`` (usage in a stream).

Transport failures are retried as for Ollama (:mod:`assistant.models.transport`); the client's own retries are
off so they are counted, and its timeout is always set."""

from __future__ import annotations

import asyncio
import base64
import json
import re
from typing import Any

from assistant.config import ROLES, Settings
from assistant.errors import (
    AssistantError, ConfigError, ModelError, ModelMissing, ModelTimeout, NoVision, ServerUnreachable,
)
from assistant.health import Check, get_json
from assistant.models.base import (
    ChatMessage, ModelProfile, ChatReply, ChatRequest, DeltaSink, StopGeneration, ToolCall, Usage, deliver,
)
from assistant.models.parsing import arguments_object
from assistant.models.sizes import size_fields
from assistant.models.transport import Classified, retrying, stream_cut
from tools.net import plain_error
from tools.lazy_re import lazy_compile

# What a server may refuse, in the order they are given up when a refusal does not name one.
FEATURES = ("chat_template_kwargs", "stream_options", "json_schema", "json_object", "tools")
_NAMED = {"chat_template_kwargs": ("chat_template_kwargs",), "stream_options": ("stream_options", "include_usage"),
          "json_schema": ("json_schema",), "json_object": ("json_object", "response_format"),
          "tools": ("tool_choice", "tools", "tool")}


def _wire(m: ChatMessage) -> dict[str, Any]:
    """A message as the chat completions API takes it: arguments as JSON text, tool results by call id."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [{"id": c.id or f"call_{i}", "type": "function",
                              "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                             for i, c in enumerate(m.tool_calls)]
        out["content"] = m.content or None
    if m.role == "tool":
        out["tool_call_id"] = m.tool_call_id or "call_0"
    if m.images:  # content parts: the text, then each image as a data URL
        out["content"] = [{"type": "text", "text": m.content}, *(
            {"type": "image_url", "image_url": {"url": f"data:{image_type(b)};base64,{base64.b64encode(b).decode()}"}}
            for b in m.images)]
    return out


def image_type(data: bytes) -> str:
    """The MIME type of an image file's bytes (what a data URL names)."""
    from assistant.limits import image_kind

    return f"image/{image_kind(data) or 'png'}"


def _extra(obj: Any, *names: str) -> str:
    """A field the client's types do not declare (``reasoning_content``), read from the model's extras."""
    for name in names:
        value = getattr(obj, name, None)
        if value is None and getattr(obj, "model_extra", None):
            value = obj.model_extra.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


class OpenAIBackend:
    name = "openai"

    def __init__(self, base_url: str, api_key: str | None, timeout: float, transport_retries: int = 3,
                 backoff: float = 0.5) -> None:
        import openai

        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.transport_retries = transport_retries
        self.backoff = backoff
        self.client = openai.AsyncOpenAI(base_url=self.base_url, api_key=api_key or "not-needed", max_retries=0,
                                         timeout=openai.Timeout(timeout, connect=min(10.0, timeout)))
        self.refused: set[str] = set()  # what this server refused (see the module's docstring)
        self._sizes: dict[str, float | None] | None = None  # each listed model's size, once the server said

    async def aclose(self) -> None:
        await self.client.close()

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s tokens by the server's own tokenizer, where it offers one (llama.cpp's ``/tokenize``, beside
        ``/v1``); ``None`` where it does not (then asked no more)."""
        if "tokenize" in self.refused:
            return None
        root = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        key = getattr(self.client, "api_key", "") or ""
        try:
            status, data = await get_json(root + "/tokenize", min(10.0, self.timeout), method="POST",
                                          body={"content": text}, headers={"Authorization": f"Bearer {key}"})
        except Exception:
            return None
        if status == 200 and isinstance(data, dict) and isinstance(data.get("tokens"), list):
            return len(data["tokens"])
        self.refused.add("tokenize")
        return None

    async def slots(self) -> int | None:
        """How many calls the server answers at once, where it says (llama.cpp's ``/props``: ``total_slots``)."""
        root = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        key = getattr(self.client, "api_key", "") or ""
        try:
            status, data = await get_json(root + "/props", min(3.0, self.timeout),
                                          headers={"Authorization": f"Bearer {key}"})
        except Exception:
            return None
        slots = data.get("total_slots") if status == 200 and isinstance(data, dict) else None
        return slots if isinstance(slots, int) and slots > 0 else None

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        # Vision: the API does not say; assumed, and a server that refuses an image says so on the call
        return ModelProfile(label=model, backend=self.name, tools="tools" not in self.refused, structured_output=True,
                            thinking=False, vision="images" not in self.refused,
                            **size_fields(await self._size(model) if ask else None, "server", model))

    async def _size(self, model: str) -> float | None:
        """The model's size where the server says it in ``GET /models`` (llama.cpp: ``meta.n_params``), so that a
        tiny model behind a llama.cpp server is held to small talk as it would be in Ollama; ``None`` elsewhere
        (a model the user brings, trusted). Asked once; asked again only after a failure."""
        if self._sizes is None:
            key = getattr(self.client, "api_key", "") or ""
            try:
                status, data = await get_json(self.base_url + "/models", min(5.0, self.timeout),
                                              headers={"Authorization": f"Bearer {key}"})
            except Exception:
                return None
            if status != 200:
                return None
            self._sizes = {entry["id"]: _size(entry) for entry in _entries(data)}
        return self._sizes.get(model)

    def _format(self, schema: dict[str, Any]) -> dict[str, Any] | None:
        if "json_schema" not in self.refused:
            return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
        if "json_object" not in self.refused:
            return {"type": "json_object", "schema": schema}
        return None

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        s = request.settings
        kwargs: dict[str, Any] = {"model": request.model, "messages": [_wire(m) for m in request.messages]}
        for key, value in (("temperature", s.temperature), ("max_tokens", s.max_tokens), ("seed", s.seed),
                           ("top_p", s.top_p)):
            if value is not None:
                kwargs[key] = value
        extra: dict[str, Any] = {}
        if s.think is not None and "chat_template_kwargs" not in self.refused:
            extra["chat_template_kwargs"] = {"enable_thinking": s.think}
        schema = request.format
        if request.tools and "tools" not in self.refused:
            kwargs["tools"] = request.tools
            if len(request.tools) == 1:  # the executor offers the routed tool alone: the reply must call it
                kwargs["tool_choice"] = {"type": "function", "function": {"name": request.tools[0]["function"]["name"]}}
        elif request.tools:
            schema = request.tools[0]["function"].get("parameters") or {"type": "object"}
        if schema is not None and (fmt := self._format(schema)) is not None:
            kwargs["response_format"] = fmt
        if request.stream and "stream_options" not in self.refused:
            kwargs["stream_options"] = {"include_usage": True}
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def _refused_feature(self, e: Exception, kwargs: dict[str, Any]) -> str | None:
        """The feature a refusal (HTTP 400/422, or 500 naming it) was about, when the request carried one."""
        import openai

        if not isinstance(e, openai.APIStatusError) or e.status_code not in (400, 422, 500, 501):
            return None
        present = [f for f in FEATURES if self._carries(f, kwargs)]
        text = str(e).lower()
        named = [f for f in present if any(word in text for word in _NAMED[f])]
        if named:
            return named[0]
        return present[0] if present and e.status_code != 500 else None

    @staticmethod
    def _carries(feature: str, kwargs: dict[str, Any]) -> bool:
        fmt = (kwargs.get("response_format") or {}).get("type")
        return {"chat_template_kwargs": "chat_template_kwargs" in kwargs.get("extra_body", {}),
                "stream_options": "stream_options" in kwargs, "json_schema": fmt == "json_schema",
                "json_object": fmt == "json_object", "tools": "tools" in kwargs}[feature]

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        notes: list[str] = []
        while True:
            kwargs = self._kwargs(request)
            try:
                reply = await self._call(request, kwargs, on_delta, on_thinking)
            except AssistantError as e:
                feature = getattr(e, "refusal", None)
                if feature is None:
                    raise
                self.refused.add(feature)
                notes.append(f"the server refused {feature} ({_status(e.__cause__)}); not sent to it again")
                continue
            if "tool_choice" in kwargs and not reply.tool_calls and not reply.problem and "tools" not in self.refused:
                # llama.cpp serving a model whose chat template knows no tools answers in prose, whatever
                # tool_choice says: from now on the tool's schema constrains the reply instead.
                self.refused.add("tools")
                notes.append("the server ignored tool_choice (no call in its reply); the tool's argument schema is "
                             "sent as the reply format from now on")
                continue
            reply.notes = notes + reply.notes
            return reply

    async def _call(self, request: ChatRequest, kwargs: dict[str, Any], on_delta: DeltaSink | None,
                    on_thinking: DeltaSink | None) -> ChatReply:
        emitted = False

        async def once() -> ChatReply:
            nonlocal emitted
            if on_delta is None:
                return await self._whole(request, kwargs)
            parts: list[str] = []
            thought: list[str] = []
            pending: dict[int, dict[str, str]] = {}  # streamed tool calls, by index
            usage = Usage()
            finish: str | None = None
            cut: str | None = None
            try:
                async with asyncio.timeout(self.timeout):
                    stream = await self.client.chat.completions.create(**kwargs, stream=True)
                    try:
                        async for chunk in stream:
                            if chunk.usage is not None:
                                usage = _usage(chunk.usage)
                            for choice in chunk.choices:
                                delta = choice.delta
                                finish = choice.finish_reason or finish
                                if reasoning := _extra(delta, "reasoning_content", "reasoning"):
                                    thought.append(reasoning)
                                    await deliver(on_thinking, reasoning)
                                for t in delta.tool_calls or []:
                                    _add_piece(pending, t)
                                if delta.content:
                                    parts.append(delta.content)
                                    emitted = True
                                    await deliver(on_delta, delta.content)
                    finally:
                        await stream.close()  # closes the HTTP response: the server stops generating
            except (StopGeneration, TimeoutError) as e:
                cut = stream_cut(e, bool(parts), self.timeout, lambda: self._timeout(request.model))
            calls = [c for c in (_call_of(s["id"], s["name"], s["arguments"]) for _, s in sorted(pending.items())) if c]
            if usage.output_tokens is None and parts:  # a server that reports no usage in a stream (llama-cpp-python):
                usage.output_tokens = len(parts)  # its chunks, one token each
            if cut is not None:
                return ChatReply(content="".join(parts), thinking="".join(thought), tool_calls=calls,
                                 done_reason="cut", problem=cut, usage=usage)
            return _unreadable_calls(ChatReply(content="".join(parts), thinking="".join(thought), tool_calls=calls,
                                               done_reason=_done(finish), usage=usage), len(pending))

        def classify(e: Exception) -> Classified:
            feature = self._refused_feature(e, kwargs)
            if feature is not None:  # asked again without it, at once (not a transport retry)
                error, _, _ = self._classify(e, request.model)
                if error is not None:
                    error.refusal = feature
                return error, False, None
            return self._classify(e, request.model)

        reply, retries = await retrying(once, classify, self.transport_retries, self.backoff, lambda: not emitted)
        reply.transport_retries = retries
        return reply

    async def _whole(self, request: ChatRequest, kwargs: dict[str, Any]) -> ChatReply:
        """One call answered whole (no one to stream to)."""
        try:
            async with asyncio.timeout(self.timeout):  # the whole call, not each read
                resp = await self.client.chat.completions.create(**kwargs)
        except TimeoutError:
            raise self._timeout(request.model) from None
        choice = resp.choices[0] if resp.choices else None
        message = choice.message if choice else None
        raw = [t for t in (message.tool_calls or []) if getattr(t, "function", None)] if message else []
        calls = [c for c in (_call_of(t.id, t.function.name, t.function.arguments) for t in raw) if c]
        reply = ChatReply(content=(message.content or "") if message else "", tool_calls=calls,
                          thinking=_extra(message, "reasoning_content", "reasoning") if message else "",
                          done_reason=_done(choice.finish_reason if choice else None), usage=_usage(resp.usage))
        return _unreadable_calls(reply, len(raw))

    def _timeout(self, model: str) -> ModelTimeout:
        return ModelTimeout(f"'{model}' did not answer within {self.timeout:g} s at {self.base_url}.",
                            "It may still be loading: raise request_timeout (ASSISTANT_REQUEST_TIMEOUT), or use a "
                            "smaller model.")

    def _classify(self, e: Exception, model: str) -> Classified:
        import openai

        if isinstance(e, ModelTimeout):
            return e, False, None
        if _caused_by(e, "ConnectError", "ConnectTimeout", "ConnectionRefusedError"):
            return ServerUnreachable(
                f"Cannot reach the OpenAI-compatible server at {self.base_url}.",
                "Start it (llama-server, LM Studio, vLLM, …), or set openai_base_url (OPENAI_BASE_URL) to where it runs.",
            ), True, None
        if isinstance(e, openai.APITimeoutError) or _caused_by(e, "ReadTimeout", "WriteTimeout", "PoolTimeout"):
            return self._timeout(model), False, None
        if isinstance(e, (openai.APIConnectionError, json.JSONDecodeError)) or _caused_by(
                e, "TransportError", "RemoteProtocolError", "ReadError", "NetworkError"):
            return ModelError(f"The connection to {self.base_url} broke in the middle of a reply.",
                              "Try again; if it keeps happening, check the server's log."), True, None
        if isinstance(e, (openai.AuthenticationError, openai.PermissionDeniedError)):
            error: AssistantError = ConfigError(
                f"The server at {self.base_url} refused the API key ({_status(e)}).",
                "Set openai_api_key in config.toml, or OPENAI_API_KEY.")
            error.permanent = True
            return error, False, None
        if isinstance(e, openai.NotFoundError):
            return ModelMissing(f"Model '{model}' is not available at {self.base_url} ({_message(e)}).",
                                "`assistant doctor` lists the server's models; set model to one of them."), False, None
        if isinstance(e, openai.RateLimitError) or isinstance(e, openai.APIStatusError) and e.status_code == 503:
            busy = ModelError(f"The server at {self.base_url} is limiting requests ({_status(e)}).",
                              "Wait and try again, or ask fewer at once (batch -j).")
            busy.busy = True
            return busy, True, _retry_after(e)
        if isinstance(e, openai.APIStatusError) and _IMAGES_REFUSED.search(_message(e)):
            self.refused.add("images")  # the next image question is told before it is sent
            return NoVision(model, self.name), False, None
        if isinstance(e, openai.APIStatusError):
            error = ModelError(f"The server returned an error for '{model}': {_message(e)} ({_status(e)}).",
                               "Check the server's log.")
            error.permanent = 400 <= e.status_code < 500 and e.status_code != 408
            return error, e.status_code >= 500 or e.status_code == 408, _retry_after(e)
        if isinstance(e, openai.APIError):  # an error event inside a stream
            return ModelError(f"The model stopped in the middle of its reply: {_message(e)}.",
                              "Try again; if it keeps happening, check the server's log."), True, None
        return None, False, None

# How servers say a model takes no images (llama-server without --mmproj, LM Studio and vLLM text models, Ollama's
# OpenAI endpoint)
_IMAGES_REFUSED = lazy_compile(r"image input is not supported|missing data required for image input|mmproj|does not "
                             r"support (?:images?|vision|multimodal)|not a multimodal model|vision is not", re.IGNORECASE)


def _caused_by(e: BaseException, *names: str) -> bool:
    """``e`` or an exception behind it is of a class with one of ``names`` (the client's HTTP library differs by
    version: httpx, httpx2; these are its classes' names in all of them)."""
    seen = 0
    current: BaseException | None = e
    while current is not None and seen < 8:
        if any(k.__name__ in names for k in type(current).__mro__):
            return True
        current, seen = current.__cause__ or current.__context__, seen + 1
    return False


def _status(e: Any) -> str:
    return f"HTTP {e.status_code}" if getattr(e, "status_code", None) else type(e).__name__


def _message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(text, str) and text:
            return " ".join(text.split())[:200]
    return " ".join(str(getattr(e, "message", e)).split())[:200]


def _retry_after(e: Any) -> float | None:
    response = getattr(e, "response", None)
    try:
        return float(response.headers.get("retry-after")) if response is not None else None
    except (TypeError, ValueError):
        return None


def _done(finish: str | None) -> str | None:
    return {"tool_calls": "stop", "function_call": "stop"}.get(finish or "", finish)


def _usage(u: Any) -> Usage:
    if u is None:
        return Usage()
    details = getattr(u, "prompt_tokens_details", None)
    return Usage(input_tokens=getattr(u, "prompt_tokens", None), output_tokens=getattr(u, "completion_tokens", None),
                 cached_tokens=getattr(details, "cached_tokens", None))


def _unreadable_calls(reply: ChatReply, sent: int) -> ChatReply:
    """A reply whose tool calls could not all be read says so (the executor's feedback names the problem)."""
    if len(reply.tool_calls) < sent and not reply.tool_calls:
        reply.done_reason = "unreadable"
        reply.problem = "the tool call's arguments are not a JSON object (cut short, or not JSON)"
    return reply


def _add_piece(pending: dict[int, dict[str, str]], t: Any) -> None:
    """A streamed tool call's piece, added to the call it belongs to (by its index)."""
    slot = pending.setdefault(t.index, {"id": "", "name": "", "arguments": ""})
    slot["id"] = t.id or slot["id"]
    if t.function is not None:
        slot["name"] = t.function.name or slot["name"]
        slot["arguments"] += t.function.arguments or ""


def _call_of(call_id: str | None, name: str | None, arguments: Any) -> ToolCall | None:
    args = arguments_object(arguments if arguments not in (None, "") else "{}")
    return ToolCall(id=call_id or None, name=name, arguments=args) if name and args is not None else None


# Wiring (assistant.models.select): how this backend is built, whether it answers, and what doctor says of it.

def build(settings: Settings) -> OpenAIBackend:
    return OpenAIBackend(settings.openai_base_url, settings.openai_api_key, timeout=settings.request_timeout,
                         transport_retries=settings.transport_retries, backoff=settings.transport_backoff)


def _entries(data: Any) -> list[dict[str, Any]]:
    """The models a ``GET /models`` reply lists, each with a text ``id``."""
    found = data.get("data", []) if isinstance(data, dict) else []
    return [m for m in found if isinstance(m, dict) and isinstance(m.get("id"), str)] if isinstance(found, list) else []


def _size(entry: dict[str, Any]) -> float | None:
    """A listed model's parameters where its server says (llama.cpp's ``meta.n_params``)."""
    meta = entry.get("meta")
    n = meta.get("n_params") if isinstance(meta, dict) else None
    return float(n) if isinstance(n, (int, float)) and not isinstance(n, bool) and n > 0 else None


def _size_label(n: float | None) -> str | None:
    """134515008 -> "135M", 7.6e9 -> "7.6B" (as Ollama writes a size)."""
    if n is None:
        return None
    return f"{n / 1e9:.2g}B" if n >= 1e9 else f"{n / 1e6:.0f}M"


async def _listed(settings: Settings, timeout: float) -> tuple[int, list[dict[str, Any]]]:
    """``GET /models`` with the key: the status, and the models it lists (connection errors raised)."""
    headers = {"Authorization": f"Bearer {settings.openai_api_key}"} if settings.openai_api_key else {}
    status, data = await get_json(settings.openai_base_url.rstrip("/") + "/models", timeout, headers=headers)
    return status, _entries(data) if status == 200 else []


async def reachable(settings: Settings, timeout: float = 1.5) -> bool:
    try:
        status, _ = await _listed(settings, timeout)
        return status < 500
    except Exception:  # any failure to connect is the same answer: not here
        return False


async def doctor(settings: Settings, required: bool) -> list[Check]:
    """The server (reachable, the key accepted), the models it lists, and each configured one among them."""
    base = settings.openai_base_url.rstrip("/")
    try:
        status, entries = await _listed(settings, 5)
        listed = [m["id"] for m in entries]
    except Exception as e:  # any failure to connect is the same answer for the user
        return [Check(name="openai server", level="fail" if required else "warn", blocking=required,
                      detail=f"not reachable at {base} ({plain_error(e)})",
                      fix="start it (llama-server, LM Studio, vLLM, …), or set openai_base_url / OPENAI_BASE_URL")]
    if status in (401, 403):
        return [Check(name="openai server", level="fail", blocking=True, detail=f"{base} refused the API key (HTTP {status})",
                      fix="set openai_api_key in config.toml, or OPENAI_API_KEY")]
    checks = [Check(name="openai server", level="ok" if status == 200 else "warn",
                    detail=f"reachable at {base}; models: {', '.join(listed) or 'none listed'}"
                    if status == 200 else f"reachable at {base}, but GET /models answered HTTP {status}")]
    for model in sorted({settings.model_for(r) for r in ROLES}):
        roles = ", ".join(r for r in ROLES if settings.model_for(r) == model)
        if model in listed:
            checks.append(Check(name=f"model {model}", level="ok", detail=f"listed by the server ({roles})"))
        elif listed:
            checks.append(Check(name=f"model {model}", level="warn" if len(listed) == 1 else "fail",
                                blocking=len(listed) > 1, detail=f"not listed by the server (used by {roles})",
                                fix=f"set model to one of: {', '.join(listed)}" + (
                                    " (a server with one model may answer any name with it)" if len(listed) == 1 else "")))
    return checks


async def models(settings: Settings) -> list[dict[str, Any]]:
    """The models the server lists (``GET /models``; a llama.cpp server says each one's parameters, others report
    no size or capabilities)."""
    base = settings.openai_base_url.rstrip("/")
    try:
        status, listed = await _listed(settings, 5)
    except Exception as e:  # any failure to connect is the same answer for the user
        raise ServerUnreachable(f"Cannot reach the OpenAI-compatible server at {base} ({plain_error(e)}).",
                                "Start it, or set openai_base_url (OPENAI_BASE_URL).") from None
    if status in (401, 403):
        raise ConfigError(f"The server at {base} refused the API key (HTTP {status}).",
                          "Set openai_api_key in config.toml, or OPENAI_API_KEY.")
    return [{"name": m["id"], "size": None, "parameters": _size_label(_size(m)), "capabilities": []} for m in listed]
