"""The OpenAI-compatible backend through the real ``openai`` client: against a fake server for the faults,
and end to end against a real one (``python -m llama_cpp.server`` serving SmolLM2, in test_openai_server.py)."""

from __future__ import annotations

import json
from typing import Iterator

import pytest
from conftest import cli_env, closed_port
from processes import run
from fake_ollama import Reply, tool_call
from fake_openai import FakeOpenAI, Script

from assistant.config import Settings
from assistant.errors import ConfigError, ModelError, ModelMissing, ServerUnreachable
from assistant.models.openai_compat import doctor
from assistant.pipeline.events import AnswerDelta

pytest.importorskip("openai", reason="the openai extra is not installed")

MODEL = "qwen2.5-3b-instruct"
WORD_PROBLEM = "半径为3的圆形地毯能盖住多大地方?"
CALC = dict(router={"route": "calculator"}, executor=tool_call("calculator", expression="pi*3^2"),
            validator={"verdict": "PASS", "reason": "the area formula"}, responder="面积约为 28.27。")


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    s = FakeOpenAI().start()
    yield s
    s.stop()


@pytest.fixture
def openai_app(make_app, server):
    def make(**overrides):
        overrides.setdefault("model", MODEL)
        overrides.setdefault("one_call", False)  # each stage's own request, as these tests read them off the wire
        return make_app(backend="openai", openai_base_url=server.url + "/v1", **overrides)
    return make


def _calls(app, result) -> list[dict]:
    return app.store.turn(result.turn_id)["model_calls"]


async def test_word_problem_through_every_stage_with_native_tool_calls(server, openai_app):
    server.handler = Script(**CALC)
    app = openai_app(deterministic=False)
    deltas: list[str] = []
    result = await app.ask(WORD_PROBLEM, emit=lambda e: deltas.append(e.text) if isinstance(e, AnswerDelta) else None)
    assert result.ok and result.answer == "面积约为 28.27。" and result.attempts == 1
    assert server.kinds() == ["router", "executor", "validator", "responder"]
    router, executor, validator, responder = server.requests
    assert router["response_format"]["type"] == "json_schema" and "route" in router["response_format"]["json_schema"]["schema"]["properties"]
    assert executor["tool_choice"] == {"type": "function", "function": {"name": "calculator"}}
    assert "response_format" not in executor  # never a schema and tools in one request
    assert responder["stream"] and responder["stream_options"] == {"include_usage": True}
    assert "".join(deltas) == "面积约为 28.27。"
    calls = _calls(app, result)
    assert [c["backend"] for c in calls] == ["openai"] * 4
    assert all(c["prompt_tokens"] and c["output_tokens"] for c in calls)  # from usage, streamed or not


async def test_a_small_model_a_server_does_not_size_is_sized_by_its_name(server, openai_app):
    """LM Studio and vLLM say no size: "qwen2.5-0.5b-instruct" is half a billion parameters by its name, so it is held
    to small talk; a 7B one is a model the user brought, trusted with its answer."""
    server.models = ["qwen2.5-0.5b-instruct", "qwen2.5-7b-instruct"]
    server.handler = Script().always("router", {"route": "chat"}).always("responder", "Jane Austen wrote it.")
    small = await openai_app(model="qwen2.5-0.5b-instruct").ask("Who wrote Pride and Prejudice?")
    assert not small.ok and small.answer.startswith("Sorry, qwen2.5-0.5b-instruct is too small")
    assert "Serve a capable model on your server" in small.answer and "responder" not in server.kinds()
    large = await openai_app(model="qwen2.5-7b-instruct").ask("Who wrote Pride and Prejudice?")
    assert large.ok and large.answer == "Jane Austen wrote it."


async def test_llama_cpp_style_server_gets_json_object_with_schema_after_one_refusal(server, openai_app):
    """llama-cpp-python's server answers OpenAI's json_schema with HTTP 500; the backend learns it once."""
    server.accepts = ("json_object",)
    server.handler = Script(router={"route": "chat"}).always("responder", "Because gravity pulls evenly.")
    app = openai_app(deterministic=False)
    first = await app.ask("Why is the moon round?")
    assert first.ok and first.route == "chat" and first.attempts == 0
    assert len(server.refused) == 1 and server.refused[0][0] == 500
    assert server.requests[0]["response_format"]["type"] == "json_object"
    assert server.requests[0]["response_format"]["schema"]["properties"]["route"]
    router_call = _calls(app, first)[0]
    assert "json_schema" in router_call["reply"] and router_call["transport_retries"] == 0
    server.handler = Script(router={"route": "chat"}).always("responder", "It is.")
    await app.ask("Is the sky blue?")
    assert len(server.refused) == 1  # not asked again


async def test_server_without_structured_output_falls_back_to_the_prompt(server, openai_app):
    server.accepts = ()
    server.handler = Script(router={"route": "chat"}, responder="Hello there.")
    result = await openai_app(deterministic=False).ask("Say hello please")
    assert result.ok and result.route == "chat" and result.answer == "Hello there."
    assert [s for s, _ in server.refused] == [500, 500]
    assert "response_format" not in server.requests[0]


