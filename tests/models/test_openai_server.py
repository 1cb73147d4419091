"""End to end against a real OpenAI-compatible server: the embedded engine's own (llama.cpp's server through
xllamacpp, ``python -m assistant.models.engine_server``) serving SmolLM2 on loopback with an API key, started here.
Real model output: the structured-output detection, tool calls falling back to the schema path, streaming and
usage, and the key: a request without it is refused."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Iterator

import pytest
from processes import start_engine_server, stop_process as stop

from assistant.models import embedded

missing = [m for m in ("openai", "xllamacpp") if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing) or not embedded.default_model_path(),
                       reason=f"needs xllamacpp, openai and the model file (missing: {', '.join(missing) or 'the model'}):"
                              " pip install '.[openai,embedded]'; python -m assistant.models.model_file"),
]


def start_engine(tmp: pytest.TempPathFactory, name: str = "engine") -> tuple[subprocess.Popen, str, str]:
    """A real engine server on a free loopback port: (process, base URL, key)."""
    log = tmp.mktemp(name) / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "assistant.models.engine_server", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    lines = []
    deadline = time.monotonic() + 120
    while len(lines) < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        if not line:
            pytest.fail(f"the engine server exited: {log.read_text()[-2000:]}")
        lines.append(line.strip().split("=", 1)[1])
    return proc, lines[0], lines[1]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    proc, base, key = start_engine(tmp_path_factory)
    yield base, key
    stop(proc)


@pytest.fixture(scope="module")
def llama_server(engine: tuple[str, str]) -> str:
    return engine[0]


def test_the_engine_server_refuses_requests_without_its_key(engine):
    base, key = engine
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base + "/models", timeout=10)
    assert refused.value.code == 401
    request = urllib.request.Request(base + "/models", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=10) as r:
        assert "smollm2" in json.dumps(json.load(r))
    preflight = urllib.request.Request(base + "/chat/completions", method="OPTIONS", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    with urllib.request.urlopen(preflight, timeout=10) as r:
        assert r.headers.get("Access-Control-Allow-Origin") in (None, "")  # no web page may call it


@pytest.fixture
def served(weather_app, llama_server, engine):
    """SmolLM2 behind the server, trusted by the setting: these tests are about the wire (that a tiny model there is
    held to small talk, as in Ollama, is the test after them)."""
    return weather_app(backend="openai", openai_base_url=llama_server, openai_api_key=engine[1], model="smollm2",
                       max_retries=1, seed=7, model_trust="trusted")


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


async def test_a_chat_question_is_decided_in_one_call_with_every_tool_offered(served):
    """A real llama.cpp server takes the deciding call (every tool offered, the answer streamed) and whatever the tiny
    model does with it, the turn ends with an answer and nothing failed on the wire."""
    result = await served.ask("Why is the moon round?")
    calls = served.store.turn(result.turn_id)["model_calls"]
    first = json.loads(calls[0]["request"])
    assert calls[0]["role"] == "router" and calls[0]["error"] is None and first["stream"]
    assert {t["function"]["name"] for t in first["tools"]} >= {"calculator", "weather", "units", "clock"}
    assert result.answer.strip()


async def test_a_tiny_model_behind_a_llama_cpp_server_is_held_to_small_talk(weather_app, llama_server, engine):
    """The server says the model's size (GET /models: meta.n_params); 135M is far below what is trusted with facts,
    so it is held to small talk as it would be in Ollama: a question of fact is declined, with no answer written."""
    from assistant.models import openai_compat
    from assistant.config import Settings

    app = weather_app(backend="openai", openai_base_url=llama_server, openai_api_key=engine[1], model="smollm2",
                      max_retries=1, seed=7)
    result = await app.ask("Who wrote Pride and Prejudice?")
    assert not result.ok and result.answer.startswith("Sorry, smollm2 is too small to answer this reliably")
    assert "Serve a capable model on your server" in result.answer and "models pull" not in result.answer
    from assistant.capable import TOO_SMALL

    assert result.replaced != TOO_SMALL  # so the chat and the popup offer no pull: it would not change this server
    turn = app.store.turn(result.turn_id)
    checked = [e for e in turn["events"] if e["type"] == "answer_check"]
    assert checked and "a small model (0.13B parameters)" in checked[-1]["reason"]
    assert all(not json.loads(c["request"]).get("stream") for c in turn["model_calls"])  # nothing of it was shown
    listed = await openai_compat.models(Settings(backend="openai", openai_base_url=llama_server,
                                                 openai_api_key=engine[1]))
    assert [(m["name"], m["parameters"]) for m in listed] == [("smollm2", "135M")]  # as `assistant models` shows


async def test_a_chat_question_is_routed_by_openais_json_schema_which_llama_cpp_takes(weather_app, llama_server, engine):
    served = weather_app(backend="openai", openai_base_url=llama_server, openai_api_key=engine[1], model="smollm2",
                         max_retries=1, seed=7, one_call=False,  # a routing call of its own
                         model_trust="trusted")  # the wire under test: a 135M model held to small talk routes by rules
    result = await served.ask("Why is the moon round?")
    turn = served.store.turn(result.turn_id)
    router = turn["model_calls"][0]
    assert router["role"] == "router" and router["error"] is None
    assert json.loads(router["request"])["format"]["properties"]["route"]
    assert json.loads(router["reply"])["notes"] == []  # json_schema taken as sent: nothing had to be adapted
    assert json.loads(router["reply"])["content"].lstrip().startswith('{\n  "route": "')  # held to the schema
    assert result.route in ("chat", "clarify") and result.answer.strip()


async def test_a_word_problem_falls_back_to_the_schema_path_when_the_server_ignores_tool_choice(served):
    """llama.cpp serving SmolLM2 (whose chat template knows no tools) answers a forced tool call in prose: the
    backend notices once, notes it in the trace, and holds the reply to the tool's argument schema instead."""
    result = await served.ask("A box holds 12 eggs. How many eggs are in 7 boxes? Use the calculator.")
    turn = served.store.turn(result.turn_id)
    executors = [c for c in turn["model_calls"] if c["role"] == "executor"]
    if turn["route"] == "calculator":  # SmolLM2 routes it there or to chat; the executor's wire is what is tested
        replies = [json.loads(c["reply"]) for c in executors]
        assert any("ignored tool_choice" in n for r in replies for n in r["notes"])
        assert all(r["tool_calls"] or r["content"].lstrip().startswith("{") for r in replies)  # a call, or its JSON
        assert "0.84" not in result.answer


