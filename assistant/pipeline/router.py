"""Router: which handler gets the request. Certain rules first (no model call); otherwise one model
call whose output is constrained to an enum of the routes that exist."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

import prompts
from assistant.pipeline.context import TurnContext
from assistant.models.base import ChatMessage
from assistant.pipeline.language import is_chinese
from assistant.models.parsing import parse_structured

CHAT, CLARIFY = "chat", "clarify"


class RouteDecision(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    route: str
    by: Literal["rule", "model", "default", "check"]
    reason: str
    args: list[BaseModel] | None = None  # set when a rule already extracted the tool's arguments
    reply: str | None = None  # a complete answer written by a rule (a refusal, a question back)
    pending_tool: str | None = None  # the tool whose missing argument the reply asks for
    question: str | None = None  # the request as completed by an answer to a question back
    also: list["FurtherRequest"] = []  # further requests of the same message the model router listed


_REVEAL = re.compile(
    r"(?i)(system\s*prompt|your\s+(?:instructions|rules|prompt)|internal\s+instructions|ignore\s+(?:all\s+)?previous\s+instructions"
    r"|initial\s+prompt|系统提示|提示词|系统指令|内部指令|你的指令|忽略(?:之前|以上|前面)的?(?:所有)?指令)"
)

class FurtherRequest(BaseModel):
    route: str
    request: str = ""


class RouteChoice(BaseModel):
    route: str
    also: list[FurtherRequest] = []


RouteDecision.model_rebuild()


def guarded(question: str) -> bool:
    """A request for our own instructions: declined by a rule, never split or routed."""
    return bool(_REVEAL.search(question))


def route_names(ctx: TurnContext) -> list[str]:
    return [CHAT, *ctx.registry.names(), CLARIFY]


def _routes_text(ctx: TurnContext) -> str:
    lines = [f'- "{CHAT}": conversation, explanations and general knowledge; no tool']
    lines += [f'- "{t.name}": {t.description}' for t in ctx.registry]
    lines.append(f'- "{CLARIFY}": a tool is needed but a required detail is missing; ask the user for it')
    return "\n".join(lines)


def by_rule(ctx: TurnContext) -> RouteDecision | None:
    """The certain tiers, in order: a guard, an answer to a pending question back, a tool's own rule,
    a follow-up of the previous turn, a tool's question back for a missing argument."""
    q = ctx.question
    if _REVEAL.search(q):
        text = ("抱歉,我不能透露我的系统提示或内部指令。还有什么可以帮您?" if is_chinese(q) else
                "Sorry, I can't share my system prompt or internal instructions. Is there anything else I can help with?")
        return RouteDecision(route=CHAT, by="rule", reason="a request for internal instructions is declined", reply=text)
    if ctx.pending is not None:
        tool = ctx.registry.get(ctx.pending.route or "")
        if tool is not None:
            args = tool.complete(ctx.pending.question, q)
            if args:
                return RouteDecision(route=tool.name, by="rule", args=args, question=f"{ctx.pending.question} {q}",
                                     reason=f"the answer to the {tool.name} question asked back")
    # Rules do not depend on the registry's order: a rule decides only when it is the only one that claims the request.
    claims = [(tool, args) for tool in ctx.registry if (args := tool.route(q))]
    if len(claims) == 1:
        tool, args = claims[0]
        return RouteDecision(route=tool.name, by="rule", reason=f"the {tool.name} rule is certain", args=args)
    if ctx.previous is not None and ctx.previous.route:
        tool = ctx.registry.get(ctx.previous.route)
        if tool is not None:
            args = tool.follow_up(q, ctx.previous)
            if args:
                return RouteDecision(route=tool.name, by="rule", args=args,
                                     reason=f"a follow-up of the previous {tool.name} turn")
    if claims:
        return None  # several tools are certain: the model chooses among them
    asks = [(tool, ask) for tool in ctx.registry if (ask := tool.missing(q))]
    if len(asks) == 1:
        tool, ask = asks[0]
        return RouteDecision(route=CLARIFY, by="rule", reply=ask, pending_tool=tool.name,
                             reason=f"{tool.name} needs a detail the request lacks")
    return None


async def route(ctx: TurnContext) -> RouteDecision:
    decision = by_rule(ctx) if ctx.settings.deterministic else None
    if decision is not None:
        return decision

    names = route_names(ctx)
    enum = {"type": "string", "enum": names}
    schema = {"type": "object", "properties": {"route": enum, "also": {"type": "array", "items": {
        "type": "object", "properties": {"route": enum, "request": {"type": "string"}}, "required": ["route", "request"]}}},
        "required": ["route"]}
    messages = [
        ChatMessage(role="system", content=prompts.render("router", routes=_routes_text(ctx))),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),  # the request goes last, where small models attend
    ]
    reply = await ctx.model.chat(ctx.request("router", messages, format=schema))
    choice = parse_structured(reply.content, RouteChoice)
    if choice is None or choice.route not in names:
        return RouteDecision(route=CHAT, by="default", reason=f"the router's reply was not a valid route: {reply.content[:80]!r}")
    also = [a for a in choice.also if a.route in names and a.route not in (CHAT, CLARIFY)][:4]
    listed = "".join(f", then {a.route}" for a in also)
    return RouteDecision(route=choice.route, by="model", also=also,
                         reason=f"{reply.model or ctx.model_name('router')} chose {choice.route}{listed}")


def gate(ctx: TurnContext, decision: RouteDecision) -> RouteDecision:
    """The first gate: a tool route a model chose stands only when the message carries something the tool can
    use. Otherwise the turn is chat, or a question back when the message clearly asks for that tool's
    information. No executor call, no failure message."""
    if decision.by != "model" or not ctx.settings.deterministic:
        return decision
    if decision.route == CLARIFY:
        # A question back stands only when some tool needs a detail this message lacks.
        asks = [(t, t.missing(ctx.question)) for t in ctx.registry if t.grounding(ctx.question) == "ask"]
        if not asks:
            return RouteDecision(route=CHAT, by="check",
                                 reason=f"{decision.reason}, but no tool lacks a detail in this message: answered as chat")
        if len(asks) == 1 and asks[0][1]:
            return RouteDecision(route=CLARIFY, by="check", reply=asks[0][1], pending_tool=asks[0][0].name,
                                 reason=f"{decision.reason}: {asks[0][0].name} needs a detail the request lacks")
        return decision
    tool = ctx.registry.get(decision.route)
    if tool is None:
        return decision
    grounding = tool.grounding(ctx.question)
    if grounding == "grounded":
        return decision
    chose = f"{decision.reason}, but "
    if grounding == "ask":
        ask = tool.missing(ctx.question)
        if ask:
            return RouteDecision(route=CLARIFY, by="check", reply=ask, pending_tool=tool.name,
                                 reason=chose + f"the request lacks a detail {tool.name} needs: asked back")
        return RouteDecision(route=CLARIFY, by="check", reason=chose + f"the request lacks a detail {tool.name} needs")
    return RouteDecision(route=CHAT, by="check",
                         reason=chose + f"the request carries nothing {tool.name} could use: answered as chat")
