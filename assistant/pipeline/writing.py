"""The Responder's answers, each held to the gate as it streams (:mod:`assistant.pipeline.gate`): from tool results
(every key fact carried, or the tools' own rendering takes over), for a plan's steps, for a conversation (held to
the question and the conversation, one retry with the reason), and as one object that follows a schema. Which model
writes and how far it is trusted is the turn's :class:`assistant.pipeline.answerer.Answerer`."""

from __future__ import annotations

import json

from pydantic import BaseModel

from assistant.errors import AssistantError
from assistant.pipeline import answer_check, gate, language_id, plan, responder, structured
from assistant.pipeline.recognisers import reach, small_talk
from assistant.pipeline.context import TurnContext
from assistant.pipeline.events import AnswerChecked, Cut, Declined, StageStarted
from assistant.pipeline.language import (
    TOO_SMALL, TOO_SMALL_SERVED, capped_note, could_not_answer, could_not_write, repeating_note, too_small,
    withheld_note,
)
from assistant.pipeline.responder import Written
from assistant.pipeline.solve import Outcome
from assistant.pipeline.answerer import Trust
from tools import LocalText, Tool, ToolResult, language_of

# Where a small-talk-only model's reply ends: at its first piece that is more than small talk.
SAID_MORE = "it said more than small talk (a tiny model's facts are guesses); its reply ends there"

Parts = list[tuple[Tool, list[tuple[BaseModel, ToolResult]]]]


class Answer(BaseModel):
    text: str
    replaced: str | None = None
    cut: Cut | None = None  # it stopped short, and its last line says so
    declined: Declined | None = None  # no answer, on purpose


def chat_check(ctx: TurnContext, trusted: Trust = Trust.STRICT):  # noqa: ANN202 - as responder takes it
    """The gate a conversation answer streams through, piece by piece; a small-talk-only model's ends where it says
    more than small talk."""
    language = not answer_check.about_language(ctx.question)
    evidence = "\n".join([*(m.content for m in ctx.history), ctx.settings.system or "", ctx.question])
    tools = list(ctx.registry)
    figures = trusted is not Trust.TRUSTED
    if trusted is not Trust.SMALL_TALK:
        return lambda ours: gate.chat_piece_check(ctx.question, evidence, ours, tools, language, figures)

    def social(ours: list[str]) -> gate.Check:  # a small-talk-only model's reply ends where it says more
        check = gate.chat_piece_check(ctx.question, evidence, ours, tools, language, figures)
        return lambda piece, shown: (None if small_talk.is_social_reply(piece) else
                                     gate.Held(SAID_MORE, wrong=False)) or check(piece, shown)
    return social



async def in_kind(ctx: TurnContext, attempt: int, reason: str) -> tuple[Answer, bool]:
    """Small talk answered by a line in kind, in the message's language (:func:`small_talk.reply_to`), and why
    in the trace."""
    await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS", reason=reason))
    line = small_talk.reply_to(ctx.question, language_of(ctx.question) == "zh")
    return Answer(text=await responder.say(ctx, line)), True



async def answer_tools(ctx: TurnContext, parts: Parts,
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
    writer = await ctx.answerer.writer()
    if deterministic and await ctx.answerer.weak_writer(writer):
        await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason="the model is known too weak to write an "
                                     "answer from tool results: the tool's own sentence is shown, with no call"))
        ctx.answerer.record(writer, "skipped")
        return Answer(text=await responder.say(ctx, rendered), replaced="the model is known too weak to write it")
    facts = [f for tool, executed in parts for args, result in executed for f in tool.key_facts(args, result)]
    evidence = json.dumps([ctx.question, [[a.model_dump(), tool.answer_data(r)] for tool, executed in parts
                                          for a, r in executed], rendered], ensure_ascii=False)

    def contradiction(sentence: str) -> str | None:
        return next((why for tool, executed in parts if (why := tool.contradiction(executed, sentence))), None)

    written = await responder.answer_from_tools(ctx, parts, lambda ours: gate.tool_piece_check(
        ctx.question, evidence, ours, list(ctx.registry), contradiction))
    missing = [f.label for f in facts if not answer_check.carries(written.text, f)]
    stopped = f"{written.ended}; " if written.timed_out and written.ended else ""
    problem = written.held or ((stopped + "it does not state " + ", ".join(missing)) if missing else None)
    if problem is None and not written.text:
        problem = written.ended or "the answer is empty"
    await ctx.emit(AnswerChecked(attempt=1, verdict="FAIL" if problem else "PASS",
                                 reason=problem or written.ended or "the answer carries every key fact"))
    ctx.answerer.record(writer, "failed" if problem else "passed")
    if problem is None:
        return Answer(text=written.text)
    # the rendering takes over from what was shown: every figure on screen stays true, nothing is taken back
    if written.text:
        return Answer(text=written.text + await responder.say(ctx, "\n" + rendered), replaced=problem)
    return Answer(text=await responder.say(ctx, rendered), replaced=problem)



