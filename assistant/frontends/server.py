"""The daemon's local API (aiohttp): ``POST /v1/ask`` streams a turn's events as NDJSON; ``GET /v1/health``,
``GET /v1/sessions``, ``POST /v1/popup``.

Only local, authenticated requests are served: the token (a 0600 file) is required; a ``Host`` other than
localhost or any ``Origin`` (a browser: DNS rebinding, cross-site requests) is refused; bodies are capped;
malformed requests are 400; and no request can make it answer 500."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assistant import __version__
from assistant.config import DAEMON, LINE_CONTROLS, ROLES, TURN, Settings, settings_in
from assistant.config_load import with_flags
from assistant.envnames import ENV_PREFIX, SERVER_VARS
from assistant.errors import AssistantError, ConfigError, InternalError
from assistant.limits import no_duplicate_keys
from assistant.pipeline.events import Event, EventAdapter, TurnFailed
from assistant.models.parsing import MAX_DEPTH, too_deep
from assistant.pipeline.question import Question
from assistant.pipeline.turn import Assistant
from assistant import wire

MAX_BODY = 1024 * 1024  # bodies; a question's own limit is the model's context (assistant.limits)
BODY_SECONDS = 5.0  # a body must arrive within this; a slow sender does not hold a connection
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
log = logging.getLogger("assistant.daemon")


class PopupUnavailable(Exception):
    """The popup cannot be shown here (no desktop, or its window failed to open): said to whoever asked for it."""


class AskBody(BaseModel):
    """``POST /v1/ask``. Strict: a boolean is not a number, a number is not a string."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: str = Field(min_length=1, max_length=MAX_BODY)
    session_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{1,64}$")
    # The per-turn settings the client chose (-m, -o, --max-retries, a template, the chat's /model): one map by the
    # settings' own names, checked by the settings' own rules; only settings a turn reads (config.TURN) are taken.
    settings: dict[str, str | int | float | bool | None] | None = None
    env: dict[str, str] | None = None  # the client's OLLAMA_HOST and ASSISTANT_* variables: its settings, not the daemon's
    one_shot: Literal["ask"] | None = None  # a question on its own, filed under the rolling session of `ask`
    log: bool = True  # False: answer, store nothing (`ask --no-log`)
    system: str | None = Field(None, max_length=MAX_BODY)  # the user's instructions for this answer (`ask -s`)
    quoted: bool = False  # the question carries attached, piped or selected text (never a request a rule acts on)

    @field_validator("env")
    @classmethod
    def _env(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        if v is not None and len(v) > 100:
            raise ValueError("too many environment variables")
        for name, value in (v or {}).items():
            if not (name in SERVER_VARS or re.fullmatch(rf"{ENV_PREFIX}[A-Z0-9_]{{1,64}}", name)) \
                    or len(value) > 4096 or LINE_CONTROLS.search(value):  # the model servers' own variables, and ours
                raise ValueError(f"'{name[:70]}' is not a setting's environment variable")
        return v

    @field_validator("question")
    @classmethod
    def _printable(cls, v: str) -> str:
        if LINE_CONTROLS.search(v):
            raise ValueError("the question contains a control character (NUL or similar)")
        return v

    @field_validator("settings")
    @classmethod
    def _per_turn(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        for name in v or {}:
            if name not in PER_TURN:
                raise ValueError(f"'{name[:70]}' is not a setting a question can choose")
        return v


# Settings a turn reads (the daemon applies a client's to its turn); any other difference needs another backend or
# other tools, so the client answers in its own process instead. The daemon's own settings never count.
PER_TURN, DAEMON_ONLY = settings_in(TURN), settings_in(DAEMON)


def differing(wanted: Settings, running: Settings) -> list[str]:
    """The settings in which a client's differ from the daemon's and that a turn cannot take on by itself."""
    return [n for n in type(running).model_fields
            if n not in PER_TURN | DAEMON_ONLY and getattr(wanted, n) != getattr(running, n)]


@dataclass
class DaemonState:
    started: float = field(default_factory=time.time)
    transport: str = ""
    hotkey: str = "inactive: not started"
    warm: str = "warming"
    answering: str | None = None  # the model that answers, as a user reads it (once the backend is chosen)
    popup_session: str | None = None
    open_popup: Callable[..., Awaitable[str]] | None = None
    assistant: Assistant | None = None  # the one answering; replaced when the settings are reloaded
    settings_for: Callable[[dict[str, str]], Settings] | None = None  # config.toml as it is now, with a client's env
    refresh: Callable[[], Awaitable[None]] | None = None  # reload when config.toml changed
    busy: dict[int, int] = field(default_factory=dict)  # turns in flight per assistant (a replaced one closes after)
    retired: list[Assistant] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the user must know of how it answers (a plugin unconfined)

    def note(self, text: str) -> None:
        log.warning("%s", text)
        if text not in self.notes:
            self.notes.append(text)

    async def retire(self, app: Assistant) -> None:
        """``app`` answers no new turns; it closes once its turns in flight have finished."""
        self.retired.append(app)
        await self._close_idle()

    async def release(self, app: Assistant) -> None:
        self.busy[id(app)] -= 1
        await self._close_idle()

    async def _close_idle(self) -> None:
        for old in [a for a in self.retired if not self.busy.get(id(a))]:
            self.retired.remove(old)
            self.busy.pop(id(old), None)
            await old.aclose()


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _stranger(status: int, message: str) -> web.Response:
    """Refused before anything is served: the connection is closed too, so only the token's owner holds one
    (``doorman``)."""
    response = _error(status, message)
    response.force_close()
    return response


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[1:host.find("]")]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class DaemonApi:
    """The daemon's local API: each route a method, the token checked and hostile requests refused by ``guard``."""

    def __init__(self, assistant: Assistant, token: str, state: DaemonState) -> None:
        self.state, self.token = state, token
        state.assistant = state.assistant or assistant

    @property
    def assistant(self) -> Assistant:
        """The pipeline that answers now (a reload puts a new one in ``state``)."""
        assert self.state.assistant is not None, "the API serves only once a pipeline is built"
        return self.state.assistant

    def app(self) -> web.Application:
        guard = self.guard

        @web.middleware
        async def checked(request: web.Request, handler: Handler) -> web.StreamResponse:
            return await guard(request, handler)

        app = web.Application(client_max_size=MAX_BODY, middlewares=[checked])
        app.router.add_get("/v1/health", self.health)
        app.router.add_get("/v1/sessions", self.sessions)
        app.router.add_get("/v1/sessions/{session_id}/turns", self.session_turns)
        app.router.add_post("/v1/ask", self.ask)
        app.router.add_post("/v1/popup", self.popup)
        app.router.add_post("/v1/settings", self.compare_settings)
        return app

    async def guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Only local, authorised, non-browser requests reach a route; a route's failure is an error body, never a
        500 or the daemon's end."""
        if _hostname(request.headers.get("Host", "")) not in LOCAL_HOSTS:
            return _stranger(403, "requests must be addressed to localhost")
        if "Origin" in request.headers:
            return _stranger(403, "requests from web pages are not accepted")
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
            return _stranger(401, "missing or wrong token (see the daemon.token file)")
        try:
            return await handler(request)
        except web.HTTPRequestEntityTooLarge:
            return _error(413, f"the request body is larger than {MAX_BODY} bytes")
        except web.HTTPRequestTimeout as e:
            return _error(408, e.reason)
        except web.HTTPException as e:
            if e.status >= 500:
                return _error(503, e.reason)
            return _error(e.status, e.reason)
        except Exception:  # a bug must not become a 500 nor kill the daemon
            log.exception("request %s %s failed", request.method, request.path)
            return _error(503, "the daemon hit an internal error; see its log")

    async def body_of(self, request: web.Request) -> Any:
        """The JSON body, refused before parsing when it is announced too large (413), arrives too slowly (408),
        nests too deep or repeats a key (400)."""
        if request.content_length is not None and request.content_length > MAX_BODY:
            raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=request.content_length)
        try:
            async with asyncio.timeout(BODY_SECONDS):
                raw = await request.read()
        except TimeoutError:
            raise web.HTTPRequestTimeout(reason=f"the body did not arrive within {BODY_SECONDS:g} s") from None
        try:
            text = raw.decode("utf-8") if raw else "null"
        except UnicodeDecodeError:
            raise web.HTTPBadRequest(reason="the body is not UTF-8") from None
        if too_deep(text):
            raise web.HTTPBadRequest(reason=f"the body nests deeper than {MAX_DEPTH} levels")
        try:
            return json.loads(text, object_pairs_hook=no_duplicate_keys)
        except ValueError as e:
            reason = str(e) if "appears twice" in str(e) else "the body is not valid JSON"
            raise web.HTTPBadRequest(reason=reason) from None
        except RecursionError:
            raise web.HTTPBadRequest(reason="the body nests too deeply") from None

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({
            "ok": True, "version": __version__, "pid": __import__("os").getpid(),
            "uptime_s": round(time.time() - self.state.started, 1), "transport": self.state.transport,
            "backend": self.assistant.backend.name, "models": {r: self.assistant.settings.model_for(r) for r in ROLES},
            "warm": self.state.warm, "answering": self.state.answering, "hotkey": self.state.hotkey,
            "notes": self.state.notes[-4:],
        })

    def client_settings(self, env: dict[str, str] | None) -> tuple[Settings | None, list[str], str | None]:
        """A client's settings (config.toml as it is now, with its environment), what in them a turn cannot take
        on, and why they could not be read: the one rule ``ask`` meets and ``doctor`` reports."""
        if env is None or self.state.settings_for is None:
            return None, [], None
        try:
            wanted = self.state.settings_for(env)
        except AssistantError as e:
            return None, ["config"], e.one_line()
        return wanted, differing(wanted, self.assistant.settings), None

    async def compare_settings(self, request: web.Request) -> web.Response:
        """``{"env": {...}}``: which settings of a client with that environment the daemon would not answer with
        (the rule ``ask`` meets), for ``doctor``."""
        try:
            body = AskBody.model_validate({"question": "?", **(await self.body_of(request) or {})})
        except (ValidationError, TypeError) as e:
            return _error(400, f"invalid request: {e.__class__.__name__}")
        if self.state.refresh is not None:
            await self.state.refresh()
        _, differs, error = self.client_settings(body.env)
        return web.json_response({"differs": differs, **({"error": error} if error else {})})

    async def sessions(self, request: web.Request) -> web.Response:
        return web.json_response({"sessions": [s.model_dump() for s in self.assistant.store.sessions()]})

    async def session_turns(self, request: web.Request) -> web.Response:
        """The last turns of a session (at most 20), oldest first: what the popup shows again when it reopens."""
        session_id = request.match_info["session_id"]
        store = self.assistant.store
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", session_id) or not store.session_exists(session_id):
            return _error(404, f"no session {session_id[:64]}")
        turns = store.session_turns(session_id)[-20:]
        return web.json_response({"turns": [{"question": t.question, "answer": t.answer, "ok": t.ok} for t in turns]})

    async def popup(self, request: web.Request) -> web.Response:
        if self.state.open_popup is None:
            return _error(409, "the popup is not available in this daemon")
        try:
            return web.json_response({"ok": True, "popup": await self.state.open_popup(wait=True)})
        except PopupUnavailable as e:
            return _error(503, str(e))

    def turn_settings(self, body: AskBody) -> dict[str, Any] | web.Response:
        """What the client chose for this turn (its per-turn settings, models, retries, instructions), checked by the
        settings' own rules: the turn answers with the daemon's settings changed by these; a 409 names what else
        differs (the client then answers itself)."""
        settings = self.assistant.settings
        wanted, differs, error = self.client_settings(body.env)
        if differs:
            return web.json_response({"error": error or f"the daemon runs with other settings ({', '.join(differs)})",
                                      "differs": differs}, status=409)
        changes: dict[str, Any] = {n: getattr(wanted, n) for n in PER_TURN} if wanted is not None else {}
        changes.update(body.settings or {})
        if body.system is not None:  # an older client's -s, beside the settings
            changes.setdefault("system", body.system)
        try:  # the settings' own rules, checked here so that a refusal is a 400 before any event streams
            with_flags(settings, changes)
            return changes
        except ConfigError as refused:  # said as the client's command line would say it, with its exit code
            return web.json_response({"error": refused.message, "hint": refused.hint, "exit_code": refused.exit_code},
                                     status=400)

    async def answer(self, request: web.Request, body: AskBody, changes: dict[str, Any]) -> web.StreamResponse:
        """The turn's events as NDJSON while it runs; a client that leaves does not stop it (it is still stored)."""
        assistant = self.assistant
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        gone = False

        async def emit(event: Event) -> None:
            nonlocal gone
            if gone:
                return
            try:
                await response.write(wire.line(EventAdapter.dump_json(event)))
            except (ConnectionError, RuntimeError):
                gone = True  # the client left; the turn still finishes and is stored

        self.state.busy[id(assistant)] = self.state.busy.get(id(assistant), 0) + 1
        started = time.monotonic()
        try:
            asked = Question(question=body.question, session_id=body.session_id, settings=changes,
                             one_shot=body.one_shot if not body.session_id else None, log=body.log,
                             quoted=body.quoted)
            result = await assistant.ask(asked, emit)
            # what was answered and how long it took, never the question's words (they stay in the store)
            log.info("turn %s: %s, %s, %.1f s%s", result.turn_id or "(not stored)", result.route,
                     "ok" if result.ok else "failed", time.monotonic() - started,
                     "" if not gone else ", the client left before the end")
        except AssistantError as e:  # the pipeline already streamed its turn_failed event
            if isinstance(e, InternalError):
                log.error("turn failed: %s", e.message, exc_info=e.__cause__)
        except Exception as e:  # a failure outside the turn: the stream still ends with an event the client shows
            log.exception("ask failed")
            await emit(TurnFailed(message=f"the daemon hit an internal error ({type(e).__name__}).",
                                  hint="See daemon.log in the log directory."))
        finally:
            await self.state.release(assistant)
        if not gone:
            try:
                await response.write_eof()
            except (ConnectionError, RuntimeError):
                pass
        return response

    async def ask(self, request: web.Request) -> web.StreamResponse:
        """``POST /v1/ask``: read the request, settle the turn's settings, answer."""
        try:
            body = AskBody.model_validate(await self.body_of(request))
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(map(str, first["loc"])) or "body"
            return _error(400, f"invalid request: {where}: {first['msg']}")
        if self.state.refresh is not None:
            await self.state.refresh()
        store = self.assistant.store
        if body.session_id == "last":  # `ask -c`: the most recent conversation
            body.session_id = store.find_session("last", exclude="batch")
        if body.session_id and not store.session_exists(body.session_id):
            return _error(404, f"no session {body.session_id}")
        changes = self.turn_settings(body)
        if isinstance(changes, web.Response):
            return changes
        return await self.answer(request, body, changes)


def build_api(assistant: Assistant, token: str, state: DaemonState) -> web.Application:
    return DaemonApi(assistant, token, state).app()

