"""The pipeline end to end through the real ollama client against the fake server."""

from __future__ import annotations

import json

import pytest
from conftest import closed_port
from fake_ollama import Reply, Script, kind_of, tool_call

from assistant.errors import ModelError, ModelMissing, ModelTimeout, OllamaUnreachable
from assistant.pipeline.events import AnswerDelta, RetryStopped, ToolCallProposed


@pytest.fixture
def make_app(make_app):  # noqa: ANN001, ANN201 - conftest's, with a routing call of its own
    """The four stages as a model without native tool calls takes them (a routing call, then the executor): the path
    these tests pin down. One call deciding and answering has its own tests (test_one_call.py)."""
    def make(sandboxed: bool = False, **overrides):  # noqa: ANN003, ANN202
        overrides.setdefault("one_call", False)
        return make_app(sandboxed, **overrides)

    return make

ROUTE_CALC = {"route": "calculator"}
ROUTE_CHAT = {"route": "chat"}
PASS = {"verdict": "PASS", "reason": "the formula is the area of a circle"}


@pytest.mark.parametrize("question, value", [
    ("123 * 456 是多少?", "56088"),
    ("(3457*43216)", "149397712"),
    ("π*3^2", "28.2743338823"),
    ("π * 12^2 * 2 / 3", "301.592894745"),
    ("What is 2^10?", "1024"),
])
async def test_pure_arithmetic_needs_no_model_call(fake, make_app, question, value):
    app = make_app()
    result = await app.ask(question)
    assert result.ok and value in result.answer
    assert result.model_calls == 0 and fake.requests == []
    assert result.route == "calculator" and result.route_by == "rule"


async def test_word_problem_uses_one_call_per_stage(fake, make_app):
    fake.handler = Script(router=ROUTE_CALC, executor=tool_call("calculator", expression="π*3^2"),
                          validator=PASS, responder="半径为3的圆的面积约为 28.27。也就是 π 乘以 3 的平方。")
    events = []
    result = await make_app().ask("直径为6的圆形地毯能盖住多大地方?", emit=events.append)
    assert result.ok and "28.27" in result.answer
    assert fake.kinds() == ["router", "executor", "validator", "responder"]
    assert result.model_calls == 4 and result.attempts == 1
    assert result.tool_calls[0].result == {"expression": "π*3^2", "value": "28.2743338823"}
    assert sum(isinstance(e, AnswerDelta) for e in events) == 2  # streamed sentence by sentence, each checked


async def test_router_sees_only_existing_routes_and_the_request_last(fake, make_app):
    fake.handler = Script(router=ROUTE_CHAT, responder="Gravity pulls it into a sphere.")
    app = make_app()
    await app.ask("Why is the moon round?")
    router_request = fake.requests[0]
    assert router_request["format"]["properties"]["route"]["enum"] == ["chat", *app.registry.names(), "clarify"]
    assert router_request["messages"][-1] == {"role": "user", "content": "Why is the moon round?"}
    assert router_request["options"]["temperature"] == 0


async def test_chat_question_costs_two_calls_and_streams(fake, make_app):
    fake.handler = Script(router=ROUTE_CHAT, responder="Gravity pulls a large body into a sphere.")
    deltas = []
    result = await make_app().ask("Why is the moon round?", emit=lambda e: deltas.append(e.text) if isinstance(e, AnswerDelta) else None)
    assert result.ok and result.route == "chat" and result.model_calls == 2 and result.attempts == 0
    assert "".join(deltas) == "Gravity pulls a large body into a sphere."
    assert fake.requests[1]["stream"] is True


async def test_wrong_expression_is_fixed_from_the_validator_feedback(fake, make_app):
    reason = "that is the circumference; the area is pi * r^2 = pi * 3^2"
    fake.handler = Script(
        router=ROUTE_CALC,
        executor=[tool_call("calculator", expression="2*π*3"), tool_call("calculator", expression="π*3^2")],
        validator=[{"verdict": "FAIL", "reason": reason}, PASS],
        responder="面积约为 28.27。",
    )
    result = await make_app().ask("直径为6的圆形地毯能盖住多大地方?")
    assert result.ok and result.attempts == 2
    assert fake.kinds() == ["router", "executor", "validator", "executor", "validator", "responder"]
    retry_messages = fake.requests[3]["messages"]
    assert any(reason in (m.get("content") or "") for m in retry_messages)
    assert any(m["role"] == "tool" and m.get("tool_name") == "calculator" for m in retry_messages)
    assert [t.args["expression"] for t in result.tool_calls] == ["2*π*3", "π*3^2"]