async def answer_plan(ctx: TurnContext, steps: list[plan.Step], outcomes: dict[int, Outcome],
                       certain: bool) -> tuple[Answer, bool]:
    """One answer for every step that passed; a step that failed is said plainly after it."""
    failed = [s for s in steps if not outcomes[s.index].ok]
    honest = "\n".join(could_not_answer(
        s.request, _label_of(ctx, s.route),
        outcomes[s.index].attempts, outcomes[s.index].message, outcomes[s.index].why) for s in failed)
    parts = [(tool, outcomes[s.index].executed) for s in steps
             if outcomes[s.index].ok and (tool := ctx.registry.get(s.route)) is not None]
    if not parts:
        return Answer(text=await responder.say(ctx, honest)), False
    await ctx.emit(StageStarted(stage="responder"))
    answer = await answer_tools(ctx, parts, certain)
    if honest:  # streamed after the answer, and stored as streamed
        answer = answer.model_copy(update={"text": answer.text + await responder.say(ctx, "\n" + honest)})
    return answer, not failed



async def answer_offer(ctx: TurnContext, action: tuple[str, str]) -> Answer | None:
    """An action out of reach, asked of a capable model: said so first, then what it can write instead (a draft of
    the message, the steps), through the same gate as any conversation answer (an answer that claims the action
    done is held). ``None``: the model is not trusted to write it, and the rule's line stands alone."""
    if (await ctx.answerer.trust())[0] is not Trust.TRUSTED or (offered := reach.offer(action)) is None:
        return None
    said = await responder.say(ctx, reach.offered_line(ctx.question, action) + "\n\n")
    await ctx.emit(StageStarted(stage="responder"))
    try:
        written: Written | None = await responder.offer(ctx, action[0], offered, chat_check(ctx, Trust.TRUSTED))
    except AssistantError as e:  # the server is down or failed: the action is still out of reach, and said so
        written, failed = None, e.one_line()
    if written is not None:
        await ctx.answerer.record_conversation("failed" if written.held or not written.text else "passed")
    shown = written.text if written is not None and written.text and not written.held else ""
    why = None if shown else failed if written is None else (written.held or written.ended or "nothing was written")
    await ctx.emit(AnswerChecked(attempt=1, verdict="FAIL" if why else "PASS",
                                 reason=why or "a draft or the steps, instead of the action"))
    if why:  # it claimed the action done, or wrote nothing fit to show: said, never left hanging
        zh = language_of(ctx.question) == "zh"
        shown = await responder.say(ctx, ("(草稿没有显示:模型没有回应。)" if zh else
                                          "(No draft is shown: the model did not answer.)") if written is None else
                                    "(草稿没有显示:模型写的内容没有通过检查。)" if zh else
                                    "(No draft is shown: what the model wrote did not pass the check.)")
    return Answer(text=(said + shown).rstrip(), declined="out_of_reach", replaced=why)


async def _not_asked(ctx: TurnContext, clarify: bool, trusted: Trust, why: str) -> tuple[Answer, bool] | None:
    """What is said with no call when the model should not be asked at all: a question past small talk to a model
    held to small talk (it would guess; it says how to do better), and a language it does not write."""
    if not clarify and trusted is Trust.SMALL_TALK and not small_talk.is_small_talk(ctx.question):
        await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason=f"{why}: it was not asked"))
        small = None if await ctx.answerer.known_weak() else await ctx.answerer.label()
        served = ctx.settings.backend == "openai"  # the user's own server: the capable model is served there
        return Answer(text=await responder.say(ctx, too_small(ctx.question, small, served)),
                      replaced=TOO_SMALL_SERVED if served else TOO_SMALL, declined="too_small"), False
    if not await ctx.answerer.writes(ctx.question):
        if small_talk.is_small_talk(ctx.question):  # "你好" to a model that cannot write Chinese: a line in kind
            return await in_kind(ctx, 0, "small talk in a language the model does not write: a line in kind, with "
                                         "no call")
        # a model that cannot write this language (SmolLM2 and Chinese): said at once, with no call
        await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason="the model does not write this language"))
        return Answer(text=await responder.say(ctx, could_not_write(ctx.question, model=await ctx.answerer.label())),
                      replaced="the model does not write this language", declined="language"), False
    return None


