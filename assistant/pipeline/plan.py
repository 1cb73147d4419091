"""Plans: one question, several requests. ``北京天气怎么样?顺便算一下 23*47`` is a weather step and a calculator
step that run concurrently; ``上海现在多少度?换算成华氏度`` is a weather step and a calculator step that runs
after it, on its result.

The certain tier splits the question into clauses and keeps the split only when every clause is claimed
without a model: by a tool's rule, as a follow-up of an earlier clause, or as a step that depends on an earlier
one (``Tool.depends``). Anything less certain is not a plan here: the question goes the one-step way it always
went (so a single-intent question pays nothing), and the model router may still list further requests."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from assistant.pipeline.context import TurnContext
from assistant.pipeline.router import RouteDecision
from tools import KeyFact, PreviousTurn, ToolResult
from tools.reading.follow_up import substitute
from tools.reading.reader import without_end
from tools.reading.request import read
from tools.lazy_re import lazy_compile

# Where one request ends and the next begins: after a sentence's end, or before a word that adds a request. Each
# separator is tried only where a run of separators starts (the lookbehinds), so a long run costs one pass, not n².
_BOUNDARY = lazy_compile(
    r"(?<=[?？!！。;；])\s*"
    r"|(?<![,，、\s])[,，、\s]*(?=顺便|另外|此外|同时|并且|然后|再帮我|再给我|还要|还有(?!多|几|什么|没有|哪))"
    r"|(?<![,;\s])[,;\s]+(?=(?:and\s+)?(?:also|then)\b)"
    r"|(?<!\s)\s+(?=and\s+(?:what|how|calculate|compute|convert|multiply|divide|tell|is)\b)",
    re.IGNORECASE)
# Words that join requests, not part of either.
_JOINER = lazy_compile(r"^(?:顺便|另外|此外|同时|并且|还有|还要|再帮我|再给我|and|also|then|[,，、;；\s])+", re.IGNORECASE)
# A clause that asks for nothing: thanks, greetings, "please".
_FILLERS = frozenset({"", "谢谢", "多谢", "thank", "thanks", "thank you", "thanks you", "please", "请", "好的", "ok", "okay", "hi",
                      "hello", "你好"})


def _filler(text: str) -> bool:
    """A clause that asks for nothing: thanks, greetings, "please" (and the marks after it)."""
    said = without_end(text, "!！.。,，~")
    return not said or (not said[:1].isspace() and " ".join(said.casefold().split()) in _FILLERS)


@dataclass
class Step:
    """One request of a plan: the words that ask it, the tool that answers it, and what it needs."""

    index: int
    request: str
    route: str
    args: list[BaseModel] | None = None  # from a rule; None: the executor writes them
    after: int | None = None  # the step whose result this one needs
    by: str = "rule"
    reason: str = ""
    proposal: Any = None  # the model's own calls from the deciding call: the executor's first proposal


def clauses(question: str) -> list[str]:
    """The question cut where a new request begins, joiners dropped, empty pieces and filler left out."""
    return _pieces(_BOUNDARY, question)


def _pieces(cut: Any, question: str) -> list[str]:
    """``question`` split by ``cut``, each piece without its joiners, empty pieces and filler left out."""
    return [text for piece in cut.split(question) if piece and (text := _JOINER.sub("", piece).strip())
            and not _filler(text)]


# Further cuts, kept only when each piece they leave is claimed (a comma or an "and" may as well join the parts of one
# request: "a rectangle 3 by 5, what's its area?", "1 hour and 45 minutes"): every comma ("100公里是多少英里,10公斤是
# 多少磅?", "东京现在几点,纽约呢?"; never between digits: 1,000), and an "and" before a number that says the verb once
# for two requests ("convert 10 kg to lbs and 5 km to miles", "what's 3+4 and 5*6").
_ANY_COMMA = lazy_compile(r"(?<!\s)\s*(?:[，；;]|,(?!\d)|(?<!\d),)\s*|(?<!\s)\s+and\s+(?=[-+]?\d[\d.,]*\s*(?:[^\W\d_]|"
                          r"[°%$€£¥]|[*/×÷^+-]\s*\d))", re.IGNORECASE)


def by_rule(ctx: TurnContext) -> list[Step] | None:
    """A plan of two or more steps when every clause of the question is claimed without a model; else ``None``.
    The clauses are cut where a new request begins (:func:`clauses`); when those are not all claimed, at every
    comma and at an "and" before a number as well (:data:`_ANY_COMMA`), kept only when each piece is."""
    if not read(ctx.question).readable:
        return None  # quoted markup, or a text too long to be a request: no rule answers it, in parts or whole
    for parts in _cuts(ctx.question):
        if (steps := _claim_all(ctx, parts)) is not None:
            return steps
    return None


def _cuts(question: str) -> list[list[str]]:
    """The ways to cut ``question`` into requests, the surer first: where a new request begins (:func:`clauses`),
    then at every comma and at an "and" before a number too; only those of two pieces or more."""
    first, by_comma = clauses(question), _pieces(_ANY_COMMA, question)
    return [parts for parts in ([first, by_comma] if by_comma != first else [first]) if len(parts) >= 2]


def _claim_all(ctx: TurnContext, parts: list[str]) -> list[Step] | None:
    steps: list[Step] = []
    for text in parts:
        step = _claim(ctx, text, steps)
        if step is None:
            return None
        steps.append(step)
    if all(s.after is None for s in steps) and len({s.route for s in steps}) == 1:
        tool = ctx.registry.get(steps[0].route)
        if tool is not None and tool.route(read(ctx.question).core):
            return None  # one tool whose rule reads the whole question: the one-step path makes its calls together
    return steps


def _claim(ctx: TurnContext, text: str, earlier: list[Step]) -> Step | None:
    index = len(earlier) + 1
    core = read(text).core  # each request read as the router reads a question: its wrapper set aside
    claims = [(tool, args) for tool in ctx.registry if (args := tool.route(core))]
    if len(claims) == 1:
        tool, args = claims[0]
        return Step(index, text, tool.name, args, reason=f"the {tool.name} rule is certain")
    if claims:
        return None
    for before in reversed(earlier):
        tool = ctx.registry.get(before.route)
        if tool is None or before.args is None:
            continue
        # the same tool again with another detail ("上海呢?" after a weather clause, "纽约呢?" after a clock one):
        # known before anything runs, by the tool's own follow-up or the earlier request with that part changed
        previous = PreviousTurn(question=read(before.request).core, route=before.route,
                                calls=[(a.model_dump(), None) for a in before.args])
        args = tool.follow_up(text, previous) or ((found := substitute(tool, text, previous)) and found[0])
        if args:
            return Step(index, text, tool.name, args, reason=f"continues step {before.index} ({before.route})")
    for before in reversed(earlier):
        dependent = [t for t in ctx.registry if t.depends(text, before.route)]
        if len(dependent) == 1:
            return Step(index, text, dependent[0].name, None, after=before.index,
                        reason=f"works on the result of step {before.index} ({before.route})")
    return None


def in_part(ctx: TurnContext) -> tuple[RouteDecision, list[Step] | None] | None:
    """For a model that routes by rules alone: the decision that answers the parts a rule reads and names the rest
    (:func:`claimed_parts`), and its plan when there are several; ``None`` when there is no such part."""
    if (partial := claimed_parts(ctx)) is None:
        return None
    steps, unread = partial
    one = steps[0] if len(steps) == 1 else None
    return RouteDecision(route="+".join(s.route for s in steps), by="rule", unread=unread,
                         args=one.args if one else None, question=one.request if one else None,
                         reason=f"{len(steps)} of {len(steps) + len(unread)} requests settled by a rule; the model "
                                "routes by rules alone"), None if one else steps


def claimed_parts(ctx: TurnContext) -> tuple[list[Step], list[str]] | None:
    """For a model that routes by rules alone (the built-in one): the parts of a question of several requests that
    the rules read, as steps, and the parts that ask for something no rule reads, to be named ("what is 2+2? and
    why is the sky blue?": the sum, and the question it cannot answer). ``None`` unless there are both."""
    if not read(ctx.question).readable:
        return None
    for parts in _cuts(ctx.question):
        steps, rest = _read_and_asking(ctx, parts)
        if steps and rest:
            return steps, rest
    return None


def _read_and_asking(ctx: TurnContext, parts: list[str]) -> tuple[list[Step], list[str]]:
    """The parts a rule reads, as steps (a follow-up of an earlier one too: "上海呢?" after "北京天气怎么样?"), and of
    the others those that ask for something, as written."""
    steps: list[Step] = []
    rest: list[str] = []
    for text in parts:
        if (step := _claim(ctx, text, steps)) is not None:
            steps.append(step)
        elif _ASKS.search(read(text).core):
            rest.append(text.strip().rstrip(",，;；、"))
    return steps, rest


def previous_for(step: Step, executed: list[tuple[BaseModel, ToolResult]], facts: list[KeyFact]) -> PreviousTurn:
    """An earlier step's result in the shape follow-ups read."""
    return PreviousTurn(question=step.request, route=step.route,
                        calls=[(a.model_dump(), r.data) for a, r in executed], facts=facts)


def from_model(ctx: TurnContext, decision: RouteDecision) -> list[Step] | None:
    """The model router's further requests (``also``), as steps after the one it routed; ``None`` for one request.
    Each further step is held to the same gate as a routed question: a tool step with nothing to use is dropped
    (the answer still sees the whole question)."""
    if not decision.also or decision.reply is not None:
        return None
    steps: list[Step] = []
    first = ctx.registry.get(decision.route)
    if first is not None:
        steps.append(Step(1, ctx.question, first.name, decision.args, by=decision.by, reason=decision.reason))
    for extra in decision.also:
        tool = ctx.registry.get(extra.route)
        if tool is None or tool.name == (first.name if first else None) or not extra.request.strip():
            continue
        if ctx.settings.deterministic and tool.grounding(extra.request) != "grounded":
            continue
        args = tool.route(extra.request) if ctx.settings.deterministic else None
        after = None
        if args is None and ctx.settings.deterministic and steps and tool.depends(extra.request, steps[0].route):
            after = steps[0].index
        steps.append(Step(len(steps) + 1, extra.request, tool.name, args, after=after, by="model",
                          reason=f"the router listed it as a further request ({tool.name})"))
    return steps if len(steps) >= 2 else None


def with_left_out(ctx: TurnContext, decision: RouteDecision) -> list[Step] | None:
    """A model that called one tool for a question of several requests answered one of them: each other part that a
    rule of another tool reads becomes a step of its own beside the model's ("what's 17% of 2,340 and the weather in
    Paris?" with only the calculator called), so no part is answered in silence by half. ``None`` when there is
    none."""
    tool = ctx.registry.get(decision.route)
    if tool is None or decision.by != "model" or not read(ctx.question).readable:
        return None
    parts = clauses(ctx.question)
    if len(parts) < 2:
        return None
    steps = [Step(1, ctx.question, tool.name, decision.args, by=decision.by, reason=decision.reason,
                  proposal=decision.proposal)]
    for text in parts:
        claims = [(t, args) for t in ctx.registry if (args := t.route(read(text).core))]
        if len(claims) == 1 and claims[0][0].name != tool.name:
            other, args = claims[0]
            steps.append(Step(len(steps) + 1, text, other.name, args,
                              reason=f"a part the model's {tool.name} call left out, read by the {other.name} rule"))
    return steps if len(steps) >= 2 else None


# A clause that asks for something (a question or a request), as opposed to a remark beside one.
_ASKS = lazy_compile(r"[?？]\s*$|^(?:what|how|when|where|who|which|why|is|are|can|could|would|will|do|does|calculate|"
                   r"convert|compute|work\s+out|tell|give|find|show|please)\b|多少|几|吗|呢|怎么|什么|哪|请|帮|算|换算|查",
                   re.IGNORECASE)


def unread_parts(ctx: TurnContext) -> list[str]:
    """The parts of a question of several requests that ask for something no rule reads, beside one that a rule
    read: the rule answered a part, and these are the rest (to a capable model, or named)."""
    parts = clauses(ctx.question)
    if len(parts) < 2:
        return []
    _, asking = _read_and_asking(ctx, parts)
    unread = [text for text in asking if not any(t.route(read(text).core) for t in ctx.registry)]  # the routed
    # tool's rule among them
    return unread if len(unread) < len(parts) else []

