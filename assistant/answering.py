"""The assistant as a front end sees it: the in-process pipeline (:class:`assistant.pipeline.turn.Assistant`) and
the daemon's (:class:`assistant.frontends.remote.RemoteAssistant`) both answer through this, so the chat REPL
and the CLI do not care which one they hold. Light: nothing of the model stack is imported."""

from __future__ import annotations

from typing import Any, Protocol

from assistant.config import Settings
from assistant.pipeline.events import TurnResult
from assistant.pipeline.question import Question
from assistant.store import Store


class Answering(Protocol):
    settings: Settings
    store: Store

    async def ask(self, request: Question, emit: Any = None) -> TurnResult:
        """Answer one question, in the one shape every front end asks it (:class:`Question`: the command line, the
        chat, a batch, the daemon for the popup and its clients), streaming its events to ``emit``, and return what
        it came to (the same in-process and through the daemon); raises ``AssistantError`` when the turn fails."""
        ...

    async def answering_model(self) -> str:
        """The model that answers now, as a user reads it (``qwen2.5:3b (ollama)``)."""
        ...

    async def warm(self) -> None:
        """Get ready to answer fast (tool workers started); nothing to do where someone else keeps them warm."""
        ...

    async def aclose(self) -> None: ...