def _label_of(ctx: TurnContext, route: str) -> LocalText:
    """A plan step's tool as people read it (its label), or its route."""
    tool = ctx.registry.get(route)
    return tool.label if tool is not None else LocalText(zh=route, en=route)


async def answer_chat(ctx: TurnContext, clarify: bool, first: Written | None = None) -> tuple[Answer, bool]:
    """Conversation has no tool results to hold it to, but it is held to the question and the conversation: the
    answer streams through the gate, and a sentence claiming a figure, a number, a URL or a phone number that
    nothing here supports (nor a common fact the check knows, nor the answer's own true arithmetic) is never
    shown, nor our markup, instructions, template markers or another language; the stream stops there. When
    nothing could be shown, one retry with the reason (not for a model known too weak), then an honest
    failure: ``(answer, ok)``. ``first``: the answer the deciding call already wrote (and the gate showed)."""
    trusted, why = await ctx.answerer.trust()
    if ctx.settings.deterministic and first is None:
        declined = await _not_asked(ctx, clarify, trusted, why)
        if declined is not None:
            return declined
    language_id.warm()
    check = chat_check(ctx, trusted)
    attempts = 1 if await ctx.answerer.known_weak() else 2
    policy = f" (policy: {trusted.value})"
    rejected = None
    for attempt in range(1, attempts + 1):
        if attempt == 1 and first is not None:
            written = first
        else:
            await ctx.emit(StageStarted(stage="responder"))
            written = await (responder.ask_back(ctx, ctx.registry.names(), check, rejected) if clarify
                             else responder.answer_chat(ctx, check, rejected))
        shown = written.text
        await ctx.answerer.record_conversation("failed" if written.held or not shown else "passed")
        if shown and written.held:
            await ctx.emit(AnswerChecked(attempt=attempt, verdict="FAIL", reason=written.held + policy))
            note = await responder.say(ctx, "\n\n" + withheld_note(ctx.question, written.held))
            return Answer(text=shown + note, replaced=written.held), True
        if shown and written.capped:  # what was shown is checked, but not the whole answer: said so
            cap = ctx.call_settings("responder").max_tokens or 0
            await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS", reason=(
                f"the answer is clean, but it stopped at the length limit of {cap} tokens") + policy))
            note = await responder.say(ctx, "\n\n" + capped_note(ctx.question, cap))
            return Answer(text=shown + note, cut="length"), True
        if shown and written.ended and "repeats" in written.ended:  # cut where it looped: said so, not silently
            await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS", reason=(
                f"what was shown is clean; the rest was cut: {written.ended}") + policy))
            return Answer(text=shown + await responder.say(ctx, "\n\n" + repeating_note(ctx.question)),
                          replaced=written.ended, cut="repeats"), True
        if shown:
            await ctx.emit(AnswerChecked(attempt=attempt, verdict="PASS",
                                         reason=(written.ended or "the answer is clean") + policy))
            if clarify:  # the model's question back for a missing detail: no answer yet
                return Answer(text=shown, declined="asked_back"), False
            return Answer(text=shown), True
        if trusted is Trust.SMALL_TALK and written.ended == SAID_MORE:  # nothing of it stayed small talk
            return await in_kind(ctx, attempt, SAID_MORE + "; a line in kind")
        rejected = written.held or written.ended or "the answer is empty"
        await ctx.emit(AnswerChecked(attempt=attempt, verdict="FAIL", reason=rejected + policy))
        if written.timed_out:
            break
    return Answer(text=await responder.say(ctx, could_not_write(ctx.question, rejected, await ctx.answerer.label())),
                  replaced=rejected), False



async def answer_object(ctx: TurnContext, parts: Parts | None, certain: bool = False) -> tuple[Answer, bool]:
    """The answer as one JSON object that follows the turn's schema (:mod:`assistant.pipeline.structured`); a rule's
    route (``certain``) may fill it from its tool's figures alone."""
    text, ok, why = await structured.fill(ctx, parts, await ctx.answerer.trust(), await ctx.answerer.label(), certain)
    return Answer(text=text, replaced=why), ok
