"""Validator: the tool's own deterministic checks first; a constrained model verdict only for the
calls those checks cannot decide. The verdict is a JSON field, never a substring of free text."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel

import prompts
from assistant.pipeline.context import TurnContext
from assistant.models.base import ChatMessage
from assistant.models.parsing import parse_structured
from assistant.control import without_controls
from assistant.pipeline.language import CHECK_FAILED, UNCONFIRMED
from tools import LocalText, Tool, ToolResult, Verdict, language_of
from tools.reading.request import read

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["PASS", "FAIL"]}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
}


class ModelVerdict(BaseModel):
    verdict: Literal["PASS", "FAIL"]
    reason: str = ""


async def validate(ctx: TurnContext, tool: Tool, executed: list[tuple[BaseModel, ToolResult]],
                   trusted: bool = False) -> Verdict:
    """``trusted``: the arguments came from a certain rule, not a model; what the checks leave open is accepted."""
    undecided: list[tuple[BaseModel, ToolResult]] = []
    failures: list[Verdict] = []
    # the checks read the request as the rules read it: its wrapper set aside, its values in the rules' forms
    # ("5 feet 11 inches" is 71 inches there too)
    request = read(ctx.question)
    asked = ctx.question if request.markup else request.core
    for args, result in executed:
        # With the rules off (``deterministic = false``) the tool's own checks are not asked, but a call that failed
        # still failed (the base check): no judge is asked to pass an error, and no answer is written from one.
        v = tool.check(asked, args, result) if ctx.settings.deterministic else \
            Tool.check(tool, asked, args, result)
        if v is None:
            undecided.append((args, result))
        elif not v.passed:
            failures.append(v)
    if failures:
        return Verdict(verdict="FAIL", reason="; ".join(f.reason for f in failures), by="check", message=failures[0].message)
    if not undecided:
        return Verdict(verdict="PASS", reason="the tool's checks passed", by="check")
    if trusted:
        return Verdict(verdict="PASS", reason="the arguments came from a certain rule and the tool succeeded", by="check")

    calls = "\n".join(
        f"- {tool.name}({json.dumps(a.model_dump(), ensure_ascii=False)}) -> {json.dumps(r.data, ensure_ascii=False)}"
        for a, r in undecided
    )
    reply = await ctx.model.chat(ctx.request("validator", [
        ChatMessage(role="system", content=prompts.render("validator")),
        ChatMessage(role="user", content=prompts.render("validator_task", question=ctx.question, calls=calls)),
    ], format=VERDICT_SCHEMA))
    verdict = parse_structured(reply.content, ModelVerdict)
    if verdict is None:
        # Nothing certain stood behind these arguments and the judge said nothing readable: not shown as checked.
        return Verdict(verdict="FAIL", reason="the check could not confirm that these arguments fit the request; "
                       "write them again from the user's words", by="default", message=UNCONFIRMED)
    reason = verdict.reason or ("the model found no problem" if verdict.verdict == "PASS" else "the model rejected the call without a reason")
    # The critique is the concrete reason the user is told: as it is in the user's language, quoted in a sentence
    # of the user's language otherwise (control sequences out, at most 200 characters).
    said = " ".join(without_controls(verdict.reason).split())[:200]
    message = LocalText(zh=said if language_of(said) == "zh" else f"检查没有通过:“{said}”",
                        en=said if language_of(said) == "en" else f"the check did not accept it: “{said}”") \
        if said else CHECK_FAILED
    return Verdict(verdict=verdict.verdict, reason=reason, by="model", message=message)
