"""The REPL's view of a running daemon: the same ``ask`` as :class:`assistant.pipeline.Assistant`, answered
by the daemon (warm models) through the one daemon client (:mod:`assistant.frontends.client`), with the store
read directly (the same database file) for the commands."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from assistant.answering import Answering
from assistant.config import TURN, Settings, settings_in
from assistant.errors import AssistantError
from assistant.frontends.client import Client, DaemonError, DaemonUnavailable, Turn, answer_here_after
from assistant.pipeline.context import Emit
from assistant.pipeline.events import EventAdapter, TurnResult
from assistant.pipeline.question import Question
from assistant.store import Store

_END = object()


class RemoteAssistant:
    """``env``: the shell's OLLAMA_HOST and ASSISTANT_* variables (and the -o options as such), sent with every
    question as ``ask`` sends them. When the daemon runs with settings a turn cannot take on (409), ``local``
    builds an in-process pipeline that answers from then on, and ``notice`` says so once: never silently the
    daemon's settings."""

    def __init__(self, client: Client, settings: Settings, store: Store, env: dict[str, str] | None = None,
                 local: Callable[[], Answering] | None = None, notice: Callable[[str], None] | None = None) -> None:
        self.client = client
        self.settings = settings
        self.store = store
        self.env = env
        self.local, self.notice = local, notice
        self._here: Answering | None = None

    def _chosen(self) -> dict[str, Any]:
        """What goes with each question: every per-turn setting as this chat has it now (its flags, a template, /model,
        /retries)."""
        return {name: getattr(self.settings, name) for name in sorted(settings_in(TURN))}

    async def ask(self, request: Question | str, emit: Emit | None = None, **fields: Any) -> TurnResult:
        """The same result as in-process, built from the turn's events. The client blocks, so each step runs in a
        thread; a cancelled turn aborts the read that waits."""
        asked = request if isinstance(request, Question) else Question(question=request, **fields)
        if self._here is not None:
            return await self._here.ask(asked, emit)
        turn = Turn(self.client, {"question": asked.question, "session_id": asked.session_id,
                                  "settings": {**self._chosen(), **asked.settings}, "env": self.env,
                                  "quoted": asked.quoted or None})
        try:
            await asyncio.to_thread(turn.send)
        except DaemonError as e:
            answer_here_after(e, self.notice, "answering in this process instead.", can=self.local is not None)
            return await self._answer_here(asked, emit)
        except DaemonUnavailable as e:
            if self.local is None:
                raise AssistantError(f"{e}.", "Check `assistant daemon status`, or use --no-daemon.") from None
            if self.notice is not None:  # the daemon is gone and did not come back: this process answers from now on
                self.notice("the daemon is not running any more; answering in this process from now on.")
            return await self._answer_here(asked, emit)
        if turn.reconnected:
            self.client = turn.client
            if self.notice is not None:
                self.notice("the daemon restarted; reconnected.")
        events = iter(turn)
        try:
            while (event := await asyncio.to_thread(next, events, _END)) is not _END:
                if emit is not None:
                    r = emit(EventAdapter.validate_python(event))
                    if r is not None:
                        await r
        finally:
            turn.abort()
        return TurnResult.model_validate(turn.outcome())

    async def _answer_here(self, asked: Question, emit: Emit | None) -> TurnResult:
        """From now on this process answers (built once, by ``local``)."""
        assert self.local is not None
        self._here = self.local()
        return await self._here.ask(asked, emit)

    async def answering_model(self) -> str:
        """The model that answers, as the daemon reads it (``SmolLM2-135M-Instruct.Q4_1 (built-in, tiny)``), when
        this chat answers with the daemon's model; the chat's own otherwise (-m, /model)."""
        mine = self.settings.model_for("responder")
        if self._here is not None:
            return await self._here.answering_model()
        for _ in range(10):  # a daemon just started names it once it has chosen its backend (a moment)
            try:
                health = await asyncio.to_thread(self.client.get, "/v1/health")
            except (DaemonUnavailable, DaemonError, ValueError):
                return mine
            if health.get("answering") or health.get("warm") != "warming":
                break
            await asyncio.sleep(0.2)
        said = health.get("answering")
        return said if said and (health.get("models") or {}).get("responder") == mine else mine

    async def warm(self) -> None:
        pass  # the daemon keeps its tools warm

    async def aclose(self) -> None:
        if self._here is not None:
            await self._here.aclose()
        self.store.close()
