"""A fake Ollama server on loopback that speaks the real wire protocol, scripted per test.

It reproduces what the official client depends on: ``/api/chat`` streaming NDJSON (no blank lines,
metrics only on the final ``done`` chunk, a mid-stream error as an ``{"error": ...}`` line with status
200) and non-streaming JSON, tool-call arguments as objects, ``/api/show`` with ``model_info`` and
``capabilities``, ``/api/tags``, 404 for unknown models, 400 for tools sent to a model without the
``tools`` capability, thinking as Ollama 0.12.5+ sends it (a ``thinking`` field in each chunk before the
content, unless ``think`` is false; 400 when ``think`` is sent to a model without the ``thinking``
capability), and any scripted status. It runs in its own thread and event loop, so both
in-process async tests and CLI subprocesses can talk to it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from aiohttp import web
from loopback import LoopbackServer

DEFAULT_MODELS = {"qwen2.5:3b": ["completion", "tools"]}


@dataclass
class Reply:
    """One scripted reply. ``error`` with ``status`` answers with an HTTP error; ``mid_stream_error``
    sends the content first and then an error line (streaming requests only)."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # [{"name": ..., "arguments": {...}}]
    status: int = 200
    error: str | None = None
    mid_stream_error: str | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunk_size: int = 4
    forever: bool = False  # stream ``content`` again and again until the client goes away (or 120 s pass)
    thinking: str = ""  # a thinking model's reasoning, sent in the ``thinking`` field unless ``think`` is false
    always_thinks: bool = False  # a model that is not hybrid thinks even when sent ``think: false``


Scripted = Reply | str | dict[str, Any] | Callable[[dict[str, Any]], "Reply"]


def kind_of(request: dict[str, Any]) -> str:
    """Which stage sent a /api/chat request, read off the wire request alone."""
    if request.get("tools"):  # every tool offered and the answer streamed: one call decides and answers
        return "decide" if request.get("stream", True) else "executor"
    fmt = request.get("format")
    if isinstance(fmt, dict):
        props = fmt.get("properties", {})
        if "route" in props:
            return "router"
        if "verdict" in props:
            return "validator"
        system = next((m.get("content") or "" for m in request.get("messages", []) if m.get("role") == "system"), "")
        if system.startswith("Answer with one JSON object"):  # prompts/responder_schema.txt: an answer as an object
            return "responder"
        return "executor"
    if request.get("stream", True):
        return "responder"
    return "other"


def _as_reply(item: Scripted, request: dict[str, Any]) -> Reply:
    if callable(item) and not isinstance(item, Reply):
        item = item(request)
    if isinstance(item, str):
        return Reply(content=item)
    if isinstance(item, dict):
        return Reply(content=json.dumps(item, ensure_ascii=False))
    return item


class Script:
    """Replies per stage, consumed in order. Running out is a test failure the fake reports as HTTP 500
    with a message naming the stage, and records in ``FakeOllama.violations``."""

    kind = staticmethod(kind_of)  # how a request's stage is read (the fake OpenAI server reads its own wire)

    def __init__(self, **queues: list[Scripted] | Scripted) -> None:
        self.queues: dict[str, list[Scripted]] = {
            k: list(v) if isinstance(v, list) else [v] for k, v in queues.items()
        }
        self.repeat: dict[str, Scripted] = {}

    def always(self, kind: str, item: Scripted) -> "Script":
        self.repeat[kind] = item
        return self

    def __call__(self, request: dict[str, Any]) -> Reply:
        kind = self.kind(request)
        if kind == "decide" and not (self.queues.get("decide") or "decide" in self.repeat):
            return self._decide(request)
        return self._take(kind, request)

    def _take(self, kind: str, request: dict[str, Any]) -> Reply:
        queue = self.queues.get(kind)
        if queue:
            return _as_reply(queue.pop(0), request)
        if kind in self.repeat:
            return _as_reply(self.repeat[kind], request)
        raise LookupError(f"fake ollama: no scripted reply left for the {kind}")

    def _decide(self, request: dict[str, Any]) -> Reply:
        """The deciding call, scripted as the stages a model without tool calls would take (as
        ``assistant.models.function.RoleScript`` does): the router's choice says which; chat is the responder's reply,
        a tool the executor's call; a choice with further requests names them all, and the router's reply is kept for
        the routing call the pipeline then makes."""
        from assistant.models.function import decide_choice

        queue = self.queues.get("router")
        item = queue.pop(0) if queue else self.repeat.get("router")
        routed = _as_reply(item, request) if item is not None else None
        if routed is not None and routed.error:  # a server that fails the routing call fails the deciding call
            return routed
        route, also = decide_choice(routed.content) if routed is not None else ("chat", [])
        if also:
            self.queues.setdefault("router", []).insert(0, item)
            return Reply(tool_calls=[{"name": r, "arguments": {}} for r in [route, *also]])
        if route in ("chat", "clarify", None):
            return self._take("responder", request)
        if self.queues.get("executor") or "executor" in self.repeat:
            return self._take("executor", request)
        return Reply(tool_calls=[{"name": route, "arguments": {}}])  # it called the tool with nothing to go on


