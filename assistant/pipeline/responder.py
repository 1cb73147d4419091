"""Responder: the streamed answer, in the user's language, grounded in the tool results. The stream passes
through the gate (``gate``): a sentence reaches the user only once it is checked, and the stream stops at the
first one that may not be shown."""

from __future__ import annotations

import json
from typing import Callable

from pydantic import BaseModel

import prompts

from assistant.control import without_controls
from assistant.pipeline.gate import Held, SentenceGate, chat_early, tool_early
from assistant.pipeline.context import TurnContext
from assistant.pipeline.events import AnswerDelta, Thinking
from assistant.models.base import ChatMessage, ChatRequest, StopGeneration, ToolCall
from tools import Tool, ToolResult


class Written(BaseModel):
    text: str  # what the gate released: checked, and shown as it streamed (all the model wrote stays in the trace)
    held: str | None = None  # why the gate stopped on a piece that may not be shown
    ended: str | None = None  # why the answer ended early without a wrong piece (it repeated itself; a template marker)
    timed_out: bool = False  # stopped by request_timeout: asking again would only wait as long again
    capped: bool = False  # it ended at the generation cap (responder_max_tokens), mid-answer
    calls: list[ToolCall] = []  # the tools the model called instead of (or after) writing (the deciding call)
    model: str = ""  # the model that wrote it


Check = Callable[[str, str], "Held | None"]


async def _stream(ctx: TurnContext, messages: list[ChatMessage], check: Callable[[list[str]], Check],
                  early: Callable[[str], "Held | None"] | None = None,
                  request: ChatRequest | None = None) -> Written:
    """Stream an answer through the gate: each sentence is checked before it is emitted, and the stream stops at
    the first that may not be shown (``check`` is built from the instructions, to spot them echoed back)."""
    if ctx.settings.system:  # the user's own instructions for this answer, after ours
        messages = [messages[0].model_copy(update={"content": f"{messages[0].content}\n\n"
                                                   f"The user's instructions for this answer: {ctx.settings.system}"}),
                    *messages[1:]]
    ours = [messages[0].content] + [m.content for m in messages[1:] if m.role == "user" and m.content.startswith(_FEEDBACK)]
    gate = SentenceGate(check(ours), early)

    async def release(text: str) -> None:
        if text:
            await ctx.emit(AnswerDelta(text=text))

    async def on_delta(text: str) -> None:
        await release(gate.feed(text))
        if gate.stopped:
            raise StopGeneration(gate.held.reason if gate.held else "")

    thinking = False

    async def on_thinking(text: str) -> None:
        nonlocal thinking
        if not thinking and not gate.shown:
            thinking = True
            await ctx.emit(Thinking())

    request = (request.model_copy(update={"messages": messages}) if request is not None
               else ctx.request("responder", messages, stream=True))
    reply = await ctx.model.chat(request, on_delta=on_delta, on_thinking=on_thinking)
    timed_out = not gate.stopped and reply.done_reason == "cut"
    if not timed_out:
        await release(gate.finish())
    held = gate.held
    return Written(text=gate.shown.strip(), held=held.reason if held and held.wrong else None,
                   ended=held.reason if held and not held.wrong else (reply.problem if timed_out else None),
                   timed_out=timed_out, calls=reply.tool_calls, model=reply.model or request.model,
                   capped=reply.done_reason == "length" and held is None and not reply.tool_calls)


_FEEDBACK = prompts.render("responder_feedback", reason="").split(":")[0]


def _feedback(reason: str | None) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=prompts.render("responder_feedback", reason=reason))] if reason else []


async def answer_chat(ctx: TurnContext, check: Callable[[list[str]], Check], rejected: str | None = None) -> Written:
    """``rejected``: why the previous answer of this turn was not shown."""
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("responder_chat")),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question, images=ctx.images),
        *_feedback(rejected),
    ], check, chat_early)


async def decide(ctx: TurnContext, tools: list[Tool], check: Callable[[list[str]], Check]) -> Written:
    """One call decides and answers: the model is offered every tool natively and either answers, streamed through
    the gate (the route is conversation, and this is the Responder's answer), or calls tools (the route, and the
    Executor's first proposal). Recorded as the router's call, with the responder's model, decoding and cap."""
    messages = [ChatMessage(role="system", content=prompts.render("decide")), *ctx.history,
                ChatMessage(role="user", content=ctx.question)]  # the request last, after a stable prefix
    request = ChatRequest(role="router", model=ctx.model_name("responder"), messages=messages, stream=True,
                          settings=ctx.call_settings("responder"), tools=[t.ollama_tool() for t in tools])
    return await _stream(ctx, messages, check, chat_early, request)


async def offer(ctx: TurnContext, action: str, offered: str, check: Callable[[list[str]], Check]) -> Written:
    """What a capable model writes instead of an action out of reach (a draft, the steps), the user told first
    that it cannot be done here (:func:`assistant.pipeline.recognisers.reach.offered_line`)."""
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("offer", action=action, offer=offered)),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),
    ], check, chat_early)


async def ask_back(ctx: TurnContext, routes: list[str], check: Callable[[list[str]], Check],
                   rejected: str | None = None) -> Written:
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("clarify", routes=", ".join(routes))),
        *ctx.history,
        ChatMessage(role="user", content=ctx.question),
        *_feedback(rejected),
    ], check, chat_early)


async def answer_from_tools(ctx: TurnContext, parts: list[tuple[Tool, list[tuple[BaseModel, ToolResult]]]],
                            check: Callable[[list[str]], Check], rejected: str | None = None) -> Written:
    """``parts``: each tool with its calls (one part per step of a plan); the model sees what an answer may use."""
    results = json.dumps(
        [{"tool": tool.name, "arguments": a.model_dump(), "result": tool.answer_data(r)} for tool, executed in parts
         for a, r in executed],
        ensure_ascii=False, indent=1,
    )
    return await _stream(ctx, [
        ChatMessage(role="system", content=prompts.render("responder_tool")),
        *ctx.history,
        ChatMessage(role="user", content=prompts.render("responder_tool_task", question=ctx.question, results=results)),
        *_feedback(rejected),
    ], check, tool_early)


async def say(ctx: TurnContext, text: str) -> str:
    """An answer the pipeline wrote itself (a rendered tool result, an honest failure), emitted like a stream. What
    a tool returned may carry terminal control sequences: they are taken out."""
    text = without_controls(text)
    await ctx.emit(AnswerDelta(text=text))
    return text
