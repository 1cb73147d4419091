"""One turn, top to bottom: Router → Executor → Tool → Validator → Responder, with the validator's
FAIL reason fed back to the executor. Every stage emits typed events; the turn and its whole trace
are written to the store even when the turn fails."""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assistant import executor, responder, router, validator
from assistant.config import Settings
from assistant.context import Emit, TurnContext
from assistant.errors import AssistantError
from assistant.events import (
    RetryStopped, RouteDecided, StageStarted, ToolCallProposed, ToolResultEvent, TurnDone, TurnStarted, ValidationDone,
)
from assistant.language import could_not_answer
from assistant.models.base import ChatMessage, ModelBackend
from assistant.store import Store, new_id
from assistant.trace import RecordingModel, ToolCallRecord, Trace, now_iso
from tools import PreviousTurn, Registry, Tool, ToolResult, ToolRunner, Verdict


class ToolCallSummary(BaseModel):
    name: str
    args: dict
    ok: bool
    result: dict | None = None
    error: str | None = None


class TurnResult(BaseModel):
    turn_id: str
    session_id: str
    ok: bool
    answer: str
    route: str | None = None
    route_by: Literal["rule", "model", "default"] | None = None
    attempts: int = 0
    model_calls: int = 0
    tool_calls: list[ToolCallSummary] = []
    error: str | None = None


