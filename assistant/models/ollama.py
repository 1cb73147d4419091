"""The Ollama backend over the official ``ollama.AsyncClient``.

Transport failures (connection refused, HTTP 5xx, timeouts, a stream that breaks before any text
arrived) are retried here with bounded backoff, so they never cost the pipeline a validation attempt.
Everything else becomes an :class:`AssistantError` that says what to do."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable, TypeVar

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pydantic

from assistant.config import ROLES, Settings
from assistant.errors import AssistantError, ModelError, ModelMissing, ModelTimeout, OllamaUnreachable
from assistant.health import Check, get_json

from assistant.models.base import (
    CallSettings, ModelProfile, ChatMessage, ChatReply, ChatRequest, DeltaSink, StopGeneration, ToolCall, Usage, deliver,
)
from assistant.models.parsing import arguments_object
from assistant.models.sizes import parameters, size_fields
from assistant.models.transport import Classified, retrying, stream_cut
from tools.net import plain_error

if TYPE_CHECKING:
    import ollama

T = TypeVar("T")
RETRYABLE_STATUS = {500, 502, 503, 504}
DEFAULT_PORT = 11434


def base_url(host: str | None) -> str:
    """The server's base URL from ``OLLAMA_HOST``-style text, as the ollama client reads it: ``1.2.3.4``,
    ``:56789``, ``example.com:56789/path``, ``https://[::1]`` (scheme http and port 11434 unless given)."""
    host = (host or "").strip()
    scheme, _, rest = host.rpartition("://") if "://" in host else ("http", "", host)
    parts = urlsplit(f"{scheme}://{rest or '127.0.0.1'}")
    hostname = parts.hostname or "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"
    port = parts.port or ({"http": 80, "https": 443}[scheme] if "://" in host else DEFAULT_PORT)
    return f"{scheme}://{hostname}:{port}{parts.path.rstrip('/')}"


def _options(s: CallSettings) -> dict[str, Any] | None:
    options = {"temperature": s.temperature, "num_predict": s.max_tokens, "num_ctx": s.context, "seed": s.seed,
               "top_p": s.top_p}
    return {k: v for k, v in options.items() if v is not None} or None


