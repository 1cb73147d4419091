"""The daemon's local API (aiohttp): ``POST /v1/ask`` streams a turn's events as NDJSON; ``GET /v1/health``,
``GET /v1/sessions``, ``POST /v1/popup``.

Only local, authenticated requests are served: the token (a 0600 file) is required; a ``Host`` other than
localhost or any ``Origin`` (a browser: DNS rebinding, cross-site requests) is refused; bodies are capped;
malformed requests are 400; and no request can make it answer 500."""

from __future__ import annotations

import hmac
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assistant import __version__
from assistant.config import ROLES
from assistant.errors import AssistantError
from assistant.events import Event, EventAdapter
from assistant.pipeline import Assistant

MAX_BODY = 64 * 1024
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
log = logging.getLogger("assistant.daemon")


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=8000)
    session_id: str | None = Field(None, max_length=64)
    model: str | None = Field(None, max_length=200)
    max_retries: int | None = Field(None, ge=0, le=10)
    models: dict[str, str] | None = None  # per role: {"executor": "qwen2.5:7b", ...}


@dataclass
class DaemonState:
    started: float = field(default_factory=time.time)
    transport: str = ""
    hotkey: str = "inactive: not started"
    warm: str = "warming"
    popup_session: str | None = None
    open_popup: Callable[[], Awaitable[str]] | None = None


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[1:host.find("]")]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def build_api(assistant: Assistant, token: str, state: DaemonState) -> web.Application:
    @web.middleware
    async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        if _hostname(request.headers.get("Host", "")) not in LOCAL_HOSTS:
            return _error(403, "requests must be addressed to localhost")
        if "Origin" in request.headers:
            return _error(403, "requests from web pages are not accepted")
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return _error(401, "missing or wrong token (see the daemon.token file)")
        try:
            return await handler(request)
        except web.HTTPRequestEntityTooLarge:
            return _error(413, f"the request body is larger than {MAX_BODY} bytes")
        except web.HTTPException as e:
            if e.status >= 500:
                return _error(503, e.reason)
            return _error(e.status, e.reason)
        except Exception:  # a bug must not become a 500 nor kill the daemon
            log.exception("request %s %s failed", request.method, request.path)
            return _error(503, "the daemon hit an internal error; see its log")

    async def body_of(request: web.Request) -> Any:
        raw = await request.read()
        try:
            return json.loads(raw or b"null")
        except ValueError:
            raise web.HTTPBadRequest(reason="the body is not valid JSON") from None

    async def health(request: web.Request) -> web.Response:
        return web.json_response({
            "ok": True, "version": __version__, "pid": __import__("os").getpid(),
            "uptime_s": round(time.time() - state.started, 1), "transport": state.transport,
            "backend": assistant.backend.name, "models": {r: assistant.settings.model_for(r) for r in ROLES},
            "warm": state.warm, "hotkey": state.hotkey,
        })

    async def sessions(request: web.Request) -> web.Response:
        return web.json_response({"sessions": assistant.store.sessions()})

    async def popup(request: web.Request) -> web.Response:
        if state.open_popup is None:
            return _error(409, "the popup is not available in this daemon")
        return web.json_response({"ok": True, "popup": await state.open_popup()})

    async def ask(request: web.Request) -> web.StreamResponse:
        data = await body_of(request)
        try:
            body = AskBody.model_validate(data)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(map(str, first["loc"])) or "body"
            return _error(400, f"invalid request: {where}: {first['msg']}")
        if body.session_id and not assistant.store.session_exists(body.session_id):
            return _error(404, f"no session {body.session_id}")
        if body.models and not set(body.models) <= set(ROLES):
            return _error(400, f"invalid request: models: roles are {', '.join(ROLES)}")
        settings = assistant.settings
        if body.model or body.models or body.max_retries is not None:
            changes: dict[str, Any] = {}
            if body.model:
                changes.update({"model": body.model, **{f"{r}_model": body.model for r in ROLES}})
            for role, name in (body.models or {}).items():
                changes[f"{role}_model"] = name
            if body.max_retries is not None:
                changes["max_retries"] = body.max_retries
            settings = settings.model_copy(update=changes)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        gone = False

        async def send(obj: bytes) -> None:
            nonlocal gone
            if gone:
                return
            try:
                await response.write(obj + b"\n")
            except (ConnectionError, RuntimeError):
                gone = True  # the client left; the turn still finishes and is stored

        async def emit(event: Event) -> None:
            await send(EventAdapter.dump_json(event))

        try:
            await assistant.ask(body.question, session_id=body.session_id, emit=emit, settings=settings)
        except AssistantError as e:
            await send(json.dumps({"type": "error", "message": e.message, "hint": e.hint, "exit_code": e.exit_code},
                                  ensure_ascii=False).encode())
        if not gone:
            try:
                await response.write_eof()
            except (ConnectionError, RuntimeError):
                pass
        return response

    app = web.Application(client_max_size=MAX_BODY, middlewares=[guard])
    app.router.add_get("/v1/health", health)
    app.router.add_get("/v1/sessions", sessions)
    app.router.add_post("/v1/ask", ask)
    app.router.add_post("/v1/popup", popup)
    return app