class Outcome(BaseModel):
    """How the executor/validator loop ended."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ok: bool
    attempts: int
    executed: list[tuple[BaseModel, ToolResult]] = []
    reason: str = ""
    why: Literal["passed", "exhausted", "repeated", "unfixable"] = "passed"


class Assistant:
    """The pipeline with its dependencies. One instance serves many turns."""

    def __init__(self, settings: Settings, backend: ModelBackend, registry: Registry, runner: ToolRunner, store: Store) -> None:
        self.settings = settings
        self.backend = backend
        self.registry = registry
        self.runner = runner
        self.store = store

    async def aclose(self) -> None:
        await self.runner.aclose()
        await self.backend.aclose()
        self.store.close()

    async def ask(self, question: str, session_id: str | None = None, emit: Emit | None = None,
                  settings: Settings | None = None) -> TurnResult:
        """Answer one question; raises :class:`AssistantError` when the model server fails (the turn is still stored).
        ``settings`` overrides this instance's for one turn (a daemon client's --model or --max-retries)."""
        settings = settings or self.settings
        session_id = session_id or self.store.create_session(title=question[:80])
        history = [ChatMessage.model_validate({"role": r, "content": c})
                   for r, c in self.store.recent_messages(session_id, settings.history_turns)]
        trace = Trace()
        ctx = TurnContext(settings, RecordingModel(self.backend, trace), self.registry, self.runner,
                          question, history, trace, emit, previous=self.store.last_turn(session_id),
                          pending=self.store.pending(session_id))
        turn_id, started = new_id(), now_iso()
        await ctx.emit(TurnStarted(turn_id=turn_id, session_id=session_id, question=question))
        decision: router.RouteDecision | None = None
        outcome: Outcome | None = None
        answer: str | None = None
        ok, error = False, None
        try:
            # 1. Router
            await ctx.emit(StageStarted(stage="router"))
            decision = await router.route(ctx)
            await ctx.emit(RouteDecided(route=decision.route, by=decision.by, reason=decision.reason))
            ctx.question = decision.question or question
            if ctx.pending is not None:
                self.store.set_pending(session_id, None)  # asked back once; this turn answers or replaces it
            tool = self.registry.get(decision.route)
            if decision.reply is not None:
                # A rule wrote the whole answer: a refusal, or a question back for a missing detail.
                answer = await responder.say(ctx, decision.reply)
                if decision.pending_tool:
                    self.store.set_pending(session_id, PreviousTurn(question=question, route=decision.pending_tool))
                ok = True
            elif tool is None:
                # 4. Responder, no tool: conversation or a question back
                await ctx.emit(StageStarted(stage="responder"))
                if decision.route == router.CLARIFY:
                    answer = await responder.ask_back(ctx, self.registry.names())
                else:
                    answer = await responder.answer_chat(ctx)
                ok = True
            else:
                # 2–3. Executor → Tool → Validator, FAIL reasons fed back
                outcome = await self._solve(ctx, tool, decision.args)
                if not outcome.ok:
                    answer = await responder.say(ctx, could_not_answer(
                        ctx.question, tool.name, outcome.attempts, outcome.reason, outcome.why))
                else:
                    # 4. Responder: a certain question gets its rendered result; the rest a grounded answer
                    rendered = None
                    if decision.by == "rule" and len(outcome.executed) == 1 and ctx.settings.deterministic:
                        rendered = tool.render(ctx.question, *outcome.executed[0])
                    await ctx.emit(StageStarted(stage="responder"))
                    if rendered is not None:
                        answer = await responder.say(ctx, rendered)
                    else:
                        answer = await responder.answer_from_tools(ctx, tool.name, outcome.executed)
                    ok = True
        except AssistantError as e:
            error = e.one_line()
            raise
        except asyncio.CancelledError:
            error = "cancelled"
            raise
        finally:
            result = TurnResult(
                turn_id=turn_id, session_id=session_id, ok=ok, answer=answer or "",
                route=decision.route if decision else None, route_by=decision.by if decision else None,
                attempts=outcome.attempts if outcome else 0, model_calls=len(trace.model_calls),
                tool_calls=[ToolCallSummary(name=t.name, args=t.args, ok=t.ok, result=t.result, error=t.error)
                            for t in trace.tool_calls],
                error=error or (None if ok else outcome.reason if outcome else None),
            )
            done = TurnDone(turn_id=turn_id, ok=ok, answer=result.answer, route=result.route,
                            attempts=result.attempts, model_calls=result.model_calls, error=result.error)
            if error is None:
                await ctx.emit(done)
            else:
                ctx.events.append(done)
            self.store.save_turn(
                {"id": turn_id, "session_id": session_id, "question": question, "answer": answer,
                 "ok": int(ok), "route": result.route, "route_by": result.route_by,
                 "route_reason": decision.reason if decision else None, "attempts": result.attempts,
                 "model_calls": result.model_calls, "error": result.error, "started_at": started,
                 "finished_at": now_iso()},
                trace.model_calls, trace.tool_calls, ctx.events,
            )
        return result

    async def _solve(self, ctx: TurnContext, tool: Tool, preset: list[BaseModel] | None) -> Outcome:
        total = ctx.settings.max_retries + 1
        feedback: list[ChatMessage] = []
        failed: dict[str, str] = {}  # proposal key -> why it failed
        reason = ""
        for attempt in range(1, total + 1):
            if attempt == 1 and preset:
                proposal = executor.from_rule(tool, preset)
            else:
                await ctx.emit(StageStarted(stage="executor", attempt=attempt, of=total, detail=tool.name))
                proposal = await executor.propose(ctx, tool, feedback)
            key = proposal.key()
            if proposal.calls and key in failed:
                # The same call again cannot pass; stop instead of burning the rest of the budget.
                await ctx.emit(RetryStopped(attempt=attempt, reason=f"repeated the call that failed: {failed[key]}"))
                return Outcome(ok=False, attempts=attempt, reason=failed[key], why="repeated")
            for c in proposal.calls:
                await ctx.emit(ToolCallProposed(attempt=attempt, name=c.name, args=c.raw,
                                                recovered_from_text=proposal.recovered_from_text))
            invalid = [c.invalid for c in proposal.calls if c.invalid]
            executed: list[tuple[BaseModel, ToolResult]] = []
            if proposal.problem or invalid:
                verdict = Verdict(verdict="FAIL", reason=proposal.problem or "; ".join(i for i in invalid if i), by="check")
            else:
                detail = ", ".join(_short(c.raw) for c in proposal.calls)
                await ctx.emit(StageStarted(stage="tool", attempt=attempt, of=total, detail=f"{tool.name}({detail})"))
                runnable = [c.args for c in proposal.calls if c.args]
                results = await asyncio.gather(*(self._run_tool(ctx, tool, a, attempt) for a in runnable))
                executed = list(zip(runnable, results, strict=True))
                unfixable = [r.error or "" for r in results if not r.ok and not r.fixable]
                if unfixable:
                    # No other arguments can help (the network is down): do not spend retries on it.
                    await ctx.emit(ValidationDone(attempt=attempt, verdict="FAIL", reason=unfixable[0], by="check"))
                    return Outcome(ok=False, attempts=attempt, reason=unfixable[0], why="unfixable")
                await ctx.emit(StageStarted(stage="validator", attempt=attempt, of=total))
                verdict = await validator.validate(ctx, tool, executed, trusted=attempt == 1 and bool(preset))
            await ctx.emit(ValidationDone(attempt=attempt, verdict=verdict.verdict, reason=verdict.reason, by=verdict.by))
            if verdict.passed:
                return Outcome(ok=True, attempts=attempt, executed=executed)
            reason = verdict.reason
            failed[key] = reason
            feedback += executor.feedback_messages(tool, proposal, [r for _, r in executed], reason)
        return Outcome(ok=False, attempts=total, reason=reason, why="exhausted")

    async def _run_tool(self, ctx: TurnContext, tool: Tool, args: BaseModel, attempt: int) -> ToolResult:
        started, t0 = now_iso(), time.perf_counter()
        result = await self.runner.run(tool, args)
        ms = (time.perf_counter() - t0) * 1000
        record = ToolCallRecord(attempt=attempt, name=tool.name, args=args.model_dump(), ok=result.ok,
                                result=result.data, error=result.error, duration_ms=ms, started_at=started,
                                refusals=result.refusals)
        ctx.trace.tool_calls.append(record)
        await ctx.emit(ToolResultEvent(**record.model_dump()))
        return result


def _short(raw: dict) -> str:
    values = [str(v) for v in raw.values()]
    text = ", ".join(values)
    return text if len(text) <= 40 else text[:39] + "…"