async def test_a_fail_reason_mentioning_pass_is_still_a_fail(fake, make_app):
    fake.handler = Script(
        router=ROUTE_CALC,
        executor=[tool_call("calculator", expression="π*3*2"), tool_call("calculator", expression="π*3^2")],
        validator=[{"verdict": "FAIL", "reason": "PASS the radius squared, not doubled: bypass nothing"}, PASS],
        responder="About 28.27.",
    )
    result = await make_app().ask("How much floor does a round rug 6 feet across cover?")
    assert result.attempts == 2 and result.ok


async def test_a_tool_call_written_as_text_is_recovered_without_a_retry(fake, make_app):
    fake.handler = Script(
        router=ROUTE_CALC,
        executor=Reply(content='Sure! {"name": "calculator", "arguments": {"expression": "π*3^2"}}'),
        validator=PASS, responder="About 28.27.",
    )
    events = []
    result = await make_app().ask("How much floor does a round rug 6 feet across cover?", emit=events.append)
    assert result.ok and result.attempts == 1
    assert fake.kinds().count("executor") == 1
    assert [e.recovered_from_text for e in events if isinstance(e, ToolCallProposed)] == [True]


async def test_a_model_repeating_the_same_wrong_call_stops_early(fake, make_app):
    fake.handler = Script(router=ROUTE_CALC, validator={"verdict": "FAIL", "reason": "use the area formula pi*r^2"})
    fake.handler.always("executor", tool_call("calculator", expression="2*π*3"))
    events = []
    result = await make_app(max_retries=3).ask("How much floor does a round rug 6 feet across cover?", emit=events.append)
    assert not result.ok and result.attempts == 2
    assert fake.kinds() == ["router", "executor", "validator", "executor"]  # no tool run, no check, no answer call
    assert any(isinstance(e, RetryStopped) for e in events)
    assert "repeated" in result.answer and "pi*r^2" in result.answer


async def test_retries_are_bounded_and_the_failure_is_honest(fake, make_app):
    exprs = ["2*π*3", "2*π*3+0", "6*π", "π*6"]
    fake.handler = Script(router=ROUTE_CALC, executor=[tool_call("calculator", expression=e) for e in exprs])
    fake.handler.always("validator", {"verdict": "FAIL", "reason": "use pi*r^2"})
    result = await make_app(max_retries=2).ask("半径为3的圆形地毯能盖住多大地方?")
    assert not result.ok and result.attempts == 3 and fake.kinds().count("executor") == 3
    assert "抱歉" in result.answer  # in the user's language


async def test_tool_error_becomes_feedback(fake, make_app):
    fake.handler = Script(
        router=ROUTE_CALC,
        executor=[tool_call("calculator", expression="area(3)"), tool_call("calculator", expression="pi*3^2")],
        validator=PASS, responder="About 28.27.",
    )
    result = await make_app().ask("How much floor does a round rug 6 feet across cover?")
    assert result.ok and result.attempts == 2
    feedback = fake.requests[2]["messages"][-1]["content"]
    assert "unknown function 'area'" in feedback and "pi * 3^2" in feedback  # the error says how to fix it
    assert fake.kinds().count("validator") == 1  # the tool error was decided without the model


async def test_a_failed_tool_call_is_never_passed_by_the_judge_even_with_the_rules_off(fake, make_app):
    """``deterministic = false`` turns off the rules that read a question, not the fact that the tool failed: a
    judge saying PASS to an error is never asked, and the answer is not written from an error."""
    fake.handler = Script(router=ROUTE_CALC, responder="About 28.27.")
    fake.handler.always("executor", tool_call("calculator", expression="area(3)"))
    fake.handler.always("validator", PASS)
    result = await make_app(deterministic=False, max_retries=1).ask(
        "How much floor does a round rug 6 feet across cover?")
    assert not result.ok and result.attempts == 2 and "validator" not in fake.kinds()
    assert "responder" not in fake.kinds() and "28.27" not in result.answer


