"""The REPL's view of a running daemon: the same ``ask`` as :class:`assistant.pipeline.Assistant`, answered
by the daemon (warm models) through the one daemon client (:mod:`assistant.frontends.client`), with the store
read directly (the same database file) for the commands."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, cast

from assistant.answering import Answering
from assistant.config import TURN, Settings, settings_in
from assistant.errors import AssistantError
from assistant.frontends.client import Client, DaemonError, DaemonUnavailable
from assistant.pipeline.context import Emit
from assistant.pipeline.events import EventAdapter, TurnResult
from assistant.wire import Follower
from assistant.store import Store

_END = object()
RECONNECT_TRIES, RECONNECT_PAUSE = 12, 0.25  # how long a restarting daemon is waited for (about 3 s)


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

    def _overrides(self) -> dict[str, Any]:
        """What goes with each question: every per-turn setting as this chat has it now (its flags, a template, /model,
        /retries), and the shell's variables, by which the daemon tells whether it can answer at all."""
        return {"settings": {name: getattr(self.settings, name) for name in sorted(settings_in(TURN))}, "env": self.env}

    async def ask(self, question: str, session_id: str | None = None, *, emit: Emit | None = None,
                  system: str | None = None) -> TurnResult:
        """The same result as in-process, built from the turn's events. The client blocks, so each read runs in a
        thread; a cancelled turn aborts the read that waits."""
        if self._here is not None:
            return await self._here.ask(question, session_id=session_id, emit=emit, system=system)
        def send(client: Client) -> Any:
            return client.ask(question, session_id, system=system, **self._overrides())

        try:
            try:
                stream = await asyncio.to_thread(send, self.client)
            except (DaemonUnavailable, DaemonError) as e:  # gone, or back with a new token: found again if it can be
                if isinstance(e, DaemonError) and e.status != 401:
                    raise
                stream = await self._reconnected(send)
        except DaemonError as e:
            if e.status == 409 and self.local is not None:
                if self.notice is not None and e.details.get("differs") != ["config"]:
                    self.notice(f"{e}; answering in this process instead.")
                self._here = self.local()
                return await self._here.ask(question, session_id=session_id, emit=emit, system=system)
            raise AssistantError(f"the daemon refused the question: {e}.") from None
        except DaemonUnavailable as e:
            if self.local is not None:  # the daemon is gone and did not come back: this process answers from now on
                if self.notice is not None:
                    self.notice("the daemon is not running any more; answering in this process from now on.")
                self._here = self.local()
                return await self._here.ask(question, session_id=session_id, emit=emit, system=system)
            raise AssistantError(f"{e}.", "Check `assistant daemon status`, or use --no-daemon.") from None
        events = iter(stream)
        turn = Follower(session_id)
        try:
            while (event := await asyncio.to_thread(next, events, _END)) is not _END:
                turn.see(cast("dict[str, Any]", event))  # a dict: the sentinel ended the loop
                if emit is not None:
                    r = emit(EventAdapter.validate_python(event))
                    if r is not None:
                        await r
        except DaemonUnavailable as e:
            raise AssistantError(f"{e}.", "Check `assistant daemon status`, or use --no-daemon.") from None
        finally:
            stream.abort()
        done = turn.outcome()
        return TurnResult.model_validate({**done, "session_id": turn.session_id, "route_by": turn.route_by,
                                          "tool_calls": turn.tool_calls})

    async def _reconnected(self, call: Callable[[Client], Any]) -> Any:
        """The daemon restarted (a new socket, a new token) or is restarting: find it again, for a few seconds, and
        send the question there; it is said once. :class:`DaemonUnavailable` when it does not come back."""
        from assistant.frontends.client import connect

        for _ in range(RECONNECT_TRIES):
            fresh = await asyncio.to_thread(connect, self.client.run_dir)
            if fresh is not None:
                self.client = fresh
                result = await asyncio.to_thread(call, fresh)
                if self.notice is not None:
                    self.notice("the daemon restarted; reconnected.")
                return result
            await asyncio.sleep(RECONNECT_PAUSE)
        raise DaemonUnavailable("the daemon is not running")

    async def warm(self) -> None:
        pass  # the daemon keeps its tools warm

    async def aclose(self) -> None:
        if self._here is not None:
            await self._here.aclose()
        self.store.close()
