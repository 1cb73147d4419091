"""Which model answers this turn, and how far its answers are trusted: built once a turn from the model's profile
(:class:`assistant.models.base.ModelProfile`), the turn's settings and the store's record of that model's answers.

Everything the turn asks about the model in use is asked here: its name as the user gave it (every decline and
note names it), whether it writes the question's language, whether it is the built-in tiny model, the trust of its
conversation answers (:func:`decide`), whether one call may decide and answer, and the record of how its answers
fared (``weak_writer_after`` failures in a row make it strict).

How far a model's conversation answers are trusted is measured, not assumed, and said in the trace:
- ``small talk only``: the built-in tiny model, and any model well under a few billion parameters (a real 0.5B
  model wrote fluent, confident wrong capitals, names and commands in about a third of its answers). It answers
  small talk; a question of fact, code, commands or advice gets one honest line and the command to a capable model.
- ``strict``: a model whose conversation answers kept failing the gate (``weak_writer_after`` in a row, per model,
  remembered), or ``model_trust = "untrusted"``. Every figure must be supported by the question, the conversation,
  true arithmetic or the short table of common facts.
- ``trusted``: any other model the user brings. The gate refutes instead of demanding proof: it holds what is
  provably wrong or never ours to show (false arithmetic and conversions, contacts and links the question did not
  give, markup, our instructions, another language, garbage) and lets a figure that no table lists through.

``model_trust = "trusted"`` trusts a small model too; the built-in model stays at small talk."""

from __future__ import annotations

from enum import Enum

from assistant.config import Settings
from assistant.errors import AssistantError, NoVision
from assistant.models.base import ModelBackend, ModelProfile
from assistant.pipeline.recognisers import small_talk
from assistant.pipeline.language import scope_line
from assistant.store import Store
from tools import language_of


SMALL_MODEL = 2e9  # parameters: below this a model starts at small talk only


class Trust(str, Enum):
    SMALL_TALK = "small talk only"
    STRICT = "strict"
    TRUSTED = "trusted"


def decide(setting: str, built_in: bool, size: float | None, failing: bool) -> tuple[Trust, str]:
    """The trust for this turn and why, in words the trace shows."""
    if built_in:
        return Trust.SMALL_TALK, "the built-in model (135M parameters) answers small talk only"
    if setting == "trusted":
        return Trust.TRUSTED, "trusted by the setting model_trust"
    if setting == "untrusted":
        return Trust.STRICT, "untrusted by the setting model_trust: every figure must be supported"
    if size is not None and size < SMALL_MODEL:
        return Trust.SMALL_TALK, f"a small model ({size / 1e9:.2g}B parameters) answers small talk only"
    if failing:
        return Trust.STRICT, "its last conversation answers failed the check: every figure must be supported"
    return Trust.TRUSTED, "trusted: what is provably wrong is held back"


class Answerer:
    """The answering model of one turn, as far as the turn needs to know it. Nothing here asks the model's server
    until a fact only the server knows is needed (its size for the trust, tools, vision)."""

    def __init__(self, model: ModelBackend, settings: Settings, store: Store, log: bool = True) -> None:
        self.model = model
        self.settings = settings
        self.store = store
        self.log = log  # False: the turn stores nothing, this record included
        self.name = settings.model_for("responder")  # as configured
        self.named: str | None = None  # as the user named it, once known (a GGUF's stem, a pulled model's name)
        self._known: ModelProfile | None = None
        self.decided: tuple[Trust, str] | None = None  # the trust, once decided this turn

    async def known(self) -> ModelProfile:
        """Its profile as known without asking its server, once a turn."""
        if self._known is None:
            self._known = await self.model.profile(self.name, ask=False)
            self.named = self._known.label
        return self._known

    async def label(self) -> str:
        """The model in use as the user named it: what every decline, note and record of the turn names."""
        return (await self.known()).label

    async def writer(self) -> str:
        """The key its answers are recorded under: its backend and its name."""
        known = await self.known()
        return f"{known.backend}:{known.label}"

    async def writes(self, question: str) -> bool:
        """It writes the question's language."""
        languages = (await self.known()).languages
        return languages is None or language_of(question) in languages

    async def known_weak(self) -> bool:
        """The built-in SmolLM2: too weak to write answers (and to route); the rules answer for it."""
        return self.settings.deterministic and (await self.known()).built_in

    async def weak_writer(self, writer: str) -> bool:
        """Known too weak, or its last answers from tool results kept failing the check."""
        return await self.known_weak() or self.store.weak_writer(writer, self.settings.weak_writer_after)

    async def trust(self) -> tuple[Trust, str]:
        """How far its conversation answers are trusted, and why, in words the trace shows: decided once a turn."""
        if self.decided is None:
            built_in = await self.known_weak()
            size = None
            if not built_in:
                try:
                    size = (await self.model.profile(self.name)).parameters
                except AssistantError:  # the server will say so on the answer's call: the size its name says
                    size = (await self.known()).parameters
            failing = self.store.weak_writer(await self.conversation_writer(), self.settings.weak_writer_after)
            self.decided = decide(self.settings.model_trust, built_in, size, failing)
        return self.decided

    async def conversation_writer(self) -> str:
        return await self.writer() + " · conversation"

    def record(self, writer: str, outcome: str) -> None:
        """How an answer fared ("passed", "failed", "skipped"), kept for the next turns' trust."""
        if self.log:
            self.store.record_answer(writer, outcome)

    async def record_conversation(self, outcome: str) -> None:
        if self.decided is not None and self.decided[0] is not Trust.SMALL_TALK:
            self.record(await self.conversation_writer(), outcome)

    async def sees(self) -> None:
        """It takes images, or the user is told which model would, before anything is sent."""
        described = await self.model.profile(self.name)
        if not described.vision:
            raise NoVision(self.name, described.backend)

    async def decides_in_one_call(self, question: str, waiting: bool) -> bool:
        """One call decides and answers where the model calls tools natively and routes for itself (no routing model
        of its own), and no question back is ``waiting`` for its answer (nor a schema: its object is asked apart)."""
        settings = self.settings
        if not settings.one_call or waiting or settings.model_for("router") != self.name or settings.answer_schema:
            return False
        if settings.deterministic and (not await self.writes(question) or await self.known_weak()):
            return False
        if not (await self.model.profile(self.name)).tools:
            return False
        if (await self.trust())[0] is Trust.SMALL_TALK and not small_talk.is_small_talk(question):
            return False  # its answer would stream before anyone could decline it: a routing call, then a rule
        return True

    async def routes_by_rules_alone(self) -> bool:
        """A model known too weak to route (the built-in SmolLM2) is not asked to: its routing call was most of the
        wait before the first word (~470 of ~540 prompt tokens) and the checks overruled its choices. What no rule
        reads is conversation; a routing model of its own (models.router) still routes. So is any model held to small
        talk (one under 2B parameters the user brought): past small talk it would only be declined, so no routing
        call comes before the decline."""
        if self.settings.model_for("router") != self.name:
            return False
        return await self.known_weak() or (await self.trust())[0] is Trust.SMALL_TALK

    async def scope(self, question: str) -> str:
        """What answers beyond the tools: the model in use, or how to get a capable one for a model held to small
        talk (no model call either way)."""
        trusted, _ = await self.trust()
        return scope_line(question, trusted is Trust.SMALL_TALK, await self.label(), await self.known_weak(),
                          served=self.settings.backend == "openai")