def tool_call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


class FakeOllama(LoopbackServer):
    def __init__(self, handler: Callable[[dict[str, Any]], Reply] | None = None,
                 models: dict[str, list[str]] | None = None, parallel: int | None = None,
                 max_queue: int | None = None) -> None:
        """``parallel``: requests answered at once (OLLAMA_NUM_PARALLEL; more wait their turn); ``max_queue``: requests
        that may wait (OLLAMA_MAX_QUEUE) before the server answers 503 "server busy", as Ollama's scheduler does."""
        super().__init__()
        self.parallel, self.max_queue = parallel, max_queue
        self._slots: asyncio.Semaphore | None = None
        self.waiting = 0
        self.busy_replies = 0
        self.handler = handler or Script()
        self.models = dict(DEFAULT_MODELS if models is None else models)
        self.sizes: dict[str, str] = {}  # a model's parameter_size as /api/show reports it ("494.03M"); default 3.1B
        self.requests: list[dict[str, Any]] = []  # every /api/chat body, in order
        self.loads: list[str] = []  # models loaded by empty chats (warming)
        self.show_requests: list[str] = []
        self.violations: list[str] = []  # protocol misuse by our client code
        self.in_flight = 0
        self.max_in_flight = 0
        # /api/pull: the models the registry behind this server has (name -> capabilities once pulled), the bytes
        # of each one's model layer, and the pause between progress lines
        self.pullable: dict[str, list[str]] = {}
        self.pull_size = 2_000_000
        self.pull_delay = 0.0
        self.pulls_cancelled = 0
        self.pull_status: str | None = None  # one more status line after "pulling manifest" (what a server may say)

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/api/pull", self._pull)
        app.router.add_get("/", self._root)
        app.router.add_get("/api/version", self._version)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/ps", self._ps)
        app.router.add_post("/api/show", self._show)
        app.router.add_post("/api/chat", self._chat)

    # views for assertions

    def kinds(self) -> list[str]:
        return [kind_of(r) for r in self.requests]

    # endpoints

    async def _root(self, request: web.Request) -> web.Response:
        return web.Response(text="Ollama is running")

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.12.6"})

    async def _tags(self, request: web.Request) -> web.Response:
        return web.json_response({"models": [
            {"name": m, "model": m, "modified_at": "2026-11-01T00:00:00Z", "size": 1_900_000_000,
             "digest": "0" * 64, "details": {"format": "gguf", "family": "qwen2", "parameter_size": "3.1B",
                                             "quantization_level": "Q4_K_M"}}
            for m in self.models
        ]})

    async def _ps(self, request: web.Request) -> web.Response:
        """As Ollama's PsHandler lists its loaded runners (server/routes.go): each model loaded (by a load request or
        a chat), its size and the part of it in VRAM, and when keep_alive unloads it."""
        loaded = list(dict.fromkeys([*self.loads, *(r.get("model", "") for r in self.requests)]))
        return web.json_response({"models": [
            {"name": m, "model": m, "size": 2_400_000_000, "size_vram": 0, "digest": "0" * 64,
             "details": {"format": "gguf", "family": "qwen2", "parameter_size": self.sizes.get(m, "3.1B"),
                         "quantization_level": "Q4_K_M"},
             "expires_at": "2026-11-26T18:30:00Z", "context_length": 4096}
            for m in loaded if m in self.models]})

    async def _pull(self, request: web.Request) -> web.StreamResponse:
        """As Ollama's PullHandler streams it (server/routes.go, server/images.go PullModel): "pulling manifest", then
        each layer as "pulling <12 hex>" with digest, total and completed, then "verifying sha256 digest", "writing
        manifest", "success"; the model is listed only after the manifest is written. An unknown name ends the
        stream with {"error": "pull model manifest: file does not exist"}. A client that goes away cancels it."""
        body = await request.json()
        name = body.get("model") or body.get("name", "")
        if ":" not in name.rsplit("/", 1)[-1]:
            name += ":latest"
        reply = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await reply.prepare(request)

        async def send(line: dict[str, Any]) -> None:
            await reply.write((json.dumps(line) + "\n").encode())
            if self.pull_delay:
                await asyncio.sleep(self.pull_delay)

        try:
            await send({"status": "pulling manifest"})
            if self.pull_status is not None:
                await send({"status": self.pull_status})
            wanted = next((m for m in self.pullable if m == name or f"{m}:latest" == name), None)
            if wanted is None:
                await send({"error": "pull model manifest: file does not exist"})
                return reply
            for total in (self.pull_size, 487):  # the model layer, then a small one (its params)
                digest = "sha256:" + f"{total:064x}"
                for completed in range(0, total + 1, max(1, total // 8)):
                    await send({"status": f"pulling {digest[7:19]}", "digest": digest, "total": total,
                                "completed": completed})
                await send({"status": f"pulling {digest[7:19]}", "digest": digest, "total": total, "completed": total})
            await send({"status": "verifying sha256 digest"})
            await send({"status": "writing manifest"})
            self.models[wanted] = self.pullable[wanted]
            await send({"status": "success"})
        except (ConnectionResetError, asyncio.CancelledError):
            self.pulls_cancelled += 1
            raise
        return reply

    async def _show(self, request: web.Request) -> web.Response:
        body = await request.json()
        name = body.get("model") or body.get("name", "")
        self.show_requests.append(name)
        if name not in self.models:
            return web.json_response({"error": f"model '{name}' not found"}, status=404)
        return web.json_response({
            "modelfile": f"FROM {name}", "parameters": "stop \"<|im_end|>\"", "template": "{{ .Prompt }}",
            "details": {"parent_model": "", "format": "gguf", "family": "qwen2", "families": ["qwen2"],
                        "parameter_size": self.sizes.get(name, "3.1B"), "quantization_level": "Q4_K_M"},
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
            "capabilities": self.models[name],
            "modified_at": "2026-11-01T00:00:00.000000000Z",
        })

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        model = body.get("model", "")
        if model not in self.models:
            self.requests.append(body)
            return web.json_response({"error": f"model '{model}' not found"}, status=404)
        if not body.get("messages"):  # a load request: Ollama loads the model and answers at once
            self.loads.append(model)
            return web.json_response({"model": model, "created_at": _now(), "message": {"role": "assistant", "content": ""},
                                      "done_reason": "load", "done": True})
        self.requests.append(body)
        self._audit(body)
        if body.get("tools") and "tools" not in self.models[model]:
            return web.json_response({"error": f"registry.ollama.ai/library/{model} does not support tools"}, status=400)
        if any(m.get("images") for m in body.get("messages", [])) and "vision" not in self.models[model]:
            # as Ollama's runner refuses images for a model without a vision projector (model.ErrNoVisionModel)
            return web.json_response({"error": "this model is missing data required for image input"}, status=500)
        if body.get("think") and "thinking" not in self.models[model]:
            return web.json_response({"error": f'"{model}" does not support thinking'}, status=400)
        if self.parallel is None:
            return await self._answer(request, body)
        if self.max_queue is not None and self.waiting >= self.max_queue:
            self.busy_replies += 1
            return web.json_response({"error": "server busy, please try again.  maximum pending requests exceeded"},
                                     status=503)
        self._slots = self._slots or asyncio.Semaphore(self.parallel)
        self.waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        try:
            return await self._answer(request, body)
        finally:
            self._slots.release()

    async def _answer(self, request: web.Request, body: dict[str, Any]) -> web.StreamResponse:
        try:
            reply = self.handler(body)
        except LookupError as e:
            self.violations.append(str(e))
            return web.json_response({"error": str(e)}, status=500)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            t0 = time.monotonic()
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.error is not None:
                return web.json_response({"error": reply.error}, status=reply.status)
            if body.get("stream", True):
                try:
                    return await self._stream(request, body, reply, t0)
                except (ConnectionError, RuntimeError):  # the client stopped reading (a cut stream), as with Ollama
                    return web.Response(status=499)
            content, done_reason = reply.content, "stop"
            limit = (body.get("options") or {}).get("num_predict")
            if limit and limit > 0 and len(content) > 4 * limit:  # about four characters a token
                content, done_reason = content[:4 * limit], "length"
            thinking = {"thinking": reply.thinking} if self._thinks(body, reply) else {}
            final = self._final(body, reply, t0, message={"role": "assistant", "content": content, **thinking,
                                                          **self._tool_calls(reply)})
            return web.json_response({**final, "done_reason": done_reason})
        finally:
            self.in_flight -= 1

    async def _stream(self, request: web.Request, body: dict[str, Any], reply: Reply, t0: float) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        text = reply.content
        pieces = [text[i:i + reply.chunk_size] for i in range(0, len(text), reply.chunk_size)]
        limit = (body.get("options") or {}).get("num_predict")
        if reply.forever:
            return await self._forever(resp, body, pieces, reply)
        done_reason = "stop"
        if limit and limit > 0 and len(pieces) > limit:  # Ollama stops at num_predict tokens (a piece is a token here)
            pieces, done_reason = pieces[:limit], "length"
        if self._thinks(body, reply):
            thought = reply.thinking
            for i in range(0, len(thought), reply.chunk_size):
                await resp.write(self._line({"model": body["model"], "created_at": _now(), "message": {
                    "role": "assistant", "content": "", "thinking": thought[i:i + reply.chunk_size]}, "done": False}))
        for piece in pieces:
            if reply.chunk_delay:
                await asyncio.sleep(reply.chunk_delay)
            await resp.write(self._line({"model": body["model"], "created_at": _now(),
                                         "message": {"role": "assistant", "content": piece}, "done": False}))
        if reply.mid_stream_error is not None:
            await resp.write(self._line({"error": reply.mid_stream_error}))
            await resp.write_eof()
            return resp
        if reply.tool_calls:
            await resp.write(self._line({"model": body["model"], "created_at": _now(), "message": {
                "role": "assistant", "content": "", **self._tool_calls(reply)}, "done": False}))
        final = self._final(body, reply, t0, message={"role": "assistant", "content": ""}, eval_count=max(1, len(pieces)))
        await resp.write(self._line({**final, "done_reason": done_reason}))
        await resp.write_eof()
        return resp

    async def _forever(self, resp: web.StreamResponse, body: dict[str, Any], pieces: list[str], reply: Reply) -> web.StreamResponse:
        """A model that never stops (a server ignoring num_predict): chunks until the client disconnects, each
        numbered, so the text never repeats itself."""
        end, n = time.monotonic() + 120, 0
        try:
            while time.monotonic() < end:
                for piece in pieces or [" "]:
                    n += 1
                    await asyncio.sleep(reply.chunk_delay or 0.01)
                    await resp.write(self._line({"model": body["model"], "created_at": _now(),
                                                 "message": {"role": "assistant", "content": f"{piece}{n} "}, "done": False}))
        except (ConnectionError, RuntimeError, asyncio.CancelledError):  # the client went away: the point of the exercise
            pass
        return resp

    # helpers

    def _thinks(self, body: dict[str, Any], reply: Reply) -> bool:
        """A thinking model thinks unless told ``think: false`` (a model that is not hybrid thinks anyway)."""
        capable = "thinking" in self.models.get(body.get("model", ""), [])
        return bool(reply.thinking) and capable and (body.get("think") is not False or reply.always_thinks)

    def _audit(self, body: dict[str, Any]) -> None:
        if body.get("tools") and body.get("format"):
            self.violations.append("format and tools were sent in one request (a schema suppresses tool calls)")
        for m in body.get("messages", []):
            for image in m.get("images") or []:  # the client sends each image as base64 text
                try:
                    base64.b64decode(image, validate=True)
                except (binascii.Error, TypeError, ValueError):
                    self.violations.append("an image that is not base64")
            for c in m.get("tool_calls") or []:
                if not isinstance(c.get("function", {}).get("arguments"), dict):
                    self.violations.append("tool-call arguments must be a JSON object")
        if not (body.get("options") or {}).get("num_ctx"):
            self.violations.append("num_ctx not set: Ollama's small default context truncates silently")

    @staticmethod
    def _tool_calls(reply: Reply) -> dict[str, Any]:
        if not reply.tool_calls:
            return {}
        return {"tool_calls": [{"function": {"index": i, "name": c["name"], "arguments": c["arguments"]}}
                               for i, c in enumerate(reply.tool_calls)]}

    @staticmethod
    def _line(obj: dict[str, Any]) -> bytes:
        return (json.dumps(obj, ensure_ascii=False) + "\n").encode()

    @staticmethod
    def _final(body: dict[str, Any], reply: Reply, t0: float, message: dict[str, Any], eval_count: int | None = None) -> dict[str, Any]:
        prompt_chars = sum(len(m.get("content") or "") for m in body.get("messages", []))
        total = int((time.monotonic() - t0) * 1e9)
        return {
            "model": body["model"], "created_at": _now(), "message": message, "done": True, "done_reason": "stop",
            "total_duration": total + 1000, "load_duration": 1000, "prompt_eval_count": max(1, prompt_chars // 4),
            "prompt_eval_duration": 500, "eval_count": eval_count or max(1, len(reply.content) // 4),
            "eval_duration": total,
        }


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")
