"""One turn, top to bottom: Router → Executor → Tool → Validator → Responder, with the validator's
FAIL reason fed back to the executor. Every stage emits typed events; the turn and its whole trace
are written to the store even when the turn fails."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import sqlite3
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assistant.pipeline import (
    answer_check, executor, gate, language_id, plan, responder, router, small_talk, structured, trust, validator,
)
from assistant.pipeline.trust import Trust
from assistant.config import Settings
from assistant.pipeline.claims import unwrapped
from assistant.control import clean_value, without_controls
from assistant.pipeline.context import Emit, TurnContext
from assistant.pipeline.responder import Written
from assistant.errors import AssistantError, InternalError, NoVision, store_error
from assistant.limits import check_question, worth_counting
from assistant.pipeline.events import (
    AnswerChecked, Event, PlannedStep, RetryStopped, RouteDecided, StageStarted, StepDone, StepSummary, ToolCallProposed,
    ToolCallSummary, ToolResultEvent, TurnDone, TurnFailed, TurnResult, TurnStarted, ValidationDone,
)
from assistant.pipeline.language import (
    BAD_ARGUMENTS, NO_CALL, TOO_SMALL, TOO_SMALL_SERVED, TOOL_FAILED, capped_note, could_not_answer, could_not_write,
    repeating_note, scope_line, too_small, withheld_note,
)
from assistant.models.base import ChatMessage, ModelBackend, ModelProfile
from assistant.store import Store, TurnRow, new_id
from assistant.models.thinking import WithoutThinking
from assistant.trace import RecordingModel, ToolCallRecord, Trace, now_iso
from tools import LocalText, PreviousTurn, Registry, Tool, ToolResult, ToolRunner, Verdict, language_of


class Budget:
    """One budget of retries for a whole turn, shared by the steps of a plan."""

    def __init__(self, retries: int) -> None:
        self.retries = retries

    def take(self) -> bool:
        if self.retries <= 0:
            return False
        self.retries -= 1
        return True


class Outcome(BaseModel):
    """How the executor/validator loop ended."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ok: bool
    attempts: int
    executed: list[tuple[BaseModel, ToolResult]] = []
    reason: str = ""  # the last failure, as the model was told (kept in the trace and the turn's error)
    message: LocalText | None = None  # the last failure as a plain sentence for the user
    why: Literal["passed", "exhausted", "repeated", "unfixable"] = "passed"


class Answer(BaseModel):
    text: str
    replaced: str | None = None


@dataclasses.dataclass
class OpenTurn:
    """A turn being answered: what was asked, where it is filed, and what each stage decided so far."""

    ctx: TurnContext
    question: str  # as asked (``ctx.question`` may become a follow-up's completed request)
    session_id: str
    id: str = dataclasses.field(default_factory=new_id)
    started: str = dataclasses.field(default_factory=now_iso)
    decision: router.RouteDecision | None = None
    outcome: Outcome | None = None  # the executor/validator loop's, all steps together
    answer: Answer | None = None
    summaries: list[StepSummary] = dataclasses.field(default_factory=list)  # a plan's steps
    ok: bool = False
    error: str | None = None

    def result(self) -> TurnResult:
        calls = self.ctx.trace.tool_calls
        outcome, answer, decision = self.outcome, self.answer, self.decision

        def summary(t: ToolCallRecord) -> ToolCallSummary:
            return ToolCallSummary(name=t.name, args=t.args, ok=t.ok, result=t.result, error=t.error)

        return TurnResult(
            turn_id=self.id, session_id=self.session_id, ok=self.ok, answer=answer.text if answer else "",
            replaced=answer.replaced if answer else None,
            route=decision.route if decision else None, route_by=decision.by if decision else None,
            attempts=outcome.attempts if outcome else 0, model_calls=len(self.ctx.trace.model_calls),
            tool_calls=[summary(t) for t in calls],
            error=self.error or (None if self.ok else outcome.reason if outcome else answer.replaced if answer else None),
            steps=[st.model_copy(update={"tool_calls": [summary(t) for t in calls if t.step == i]})
                   for i, st in enumerate(self.summaries, 1)],
            model=self.ctx.model_label or next((c.model for c in reversed(self.ctx.trace.model_calls) if c.model), None))

    async def finish(self, result: TurnResult) -> None:
        """The turn's last event: streamed when it answered, kept in the trace after a failure's own event."""
        done = result.projected(TurnDone)
        if self.error is None:
            await self.ctx.emit(done)
        else:
            self.ctx.events.append(done)

    def row(self, result: TurnResult) -> TurnRow:
        request = self.ctx.question if self.ctx.question != self.question else None
        return result.projected(TurnRow, id=self.id, question=self.question, request=request,
                                answer=self.answer.text if self.answer else None,
                                route_reason=self.decision.reason if self.decision else None,
                                started_at=self.started, finished_at=now_iso())


