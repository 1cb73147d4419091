"""One turn, top to bottom: Router → Executor → Tool → Validator → Responder, with the validator's
FAIL reason fed back to the executor. Every stage emits typed events; the turn and its whole trace
are written to the store even when the turn fails."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import sqlite3
from typing import Any


from assistant.pipeline import language_id, plan, responder, router, solve, writing
from assistant.config import Settings
from assistant.config_load import with_flags
from assistant.pipeline.claims import unwrapped
from assistant.pipeline.answerer import Answerer, Trust
from assistant.pipeline.context import Emit, TurnContext
from assistant.pipeline.question import Question
from assistant.errors import AssistantError, InternalError, store_error
from assistant.limits import check_question, worth_counting
from assistant.pipeline.events import (
    Event, PlannedStep, RouteDecided, StageStarted, StepSummary, ToolCallSummary, TurnDone, TurnFailed, TurnResult, TurnStarted,
)
from assistant.models.base import ChatMessage, ModelBackend
from assistant.store import Store, TurnRow, new_id
from assistant.models.thinking import WithoutThinking
from assistant.trace import RecordingModel, ToolCallRecord, Trace, now_iso
from tools import PreviousTurn, Registry, ToolRunner, language_of


@dataclasses.dataclass
class OpenTurn:
    """A turn being answered: what was asked, where it is filed, and what each stage decided so far."""

    ctx: TurnContext
    question: str  # as asked (``ctx.question`` may become a follow-up's completed request)
    session_id: str
    id: str = dataclasses.field(default_factory=new_id)
    started: str = dataclasses.field(default_factory=now_iso)
    decision: router.RouteDecision | None = None
    outcome: solve.Outcome | None = None  # the executor/validator loop's, all steps together
    answer: writing.Answer | None = None
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
            model=self.ctx.answerer.named or next((c.model for c in reversed(self.ctx.trace.model_calls) if c.model), None),
            cut=answer.cut if answer else None, declined=answer.declined if answer else None)

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
                                started_at=self.started, finished_at=now_iso(), answer_schema=self.ctx.settings.answer_schema)


async def _decides_in_one_call(ctx: TurnContext) -> bool:
    """One call decides and answers (:meth:`Answerer.decides_in_one_call`); its answer streams through the gate."""
    if await ctx.answerer.decides_in_one_call(ctx.question, ctx.pending is not None):
        language_id.warm()
        return True
    return False


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


class Assistant:
    """The pipeline with its dependencies. One instance serves many turns."""

    def __init__(self, settings: Settings, backend: ModelBackend, registry: Registry, runner: ToolRunner, store: Store) -> None:
        self.settings = settings
        self.backend = backend
        self.registry = registry
        self.runner = runner
        self.store = store

    async def warm(self) -> None:
        """Start the tools' sandbox workers now, and compile the rules' patterns, so the first question waits for
        neither (a process that lives: the chat, the daemon; a one-shot question compiles only what it reads)."""
        await self.runner.warm(list(self.registry))
        language_id.warm()
        import tools.reminders.reading  # noqa: F401 - the reminders' patterns, made when a question may be one
        from tools import lazy_re
        from tools.reading import reader

        await asyncio.to_thread(lambda: (lazy_re.compile_all(), reader.model()))

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

    async def ask(self, request: Question | str, emit: Emit | None = None, **fields: Any) -> TurnResult:
        """Answer one question (:class:`Question`, as every front end and the daemon ask it; a bare string and its
        fields, for a script); raises :class:`AssistantError` when the model server fails (the turn is still stored).
        Its per-turn settings change this instance's for this turn alone; only a model with vision is given its
        images, and it answers them itself."""
        asked = request if isinstance(request, Question) else Question(question=request, **fields)
        question, session_id, log = asked.question, asked.session_id, asked.log
        settings = with_flags(self.settings, asked.settings)  # its own choices, for this turn alone
        await _refuse_early(question, settings, emit, self.backend)
        try:
            turn = self._open(question, session_id, emit, settings, asked.one_shot, log)
            turn.ctx.images, turn.ctx.quoted = asked.images or None, asked.quoted
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
            if e.full:  # the disk-full line, as the store says it
                return store_error(e.path, OSError(28, "No space left on device"))
            return AssistantError(f"{e}.", "Make its folder writable, or remove the file: it is built again.")
        if isinstance(e, sqlite3.Error):
            return store_error(self.store.path, e)
        return InternalError(f"internal error: {type(e).__name__}: {e}", "Run with --debug for the traceback.")

    def _open(self, question: str, session_id: str | None, emit: Emit | None, settings: Settings,
              one_shot: str | None, log: bool) -> OpenTurn:
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
                          pending=None if alone else self.store.pending(session_id), log=log)
        ctx.who = Answerer(ctx.model, settings, self.store, log)
        return OpenTurn(ctx=ctx, question=question, session_id=session_id)

    async def _run(self, turn: OpenTurn) -> None:
        """The diagram, top to bottom; what each stage decided is kept on ``turn``."""
        ctx = turn.ctx
        if not ctx.quoted:  # a question pasted in chat-template markup: the one it wraps (never a file's or selection's)
            ctx.question = ctx.said = unwrapped(ctx.question)
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
            reply = decision.reply + ("\n" + await ctx.answerer.scope(ctx.question) if decision.abilities else "")
            offered = await writing.answer_offer(ctx, decision.offer) if decision.offer else None
            turn.answer = offered or writing.Answer(text=await responder.say(ctx, reply), declined=decision.declined)
            turn.ok = decision.declined is None
            if decision.pending_tool and ctx.log:
                self.store.set_pending(turn.session_id, PreviousTurn(question=turn.question, route=decision.pending_tool))
            return
        if not planned and tool is None and ctx.settings.answer_schema and decision.route != router.CLARIFY:
            turn.answer, turn.ok = await writing.answer_object(ctx, None)  # 4. Responder: the answer as one object
            return
        if not planned and tool is None:
            # 4. Responder, no tool: conversation or a question back (already written when one call decided and answered)
            turn.answer, turn.ok = await writing.answer_chat(ctx, clarify=decision.route == router.CLARIFY,
                                                           first=decision.written)
            return
        # 2–3. Executor → Tool → Validator for each request, FAIL reasons fed back (one tool: a one-step plan)
        steps = planned or [plan.Step(index=1, request=ctx.question, route=decision.route, args=decision.args,
                                      proposal=decision.proposal)]
        outcomes = await solve.run_plan(ctx, steps, self.store)
        # 4. Responder, then the answer check: one answer for every step, a failed one said plainly
        if ctx.settings.answer_schema and all(o.ok for o in outcomes.values()):
            turn.answer, turn.ok = await writing.answer_object(ctx, [(t, outcomes[s.index].executed) for s in steps
                                                             if (t := self.registry.get(s.route)) is not None],
                                                           certain=decision.by == "rule")
        else:
            turn.answer, turn.ok = await writing.answer_plan(ctx, steps, outcomes, certain=decision.by == "rule")
        if decision.unread:  # every part is answered or named, and ok says so
            named = "；".join(f"“{p}”" for p in decision.unread) if language_of(ctx.question) == "zh" else \
                "; ".join(f"'{p}'" for p in decision.unread)
            zh = language_of(ctx.question) == "zh"
            note = f"\n\n这部分我没能回答:{named}。" if zh else f"\n\nI could not answer this part: {named}."
            if (await ctx.answerer.trust())[0] is Trust.SMALL_TALK:  # asked on its own, it would be declined: say
                note += "\n" + await ctx.answerer.scope(ctx.question)  # what would answer it instead
            else:
                note += "请单独再问一次。" if zh else " Ask it on its own."
            turn.answer = turn.answer.model_copy(update={"text": turn.answer.text + await responder.say(ctx, note)})
            turn.ok = False
        if not planned:
            turn.outcome = outcomes[1]
            return
        turn.summaries = [StepSummary(route=s.route, request=s.request, ok=outcomes[s.index].ok,
                                      error=None if outcomes[s.index].ok else outcomes[s.index].reason) for s in steps]
        turn.outcome = solve.Outcome(ok=turn.ok, attempts=sum(o.attempts for o in outcomes.values()),
                               reason="; ".join(f"step {s.index}: {outcomes[s.index].reason}" for s in steps
                                                if not outcomes[s.index].ok))

    async def _route(self, ctx: TurnContext) -> tuple[router.RouteDecision, list[plan.Step] | None]:
        """The route and, when the question holds several requests, its plan: by rule where a rule is certain."""
        if ctx.images:  # no rule reads a picture, and no tool takes one: the model that sees it answers
            await ctx.answerer.sees()
            seen = router.RouteDecision(route=router.CHAT, by="rule", reason=(
                f"{len(ctx.images)} image{'s' if len(ctx.images) > 1 else ''} attached: the model with vision answers"))
            await ctx.emit(RouteDecided(route=seen.route, by=seen.by, reason=seen.reason, steps=[]))
            return seen, None
        steps = plan.by_rule(ctx) if ctx.settings.deterministic and ctx.pending is None and \
            not router.guarded(ctx.question) and not router.document_attached(ctx) else None
        decision: router.RouteDecision | None
        if steps:
            decision = router.RouteDecision(route="+".join(s.route for s in steps), by="rule",
                                            reason=f"{len(steps)} requests, each settled by a rule")
        else:
            decision = router.by_rule(ctx) if ctx.settings.deterministic else None
            left = plan.unread_parts(ctx) if decision is not None and decision.args else []
            if left and await _decides_in_one_call(ctx):
                decision = None  # a rule read one part: a capable model takes the question whole (its left-out
                # parts that a rule reads come back as steps of their own)
            elif left and decision is not None:
                decision.unread = left  # the rules' answer names what they could not read
            if decision is None and await _decides_in_one_call(ctx):
                trusted, _ = await ctx.answerer.trust()
                decision = router.decided(ctx, await responder.decide(ctx, list(self.registry),
                                                                      writing.chat_check(ctx, trusted)))
            elif decision is None and await ctx.answerer.routes_by_rules_alone():
                # the parts a rule reads answered, the rest named; else conversation (declined past small talk)
                decision, steps = plan.in_part(ctx) or (router.RouteDecision(route=router.CHAT, by="default", reason=(
                    "no rule read a tool request in it; the built-in model routes by rules alone")), None)
            decision = router.gate(ctx, decision or await router.by_model(ctx))  # a rule's decision passes as it is
            steps = steps or plan.from_model(ctx, decision) or (plan.with_left_out(ctx, decision)
                                                                if ctx.settings.deterministic else None)
        await ctx.emit(RouteDecided(route=decision.route, by=decision.by, reason=decision.reason, steps=[
            PlannedStep(index=s.index, route=s.route, request=s.request, after=s.after) for s in steps or []]))
        return decision, steps or None

    # plans
