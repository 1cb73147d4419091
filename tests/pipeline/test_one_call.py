"""One call decides and answers: with a model that calls tools natively (the fake Ollama as a capable local model,
through the real client), the first call offers every tool and streams; the model either answers (the route is
conversation, and that stream, through the gate, is the answer) or calls a tool (the route, and the executor's first
proposal at once). Counted in model calls, read off the wire."""

from __future__ import annotations

import pytest
from fake_ollama import Reply, Script, tool_call
from oracle import grounded

from assistant.pipeline.events import AnswerDelta, RouteDecided, StageStarted

WORD_PROBLEM = "How much floor does a round rug of radius 3 cover?"


def streamed(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, AnswerDelta))


async def test_a_conversation_costs_one_call_and_streams(fake, make_app):
    fake.handler = Script(decide=Reply(content="The moon is round because gravity pulls evenly from its centre.",
                                       chunk_size=3))
    events: list = []
    app = make_app()
    result = await app.ask("Why is the moon round?", emit=events.append)
    assert result.ok and result.route == "chat" and result.route_by == "model" and result.model_calls == 1
    assert result.answer == "The moon is round because gravity pulls evenly from its centre."
    assert streamed(events) == result.answer
    request = fake.requests[0]
    assert request["stream"] is True and request["messages"][-1]["content"] == "Why is the moon round?"
    assert {t["function"]["name"] for t in request["tools"]} == set(app.registry.names())  # every tool, natively
    assert "format" not in request or not request["format"]
    stages = [e.stage for e in events if isinstance(e, StageStarted)]
    assert stages == ["router"]  # the four stages in the trace: this one call was the router's, and it answered
    routed = next(e for e in events if isinstance(e, RouteDecided))
    assert "answered in the call that offered the tools" in routed.reason
    calls = app.store.turn(result.turn_id)["model_calls"]
    assert [c["role"] for c in calls] == ["router"]


async def test_a_tool_question_the_rules_cannot_read_costs_two_calls(fake, make_app):
    """The deciding call's tool call is the executor's first proposal; the formula's numbers are the user's, so the
    check passes it with no verdict call; one call writes the answer."""
    fake.handler = Script(decide=tool_call("calculator", expression="pi * 3^2"), responder=grounded)
    result = await make_app().ask(WORD_PROBLEM)
    assert result.ok and result.route == "calculator" and "28.27" in result.answer
    assert fake.kinds() == ["decide", "responder"] and result.model_calls == 2 and result.attempts == 1


async def test_with_the_tools_own_sentence_a_tool_question_costs_one_call(fake, make_app):
    """rendered_answers: the tool's own sentence is the answer, so the deciding call is the only one."""
    fake.handler = Script(decide=tool_call("calculator", expression="pi * 3^2"))
    result = await make_app(rendered_answers=True).ask(WORD_PROBLEM)
    assert result.ok and result.route == "calculator" and result.answer.startswith("pi * 3^2 = 28.27")
    assert fake.kinds() == ["decide"] and result.model_calls == 1


async def test_a_number_the_user_never_gave_is_judged_and_fixed_from_the_feedback(fake, make_app):
    """A small model copies an example or invents a number: the check cannot pass it, the judge fails it, and the
    executor (offered only the routed tool) writes it again from the feedback."""
    fake.handler = Script(decide=tool_call("calculator", expression="123 * 456"),
                          validator={"verdict": "FAIL", "reason": "the radius is 3: use pi * 3^2"},
                          executor=tool_call("calculator", expression="pi * 3^2"), responder=grounded)
    result = await make_app().ask(WORD_PROBLEM)
    assert result.ok and "28.27" in result.answer and result.attempts == 2
    assert fake.kinds() == ["decide", "validator", "executor", "responder"]
    executor = fake.requests[2]
    assert [t["function"]["name"] for t in executor["tools"]] == ["calculator"] and executor.get("stream") is False
    assert "use pi * 3^2" in executor["messages"][-1]["content"]


async def test_several_tools_in_the_deciding_call_go_to_the_routing_call_for_a_plan(fake, meteo, weather_app):
    meteo.set_weather(39.91, 116.40, 3.0, code=0)
    fake.handler = Script(
        decide=Reply(tool_calls=[{"name": "weather", "arguments": {"place": "Beijing"}},
                                 {"name": "calculator", "arguments": {"expression": "3 * 4"}}]),
        router={"route": "weather", "also": [{"route": "calculator", "request": "how much is a wall 3 by 4 metres"}]},
        executor=[tool_call("weather", place="Beijing"), tool_call("calculator", expression="3 * 4")],
        responder=grounded)
    result = await weather_app().ask("Packing for Beijing: should I bring a coat there? And how much is a wall 3 by 4 metres?")
    assert fake.kinds()[:2] == ["decide", "router"]  # the routing call made the plan
    assert [t.name for t in result.tool_calls] == ["weather", "calculator"] or sorted(
        t.name for t in result.tool_calls) == ["calculator", "weather"]


