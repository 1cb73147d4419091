"""The REPL's view of a running daemon: the same ``ask`` as :class:`assistant.pipeline.Assistant`, answered
by the daemon (warm models) through the one daemon client (:mod:`assistant.frontends.client`), with the store
read directly (the same database file) for the commands."""

from __future__ import annotations

import asyncio
from typing import Any

from assistant.config import ROLES, Settings
from assistant.errors import AssistantError
from assistant.frontends.client import Client, DaemonError, DaemonUnavailable
from assistant.pipeline.context import Emit
from assistant.pipeline.events import EventAdapter, TurnResult
from assistant.wire import Follower
from assistant.store import Store

_END = object()


class RemoteAssistant:
    def __init__(self, client: Client, settings: Settings, store: Store) -> None:
        self.client = client
        self.settings = settings
        self.store = store

    def _overrides(self) -> dict[str, Any]:
        return {"max_retries": self.settings.max_retries,
                "models": {r: self.settings.model_for(r) for r in ROLES}}

    async def ask(self, question: str, session_id: str | None = None, emit: Emit | None = None) -> TurnResult:
        """The same result as in-process, built from the turn's events. The client blocks, so each read runs in a
        thread; a cancelled turn aborts the read that waits."""
        try:
            stream = await asyncio.to_thread(self.client.ask, question, session_id, **self._overrides())
        except DaemonError as e:
            raise AssistantError(f"the daemon refused the question: {e}.") from None
        except DaemonUnavailable as e:
            raise AssistantError(f"{e}.", "Check `assistant daemon status`, or use --no-daemon.") from None
        events = iter(stream)
        turn = Follower(session_id)
        try:
            while (event := await asyncio.to_thread(next, events, _END)) is not _END:
                turn.see(event)
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

    async def warm(self) -> None:
        pass  # the daemon keeps its tools warm

    async def aclose(self) -> None:
        self.store.close()
