"""Executor: turn the request into validated tool arguments. Native tool calls when the model has
the ``tools`` capability (offering only the routed tool), otherwise JSON constrained to the tool's
argument schema; never both in one request."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

import prompts
from assistant.pipeline.context import TurnContext
from assistant.models.base import ChatMessage, ToolCall
from assistant.models.parsing import json_values, recover_tool_calls
from tools import Tool, ToolResult


class Call(BaseModel):
    """One proposed call: the raw arguments, and the validated ones when they fit the schema."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str  # the backend's call id, or one made up (a tool message must name the call it answers)
    name: str
    raw: dict[str, Any]
    args: BaseModel | None = None
    invalid: str | None = None


class Proposal(BaseModel):
    calls: list[Call] = []
    recovered_from_text: bool = False
    native: bool = False
    problem: str | None = None  # why there is nothing to run

    def key(self) -> str:
        """Identity of the proposal, to spot a model repeating a call that already failed."""
        return json.dumps(sorted(json.dumps([c.name, c.raw], sort_keys=True, ensure_ascii=False) for c in self.calls))


def _validated(tool: Tool, raw: dict[str, Any], call_id: str) -> Call:
    try:
        return Call(id=call_id, name=tool.name, raw=raw, args=tool.Args.model_validate(raw))
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc'])) or 'arguments'}: {err['msg']}" for err in e.errors())
        return Call(id=call_id, name=tool.name, raw=raw, invalid=f"the arguments do not fit the {tool.name} schema ({problems})")


def from_rule(tool: Tool, args: list[BaseModel]) -> Proposal:
    return Proposal(calls=[Call(id=f"rule_{i}", name=tool.name, raw=a.model_dump(), args=a) for i, a in enumerate(args)])


def from_calls(tool: Tool, calls: list[ToolCall]) -> Proposal:
    """The calls a model made in the deciding call (offered every tool), as the executor's first proposal: checked
    against the tool's schema, held to the same checks as any proposal."""
    return Proposal(calls=[_validated(tool, c.arguments, c.id or f"call_{i}") for i, c in enumerate(calls)], native=True)


async def propose(ctx: TurnContext, tool: Tool, feedback: list[ChatMessage]) -> Proposal:
    model = ctx.model_name("executor")
    native = (await ctx.model.profile(model)).tools
    arg_names = set(tool.Args.model_fields)
    if native:
        system = prompts.render("executor", tool_name=tool.name, tool_description=tool.description)
    else:
        system = prompts.render("executor_schema", tool_name=tool.name, tool_description=tool.description,
                                schema=json.dumps(tool.args_schema(), ensure_ascii=False))
    request = ctx.request(
        "executor",
        [ChatMessage(role="system", content=system), *ctx.history, ChatMessage(role="user", content=ctx.question), *feedback],
        tools=[tool.ollama_tool()] if native else None,
        format=None if native else tool.args_schema(),  # never both: a schema suppresses tool calls
    )
    reply = await ctx.model.chat(request)

    recovered = False
    found: list[ToolCall] = [c for c in reply.tool_calls if c.name == tool.name]
    if not found and native:
        # Small models often write the call as JSON text; recovering it is cheaper than a retry.
        found = recover_tool_calls(reply.content, [tool.name], arg_names)
        recovered = bool(found)
    if not native and not found:
        values = [v for v in json_values(reply.content) if isinstance(v, dict)]
        found = [ToolCall(name=tool.name, arguments=v["arguments"] if v.get("name") == tool.name and isinstance(
            v.get("arguments"), dict) else v) for v in values[:1]]
    if not found:
        offered = [c.name for c in reply.tool_calls]
        problem = (
            (reply.problem if reply.done_reason == "unreadable" and reply.problem else f"no call to {tool.name} was made")
            + (f" (it called {', '.join(offered)}, which is not available)" if offered else "")
            + f"; call {tool.name} with arguments {sorted(arg_names)}"
        )
        return Proposal(native=native, problem=problem)
    calls = [_validated(tool, c.arguments, c.id or f"call_{i}") for i, c in enumerate(found)]
    return Proposal(calls=calls, recovered_from_text=recovered, native=native)


def feedback_messages(tool: Tool, proposal: Proposal, results: list[ToolResult], reason: str) -> list[ChatMessage]:
    """What the executor sees on its next try: its own call, the results, and the concrete reason it failed."""
    call_text = ", ".join(f"{c.name}({json.dumps(c.raw, ensure_ascii=False)})" for c in proposal.calls) or "(no call)"
    messages: list[ChatMessage] = []
    if proposal.native and proposal.calls:
        messages.append(ChatMessage(role="assistant", tool_calls=[ToolCall(id=c.id, name=c.name, arguments=c.raw)
                                                                  for c in proposal.calls]))
        ran = iter(results)  # the results of the calls that ran, in order (none when the checks stopped them)
        for c in proposal.calls:
            r = next(ran, None) if c.args is not None else None
            content = (r.model_dump_json(exclude_none=True) if r is not None
                       else json.dumps({"ok": False, "error": c.invalid or f"not run: {reason}"}, ensure_ascii=False))
            messages.append(ChatMessage(role="tool", tool_name=tool.name, tool_call_id=c.id, content=content))
    else:
        messages.append(ChatMessage(role="assistant", content=json.dumps([c.raw for c in proposal.calls], ensure_ascii=False)))
    messages.append(ChatMessage(role="user", content=prompts.render("executor_feedback", call=call_text, reason=reason, tool_name=tool.name)))
    return messages