@pytest.mark.parametrize("setup", ["no tools capability", "a routing model of its own", "one_call off"])
async def test_without_native_tools_a_routing_call_decides(fake, make_app, setup):
    overrides = {}
    if setup == "no tools capability":
        fake.models = {"qwen2.5:3b": ["completion"]}
    elif setup == "a routing model of its own":
        fake.models = {"qwen2.5:3b": ["completion", "tools"], "qwen2.5:0.5b": ["completion", "tools"]}
        overrides["router_model"] = "qwen2.5:0.5b"
    else:
        overrides["one_call"] = False
    fake.handler = Script(router={"route": "chat"}, responder="Because of gravity.")
    result = await make_app(**overrides).ask("Why is the moon round?")
    assert result.ok and result.answer == "Because of gravity." and fake.kinds() == ["router", "responder"]


async def test_the_second_turn_keeps_the_prefix_and_puts_the_request_last(fake, make_app):
    """The system prompt and the tools are the same on every turn (the engine's prefix cache is reused); the history
    follows them and the new request comes last."""
    fake.handler = Script(decide=["The moon is round.", "It is very far away, well beyond the clouds."])
    app = make_app()
    first = await app.ask("Why is the moon round?")
    await app.ask("How far away is it?", session_id=first.session_id)
    one, two = fake.requests
    assert one["messages"][0] == two["messages"][0] and one["tools"] == two["tools"]
    assert [m["content"] for m in two["messages"][1:]] == ["Why is the moon round?", "The moon is round.",
                                                          "How far away is it?"]


async def test_a_server_error_on_the_deciding_call_is_retried_without_an_attempt(fake, make_app):
    fake.handler = Script(decide=[Reply(error="loading model", status=500), "Hello! How can I help?"])
    result = await make_app().ask("hello there")
    assert result.ok and result.answer == "Hello! How can I help?" and result.attempts == 0
    assert len(fake.requests) == 2 and result.model_calls == 1


EGGS = "Eggs come in packs of 12. I bought 4 packs, plus 3 loose eggs. How many eggs do I have?"


@pytest.mark.parametrize("wrong, why", [("12*4+4", "uses 4 twice"), ("12*4", "leaves out 3")])
async def test_a_formula_that_repeats_or_drops_a_given_number_is_failed_by_the_check_and_fixed(
        fake, make_app, wrong, why):
    """Every number of ``12*4+4`` is one the user gave, and it is still wrong: the check counts them (4 used twice,
    3 left out), fails it with that reason, no verdict call, and the executor writes it again from the feedback."""
    fake.handler = Script(decide=tool_call("calculator", expression=wrong),
                          executor=tool_call("calculator", expression="12*4+3"), responder=grounded)
    result = await make_app().ask(EGGS)
    assert result.ok and "51" in result.answer and result.attempts == 2
    assert fake.kinds() == ["decide", "executor", "responder"]  # no verdict call: the check decided
    assert why in fake.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("question, formula, value", [
    ("I ran 4 laps of a 400 metre track. How many miles did I run?", "4*400/1000*0.621371", "0.99"),
    ("Twelve friends each pay thirty dollars for the trip. What do they pay together?", "12*30", "360"),
    ("A jacket costs 80 dollars and is 25% off. What do I pay?", "80*0.75", "60"),
])
async def test_a_formula_with_a_conversion_factor_a_number_in_words_or_a_percentage_costs_two_calls(
        fake, make_app, question, formula, value):
    fake.handler = Script(decide=tool_call("calculator", expression=formula), responder=grounded)
    result = await make_app().ask(question)
    assert result.ok and value in result.answer
    assert fake.kinds() == ["decide", "responder"] and result.model_calls == 2


async def test_a_part_the_models_one_tool_call_left_out_is_answered_by_its_rule(fake, meteo, weather_app):
    """A capable model called the calculator for a question that also asks the weather: the weather part, which its
    rule reads, is a step of its own, and the one answer covers both (it used to cover the sum alone, ok true)."""
    fake.handler = Script(decide=tool_call("calculator", expression="0.17 * 2340"), responder=grounded)
    result = await weather_app().ask("Could you work out seventeen percent of my 2,340 budget, and what's the "
                                     "weather in Paris?")
    assert result.ok and result.route == "calculator", result.route
    assert "397.8" in result.answer and "In Paris it is" in result.answer, result.answer
    assert sorted(t.name for t in result.tool_calls) == ["calculator", "weather"]


async def test_a_part_no_rule_reads_beside_one_a_rule_answers_is_named_where_no_model_can_take_it(fake, meteo,
                                                                                                  weather_app):
    """A model that cannot call tools: the weather rule answers its part, and the answer says which part it could
    not, with ok false (it used to answer the weather alone, ok true)."""
    fake.models = {"qwen2.5:3b": ["completion"]}
    fake.handler = Script(router={"route": "chat"}, responder="unused")
    result = await weather_app(rendered_answers=True).ask(
        "Could you work out seventeen percent of my 2,340 budget, and what's the weather in Paris?")
    assert not result.ok and result.answer.startswith("Paris: 3.7°C now")
    assert "I could not answer this part: 'Could you work out seventeen percent of my 2,340 budget'" in result.answer
