"""Router: which handler gets the request. Certain rules first (no model call); otherwise one model
call whose output is constrained to an enum of the routes that exist."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

import prompts
from assistant.context import TurnContext
from assistant.models.base import ChatMessage, ChatRequest
from assistant.models.parsing import parse_structured

CHAT, CLARIFY = "chat", "clarify"


class RouteDecision(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    route: str
    by: Literal["rule", "model", "default"]
    reason: str
    args: list[BaseModel] | None = None  # set when a rule already extracted the tool's arguments


class RouteChoice(BaseModel):
    route: str


def route_names(ctx: TurnContext) -> list[str]:
    return [CHAT, *ctx.registry.names(), CLARIFY]


def _routes_text(ctx: TurnContext) -> str:
    lines = [f'- "{CHAT}": conversation, explanations and general knowledge; no tool']
    lines += [f'- "{t.name}": {t.description}' for t in ctx.registry]
    lines.append(f'- "{CLARIFY}": a tool is needed but a required detail is missing; ask the user for it')
    return "\n".join(lines)


async def route(ctx: TurnContext) -> RouteDecision:
    for tool in ctx.registry:
        args = tool.route(ctx.question)
        if args:
            return RouteDecision(route=tool.name, by="rule", reason=f"the {tool.name} rule is certain", args=args)

    names = route_names(ctx)
    schema = {"type": "object", "properties": {"route": {"type": "string", "enum": names}}, "required": ["route"]}
    messages = [
        ChatMessage(role="system", content=prompts.render("router", routes=_routes_text(ctx))),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),  # the request goes last, where small models attend
    ]
    reply = await ctx.model.chat(ChatRequest(
        role="router", model=ctx.model_name("router"), messages=messages, format=schema, options=ctx.options("router"),
    ))
    choice = parse_structured(reply.content, RouteChoice)
    if choice is None or choice.route not in names:
        return RouteDecision(route=CHAT, by="default", reason=f"the router's reply was not a valid route: {reply.content[:80]!r}")
    return RouteDecision(route=choice.route, by="model", reason=f"{ctx.model_name('router')} chose {choice.route}")
