"""`assistant doctor` against the fake Ollama, and backend selection."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import cli_env, closed_port
from fake_ollama import Script

from assistant.errors import OllamaUnreachable
from assistant.models import embedded


def doctor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``assistant doctor`` as a user runs it (a whole process: the tests calling it are in the slow tier)."""
    return subprocess.run([sys.executable, "-m", "assistant", "doctor", *args], env=env, capture_output=True,
                          text=True, timeout=60)


def env_for(home, fake=None, **more):
    return cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL=f"http://127.0.0.1:{closed_port()}", **more)


@pytest.mark.slow
def test_all_good(home, fake):
    p = doctor(env_for(home, fake))
    assert p.returncode == 0, p.stdout
    assert "✓ ollama: reachable" in p.stdout and "version 0.12.6" in p.stdout
    assert "✓ model qwen2.5:3b: installed (router, executor, validator, responder)" in p.stdout
    assert "✓ database" in p.stdout and "! weather service" in p.stdout and p.stdout.rstrip().endswith("ready to answer")


@pytest.mark.parametrize("size, setting, said", [
    ("3.1B", "auto", "model trust: qwen2.5:3b: trusted (trusted: what is provably wrong is held back; 3.1B parameters, "
     "as the server reports it; model_trust = auto; the setting model_trust changes it)"),
    ("494.03M", "auto", "model trust: qwen2.5:3b: held to small talk (a small model (0.49B parameters) answers small "
     "talk only; 0.49B parameters, as the server reports it; model_trust = auto"),
    ("494.03M", "trusted", "model trust: qwen2.5:3b: trusted (trusted by the setting model_trust"),
])
async def test_doctor_says_which_trust_the_model_gets_and_why(fake, tmp_path, size, setting, said):
    from assistant.config import Settings
    from assistant.frontends.doctor import check_trust

    fake.sizes["qwen2.5:3b"] = size
    checks = await check_trust(Settings(backend="ollama", ollama_host=fake.url, model_trust=setting))
    assert len(checks) == 1 and said in f"{checks[0].name}: {checks[0].detail}", checks


@pytest.mark.slow
def test_a_missing_model_stops_answers(home, fake):
    fake.models = {"qwen2.5:3b": ["completion", "tools"]}
    p = doctor(env_for(home, fake, ASSISTANT_RESPONDER_MODEL="llama3.1:8b"))
    assert p.returncode == 1
    assert "✗ model llama3.1:8b: not installed (used by responder)" in p.stdout and "→ assistant models pull llama3.1:8b" in p.stdout


@pytest.mark.slow
def test_a_model_without_tools_is_a_warning(home, fake):
    fake.models = {"gemma2:2b": ["completion"]}
    p = doctor(env_for(home, fake, ASSISTANT_MODEL="gemma2:2b"))
    assert p.returncode == 0 and "! model gemma2:2b" in p.stdout and "JSON-schema" in p.stdout


@pytest.mark.slow
def test_ollama_down(home):
    p = doctor(env_for(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}"), "--json")
    assert p.returncode == 1
    report = json.loads(p.stdout)
    ollama = next(c for c in report["checks"] if c["name"] == "ollama")
    assert not report["ok"] and ollama["level"] == "fail" and "ollama serve" in ollama["fix"]


@pytest.mark.slow
def test_a_broken_config_is_a_finding_and_the_rest_is_still_checked(home, fake):
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text('modle = "qwen3:4b"\n')
    p = doctor(env_for(home, fake))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stdout.startswith("✗ settings: unknown setting 'modle'") and "(did you mean 'model'?)" in p.stdout
    assert "✓ ollama: reachable" in p.stdout and "✓ database" in p.stdout  # checked all the same
    assert "Error" not in p.stdout  # sentences, not exception class names
    p = doctor(env_for(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}"))
    assert "connection refused" in p.stdout and "ClientConnectorError" not in p.stdout


async def test_auto_uses_ollama_when_it_answers(fake, make_app):
    fake.handler = Script(router={"route": "chat"}, responder="hi")
    app = make_app(backend="auto")
    result = await app.ask("hello")
    assert result.ok and app.backend.name == "ollama"


async def test_auto_without_ollama_or_embedded_says_how_to_get_either(make_app, monkeypatch):
    monkeypatch.setattr(embedded, "available", lambda: False)
    app = make_app(backend="auto", ollama_host=f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(OllamaUnreachable) as info:
        await app.ask("hello")
    assert "ollama serve" in info.value.one_line() and "assistant[embedded]" in info.value.one_line()
    assert (await app.ask("2^10")).answer == "2^10 = 1024"  # the rules still answer


@pytest.mark.parametrize("embedded_answers", [True, False])
async def test_in_auto_ollama_down_stops_answers_only_when_nothing_else_answers(monkeypatch, embedded_answers):
    from assistant.config import Settings
    from assistant.models.select import backend_checks

    monkeypatch.setattr(embedded, "usable", lambda settings: embedded_answers)
    checks = await backend_checks(Settings(backend="auto", ollama_host=f"127.0.0.1:{closed_port()}"))
    ollama = next(c for c in checks if c.name == "ollama")
    assert (ollama.level, ollama.blocking) == (("warn", False) if embedded_answers else ("fail", True))
    assert [c.name for c in checks].count("embedded backend") == 1
