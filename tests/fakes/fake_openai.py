"""A fake OpenAI-compatible server on loopback, for the faults a real one cannot be made to show on demand.

It speaks the chat completions wire protocol as servers do: ``GET /v1/models``; ``POST /v1/chat/completions``
as JSON or as server-sent events (``data: {chunk}`` lines, ``data: [DONE]`` last, usage in a final chunk
with empty ``choices`` when ``stream_options.include_usage`` is set), tool-call arguments as JSON text, and
errors as ``{"error": {"message", "type", "code"}}`` with the status. ``accepts`` says which
``response_format`` types it takes (llama-cpp-python's server takes ``json_object`` with a ``schema`` and
answers ``json_schema`` with HTTP 500); ``tools=False`` makes it refuse tools with HTTP 400, as a vLLM started
without tool parsing does. A bearer ``key`` makes any other key HTTP 401. Replies are scripted per stage
with the same ``Reply`` as the fake Ollama."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Callable

from aiohttp import web
import fake_ollama
from fake_ollama import Reply, _as_reply
from loopback import LoopbackServer


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("schema")
    return fmt.get("schema")


def kind_of(body: dict[str, Any]) -> str:
    """Which stage sent a request, read off the wire request alone."""
    if body.get("tools"):  # every tool offered and the answer streamed: one call decides and answers
        return "decide" if body.get("stream") else "executor"
    props = (schema_of(body) or {}).get("properties", {})
    if "route" in props:
        return "router"
    if "verdict" in props:
        return "validator"
    if props:
        return "executor"
    system = next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system"), "")
    if '"route"' in system:
        return "router"
    if '"verdict"' in system:
        return "validator"
    return "responder" if body.get("stream") else "other"


class Script(fake_ollama.Script):
    """Replies per stage, as for the fake Ollama, with stages read off this wire."""

    kind = staticmethod(kind_of)


class FakeOpenAI(LoopbackServer):
    def __init__(self, handler: Callable[[dict[str, Any]], Any] | None = None, models: list[str] | None = None,
                 accepts: tuple[str, ...] = ("json_schema", "json_object"), tools: bool = True,
                 key: str | None = None) -> None:
        super().__init__()
        self.handler = handler
        self.models = models or ["qwen2.5-3b-instruct"]
        self.accepts = accepts
        self.tools = tools
        self.key = key
        self.requests: list[dict[str, Any]] = []  # every chat body that reached the model, in order
        self.refused: list[tuple[int, str]] = []  # (status, why) of each request refused before the model
        self.faults: list[tuple[int, str]] = []  # (status, message) answered before the next requests, in order
        self.drop_next = 0  # streams to break after their first (empty) chunk, with no [DONE]
        self.in_flight = 0
        self.max_in_flight = 0

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)

    def kinds(self) -> list[str]:
        return [kind_of(r) for r in self.requests]

    def _auth(self, request: web.Request) -> web.Response | None:
        if self.key and request.headers.get("Authorization") != f"Bearer {self.key}":
            return _error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        return None

    async def _models(self, request: web.Request) -> web.Response:
        if (refused := self._auth(request)) is not None:
            return refused
        return web.json_response({"object": "list", "data": [
            {"id": m, "object": "model", "created": 1790000000, "owned_by": "local"} for m in self.models]})

    def _refuse(self, status: int, message: str, kind: str = "invalid_request_error") -> web.Response:
        self.refused.append((status, message))
        return _error(status, message, kind)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        if (refused := self._auth(request)) is not None:
            self.refused.append((401, "key"))
            return refused
        body = await request.json()
        if self.faults:
            status, message = self.faults.pop(0)
            return self._refuse(status, message, "server_error" if status >= 500 else "rate_limit_exceeded")
        if body.get("model") not in self.models:
            return self._refuse(404, f"The model `{body.get('model')}` does not exist.")
        fmt = (body.get("response_format") or {}).get("type")
        if fmt and fmt != "text" and fmt not in self.accepts:
            return self._refuse(500, f"1 validation error: response_format.type: Input should be 'text' or "
                                     f"'json_object' (got {fmt!r})", "internal_server_error")
        if body.get("tools") and not self.tools:
            return self._refuse(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')
        for m in body.get("messages", []):
            for c in m.get("tool_calls") or []:
                if not isinstance(c.get("function", {}).get("arguments"), str):
                    return self._refuse(400, "tool_calls.function.arguments must be a string")
            if m.get("role") == "tool" and not m.get("tool_call_id"):
                return self._refuse(400, "messages with role 'tool' must have a tool_call_id")
        self.requests.append(body)
        try:
            reply = _as_reply(self.handler(body), body) if self.handler else Reply(content="ok")
        except LookupError as e:
            return self._refuse(500, str(e), "server_error")
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.error is not None:
                return _error(reply.status, reply.error, "server_error")
            if body.get("stream"):
                return await self._stream(request, body, reply)
            message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
            if reply.thinking:
                message["reasoning_content"] = reply.thinking
            if reply.tool_calls:
                message["tool_calls"] = _calls(reply)
            return web.json_response({
                "id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": body["model"],
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
                "usage": _usage(body, reply)})
        finally:
            self.in_flight -= 1

    async def _stream(self, request: web.Request, body: dict[str, Any], reply: Reply) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": body["model"], "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()

        await resp.write(chunk({"role": "assistant", "content": ""}))
        if self.drop_next:
            self.drop_next -= 1
            request.transport.close()  # the connection breaks before any text: no [DONE]
            return resp
        for i in range(0, len(reply.thinking), reply.chunk_size):
            await resp.write(chunk({"reasoning_content": reply.thinking[i:i + reply.chunk_size]}))
        text = reply.content
        for i in range(0, len(text), reply.chunk_size):
            if reply.chunk_delay:
                await asyncio.sleep(reply.chunk_delay)
            await resp.write(chunk({"content": text[i:i + reply.chunk_size]}))
        if reply.tool_calls:
            await resp.write(chunk({"tool_calls": [{**c, "index": i} for i, c in enumerate(_calls(reply))]}))
        await resp.write(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": body["model"], "choices": [], "usage": _usage(body, reply)}
            await resp.write(f"data: {json.dumps(usage)}\n\n".encode())
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp


def _calls(reply: Reply) -> list[dict[str, Any]]:
    return [{"id": f"call_{i}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
            for i, c in enumerate(reply.tool_calls)]


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, int]:
    prompt = max(1, sum(len(m.get("content") or "") for m in body.get("messages", [])) // 4)
    completion = max(1, len(reply.content) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _error(status: int, message: str, kind: str, code: str | None = None) -> web.Response:
    return web.json_response({"error": {"message": message, "type": kind, "param": None, "code": code}}, status=status)