async def test_hosts_share_the_work_between_two_real_engine_servers_and_survive_one_dying(weather_app, tmp_path_factory):
    """Two engine servers behind ``hosts``, questions sent two at a time; one server is killed halfway: every later
    question is answered by the other, and no question fails for it."""
    import asyncio

    procs, bases = [], []
    for name in ("a", "b"):
        proc, base, _ = _engine_with_key(tmp_path_factory, name, "shared-key")
        procs.append(proc)
        bases.append(base)
    try:
        app = weather_app(backend="openai", hosts=bases, openai_api_key="shared-key", model="smollm2", max_retries=0,
                          seed=7, host_max_in_flight=1, host_cooldown=60, responder_max_tokens=32,
                          model_trust="trusted")  # every question reaches a host (held to small talk, none would)
        questions = ["Say hi.", "Name a colour.", "Say yes.", "Name a fruit.", "Say no.", "Name an animal."]
        answered_by: list[str] = []
        for i in range(0, len(questions), 2):
            if i == 2:
                stop(procs[0])  # host a dies between the first and the second pair
            results = await asyncio.gather(*(app.ask(q) for q in questions[i:i + 2]))
            for result in results:
                assert result.route is not None and result.answer.strip()  # answered (or an honest sentence)
                notes = [n for c in app.store.turn(result.turn_id)["model_calls"] if c["reply"]
                         for n in json.loads(c["reply"])["notes"] if n.startswith("answered by")]
                answered_by += [n.split()[2] for n in notes]
        first, later = answered_by[:4], answered_by[4:]
        assert set(first) == {bases[0], bases[1]}  # both hosts worked while both were up
        assert later and set(later) == {bases[1]}  # after a died, only b answered
    finally:
        for proc in procs:
            stop(proc)


def _engine_with_key(tmp: pytest.TempPathFactory, name: str, key: str) -> tuple[subprocess.Popen, str, str]:
    proc, base = start_engine_server(tmp.mktemp(name) / "server.log", key)
    return proc, base, key


async def test_near_the_limit_the_models_own_tokenizer_counts(weather_app, llama_server, engine):
    """SmolLM2's tokenizer takes about two tokens a Chinese character where the estimate counts one: its own count
    (llama.cpp's /tokenize) decides, and says so without an 'about'."""
    from assistant.errors import QuestionTooLong

    app = weather_app(backend="openai", openai_base_url=llama_server, openai_api_key=engine[1], model="smollm2",
                      max_question_tokens=500)
    text = "请把下面这段话翻译成英文:" + "今天天气很好我们去公园散步看见很多花" * 22  # ~400 characters: 'fits' by the estimate
    with pytest.raises(QuestionTooLong) as refused:
        await app.ask(text)
    assert "问题太长" in refused.value.message and "约" not in refused.value.message
    counted = int(refused.value.message.split(":")[1].split(" ")[0])
    assert counted > 500


async def test_a_real_servers_parallel_slots_become_its_limit_in_hosts(engine):
    """llama.cpp says how many calls it answers at once (/props: total_slots); with no host_max_in_flight, that is
    the pool's limit for the host, not a constant of ours."""
    from assistant.models.hosts import HostPool
    from assistant.models.openai_compat import OpenAIBackend

    base, key = engine
    backend = OpenAIBackend(base, key, timeout=30)
    assert await backend.slots() == 1  # the engine server runs one slot (n_parallel = 1)
    pool = HostPool([(base, backend)])
    host = await pool._acquire([])
    await pool._release(host)
    assert host.limit == host.ceiling == 1
    await backend.aclose()


async def test_an_image_for_a_text_only_model_is_one_line_and_the_next_is_not_sent(served):
    """llama.cpp's server without a vision projector refuses the image; that is said as the model not seeing, and
    remembered, so the next image question is told before anything is sent."""
    from conftest import png

    from assistant.errors import NoVision

    calls = len(served.store.logs(0))
    for _ in range(2):
        with pytest.raises(NoVision) as refused:
            await served.ask("What is in it?", images=[png()])
        assert "smollm2 cannot see images" in refused.value.message and "qwen2.5vl" in refused.value.hint
    turns = served.store.logs(0)[calls:]
    assert len(turns) == 2 and not any(t["ok"] for t in turns)
    sent = [len(served.store.turn(t["id"])["model_calls"]) for t in turns]
    assert sent[0] >= 1 and sent[1] == 0  # refused by the server once; then known, and not sent again