async def test_schema_path_for_a_model_without_tools(fake, make_app):
    fake.models = {"qwen2.5:3b": ["completion"]}
    fake.handler = Script(router=ROUTE_CALC, executor={"expression": "pi*3^2"}, validator=PASS, responder="About 28.27.")
    result = await make_app().ask("How much floor does a round rug 6 feet across cover?")
    assert result.ok
    executor_request = fake.requests[1]
    assert "tools" not in executor_request or not executor_request["tools"]
    assert executor_request["format"]["properties"]["expression"]["type"] == "string"


async def test_native_path_offers_only_the_routed_tool(fake, make_app):
    fake.handler = Script(router=ROUTE_CALC, executor=tool_call("calculator", expression="pi*3^2"),
                          validator=PASS, responder="About 28.27.")
    await make_app().ask("How much floor does a round rug 6 feet across cover?")
    executor_request = fake.requests[1]
    assert [t["function"]["name"] for t in executor_request["tools"]] == ["calculator"]
    assert not executor_request.get("format")
    assert fake.show_requests == ["qwen2.5:3b"]  # capabilities asked once and cached


@pytest.mark.parametrize("reply", ["calculator, definitely", {"route": "web_search"}])
async def test_unreadable_router_reply_falls_back_to_chat(fake, make_app, reply):
    fake.handler = Script(router=reply, responder="Hello!")
    result = await make_app().ask("hi there")
    assert result.ok and result.route == "chat" and result.route_by == "default"


@pytest.mark.parametrize("trap", ["555-1234", "2026-11-22", "Python 3.11", "in 1999"])
async def test_things_that_look_like_arithmetic_go_to_the_model_router(fake, make_app, trap):
    fake.handler = Script(router=ROUTE_CHAT, responder="That looks like a phone number, a date or a version.")
    result = await make_app().ask(trap)
    assert result.route_by == "model" and fake.kinds()[0] == "router"
    assert result.tool_calls == []


async def test_http_500_is_retried_and_does_not_use_an_attempt(fake, make_app, tmp_path):
    fake.handler = Script(
        router=[Reply(status=500, error="llama runner process has terminated"), ROUTE_CALC],
        executor=tool_call("calculator", expression="pi*3^2"), validator=PASS, responder="About 28.27.",
    )
    app = make_app()
    result = await app.ask("How much floor does a round rug 6 feet across cover?")
    assert result.ok and result.attempts == 1 and result.model_calls == 4
    assert len(fake.requests) == 5
    stored = app.store.turn(result.turn_id)
    assert stored["model_calls"][0]["transport_retries"] == 1


async def test_503_queue_full_is_retried(fake, make_app):
    fake.handler = Script(router=[Reply(status=503, error="server busy, please try again.  maximum pending requests exceeded"), ROUTE_CHAT],
                          responder="ok")
    result = await make_app().ask("hello")
    assert result.ok and result.model_calls == 2


async def test_mid_stream_error_gives_a_clear_message(fake, make_app):
    fake.handler = Script(router=ROUTE_CHAT)
    fake.handler.always("responder", Reply(content="The moon is round because", mid_stream_error="model runner has unexpectedly stopped"))
    app = make_app()
    with pytest.raises(ModelError) as info:
        await app.ask("Why is the moon round?")
    assert "stopped in the middle" in info.value.one_line() and "unexpectedly stopped" in info.value.one_line()
    assert fake.kinds().count("responder") == 1  # text already shown: not retried, so nothing is printed twice


async def test_mid_stream_error_before_any_text_is_retried(fake, make_app):
    fake.handler = Script(router=ROUTE_CHAT, responder=[Reply(mid_stream_error="runner crashed"), "Gravity."])
    result = await make_app().ask("Why is the moon round?")
    assert result.ok and result.answer == "Gravity."


