"""Hostile and broken model output: deep JSON, huge JSON, arguments of the wrong type, streams that never end.
Every turn ends with an answer or a one-line error and is stored; nothing reaches "internal error"."""

from __future__ import annotations

import json

import pytest
from fake_ollama import Reply, Script, tool_call
from oracle import grounded

from assistant.errors import ModelTimeout

DEEP = ["[" * 5000, '{"a":' * 5000, "[" * 100_000 + "]" * 100_000, '{"route": ' + "[" * 3000 + '"chat"' + "]" * 3000 + "}"]


@pytest.mark.parametrize("reply", DEEP)
async def test_deep_json_from_the_router_is_chat(fake, make_app, reply):
    fake.handler = Script(router=reply, responder="Hello!")
    result = await make_app(one_call=False).ask("hi there")  # a routing call of its own
    assert result.ok and result.route == "chat" and result.route_by == "default" and result.answer == "Hello!"


@pytest.mark.parametrize("reply", DEEP)
async def test_deep_json_from_the_executor_is_feedback(fake, make_app, reply):
    fake.models = {"qwen2.5:3b": ["completion"]}  # the schema path reads JSON from content
    fake.handler = Script(router={"route": "calculator"}, executor=[reply, {"expression": "pi*3^2"}],
                          validator={"verdict": "PASS", "reason": "ok"}, responder=grounded)
    result = await make_app().ask("How much floor does a round rug 6 feet across cover?")
    assert result.ok and result.attempts == 2 and "28.27" in result.answer


@pytest.mark.parametrize("reply", DEEP)
async def test_deep_json_from_the_validator_is_a_fail(fake, make_app, reply):
    fake.handler = Script(router={"route": "calculator"},
                          executor=[tool_call("calculator", expression="pi*3^2"), tool_call("calculator", expression="pi*3**2")],
                          validator=[reply, {"verdict": "PASS", "reason": "the area formula"}], responder=grounded)
    app = make_app()
    result = await app.ask("How much floor does a round rug 6 feet across cover?")
    assert result.ok and result.attempts == 2
    verdicts = [e for e in app.store.turn(result.turn_id)["events"] if e["type"] == "validation"]
    assert [(v["verdict"], v["by"]) for v in verdicts] == [("FAIL", "default"), ("PASS", "model")]


@pytest.mark.parametrize("arguments", ['{"expression": "pi*3^2"}', "not json", ["pi*3^2"], None, 42, "[" * 5000])
async def test_tool_call_arguments_of_any_type_never_crash(fake, make_app, arguments):
    fake.handler = Script(router={"route": "calculator"},
                          executor=[Reply(tool_calls=[{"name": "calculator", "arguments": arguments}]),
                                    tool_call("calculator", expression="pi*3^2")],
                          validator={"verdict": "PASS", "reason": "ok"}, responder=grounded)
    app = make_app(one_call=False)  # the executor's own call
    result = await app.ask("How much floor does a round rug 6 feet across cover?")
    assert result.ok and "28.27" in result.answer and result.attempts == 2
    feedback = fake.requests[2]["messages"][-1]["content"]
    assert "could not be read" in feedback and "expression" in feedback


async def test_a_stream_that_never_ends_is_cut_at_the_deadline_and_the_turn_goes_on(fake, meteo, weather_app):
    meteo.set_weather(31.22, 121.46, 2.0, code=61)
    fake.handler = Script(responder=Reply(content="上海", forever=True, chunk_delay=0.02))
    app = weather_app(request_timeout=1)
    result = await app.ask("上海现在冷不冷?")
    # not asked again (it would only run into the deadline again): the tool's own sentence is shown
    assert result.ok and result.answer.startswith("上海现在 2°C,小雨") and result.model_calls == 1
    assert "request_timeout" in result.replaced
    first = json.loads(app.store.turn(result.turn_id)["model_calls"][0]["reply"])
    assert first["done_reason"] == "cut" and "request_timeout" in first["problem"]
    assert 10 < len(first["content"]) < 400  # what came before the deadline, kept in the trace


async def test_a_model_that_says_nothing_until_the_deadline_is_a_timeout_not_retried(fake, make_app):
    fake.handler = Script(router=Reply(content='{"route": "chat"}', delay=1.2))
    app = make_app(request_timeout=0.5, transport_retries=3, one_call=False)
    with pytest.raises(ModelTimeout) as info:
        await app.ask("hello")
    assert "did not answer within 0.5 s" in info.value.one_line()
    assert len(fake.requests) == 1  # not retried: a hung model would only hang again
    turn = app.store.turn(app.store.find_turn("last"))
    assert "did not answer" in turn["error"]


async def test_generation_caps_reach_the_server(fake, make_app):
    fake.handler = Script(router={"route": "chat"}).always("responder", Reply(content="word " * 2000, chunk_size=5))
    app = make_app(responder_max_tokens=50)
    result = await app.ask("Tell me a long story.")
    reply = json.loads(app.store.turn(result.turn_id)["model_calls"][-1]["reply"])
    assert reply["done_reason"] in ("length", "cut") and len(result.answer) <= 50 * 5
