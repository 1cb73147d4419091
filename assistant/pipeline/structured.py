"""An answer as one JSON object (``--schema``): the Responder asked for it natively (Ollama's ``format``, an
OpenAI-compatible server's ``response_format``, a grammar on the embedded engine), and the Validator's loop around
it: the object must be one JSON value that follows the schema (jsonschema) and claim nothing the evidence does not
support (the tool results and the question for a tool route; for a conversation, what the model's trust allows);
where it fails, the reason goes back to the model, up to ``max_retries`` more tries. What is shown is the object
alone, as one line of JSON."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

import prompts

from assistant.errors import AssistantError
from assistant.models.base import ChatMessage
from assistant.pipeline import responder
from assistant.pipeline.answer_check import number_matches, numbers_in
from assistant.pipeline.claims import Evidence, claim_problem
from assistant.pipeline.context import TurnContext
from assistant.pipeline.events import AnswerChecked, StageStarted
from assistant.pipeline.answerer import Trust
from assistant.schema import problem as schema_problem, read_object
from tools import KeyFact, Tool, ToolResult, language_of

Parts = list[tuple[Tool, list[tuple[BaseModel, ToolResult]]]]


class NoStructuredOutput(AssistantError):
    exit_code = 2


def _scalars(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


def unsupported(value: Any, evidence: str, figures: bool, facts: list[KeyFact] | None = None) -> str | None:
    """What the object's values claim that the evidence does not support (figures for an untrusted model; a known
    figure contradicted, false arithmetic, contacts and links, for any). ``facts``: a tool route's key facts, which
    its figures must each be (or the question's own numbers): an object is a few values, none derived."""
    from assistant.pipeline.known_figures import contradicted

    held_to = Evidence(evidence)
    asked = [n for n, _ in numbers_in(evidence)]
    for text in _scalars(value):
        if facts is not None:
            for n, places in numbers_in(text):
                if not any(number_matches(f, n, places) for f in facts if f.number is not None) and \
                        not any(abs(n - q) < 1e-9 for q in asked):
                    return f"it states {text}, which the results do not"
        why = contradicted(text) or claim_problem(text, held_to, text, figures)
        if why:
            return why
    return None


# A schema's field, by the words its name may be, for the kind of fact a tool's result carries (KeyFact labels).
_FIELDS = {"place": ("place", "city", "location", "town", "where"), "temperature": ("temperature", "temp"),
           "conditions": ("conditions", "condition", "weather", "sky", "description", "summary")}
_ONE_NUMBER = ("result", "value", "answer", "number", "total", "amount", "sum")


def _fact_for(field: str, facts: list[KeyFact]) -> KeyFact | None:
    """The one fact a field of this name stands for (``temperature`` for the temperature), or ``None``."""
    name = field.lower().replace("-", "_")
    kinds = [kind for kind, names in _FIELDS.items() if any(n in name.split("_") or n == name for n in names)]
    found = [f for f in facts for kind in kinds if f.label.startswith((f"the {kind} ", f"the {kind}"))]
    if not kinds and any(n in name.split("_") for n in _ONE_NUMBER):
        found = [f for f in facts if f.number is not None]
    return found[0] if len(found) == 1 else None


def _value(fact: KeyFact, kind: Any) -> Any:
    """The fact as a value of the schema's ``kind`` (number, integer, string), or ``None`` when it is not one."""
    if kind in ("number", "integer") and fact.number is not None:
        if float(fact.number).is_integer():
            return int(fact.number)  # 84, not 84.0
        return None if kind == "integer" else fact.number
    if kind == "string" and fact.words:
        return fact.words[0]
    return None


def from_facts(schema: dict[str, Any], facts: list[KeyFact]) -> Any:
    """The object a schema asks for, filled from a tool's own figures with no model, when every field it needs
    stands for exactly one of them (a one-number schema from the calculator's result; a weather report's
    temperature and conditions into fields of those names); ``None`` otherwise (the model fills it)."""
    kind = schema.get("type")
    if kind in ("number", "integer"):
        numbers = [f for f in facts if f.number is not None]
        return _value(numbers[0], kind) if len(numbers) == 1 else None
    properties = schema.get("properties") if kind == "object" else None
    if not isinstance(properties, dict) or not properties:
        return None
    needed = list(schema.get("required") or properties)
    out: dict[str, Any] = {}
    for name in needed:
        spec = properties.get(name)
        fact = _fact_for(name, facts) if isinstance(spec, dict) else None
        value = _value(fact, spec.get("type")) if fact is not None and isinstance(spec, dict) else None
        if value is None:
            return None
        out[name] = value
    return out


async def fill(ctx: TurnContext, parts: Parts | None, trust: tuple[Trust, str], model_label: str,
               certain: bool = False) -> tuple[str, bool, str | None]:
    """The object for the question (from ``parts``' results when a tool answered): ``(text shown, ok, why not)``.
    ``certain``: a rule routed it, and its tool's figures may fill the object themselves, with no model call."""
    schema = json.loads(ctx.settings.answer_schema or "{}")
    zh = language_of(ctx.question) == "zh"
    if parts and certain:
        value = from_facts(schema, [f for tool, executed in parts for a, r in executed for f in tool.key_facts(a, r)])
        if value is not None and schema_problem(value, schema) is None:
            await ctx.emit(AnswerChecked(attempt=0, verdict="PASS", reason="filled from the tool's own figures, with "
                                                                           "no model call"))
            return await responder.say(ctx, json.dumps(value, ensure_ascii=False)), True, None
    name = ctx.model_name("responder")
    if not (await ctx.model.profile(name)).structured_output:
        raise NoStructuredOutput(f"{model_label} cannot answer with an object (it has no structured output).",
                                 "Use a model that can (qwen2.5:3b does), or ask without --schema.")
    if trust[0] is Trust.SMALL_TALK:
        line = (f"抱歉,{model_label} 太小,没法可靠地按结构回答。" if zh else
                f"Sorry, {model_label} is too small to fill a schema reliably.")
        await ctx.emit(AnswerChecked(attempt=0, verdict="FAIL", reason=f"{trust[1]}: it was not asked for an object"))
        return await responder.say(ctx, line), False, "the model is too small to fill a schema reliably"
    results = ""
    evidence = "\n".join([*(m.content for m in ctx.history), ctx.question])
    facts: list[KeyFact] | None
    if parts:
        data = json.dumps([{"tool": tool.name, "arguments": a.model_dump(), "result": tool.answer_data(r)}
                           for tool, executed in parts for a, r in executed], ensure_ascii=False, indent=1)
        results = f" and these tool results:\n{data}"
        # an object's figures are the results' key facts (the value, the temperature), or the question's: not any
        # number of their JSON (an index, a count of steps)
        facts = [f for tool, executed in parts for a, r in executed for f in tool.key_facts(a, r)]
        evidence += "\n" + " ".join(f"{f.number:g}" for f in facts or [] if f.number is not None)
    else:
        facts = None
    figures = bool(parts) or trust[0] is not Trust.TRUSTED
    messages = [ChatMessage(role="system", content=prompts.render("responder_schema", schema=json.dumps(schema),
                                                                   results=results)),
                *ctx.history, ChatMessage(role="user", content=ctx.question)]
    why: str | None = None
    for attempt in range(1, ctx.settings.max_retries + 2):
        await ctx.emit(StageStarted(stage="responder", attempt=attempt, of=ctx.settings.max_retries + 1))
        feedback = [ChatMessage(role="user", content=f"That object was refused: {why}. Answer again with one JSON "
                                                     "object that follows the schema.")] if why else []
        reply = await ctx.model.chat(ctx.request("responder", [*messages, *feedback], format=schema))
        value, why = read_object(reply.content, zh)
        why = why or schema_problem(value, schema, zh) or unsupported(value, evidence, figures, facts)
        await ctx.emit(AnswerChecked(attempt=attempt, verdict="FAIL" if why else "PASS", reason=why or "",))
        if why is None:
            return await responder.say(ctx, json.dumps(value, ensure_ascii=False)), True, None
    line = (f"抱歉,{model_label} 没能给出符合结构的回答:{why}。" if zh else
            f"Sorry, {model_label} could not answer with an object that follows the schema: {why}.")
    return await responder.say(ctx, line), False, f"no object followed the schema: {why}"