async def test_ollama_down(make_app):
    app = make_app(ollama_host=f"http://127.0.0.1:{closed_port()}", transport_retries=1)
    with pytest.raises(OllamaUnreachable) as info:
        await app.ask("Why is the moon round?")
    assert "ollama serve" in info.value.one_line()
    turn = app.store.turn(app.store.find_turn("last"))
    assert turn["error"] and "Cannot reach Ollama" in turn["error"] and turn["model_calls"][0]["error"]


async def test_model_missing(fake, make_app):
    fake.models = {}
    with pytest.raises(ModelMissing) as info:
        await make_app().ask("Why is the moon round?")
    assert "ollama pull qwen2.5:3b" in info.value.one_line()


async def test_timeout(fake, make_app):
    fake.handler = Script(router=Reply(content='{"route": "chat"}', delay=1.2))
    with pytest.raises(ModelTimeout):
        await make_app(request_timeout=0.3, transport_retries=0).ask("hello")


async def test_every_model_and_tool_call_is_stored(fake, make_app):
    fake.handler = Script(
        router=ROUTE_CALC,
        executor=[tool_call("calculator", expression="2*π*3"), tool_call("calculator", expression="π*3^2")],
        validator=[{"verdict": "FAIL", "reason": "use pi*r^2"}, PASS], responder="About 28.27.",
    )
    app = make_app()
    result = await app.ask("How much floor does a round rug 6 feet across cover?")
    turn = app.store.turn(result.turn_id)
    assert [c["role"] for c in turn["model_calls"]] == ["router", "executor", "validator", "executor", "validator", "responder"]
    assert all(c["prompt_tokens"] and c["output_tokens"] and c["wall_ms"] > 0 for c in turn["model_calls"])
    assert '"context":8192' in turn["model_calls"][0]["request"]
    assert [(t["attempt"], t["ok"]) for t in turn["tool_calls"]] == [(1, 1), (2, 1)]
    assert turn["answer"] == "About 28.27." and turn["route_by"] == "model" and turn["attempts"] == 2
    types = [e["type"] for e in turn["events"]]
    assert types[0] == "turn_started" and types[-1] == "turn_done" and "validation" in types


async def test_history_is_capped_and_the_request_stays_last(fake, make_app):
    app = make_app(history_turns=2)
    fake.handler = Script()
    fake.handler.always("router", ROUTE_CHAT).always("responder", "ok")
    session = app.store.create_session()
    for i in range(4):
        await app.ask(f"message {i}", session_id=session)
    last_router = [r for r in fake.requests if r.get("format")][-1]
    contents = [m["content"] for m in last_router["messages"][1:]]
    assert contents == ["message 1", "ok", "message 2", "ok", "message 3"]


async def test_a_prompt_that_fills_the_context_is_flagged(fake, make_app):
    fake.handler = Script().always("router", ROUTE_CHAT).always("responder", "ok")
    app = make_app(num_ctx=512, max_question_tokens=2000)  # a limit raised past what the context holds
    result = await app.ask("Summarise this: " + "lorem ipsum " * 300)
    calls = app.store.turn(result.turn_id)["model_calls"]
    assert [c["context_full"] for c in calls] == [1, 1]
    roomy = make_app(num_ctx=8192)  # room for the prompt whatever the tools it lists
    short = await roomy.ask("hello")
    assert [c["context_full"] for c in roomy.store.turn(short.turn_id)["model_calls"]] == [0, 0]


async def test_thinking_is_off_for_decisions_on_a_thinking_model_and_never_sent_to_others(fake, make_app):
    fake.models = {"qwen3:4b": ["completion", "tools", "thinking"], "qwen2.5:3b": ["completion", "tools"]}
    fake.handler = Script(router=ROUTE_CALC, executor=tool_call("calculator", expression="pi*3^2"), validator=PASS,
                          responder="About 28.27.")
    await make_app(model="qwen3:4b").ask("How much floor does a round rug 6 feet across cover?")
    assert [(kind_of(r), r.get("think")) for r in fake.requests] == [
        ("router", False), ("executor", False), ("validator", False), ("responder", False)]
    fake.requests.clear()
    fake.handler = Script(router=ROUTE_CHAT, responder="Hi.")
    await make_app().ask("hello")
    assert all("think" not in r for r in fake.requests)  # Ollama answers 400 to think on a model without it


