"""Executor → Tool → Validator for each request of a turn: the tool's call proposed (by a rule or the model), run in
the sandbox, validated, and a FAIL reason fed back to the executor, within one budget of retries shared by a plan's
steps; a step that builds on another runs after it, with its result."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assistant.control import clean_value, without_controls
from assistant.models.base import ChatMessage
from assistant.pipeline import executor, plan, validator
from assistant.pipeline.context import TurnContext
from assistant.pipeline.events import (
    RetryStopped, StageStarted, StepDone, ToolCallProposed, ToolResultEvent, ValidationDone,
)
from assistant.pipeline.language import BAD_ARGUMENTS, NO_CALL, TOOL_FAILED
from assistant.store import Store
from assistant.trace import ToolCallRecord, now_iso
from tools import LocalText, Tool, ToolResult, Verdict, language_of


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


def _for_people(ctx: TurnContext, tool: Tool) -> str:
    """A tool as a status line names it, in the question's language: "weather lookup", "天气查询"."""
    return tool.label.zh if language_of(ctx.question) == "zh" else tool.label.en


async def run_plan(ctx: TurnContext, steps: list[plan.Step], store: Store) -> dict[int, Outcome]:
    """Every step of a plan: those that need nothing run concurrently, each dependent one after the step it
    needs, with that result for its rules (and its executor). One budget of retries for all."""
    budget = Budget(ctx.settings.max_retries)
    outcomes: dict[int, Outcome] = {}

    alone = len(steps) == 1  # one tool: the turn's own question and context, no step events

    async def run(step: plan.Step) -> None:
        sctx = ctx if alone else dataclasses.replace(ctx, question=step.request, step=step.index)
        tool = ctx.registry.get(step.route)
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
            earlier_tool = ctx.registry.get(earlier.route)
            facts = [f for a, r in before.executed for f in earlier_tool.key_facts(a, r)] if earlier_tool else []
            previous = plan.previous_for(earlier, before.executed, facts)
            args = tool.follow_up(step.request, previous) if ctx.settings.deterministic else None
            # the executor sees the earlier result as what came before in the conversation
            sctx.history = [*ctx.history, ChatMessage(role="user", content=earlier.request), ChatMessage(
                role="assistant", content=tool_results_text(earlier.route, before.executed))]
        outcome = await solve(sctx, tool, args, store, budget, first=step.proposal)
        outcomes[step.index] = outcome
        if not alone:
            await ctx.emit(StepDone(step=step.index, route=step.route, ok=outcome.ok, error=None if outcome.ok else outcome.reason))

    independent = [s for s in steps if s.after is None]
    await asyncio.gather(*(run(s) for s in independent))
    for s in steps:
        if s.after is not None:
            await run(s)
    return outcomes


async def solve(ctx: TurnContext, tool: Tool, preset: list[BaseModel] | None, store: Store,
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
        if (asked_back := await _refused_change(ctx, tool, proposal, attempt)) is not None:
            return asked_back  # a call would change what the user kept, and their words do not ask for it: asked back
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
            results = await asyncio.gather(*(run_tool(ctx, tool, a, attempt, store) for a in runnable))
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


async def _refused_change(ctx: TurnContext, tool: Tool, proposal: executor.Proposal, attempt: int) -> Outcome | None:
    """The outcome of a proposal that would change what the user kept without their words asking for it (what to
    ask back); ``None`` when it changes nothing or is asked for."""
    unasked = _unasked_changes(ctx, tool, proposal)
    if not unasked:
        return None
    await ctx.emit(ValidationDone(attempt=attempt, verdict="FAIL", by="check",
                                  reason="a change of what the user kept that their words do not ask for"))
    return Outcome(ok=False, attempts=attempt, reason="a change the user's words do not ask for", message=unasked[0],
                   why="unfixable")


def _unasked_changes(ctx: TurnContext, tool: Tool, proposal: executor.Proposal) -> list[LocalText]:
    """What to ask back for each call (a model's, or a rule's reading) that would change what the user kept without
    their words asking for it (:meth:`tools.base.Tool.unasked_change`), read against the user's own words: with attached or selected
    text, the words they typed after it (the front ends put them last), never the material."""
    words = ctx.question.rsplit("\n\n", 1)[-1] if ctx.quoted else ctx.question
    about_it = ctx.previous is not None and ctx.previous.route == tool.name
    return [m for c in proposal.calls if c.args for m in [tool.unasked_change(words, c.args, about_it)] if m is not None]


async def run_tool(ctx: TurnContext, tool: Tool, args: BaseModel, attempt: int, store: Store) -> ToolResult:
    started, t0 = now_iso(), time.perf_counter()
    if tool.keeps_state:  # it writes its table of the store: the store is open and migrated before it runs
        store.schema_version  # noqa: B018 - opening a LazyStore is the point
    result = await ctx.runner.run(tool, args)
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
