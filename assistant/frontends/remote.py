"""The REPL's view of a running daemon: the same ``ask`` as :class:`assistant.pipeline.Assistant`, answered
by the daemon (warm models) through the one daemon client (:mod:`assistant.frontends.client`), with the store
read directly (the same database file) for the commands."""

from __future__ import annotations

import asyncio
from typing import Any

from assistant.config import ROLES, Settings
from assistant.errors import AssistantError, from_failure
from assistant.frontends.client import Client, DaemonError, DaemonUnavailable
from assistant.pipeline.context import Emit
from assistant.pipeline.events import (
    EventAdapter, RouteDecided, StepSummary, ToolCallSummary, ToolResultEvent, TurnDone, TurnResult, TurnStarted,
)
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
        seen: dict[str, Any] = {"session_id": session_id or "", "route_by": None}
        calls: list[ToolCallSummary] = []
        try:
            while (event := await asyncio.to_thread(next, events, _END)) is not _END:
                if event.get("type") == "turn_failed":
                    raise from_failure(event)
                typed = EventAdapter.validate_python(event)
                if isinstance(typed, TurnStarted):
                    seen["session_id"] = typed.session_id
                elif isinstance(typed, RouteDecided):
                    seen["route_by"] = typed.by
                elif isinstance(typed, ToolResultEvent):
                    calls.append(ToolCallSummary(name=typed.name, args=typed.args, ok=typed.ok, result=typed.result,
                                                 error=typed.error))
                elif isinstance(typed, TurnDone):
                    seen["done"] = typed
                if emit is not None:
                    r = emit(typed)
                    if r is not None:
                        await r
        except DaemonUnavailable as e:
            raise AssistantError(f"{e}.", "Check `assistant daemon status`, or use --no-daemon.") from None
        finally:
            stream.abort()
        done: TurnDone | None = seen.get("done")
        if done is None:
            raise AssistantError("the daemon's answer ended before the turn did.", "Ask again, or use --no-daemon.")
        return TurnResult(turn_id=done.turn_id, session_id=seen["session_id"], ok=done.ok, answer=done.answer,
                          route=done.route, route_by=seen["route_by"], attempts=done.attempts,
                          model_calls=done.model_calls, tool_calls=calls, error=done.error, replaced=done.replaced,
                          steps=[StepSummary.model_validate(st) for st in done.steps])

    async def warm(self) -> None:
        pass  # the daemon keeps its tools warm

    async def aclose(self) -> None:
        self.store.close()
