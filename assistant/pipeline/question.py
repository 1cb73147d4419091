"""One question, as every front end asks it: the in-process pipeline (:meth:`assistant.pipeline.turn.Assistant.ask`)
takes this, and the daemon's ``POST /v1/ask`` body is this with the client's environment (the wire's
``TurnRequest``; :class:`assistant.frontends.server.AskBody` checks it, then asks with this)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Question(BaseModel):
    question: str
    session_id: str | None = None  # a whole id ("last" is resolved by the front end); None: a new conversation
    # The per-turn settings the asker chose (-m, -o, -s, --max-retries, --schema, a template, the chat's /model), by
    # the settings' own names, checked by the settings' own rules and applied to this turn alone.
    settings: dict[str, Any] = Field(default_factory=dict)
    one_shot: Literal["ask", "batch"] | None = None  # on its own, no earlier turn as context, filed under that front
    # end's rolling session (or ``session_id``)
    log: bool = True  # False: nothing of the turn is stored (`ask --no-log`)
    # The question carries text the user did not type here (an -f file, what was piped beside the words, the
    # selection): quoted material, never a request a rule acts on, whatever markup wraps it.
    quoted: bool = False
    images: list[bytes] | None = None  # pictures for a model with vision (`ask -f photo.png`); not on the wire