def _wire(m: ChatMessage) -> dict[str, Any]:
    """A message as Ollama's /api/chat takes it: tool-call arguments as objects, tool results by tool name
    (Ollama does not echo call ids back)."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in m.tool_calls]
    if m.tool_name:
        out["tool_name"] = m.tool_name
    if m.images:
        out["images"] = list(m.images)  # the client sends each as base64
    return out


class OllamaBackend:
    name = "ollama"

    def __init__(
        self,
        host: str,
        timeout: float,
        keep_alive: str | None = None,
        transport_retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        self.host = host
        self.timeout = timeout
        self.keep_alive = keep_alive
        self.transport_retries = transport_retries
        self.backoff = backoff
        self._client: ollama.AsyncClient | None = None  # made at the first call: its import is a tenth of a second
        self._profiles: dict[str, ModelProfile] = {}

    async def warm(self, models: list[str]) -> None:
        """Load the models now (an empty chat loads a model and keeps it for keep_alive)."""
        for model in models:
            async def load(m: str = model) -> Any:
                return await self.client.chat(model=m, messages=[], keep_alive=self.keep_alive)

            await self._retrying(model, load)

    @property
    def client(self) -> ollama.AsyncClient:
        if self._client is None:
            import httpx
            import ollama

            # The client has no timeout by default: a stuck server would hang the turn forever.
            self._client = ollama.AsyncClient(host=self.host, timeout=httpx.Timeout(self.timeout,
                                                                                    connect=min(10.0, self.timeout)))
        return self._client

    @client.setter
    def client(self, value: ollama.AsyncClient) -> None:
        self._client = value

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        if not ask and model not in self._profiles:
            return ModelProfile(label=model, backend=self.name, **size_fields(None, "server", model))
        if model not in self._profiles:
            shown, _ = await self._retrying(model, lambda: self.client.show(model))
            names = set(shown.capabilities or ["completion"])
            own = parameters(getattr(getattr(shown, "details", None), "parameter_size", None))
            self._profiles[model] = ModelProfile(label=model, backend=self.name, tools="tools" in names,
                                                 thinking="thinking" in names, vision="vision" in names,
                                                 **size_fields(own, "server", model))
        return self._profiles[model]

    async def count_tokens(self, text: str) -> int | None:
        return None  # Ollama's API has no tokenizer endpoint

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": [_wire(m) for m in request.messages],
            "options": _options(request.settings),
            "keep_alive": self.keep_alive,
        }
        if request.settings.think is not None and (await self.profile(request.model)).thinking:
            kwargs["think"] = request.settings.think
        if request.format is not None:
            kwargs["format"] = request.format
        if request.tools:
            kwargs["tools"] = request.tools
        emitted = False

        async def once() -> ChatReply:
            nonlocal emitted
            if on_delta is None:
                return await self._whole(request.model, kwargs)
            parts: list[str] = []
            thought: list[str] = []
            calls: list[ToolCall] = []
            last = None
            cut: str | None = None
            try:
                async with asyncio.timeout(self.timeout):
                    stream = await self.client.chat(**kwargs, stream=True)
                    try:
                        async for chunk in stream:
                            if chunk.message.thinking:
                                thought.append(chunk.message.thinking)
                                await deliver(on_thinking, chunk.message.thinking)
                            piece = chunk.message.content or ""
                            if piece:
                                parts.append(piece)
                                emitted = True
                                await deliver(on_delta, piece)
                            calls.extend(_calls(chunk.message.tool_calls))
                            last = chunk
                    finally:
                        closing = getattr(stream, "aclose", None)  # an async generator: closing it closes the response
                        if closing is not None:
                            await closing()
            except (StopGeneration, TimeoutError) as e:
                cut = stream_cut(e, bool(parts), self.timeout, lambda: self._timeout(request.model))
            except pydantic.ValidationError as e:
                if not parts:
                    return ChatReply(done_reason="unreadable", problem=_unreadable(e))
                cut = _unreadable(e)
            if cut is not None:
                return ChatReply(content="".join(parts), thinking="".join(thought), tool_calls=calls, done_reason="cut",
                                 problem=cut)
            return _reply("".join(parts), calls, last, "".join(thought))

        reply, retries = await self._retrying(request.model, once, can_retry=lambda: not emitted)
        reply.transport_retries = retries
        return reply

    async def _whole(self, model: str, kwargs: dict[str, Any]) -> ChatReply:
        """One call answered whole (no one to stream to)."""
        try:
            async with asyncio.timeout(self.timeout):  # the whole call, not each read
                resp = await self.client.chat(**kwargs, stream=False)
        except TimeoutError:
            raise self._timeout(model) from None
        except pydantic.ValidationError as e:  # a reply the client cannot read (arguments not an object)
            return ChatReply(done_reason="unreadable", problem=_unreadable(e))
        return _reply(resp.message.content or "", _calls(resp.message.tool_calls), resp, resp.message.thinking or "")

    async def _retrying(
        self, model: str, call: Callable[[], Awaitable[T]], can_retry: Callable[[], bool] = lambda: True
    ) -> tuple[T, int]:
        def classify(e: Exception) -> Classified:
            error, retryable = self._classify(e, model)
            return error, retryable, None

        return await retrying(call, classify, self.transport_retries, self.backoff, can_retry)

    def _timeout(self, model: str) -> ModelTimeout:
        return ModelTimeout(
            f"'{model}' did not answer within {self.timeout:g} s.",
            "It may still be loading: raise request_timeout (ASSISTANT_REQUEST_TIMEOUT), keep it loaded longer with "
            "keep_alive, or use a smaller model.",
        )

    def _classify(self, e: Exception, model: str) -> tuple[AssistantError | None, bool]:
        import httpx
        import ollama

        if isinstance(e, ModelTimeout):
            return e, False  # a model that did not answer in time would not answer the second time either
        if isinstance(e, (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout)):
            return OllamaUnreachable(
                f"Cannot reach Ollama at {self.host}.",
                "Start it with `ollama serve` (https://ollama.com/download), or set OLLAMA_HOST to where it runs.",
            ), True
        if isinstance(e, httpx.TimeoutException):
            return self._timeout(model), False
        if isinstance(e, (httpx.TransportError, json.JSONDecodeError)):
            return ModelError(
                f"The connection to Ollama broke in the middle of a reply ({plain_error(e)}).",
                "Try again; if it keeps happening, check the Ollama server log.",
            ), True
        if isinstance(e, ollama.ResponseError):
            text = str(e.error)
            if e.status_code == 404 or "not found" in text and "model" in text:
                return ModelMissing(f"Model '{model}' is not installed in Ollama.", f"Run: assistant models pull {model} (or ollama pull {model})"), False
            if e.status_code == -1:  # an {"error": ...} line inside a 200 stream
                return ModelError(
                    f"The model stopped in the middle of its reply: {text}.",
                    "Try again; if it keeps happening, check the Ollama server log.",
                ), True
            if e.status_code in (503, 429):
                busy = ModelError(f"Ollama is overloaded ({text}).",
                                  "Wait and try again, or raise OLLAMA_MAX_QUEUE on the server.")
                busy.busy = True
                return busy, True
            error = ModelError(f"Ollama returned an error for '{model}': {text} (HTTP {e.status_code}).",
                               "Check the Ollama server log.")
            # A request the server refuses (400: a format or option it cannot follow) is refused again: never "rerun".
            error.permanent = 400 <= e.status_code < 500 and e.status_code not in (408, 429)
            return error, e.status_code in RETRYABLE_STATUS
        return None, False


def _calls(raw: Any) -> list[ToolCall]:
    out = []
    for c in raw or []:
        args = arguments_object(dict(c.function.arguments) if c.function.arguments is not None else None)
        if args is not None:
            out.append(ToolCall(name=c.function.name, arguments=args))
    return out


def _unreadable(e: pydantic.ValidationError) -> str:
    if not e.errors():
        return "the reply could not be read"
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"the reply could not be read ({where}: {first['msg']})"


def _reply(content: str, calls: list[ToolCall], final: Any, thinking: str = "") -> ChatReply:
    usage = Usage()
    done_reason = None
    if final is not None:
        usage = Usage(input_tokens=final.prompt_eval_count, output_tokens=final.eval_count, load_ns=final.load_duration,
                      prompt_ns=final.prompt_eval_duration, generation_ns=final.eval_duration, total_ns=final.total_duration)
        done_reason = getattr(final, "done_reason", None)
    return ChatReply(content=content, thinking=thinking, tool_calls=calls, done_reason=done_reason, usage=usage)


# Wiring (assistant.models.select): how this backend is built, whether it answers, and what doctor says of it.

def build(settings: Settings) -> OllamaBackend:
    return OllamaBackend(host=settings.ollama_host, timeout=settings.request_timeout, keep_alive=settings.keep_alive,
                         transport_retries=settings.transport_retries, backoff=settings.transport_backoff)


async def reachable(settings: Settings, timeout: float = 1.5) -> bool:
    try:
        status, _ = await get_json(base_url(settings.ollama_host) + "/api/version", timeout)
        return status < 500
    except Exception:  # any failure to connect is the same answer: not here
        return False


async def doctor(settings: Settings, required: bool) -> list[Check]:
    """The server, then each configured model (installed? able to call tools?). ``required``: nothing else
    would answer if Ollama does not."""
    base = base_url(settings.ollama_host)
    checks: list[Check] = []
    try:
        _, data = await get_json(base + "/api/version", 3)
        checks.append(Check(name="ollama", level="ok", detail=f"reachable at {base}, version {(data or {}).get('version', '?')}"))
    except Exception as e:  # any failure to connect is the same answer for the user
        checks.append(Check(name="ollama", level="fail" if required else "warn", blocking=required,
                            detail=f"not reachable at {base} ({plain_error(e)})",
                            fix="start it with `ollama serve` (https://ollama.com/download), or set OLLAMA_HOST"
                                + ("" if required else "; until then the embedded model answers")))
        return checks
    for model in sorted({settings.model_for(r) for r in ROLES}):
        roles = [r for r in ROLES if settings.model_for(r) == model]
        status, data = await get_json(base + "/api/show", 5, "POST", {"model": model})
        if status == 404:
            checks.append(Check(name=f"model {model}", level="fail", blocking=settings.backend != "embedded",
                                detail=f"not installed (used by {', '.join(roles)})", fix=f"assistant models pull {model}"))
            continue
        caps = set((data or {}).get("capabilities") or [])
        if "executor" in roles and "tools" not in caps:
            checks.append(Check(name=f"model {model}", level="warn",
                                detail="installed; no 'tools' capability, so the executor uses JSON-schema output",
                                fix="fine as it is; a model with tools (qwen2.5, llama3.1) calls tools natively"))
        else:
            checks.append(Check(name=f"model {model}", level="ok",
                                detail=f"installed ({', '.join(roles)}); capabilities: {', '.join(sorted(caps)) or '?'}"))
    try:
        here = await models(settings)
    except AssistantError:
        here = []
    if here:  # every model Ollama has, and what each can do: tools, vision, thinking, its size
        checks.append(Check(name="ollama models", level="ok", detail="; ".join(
            f"{m['name']} ({', '.join([p for p in [m.get('parameters')] if p] + [c for c in m['capabilities'] if c != 'completion'])})"
            .replace(" ()", "") for m in here)))
    return checks


async def models(settings: Settings) -> list[dict[str, Any]]:
    """The installed models (``/api/tags``) with size and capabilities (``/api/show``)."""
    base = base_url(settings.ollama_host)
    try:
        _, data = await get_json(base + "/api/tags", 5)
    except Exception as e:  # any failure to connect is the same answer for the user
        raise OllamaUnreachable(f"Cannot reach Ollama at {base} ({plain_error(e)}).",
                                "Start it with `ollama serve`, or set OLLAMA_HOST.") from None
    installed = (data or {}).get("models", [])
    names = [m.get("name") or m.get("model") for m in installed]
    shown = await asyncio.gather(*(get_json(base + "/api/show", 5, "POST", {"model": n}) for n in names))  # at once
    return [{"name": name, "size": m.get("size"), "parameters": (m.get("details") or {}).get("parameter_size"),
             "capabilities": sorted((info or {}).get("capabilities") or [])}
            for name, m, (_, info) in zip(names, installed, shown, strict=True)]


async def pull(settings: Settings, name: str, progress: Callable[[str, int, int], None]) -> None:
    """Ask Ollama to pull ``name`` (``/api/pull``, streamed), reporting (status, bytes so far, bytes in all) of
    each layer as Ollama does. Ollama verifies each layer's digest and writes the manifest only once every layer is
    whole: stopping here (Ctrl-C closes the stream, which cancels the pull) leaves nothing half-registered, and the
    next pull resumes the layers it had begun."""
    import httpx
    import ollama

    base = base_url(settings.ollama_host)
    client = ollama.AsyncClient(host=base, timeout=httpx.Timeout(None, connect=10.0))
    try:
        async for part in await client.pull(name, stream=True):
            progress(part.status or "", int(part.completed or 0), int(part.total or 0))
    except ollama.ResponseError as e:
        text = str(e.error)
        if "does not exist" in text or "not found" in text or e.status_code == 404:
            raise ModelMissing(f"Ollama has no model {name} to pull ({text}).",
                               "Check the name and tag on ollama.com/library (Hugging Face GGUFs: "
                               "hf.co/ORG/REPO:QUANT).") from None
        raise ModelError(f"Ollama could not pull {name}: {text}.", "Run the same command again; a pull resumes "
                         "where it stopped.") from None
    except (httpx.HTTPError, OSError) as e:
        raise OllamaUnreachable(f"Cannot reach Ollama at {base} ({plain_error(e)}).",
                                "Start it with `ollama serve`, or set OLLAMA_HOST.") from None
    finally:
        await client.close()