async def test_server_without_tools_gets_the_schema_path(server, openai_app):
    server.tools = False
    server.handler = Script(router={"route": "calculator"}, executor={"expression": "pi*3^2"},
                            validator={"verdict": "PASS", "reason": "ok"}, responder="About 28.27.")
    app = openai_app(deterministic=False)
    result = await app.ask("How much floor does a round rug of radius 3 cover?")
    assert result.ok and "28.27" in result.answer and result.attempts == 1
    assert [s for s, _ in server.refused] == [400]
    executor = [r for r in server.requests if server.kinds()[server.requests.index(r)] == "executor"][0]
    assert "tools" not in executor and executor["response_format"]["json_schema"]["schema"]["properties"]["expression"]
    assert (await app.backend.profile(MODEL)).tools is False


async def test_429_then_success_is_a_transport_retry_not_an_attempt(server, openai_app):
    server.faults = [(429, "Rate limit reached")]
    server.handler = Script(**CALC)
    app = openai_app(deterministic=False)
    result = await app.ask(WORD_PROBLEM)
    assert result.ok and result.attempts == 1
    assert [c["transport_retries"] for c in _calls(app, result)] == [1, 0, 0, 0]


async def test_500_every_time_is_one_clear_error(server, openai_app):
    server.faults = [(500, "CUDA out of memory")] * 4
    with pytest.raises(ModelError) as e:
        await openai_app(transport_retries=3, deterministic=False).ask("Why is the moon round?")
    assert "CUDA out of memory" in e.value.message and "HTTP 500" in e.value.message and e.value.exit_code == 6


async def test_a_stream_dropped_before_any_text_is_asked_again(server, openai_app):
    server.drop_next = 1
    server.handler = Script(router={"route": "chat"}).always("responder", Reply(content="Gravity.", chunk_size=100))
    app = openai_app(deterministic=False)
    result = await app.ask("Why is the moon round?")
    assert result.ok and result.answer == "Gravity."
    assert _calls(app, result)[-1]["transport_retries"] == 1


async def test_unknown_model_and_bad_key_and_no_server(server, openai_app, make_app):
    with pytest.raises(ModelMissing) as e:
        await openai_app(model="nosuch-7b", deterministic=False).ask("Why is the moon round?")
    assert "nosuch-7b" in e.value.message and e.value.exit_code == 4
    server.key = "right"
    with pytest.raises(ConfigError) as e:
        await openai_app(openai_api_key="wrong", deterministic=False).ask("Why is the moon round?")
    assert "API key" in e.value.message and "OPENAI_API_KEY" in e.value.hint and e.value.exit_code == 2
    with pytest.raises(ServerUnreachable) as e:
        app = make_app(backend="openai", model=MODEL, openai_base_url=f"http://127.0.0.1:{closed_port()}/v1",
                       transport_retries=0, deterministic=False)
        await app.ask("Why is the moon round?")
    assert e.value.exit_code == 3 and "OPENAI_BASE_URL" in e.value.hint


async def test_thinking_from_reasoning_content_is_kept_apart(server, openai_app):
    server.handler = Script(router={"route": "chat"}).always(
        "responder", Reply(content="It is round.", thinking="HIDDEN reasoning"))
    app = openai_app(deterministic=False, responder_think=True)
    result = await app.ask("Why is the moon round?")
    assert result.answer == "It is round."
    assert "HIDDEN" in json.loads(_calls(app, result)[-1]["reply"])["thinking"]
    assert server.requests[0]["chat_template_kwargs"] == {"enable_thinking": False}
    assert server.requests[-1]["chat_template_kwargs"] == {"enable_thinking": True}


async def test_doctor_lists_models_and_flags_a_missing_one(server):
    base = server.url + "/v1"
    found = await doctor(Settings(backend="openai", openai_base_url=base, model=MODEL), True)
    assert [c.level for c in found] == ["ok", "ok"] and MODEL in found[0].detail
    server.models = [MODEL, "llama-3.2-1b"]
    found = await doctor(Settings(backend="openai", openai_base_url=base, model="nosuch"), True)
    assert found[-1].level == "fail" and "llama-3.2-1b" in found[-1].fix
    server.key = "k"
    found = await doctor(Settings(backend="openai", openai_base_url=base, model=MODEL), True)
    assert found[0].level == "fail" and "API key" in found[0].detail
    found = await doctor(Settings(backend="openai", openai_base_url=f"http://127.0.0.1:{closed_port()}/v1"), True)
    assert found[0].level == "fail" and "Error" not in found[0].detail


@pytest.mark.slow  # whole processes
def test_cli_with_the_openai_backend(home, server):
    server.handler = Script(router={"route": "chat"}, responder="Gravity pulls a big body into a sphere.")
    env = cli_env(home, ASSISTANT_BACKEND="openai", OPENAI_BASE_URL=server.url + "/v1", ASSISTANT_MODEL=MODEL,
                  ASSISTANT_DETERMINISTIC="false")
    p = run(["ask", "Why is the moon round?"], env)
    assert p.returncode == 0 and p.stdout == "Gravity pulls a big body into a sphere.\n", p.stderr
    server.key = "secret"
    p = run(["ask", "Why is the moon round?"], {**env, "OPENAI_API_KEY": "wrong"})
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "API key" in p.stderr