async def test_a_retry_answers_each_tool_call_by_its_id(fake, make_app):
    fake.handler = Script(
        router=ROUTE_CALC,
        executor=[tool_call("calculator", expression="area(3)"), tool_call("calculator", expression="pi*3^2")],
        validator=PASS, responder="About 28.27.",
    )
    app = make_app()
    result = await app.ask("How much floor does a round rug 6 feet across cover?")
    executor_requests = [json.loads(c["request"]) for c in app.store.turn(result.turn_id)["model_calls"] if c["role"] == "executor"]
    retry = executor_requests[1]["messages"]
    asked = [c["id"] for m in retry if m["role"] == "assistant" and m["tool_calls"] for c in m["tool_calls"]]
    answered = [m["tool_call_id"] for m in retry if m["role"] == "tool"]
    assert asked == answered == ["call_0"]


async def test_a_bug_inside_a_turn_is_recorded_and_reported_as_a_failed_turn(fake, make_app, monkeypatch):
    from assistant.pipeline import responder
    from assistant.errors import InternalError
    from assistant.pipeline.events import TurnFailed

    async def broken(ctx, *args, **kwargs):
        raise KeyError("answer")

    monkeypatch.setattr(responder, "answer_chat", broken)
    fake.handler = Script(router=ROUTE_CHAT)
    app = make_app()
    events = []
    with pytest.raises(InternalError) as info:
        await app.ask("hello", emit=events.append)
    assert "internal error: KeyError: 'answer'" in info.value.one_line()
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert len(failed) == 1 and failed[0].message == "internal error: KeyError: 'answer'"
    turn = app.store.turn(app.store.find_turn("last"))
    assert turn["ok"] == 0 and turn["error"] == "internal error: KeyError: 'answer'"
    assert [e["type"] for e in turn["events"]][-2:] == ["turn_failed", "turn_done"]


async def test_a_chat_answer_with_a_wrong_conversion_is_never_shown(fake, make_app):
    # The router sends a conversion the rules could not read ("it") to chat; the model gets it wrong twice.
    fake.handler = Script(router=ROUTE_CHAT, responder=["5km = 1.039mile", "5 miles is 1.039 km."])
    result = await make_app().ask("My run today was 5 miles long and I would like it in km")
    assert "1.039" not in result.answer and result.answer.startswith("Sorry")
    fake.handler = Script(router=ROUTE_CHAT, responder=["5km = 1.039mile", "That is about 8.05 km (5 miles = 8.05 km)."])
    fixed = await make_app().ask("My run today was 5 miles long and I would like it in km")
    assert fixed.answer == "That is about 8.05 km (5 miles = 8.05 km)."
    assert "5 km is 3.11 mile, not 1.039" in fake.requests[-1]["messages"][-1]["content"]  # the retry is told the figure


async def test_a_question_carries_its_own_settings_for_its_turn_alone(fake, make_app):
    """The request every front end and the daemon ask with: its per-turn settings change that turn, and a value the
    settings refuse is the command line's one line (exit 2), before anything is stored or asked."""
    from assistant.errors import ConfigError
    from assistant.pipeline.question import Question

    app = make_app()
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "Kurz.")
    first = await app.ask(Question(question="Say hello", settings={"system": "Answer in German.", "max_retries": 1}))
    assert first.ok and fake.requests[-1]["messages"][0]["content"].endswith("Answer in German.")
    await app.ask("Say hello again")  # the next turn: the assistant's own settings again
    assert "German" not in fake.requests[-1]["messages"][0]["content"] and app.settings.system is None
    calls = len(fake.requests)
    with pytest.raises(ConfigError) as refused:
        await app.ask(Question(question="hi", settings={"max_retries": 99}))
    assert "--max-retries 99: must be at most 10" in refused.value.message and refused.value.exit_code == 2
    assert len(fake.requests) == calls
