"""Responder: the streamed answer, in the user's language, grounded in the tool results. A stream that
starts repeating itself is cut there; the answer check (``answer_check``) judges what it wrote."""

from __future__ import annotations

import json
from typing import Callable

from pydantic import BaseModel

import prompts

from assistant.pipeline.answer_check import markup, runaway
from assistant.pipeline.context import TurnContext
from assistant.pipeline.events import AnswerDelta, Thinking
from assistant.models.base import ChatMessage, StopGeneration
from tools import ToolResult


class Written(BaseModel):
    text: str
    cut: str | None = None  # why the stream was stopped early
    timed_out: bool = False  # stopped by request_timeout: asking again would only wait as long again
    prompts: list[str] = []  # the instructions (and feedback) it was given, to spot them echoed back


async def _stream(ctx: TurnContext, messages: list[ChatMessage],
                  stop_if: tuple[Callable[[str], str | None], ...] = (runaway,)) -> Written:
    """Stream an answer; stop it as soon as one of ``stop_if`` finds it cannot be shown (it loops; for an answer
    from tool results, it has turned into JSON), rather than wait for the rest."""
    shown: list[str] = []
    why: list[str] = []

    async def on_delta(text: str) -> None:
        shown.append(text)
        await ctx.emit(AnswerDelta(text=text))
        so_far = "".join(shown)
        for check in stop_if:
            problem = check(so_far)
            if problem:
                why.append(problem)
                raise StopGeneration(problem)

    thinking = False

    async def on_thinking(text: str) -> None:
        nonlocal thinking
        if not thinking and not shown:
            thinking = True
            await ctx.emit(Thinking())

    if ctx.system:  # the user's own instructions for this answer, after ours
        messages = [messages[0].model_copy(update={"content": f"{messages[0].content}\n\n"
                                                   f"The user's instructions for this answer: {ctx.system}"}),
                    *messages[1:]]
    reply = await ctx.model.chat(ctx.request("responder", messages, stream=True), on_delta=on_delta,
                                 on_thinking=on_thinking)
    timed_out = not why and reply.done_reason == "cut"
    cut = why[0] if why else reply.problem if timed_out else None
    ours = [messages[0].content] + [m.content for m in messages[1:] if m.role == "user" and m.content.startswith(_FEEDBACK)]
    return Written(text=reply.content.strip(), cut=cut, timed_out=timed_out, prompts=ours)


_FEEDBACK = prompts.render("responder_feedback", reason="").split(":")[0]


def _feedback(reason: str | None) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=prompts.render("responder_feedback", reason=reason))] if reason else []


async def answer_chat(ctx: TurnContext, rejected: str | None = None) -> Written:
    """``rejected``: why the previous answer of this turn was not shown."""
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("responder_chat")),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),
        *_feedback(rejected),
    ])


async def ask_back(ctx: TurnContext, routes: list[str], rejected: str | None = None) -> Written:
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("clarify", routes=", ".join(routes))),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),
        *_feedback(rejected),
    ])


async def answer_from_tools(ctx: TurnContext, parts: list[tuple[str, list[tuple[BaseModel, ToolResult]]]],
                            rejected: str | None = None) -> Written:
    """``parts``: each tool's name with its calls (one part per step of a plan)."""
    results = json.dumps(
        [{"tool": name, "arguments": a.model_dump(), "result": r.data} for name, executed in parts for a, r in executed],
        ensure_ascii=False, indent=1,
    )
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("responder_tool")),
        *ctx.history,
        ChatMessage(role="user", content=prompts.render("responder_tool_task", question=ctx.question, results=results)),
        *_feedback(rejected),
    ], stop_if=(runaway, markup))


async def say(ctx: TurnContext, text: str) -> str:
    """An answer the pipeline wrote itself (a rendered tool result, an honest failure), emitted like a stream."""
    await ctx.emit(AnswerDelta(text=text))
    return text