def _for_people(ctx: TurnContext, tool: Tool) -> str:
    """A tool as a status line names it, in the question's language: "weather lookup", "天气查询"."""
    return tool.label.zh if language_of(ctx.question) == "zh" else tool.label.en


async def _said(emit: Emit | None, event: Event) -> None:
    if emit is not None and inspect.isawaitable(r := emit(event)):
        await r


async def _refuse_early(question: str, settings: Settings, emit: Emit | None, backend: ModelBackend) -> None:
    """A question past the limits is refused before anything is stored; the daemon's client reads it as any
    failed turn. Near the limit, the model's own tokenizer counts where its backend offers one."""
    try:
        counted = None
        if worth_counting(question, settings):
            try:
                counted = await asyncio.wait_for(backend.count_tokens(question), 10)
            except Exception:  # no backend yet, or a tokenizer that does not answer: the estimate decides
                counted = None
        check_question(question, settings, counted)
    except AssistantError as e:
        await _said(emit, TurnFailed(message=e.message, hint=e.hint, exit_code=e.exit_code))
        raise


# Where a small-talk-only model's reply ends: at its first piece that is more than small talk.
SAID_MORE = "it said more than small talk (a tiny model's facts are guesses); its reply ends there"


class Assistant:
    """The pipeline with its dependencies. One instance serves many turns."""

    def __init__(self, settings: Settings, backend: ModelBackend, registry: Registry, runner: ToolRunner, store: Store) -> None:
        self.settings = settings
        self.backend = backend
        self.registry = registry
        self.runner = runner
        self.store = store

    async def warm(self) -> None:
        """Start the tools' sandbox workers now, so the first question does not wait for them."""
        await self.runner.warm(list(self.registry))
        language_id.warm()

    async def answering_model(self) -> str:
        """The model that answers now, as a user reads it: ``qwen2.5:3b (ollama)``, ``SmolLM2-135M-Instruct.Q4_1
        (built-in, tiny)``. Chooses the backend (``auto``) if no turn has yet."""
        try:
            known = await self.backend.profile(self.settings.model_for("responder"), ask=False)
        except AssistantError:
            return f"{self.settings.model_for('responder')} (not reachable)"
        return f"{known.label} ({'built-in, tiny' if known.built_in else known.backend})"

    async def aclose(self) -> None:
        await self.runner.aclose()
        await self.registry.aclose()
        await self.backend.aclose()
        self.store.close()

    async def ask(self, question: str, session_id: str | None = None, emit: Emit | None = None,
                  settings: Settings | None = None, one_shot: str | None = None, log: bool = True,
                  system: str | None = None, images: list[bytes] | None = None) -> TurnResult:
        """Answer one question; raises :class:`AssistantError` when the model server fails (the turn is still stored).
        ``settings`` overrides this instance's for one turn (a daemon client's --model or --max-retries).
        ``one_shot``: a question on its own, with no earlier turn as context, filed under ``session_id`` or else that
        front end's rolling session ("ask"). ``log=False``: nothing is stored. ``images``: pictures for the model to
        see (``ask -f photo.png``); only a model with vision is given them, and it answers them itself."""
        settings = settings or self.settings
        await _refuse_early(question, settings, emit, self.backend)
        try:
            turn = self._open(question, session_id, emit, settings, one_shot, log, system)
            turn.ctx.images = images or None
        except Exception as e:  # the store fails before the turn begins (a full disk): still one failed turn
            err = self._as_turn_error(e)
            await _said(emit, TurnFailed(message=err.message, hint=err.hint, exit_code=err.exit_code))
            if err is e:
                raise
            raise err from (e if isinstance(err, InternalError) else None)
        try:
            await self._run(turn)
        except asyncio.CancelledError:
            turn.error = "cancelled"
            raise
        except Exception as e:  # said as a failed turn, in the same shape everywhere; still recorded below
            err = self._as_turn_error(e)
            turn.error = err.one_line() if not isinstance(err, InternalError) else err.message
            await turn.ctx.emit(TurnFailed(turn_id=turn.id, message=err.message, hint=err.hint, exit_code=err.exit_code))
            if err is e:
                raise
            raise err from (e if isinstance(err, InternalError) else None)
        finally:
            result = turn.result()
            await turn.finish(result)
            if log:
                try:
                    self.store.save_turn(turn.row(result), turn.ctx.trace.model_calls, turn.ctx.trace.tool_calls,
                                         turn.ctx.events)
                except AssistantError as e:  # shown but not kept (a full disk): said, not lost in silence
                    await turn.ctx.emit(TurnFailed(turn_id=turn.id, message=f"the answer was not saved: {e.message}",
                                                   hint=e.hint, exit_code=e.exit_code))
                    raise
        return result

    def _as_turn_error(self, e: Exception) -> AssistantError:
        """What the user is told of a turn that failed: our own errors as they are, the store failing under the
        turn (reading its history) in plain words, and anything else as a bug named in one line."""
        if isinstance(e, AssistantError):
            return e
        from tools.cache_file import CacheUnusable

        if isinstance(e, CacheUnusable):  # a cache, not the history: named as what it is
            return AssistantError(f"{e}.", "Make its folder writable, or remove the file: it is built again.")
        if isinstance(e, sqlite3.Error):
            return store_error(self.store.path, e)
        return InternalError(f"internal error: {type(e).__name__}: {e}", "Run with --debug for the traceback.")

    def _open(self, question: str, session_id: str | None, emit: Emit | None, settings: Settings,
              one_shot: str | None, log: bool, system: str | None) -> OpenTurn:
        """The session the question belongs to, what it remembers, and a fresh trace."""
        alone = one_shot is not None or not log
        if not log:
            session_id = session_id or ""
        elif one_shot is not None:
            session_id = session_id or self.store.rolling_session(one_shot)
        else:
            session_id = session_id or self.store.create_session(title=question[:80])
            self.store.lease_session(session_id)  # a conversation in use (a chat, the popup): kept from pruning
        history = [] if alone else [ChatMessage.model_validate({"role": r, "content": c})
                                    for r, c in self.store.recent_messages(session_id, settings.history_turns)]
        trace = Trace()
        ctx = TurnContext(settings, RecordingModel(WithoutThinking(self.backend), trace), self.registry, self.runner,
                          question, history, trace, emit, previous=None if alone else self.store.last_turn(session_id),
                          pending=None if alone else self.store.pending(session_id), system=system, log=log)
        return OpenTurn(ctx=ctx, question=question, session_id=session_id)

    async def _run(self, turn: OpenTurn) -> None:
        """The diagram, top to bottom; what each stage decided is kept on ``turn``."""
        ctx = turn.ctx
        ctx.question = ctx.said = unwrapped(ctx.question)  # a question pasted in chat-template markup: the one it wraps
        await ctx.emit(TurnStarted(turn_id=turn.id, session_id=turn.session_id, question=turn.question))
        # 1. Router (a plan when the question holds several requests), and the route gate
        await ctx.emit(StageStarted(stage="router"))
        turn.decision, planned = decision, planned = await self._route(ctx)
        ctx.question = decision.question or turn.question
        if ctx.pending is not None:
            self.store.set_pending(turn.session_id, None)  # asked back once; this turn answers or replaces it
        tool = self.registry.get(decision.route)
        if not planned and decision.reply is not None:
            # A rule wrote the whole answer: a refusal, a question back for a missing detail, what it can do.
            reply = decision.reply + ("\n" + await self._scope(ctx) if decision.abilities else "")
            turn.answer, turn.ok = Answer(text=await responder.say(ctx, reply)), True
            if decision.pending_tool and ctx.log:
                self.store.set_pending(turn.session_id, PreviousTurn(question=turn.question, route=decision.pending_tool))
            return
        if not planned and tool is None and ctx.settings.answer_schema and decision.route != router.CLARIFY:
            turn.answer, turn.ok = await self._object(ctx, None)  # 4. Responder: the answer as one object
            return
        if not planned and tool is None:
            # 4. Responder, no tool: conversation or a question back (already written when one call decided and answered)
            turn.answer, turn.ok = await self._answer_chat(ctx, clarify=decision.route == router.CLARIFY,
                                                           first=decision.written)
            return
        # 2–3. Executor → Tool → Validator for each request, FAIL reasons fed back (one tool: a one-step plan)
        steps = planned or [plan.Step(index=1, request=ctx.question, route=decision.route, args=decision.args,
                                      proposal=decision.proposal)]
        outcomes = await self._run_plan(ctx, steps)
        # 4. Responder, then the answer check: one answer for every step, a failed one said plainly
        if ctx.settings.answer_schema and all(o.ok for o in outcomes.values()):
            turn.answer, turn.ok = await self._object(ctx, [(t, outcomes[s.index].executed) for s in steps
                                                             if (t := self.registry.get(s.route)) is not None])
        else:
            turn.answer, turn.ok = await self._answer_plan(ctx, steps, outcomes, certain=decision.by == "rule")
        if decision.unread:  # every part is answered or named, and ok says so
            named = "；".join(f"“{p}”" for p in decision.unread) if language_of(ctx.question) == "zh" else \
                "; ".join(f"'{p}'" for p in decision.unread)
            note = (f"\n\n这部分我没能回答:{named}。请单独再问一次。" if language_of(ctx.question) == "zh" else
                    f"\n\nI could not answer this part: {named}. Ask it on its own.")
            turn.answer = Answer(text=turn.answer.text + await responder.say(ctx, note), replaced=turn.answer.replaced)
            turn.ok = False
        if not planned:
            turn.outcome = outcomes[1]
            return
        turn.summaries = [StepSummary(route=s.route, request=s.request, ok=outcomes[s.index].ok,
                                      error=None if outcomes[s.index].ok else outcomes[s.index].reason) for s in steps]
        turn.outcome = Outcome(ok=turn.ok, attempts=sum(o.attempts for o in outcomes.values()),
                               reason="; ".join(f"step {s.index}: {outcomes[s.index].reason}" for s in steps
                                                if not outcomes[s.index].ok))

    async def _route(self, ctx: TurnContext) -> tuple[router.RouteDecision, list[plan.Step] | None]:
        """The route and, when the question holds several requests, its plan: by rule where a rule is certain."""
        if ctx.images:  # no rule reads a picture, and no tool takes one: the model that sees it answers
            await self._sees(ctx)
            seen = router.RouteDecision(route=router.CHAT, by="rule", reason=(
                f"{len(ctx.images)} image{'s' if len(ctx.images) > 1 else ''} attached: the model with vision answers"))
            await ctx.emit(RouteDecided(route=seen.route, by=seen.by, reason=seen.reason, steps=[]))
            return seen, None
        steps = plan.by_rule(ctx) if ctx.settings.deterministic and ctx.pending is None and \
            not router.guarded(ctx.question) and not router.document_attached(ctx.question) else None
        decision: router.RouteDecision | None
        if steps:
            decision = router.RouteDecision(route="+".join(s.route for s in steps), by="rule",
                                            reason=f"{len(steps)} requests, each settled by a rule")
        else:
            decision = router.by_rule(ctx) if ctx.settings.deterministic else None
            left = plan.unread_parts(ctx) if decision is not None and decision.args else []
            if left and await self._decides_in_one_call(ctx):
                decision = None  # a rule read one part: a capable model takes the question whole (its left-out
                # parts that a rule reads come back as steps of their own)
            elif left and decision is not None:
                decision.unread = left  # the rules' answer names what they could not read
            if decision is None and await self._decides_in_one_call(ctx):
                trusted, _ = await self._trust(ctx)
                decision = router.decided(ctx, await responder.decide(ctx, list(self.registry),
                                                                      self._chat_check(ctx, trusted)))
            elif decision is None and await self._routes_by_rules_alone(ctx):
                decision = router.RouteDecision(route=router.CHAT, by="default", reason=(
                    "no rule read a tool request in it; the built-in model routes by rules alone"))
            decision = router.gate(ctx, decision or await router.by_model(ctx))
            steps = plan.from_model(ctx, decision) or (plan.with_left_out(ctx, decision)
                                                       if ctx.settings.deterministic else None)
        await ctx.emit(RouteDecided(route=decision.route, by=decision.by, reason=decision.reason, steps=[
            PlannedStep(index=s.index, route=s.route, request=s.request, after=s.after) for s in steps or []]))
        return decision, steps or None

    async def _sees(self, ctx: TurnContext) -> None:
        """The answering model takes images, or the user is told which would, before anything is sent."""
        model = ctx.model_name("responder")
        described = await ctx.model.profile(model)
        if not described.vision:
            raise NoVision(model, described.backend)

    async def _object(self, ctx: TurnContext, parts: list[tuple[Tool, list[tuple[BaseModel, ToolResult]]]] | None) \
            -> tuple[Answer, bool]:
        """The answer as one JSON object that follows the turn's schema (:mod:`assistant.pipeline.structured`)."""
        text, ok, why = await structured.fill(ctx, parts, await self._trust(ctx), await self._label(ctx))
        return Answer(text=text, replaced=why), ok

    async def _decides_in_one_call(self, ctx: TurnContext) -> bool:
        """One call decides and answers where the model calls tools natively and routes for itself (no routing model
        of its own), and no question back is waiting for its answer (nor a schema: its object is asked apart)."""
        if not ctx.settings.one_call or ctx.pending is not None or ctx.model_name("router") != ctx.model_name("responder") \
                or ctx.settings.answer_schema:
            return False
        if ctx.settings.deterministic and (not await self._writes(ctx) or await self._known_weak(ctx)):
            return False
        if not (await ctx.model.profile(ctx.model_name("responder"))).tools:
            return False
        if (await self._trust(ctx))[0] is Trust.SMALL_TALK and not small_talk.is_small_talk(ctx.question):
            return False  # its answer would stream before anyone could decline it: a routing call, then a rule
        language_id.warm()  # the deciding call's answer streams through the gate
        return True

    async def _routes_by_rules_alone(self, ctx: TurnContext) -> bool:
        """A model known too weak to route (the built-in SmolLM2) is not asked to: its routing call was most of the
        wait before the first word (~470 of ~540 prompt tokens) and the checks overruled its choices. What no rule
        reads is conversation; a routing model of its own (models.router) still routes. So is any model held to small
        talk (one under 2B parameters the user brought): past small talk it would only be declined, so no routing
        call comes before the decline."""
        if ctx.model_name("router") != ctx.model_name("responder"):
            return False
        return await self._known_weak(ctx) or (await self._trust(ctx))[0] is Trust.SMALL_TALK

    def _chat_check(self, ctx: TurnContext, trusted: Trust = Trust.STRICT):  # noqa: ANN202 - as responder takes it
        language = not answer_check.about_language(ctx.question)
        evidence = "\n".join([*(m.content for m in ctx.history), ctx.system or "", ctx.question])
        tools = list(self.registry)
        figures = trusted is not Trust.TRUSTED
        if trusted is not Trust.SMALL_TALK:
            return lambda ours: gate.chat_piece_check(ctx.question, evidence, ours, tools, language, figures)

        def social(ours: list[str]) -> gate.Check:  # a small-talk-only model's reply ends where it says more
            check = gate.chat_piece_check(ctx.question, evidence, ours, tools, language, figures)
            return lambda piece, shown: (None if small_talk.is_social_reply(piece) else
                                         gate.Held(SAID_MORE, wrong=False)) or check(piece, shown)
        return social

    async def _in_kind(self, ctx: TurnContext, attempt: int, reason: str) -> tuple[Answer, bool]:
        """Small talk answered by a line in kind, in the message's language (:func:`small_talk.reply_to`), and why
        in the trace."""
        await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS", reason=reason))
        line = small_talk.reply_to(ctx.question, language_of(ctx.question) == "zh")
        return Answer(text=await responder.say(ctx, line)), True

    async def _trust(self, ctx: TurnContext) -> tuple[Trust, str]:
        """How far this model's conversation answers are trusted (:mod:`assistant.pipeline.trust`), once a turn."""
        if ctx.trust is None:
            built_in = await self._known_weak(ctx)
            size = None
            if not built_in:
                try:
                    size = (await ctx.model.profile(ctx.model_name("responder"))).parameters
                except AssistantError:  # the server will say so on the answer's call: the size its name says
                    size = (await self._known(ctx)).parameters
            failing = self.store.weak_writer(await self._conversation_writer(ctx), ctx.settings.weak_writer_after)
            ctx.trust = trust.decide(ctx.settings.model_trust, built_in, size, failing)
        return ctx.trust

    async def _conversation_writer(self, ctx: TurnContext) -> str:
        return await self._writer_name(ctx) + " · conversation"

    async def _record_conversation(self, ctx: TurnContext, outcome: str) -> None:
        if ctx.trust is not None and ctx.trust[0] is not Trust.SMALL_TALK:
            self._record_answer(ctx, await self._conversation_writer(ctx), outcome)

    async def _answer_tools(self, ctx: TurnContext, parts: list[tuple[Tool, list[tuple[BaseModel, ToolResult]]]],
                            certain: bool) -> Answer:
        """The third gate. The answer streams through the gate sentence by sentence: a sentence with a figure the
        results lack, another language, JSON or our own instructions is never shown, and the stream stops there.
        If what was shown does not carry every key fact of every result, the tools' own rendering takes over after
        it. A small model may write badly; it may never show a wrong figure. A model known too weak to write such
        an answer is not asked at all."""
        rendered = "\n".join(tool.render_all(ctx.question, executed) for tool, executed in parts)
        direct = all(tool.renders_directly for tool, _ in parts)
        deterministic = ctx.settings.deterministic
        if deterministic and (ctx.settings.rendered_answers or certain and direct):
            return Answer(text=await responder.say(ctx, rendered))
        language_id.warm()
        writer = await self._writer_name(ctx)
        if deterministic and await self._weak_writer(ctx, writer):
            await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason="the model is known too weak to write an "
                                         "answer from tool results: the tool's own sentence is shown, with no call"))
            self._record_answer(ctx, writer, "skipped")
            return Answer(text=await responder.say(ctx, rendered), replaced="the model is known too weak to write it")
        facts = [f for tool, executed in parts for args, result in executed for f in tool.key_facts(args, result)]
        evidence = json.dumps([ctx.question, [[a.model_dump(), tool.answer_data(r)] for tool, executed in parts
                                              for a, r in executed], rendered], ensure_ascii=False)

        def contradiction(sentence: str) -> str | None:
            return next((why for tool, executed in parts if (why := tool.contradiction(executed, sentence))), None)

        written = await responder.answer_from_tools(ctx, parts, lambda ours: gate.tool_piece_check(
            ctx.question, evidence, ours, list(self.registry), contradiction))
        missing = [f.label for f in facts if not answer_check.carries(written.text, f)]
        stopped = f"{written.ended}; " if written.timed_out and written.ended else ""
        problem = written.held or ((stopped + "it does not state " + ", ".join(missing)) if missing else None)
        if problem is None and not written.text:
            problem = written.ended or "the answer is empty"
        await ctx.emit(AnswerChecked(attempt=1, verdict="FAIL" if problem else "PASS",
                                     reason=problem or written.ended or "the answer carries every key fact"))
        self._record_answer(ctx, writer, "failed" if problem else "passed")
        if problem is None:
            return Answer(text=written.text)
        # the rendering takes over from what was shown: every figure on screen stays true, nothing is taken back
        if written.text:
            return Answer(text=written.text + await responder.say(ctx, "\n" + rendered), replaced=problem)
        return Answer(text=await responder.say(ctx, rendered), replaced=problem)

    async def _known(self, ctx: TurnContext) -> ModelProfile:
        """The answering model's profile as known without asking its server, once a turn."""
        if ctx.known is None:
            ctx.known = await self.backend.profile(ctx.model_name("responder"), ask=False)
            ctx.model_label = ctx.known.label
        return ctx.known

    async def _writer_name(self, ctx: TurnContext) -> str:
        known = await self._known(ctx)
        return f"{known.backend}:{known.label}"

    async def _label(self, ctx: TurnContext) -> str:
        """The model in use as the user named it (a GGUF's file stem, a pulled model's name, the configured one
        otherwise): what every decline, note and record of the turn names."""
        return (await self._known(ctx)).label

    async def _weak_writer(self, ctx: TurnContext, writer: str) -> bool:
        return await self._known_weak(ctx) or self.store.weak_writer(writer, ctx.settings.weak_writer_after)

    def _record_answer(self, ctx: TurnContext, writer: str, outcome: str) -> None:
        if ctx.log:
            self.store.record_answer(writer, outcome)

    # plans

    async def _run_plan(self, ctx: TurnContext, steps: list[plan.Step]) -> dict[int, Outcome]:
        """Every step of a plan: those that need nothing run concurrently, each dependent one after the step it
        needs, with that result for its rules (and its executor). One budget of retries for all."""
        budget = Budget(ctx.settings.max_retries)
        outcomes: dict[int, Outcome] = {}

        alone = len(steps) == 1  # one tool: the turn's own question and context, no step events

        async def run(step: plan.Step) -> None:
            sctx = ctx if alone else dataclasses.replace(ctx, question=step.request, step=step.index)
            tool = self.registry.get(step.route)
            assert tool is not None
            args = step.args
            if step.after is not None:
                before = outcomes[step.after]
                earlier = next(s for s in steps if s.index == step.after)
                if not before.ok:
                    outcomes[step.index] = Outcome(
                        ok=False, attempts=0, why="unfixable", reason=f"it needs step {step.after}, which failed",
                        message=LocalText(zh="它需要的上一步没有成功。", en="the step it builds on did not succeed."))
                    await ctx.emit(StepDone(step=step.index, route=step.route, ok=False, error=outcomes[step.index].reason))
                    return
                earlier_tool = self.registry.get(earlier.route)
                facts = [f for a, r in before.executed for f in earlier_tool.key_facts(a, r)] if earlier_tool else []
                previous = plan.previous_for(earlier, before.executed, facts)
                args = tool.follow_up(step.request, previous) if ctx.settings.deterministic else None
                # the executor sees the earlier result as what came before in the conversation
                sctx.history = [*ctx.history, ChatMessage(role="user", content=earlier.request), ChatMessage(
                    role="assistant", content=tool_results_text(earlier.route, before.executed))]
            outcome = await self._solve(sctx, tool, args, budget, first=step.proposal)
            outcomes[step.index] = outcome
            if not alone:
                await ctx.emit(StepDone(step=step.index, route=step.route, ok=outcome.ok, error=None if outcome.ok else outcome.reason))

        independent = [s for s in steps if s.after is None]
        await asyncio.gather(*(run(s) for s in independent))
        for s in steps:
            if s.after is not None:
                await run(s)
        return outcomes

    async def _answer_plan(self, ctx: TurnContext, steps: list[plan.Step], outcomes: dict[int, Outcome],
                           certain: bool) -> tuple[Answer, bool]:
        """One answer for every step that passed; a step that failed is said plainly after it."""
        failed = [s for s in steps if not outcomes[s.index].ok]
        honest = "\n".join(could_not_answer(
            s.request, self.registry.get(s.route).label,  # type: ignore[union-attr]  # a plan's steps are registered tools
            outcomes[s.index].attempts, outcomes[s.index].message, outcomes[s.index].why) for s in failed)
        parts = [(self.registry.get(s.route), outcomes[s.index].executed) for s in steps if outcomes[s.index].ok]
        if not parts:
            return Answer(text=await responder.say(ctx, honest)), False
        await ctx.emit(StageStarted(stage="responder"))
        answer = await self._answer_tools(ctx, parts, certain)  # type: ignore[arg-type]
        if honest:  # streamed after the answer, and stored as streamed
            answer = Answer(text=answer.text + await responder.say(ctx, "\n" + honest), replaced=answer.replaced)
        return answer, not failed

    async def _scope(self, ctx: TurnContext) -> str:
        """What answers beyond the tools: the model in use, or how to get a capable one for a model held to small
        talk (no model call either way)."""
        trusted, _ = await self._trust(ctx)
        builtin = await self._known_weak(ctx)
        return scope_line(ctx.question, trusted is Trust.SMALL_TALK, await self._label(ctx), builtin,
                          served=ctx.settings.backend == "openai")

    async def _answer_chat(self, ctx: TurnContext, clarify: bool, first: Written | None = None) -> tuple[Answer, bool]:
        """Conversation has no tool results to hold it to, but it is held to the question and the conversation: the
        answer streams through the gate, and a sentence claiming a figure, a number, a URL or a phone number that
        nothing here supports (nor a common fact the check knows, nor the answer's own true arithmetic) is never
        shown, nor our markup, instructions, template markers or another language; the stream stops there. When
        nothing could be shown, one retry with the reason (not for a model known too weak), then an honest
        failure: ``(answer, ok)``. ``first``: the answer the deciding call already wrote (and the gate showed)."""
        trusted, why = await self._trust(ctx)
        if ctx.settings.deterministic and first is None and not clarify and trusted is Trust.SMALL_TALK \
                and not small_talk.is_small_talk(ctx.question):
            # a tiny model would guess a fact, code or advice: it is not asked, and says how to do better
            await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason=f"{why}: it was not asked"))
            small = None if await self._known_weak(ctx) else await self._label(ctx)
            served = ctx.settings.backend == "openai"  # the user's own server: the capable model is served there
            return Answer(text=await responder.say(ctx, too_small(ctx.question, small, served)),
                          replaced=TOO_SMALL_SERVED if served else TOO_SMALL), False
        if ctx.settings.deterministic and first is None and not await self._writes(ctx):
            if small_talk.is_small_talk(ctx.question):  # "你好" to a model that cannot write Chinese: a line in kind
                return await self._in_kind(ctx, 0, "small talk in a language the model does not write: a line in "
                                                   "kind, with no call")
            # a model that cannot write this language (SmolLM2 and Chinese): said at once, with no call
            await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason="the model does not write this language"))
            return Answer(text=await responder.say(ctx, could_not_write(ctx.question, model=await self._label(ctx))),
                          replaced="the model does not write this language"), False
        language_id.warm()
        check = self._chat_check(ctx, trusted)
        attempts = 1 if await self._known_weak(ctx) else 2
        policy = f" (policy: {trusted.value})"
        rejected = None
        for attempt in range(1, attempts + 1):
            if attempt == 1 and first is not None:
                written = first
            else:
                await ctx.emit(StageStarted(stage="responder"))
                written = await (responder.ask_back(ctx, self.registry.names(), check, rejected) if clarify
                                 else responder.answer_chat(ctx, check, rejected))
            shown = written.text
            await self._record_conversation(ctx, "failed" if written.held or not shown else "passed")
            if shown and written.held:
                await ctx.emit(AnswerChecked(attempt=attempt, verdict="FAIL", reason=written.held + policy))
                note = await responder.say(ctx, "\n\n" + withheld_note(ctx.question, written.held))
                return Answer(text=shown + note, replaced=written.held), True
            if shown and written.capped:  # what was shown is checked, but not the whole answer: said so
                cap = ctx.call_settings("responder").max_tokens or 0
                await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS", reason=(
                    f"the answer is clean, but it stopped at the length limit of {cap} tokens") + policy))
                note = await responder.say(ctx, "\n\n" + capped_note(ctx.question, cap))
                return Answer(text=shown + note), True
            if shown and written.ended and "repeats" in written.ended:  # cut where it looped: said so, not silently
                await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS", reason=(
                    f"what was shown is clean; the rest was cut: {written.ended}") + policy))
                return Answer(text=shown + await responder.say(ctx, "\n\n" + repeating_note(ctx.question)),
                              replaced=written.ended), True
            if shown:
                await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS",
                                             reason=(written.ended or "the answer is clean") + policy))
                return Answer(text=shown), True
            if trusted is Trust.SMALL_TALK and written.ended == SAID_MORE:  # nothing of it stayed small talk
                return await self._in_kind(ctx, attempt, SAID_MORE + "; a line in kind")
            rejected = written.held or written.ended or "the answer is empty"
            await ctx.emit(AnswerChecked(attempt=attempt, verdict="FAIL", reason=rejected + policy))
            if written.timed_out:
                break
        return Answer(text=await responder.say(ctx, could_not_write(ctx.question, rejected, await self._label(ctx))),
                      replaced=rejected), False

    async def _writes(self, ctx: TurnContext) -> bool:
        """The answering model writes the question's language."""
        languages = (await self._known(ctx)).languages
        return languages is None or language_of(ctx.question) in languages

    async def _known_weak(self, ctx: TurnContext) -> bool:
        """The backend's model is known too weak to write answers (the built-in SmolLM2)."""
        return ctx.settings.deterministic and (await self._known(ctx)).built_in

    async def _solve(self, ctx: TurnContext, tool: Tool, preset: list[BaseModel] | None,
                     budget: Budget | None = None, first: executor.Proposal | None = None) -> Outcome:
        """``budget``: the turn's shared retries (a plan's steps draw on one budget). ``first``: the model's own calls
        from the deciding call, the first proposal (checked like any other)."""
        total = ctx.settings.max_retries + 1
        feedback: list[ChatMessage] = []
        failed: dict[str, tuple[str, LocalText | None]] = {}  # proposal key -> why it failed
        reason, message = "", None
        for attempt in range(1, total + 1):
            if attempt > 1 and budget is not None and not budget.take():
                return Outcome(ok=False, attempts=attempt - 1, reason=reason, message=message, why="exhausted")
            if attempt == 1 and preset:
                proposal = executor.from_rule(tool, preset)
            elif attempt == 1 and first is not None:
                proposal = first
            else:
                await ctx.emit(StageStarted(stage="executor", attempt=attempt, of=total, detail=_for_people(ctx, tool)))
                proposal = await executor.propose(ctx, tool, feedback)
            key = proposal.key()
            if proposal.calls and key in failed:
                # The same call again cannot pass; stop instead of burning the rest of the budget.
                before, message = failed[key]
                await ctx.emit(RetryStopped(attempt=attempt, reason=f"repeated the call that failed: {before}"))
                return Outcome(ok=False, attempts=attempt, reason=before, message=message, why="repeated")
            for c in proposal.calls:
                await ctx.emit(ToolCallProposed(attempt=attempt, name=c.name, args=c.raw,
                                                recovered_from_text=proposal.recovered_from_text))
            invalid = [c.invalid for c in proposal.calls if c.invalid]
            vetoes = [v for c in proposal.calls if c.args and ctx.settings.deterministic
                      for v in [tool.vet(ctx.question, c.args)] if v is not None and not v.passed]
            executed: list[tuple[BaseModel, ToolResult]] = []
            if proposal.problem or invalid:
                verdict = Verdict(verdict="FAIL", reason=proposal.problem or "; ".join(i for i in invalid if i), by="check",
                                  message=NO_CALL if proposal.problem else BAD_ARGUMENTS)
            elif vetoes:  # arguments the checks reject before the tool runs (a place the user excluded)
                verdict = Verdict(verdict="FAIL", reason="; ".join(v.reason for v in vetoes), by="check",
                                  message=vetoes[0].message)
            else:
                # the status line names the tool for people ("weather lookup…"); its call is in the trace
                await ctx.emit(StageStarted(stage="tool", attempt=attempt, of=total, detail=_for_people(ctx, tool)))
                runnable = [c.args for c in proposal.calls if c.args]
                results = await asyncio.gather(*(self._run_tool(ctx, tool, a, attempt) for a in runnable))
                executed = list(zip(runnable, results, strict=True))
                # No other arguments can help when the tool refused what the user wrote (a rule copied it) or the
                # network is down: do not spend retries on it.
                unfixable = [r for r in results if not r.ok and (not r.fixable or (attempt == 1 and bool(preset)))]
                if unfixable:
                    refused = unfixable[0]
                    await ctx.emit(ValidationDone(attempt=attempt, verdict="FAIL", reason=refused.error or "", by="check"))
                    return Outcome(ok=False, attempts=attempt, reason=refused.error or "",
                                   message=refused.message or TOOL_FAILED, why="unfixable")
                await ctx.emit(StageStarted(stage="validator", attempt=attempt, of=total))
                verdict = await validator.validate(ctx, tool, executed, trusted=attempt == 1 and bool(preset))
            await ctx.emit(ValidationDone(attempt=attempt, verdict=verdict.verdict, reason=verdict.reason, by=verdict.by))
            if verdict.passed:
                return Outcome(ok=True, attempts=attempt, executed=executed)
            reason, message = verdict.reason, verdict.message
            failed[key] = (reason, message)
            feedback += executor.feedback_messages(tool, proposal, [r for _, r in executed], reason)
        return Outcome(ok=False, attempts=total, reason=reason, message=message, why="exhausted")

    async def _run_tool(self, ctx: TurnContext, tool: Tool, args: BaseModel, attempt: int) -> ToolResult:
        started, t0 = now_iso(), time.perf_counter()
        if tool.keeps_state:  # it writes its table of the store: the store is open and migrated before it runs
            self.store.schema_version  # noqa: B018 - opening a LazyStore is the point
        result = await self.runner.run(tool, args)
        if result.data is not None:  # a tool's text may carry terminal controls: out before anyone reads or stores it
            result = result.model_copy(update={"data": clean_value(result.data)})
        if result.error:
            result = result.model_copy(update={"error": without_controls(result.error)})
        ms = (time.perf_counter() - t0) * 1000
        record = ToolCallRecord(attempt=attempt, name=tool.name, args=args.model_dump(), ok=result.ok,
                                result=result.data, error=result.error, duration_ms=ms, started_at=started,
                                refusals=result.refusals, step=ctx.step)
        ctx.trace.tool_calls.append(record)
        await ctx.emit(ToolResultEvent(**record.model_dump()))
        return result


def tool_results_text(route: str, executed: list[tuple[BaseModel, ToolResult]]) -> str:
    """An earlier step's results as the executor of a later one reads them."""
    return json.dumps([{"tool": route, "arguments": a.model_dump(), "result": r.data} for a, r in executed],
                      ensure_ascii=False)


