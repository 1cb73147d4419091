"""Responder: the streamed answer, in the user's language, grounded in the tool results."""

from __future__ import annotations

import json

from pydantic import BaseModel

import prompts
from assistant.context import TurnContext
from assistant.events import AnswerDelta
from assistant.models.base import ChatMessage, ChatRequest
from tools import ToolResult


async def _stream(ctx: TurnContext, messages: list[ChatMessage]) -> str:
    async def on_delta(text: str) -> None:
        await ctx.emit(AnswerDelta(text=text))

    reply = await ctx.model.chat(
        ChatRequest(role="responder", model=ctx.model_name("responder"), messages=messages, stream=True,
                    options=ctx.options("responder")),
        on_delta=on_delta,
    )
    return reply.content.strip()


async def answer_chat(ctx: TurnContext) -> str:
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("responder_chat")),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),
    ])


async def ask_back(ctx: TurnContext, routes: list[str]) -> str:
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("clarify", routes=", ".join(routes))),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),
    ])


async def answer_from_tools(ctx: TurnContext, tool_name: str, executed: list[tuple[BaseModel, ToolResult]]) -> str:
    results = json.dumps(
        [{"tool": tool_name, "arguments": a.model_dump(), "result": r.data} for a, r in executed],
        ensure_ascii=False, indent=1,
    )
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("responder_tool")),
        *ctx.history,
        ChatMessage(role="user", content=prompts.render("responder_tool_task", question=ctx.question, results=results)),
    ])


async def say(ctx: TurnContext, text: str) -> str:
    """An answer the pipeline wrote itself (a rendered tool result, an honest failure), emitted like a stream."""
    await ctx.emit(AnswerDelta(text=text))
    return text
