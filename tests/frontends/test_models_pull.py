"""`assistant models pull NAME`: with Ollama, Ollama pulls and its progress is shown; without it, the GGUF is fetched
for the embedded engine from a registry speaking as Ollama's and Hugging Face's do (a loopback one serving the
built-in model's real file): size, destination and licence first, resumable after a dropped connection, verified
against the digest, then offered as the default. `models list` shows it; `models rm` removes it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, closed_port
from fake_registry import FakeRegistry

from assistant.errors import ConfigError, ModelError
from assistant.models import model_file
from assistant.models.registry import ModelName, Plan, Registry


@pytest.fixture(scope="module")
def gguf() -> bytes:
    path = model_file.local_path()
    if path is None:
        pytest.skip("the built-in model file is not here (python -m assistant.models.model_file fetches it)")
    return path.read_bytes()


@pytest.fixture
def registry():
    server = FakeRegistry().start()
    try:
        yield server
    finally:
        server.stop()
    assert server.violations == [], server.violations


def run(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True,
                          input=stdin, timeout=180)


def offline(home: Path, registry: FakeRegistry, **extra: str) -> dict[str, str]:
    """No Ollama (backend auto finds nobody at OLLAMA_HOST): a pull is for the embedded engine."""
    return cli_env(home, **{"ASSISTANT_BACKEND": "auto", "OLLAMA_HOST": f"http://127.0.0.1:{closed_port()}",
                            "ASSISTANT_MODELS": str(home.parent / "models"), "ASSISTANT_MODEL_REGISTRY": registry.url,
                            "ASSISTANT_HF_REGISTRY": registry.url, **extra})


@pytest.mark.parametrize("text, host, namespace, model, tag, shown", [
    ("qwen2.5:1.5b", "registry.ollama.ai", "library", "qwen2.5", "1.5b", "qwen2.5:1.5b"),
    ("llama3.2", "registry.ollama.ai", "library", "llama3.2", "latest", "llama3.2:latest"),
    ("jmorgan/tiny:q4", "registry.ollama.ai", "jmorgan", "tiny", "q4", "jmorgan/tiny:q4"),
    ("hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "hf.co", "bartowski", "Llama-3.2-1B-Instruct-GGUF",
     "Q4_K_M", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M"),
    ("huggingface.co/org/repo", "hf.co", "org", "repo", "latest", "hf.co/org/repo:latest"),
])
def test_names_are_read_as_ollama_reads_them(text, host, namespace, model, tag, shown):
    name = ModelName.parse(text)
    assert (name.host, name.namespace, name.model, name.tag, str(name)) == (host, namespace, model, tag, shown)


@pytest.mark.parametrize("text", ["", "a/b/c/d", "qwen 2.5", "model:tag:more!", "/qwen"])
def test_a_name_that_is_no_name_is_one_line(text):
    with pytest.raises(ConfigError, match="is not a model name"):
        ModelName.parse(text)


def test_pull_for_the_embedded_engine_list_use_and_remove(home, registry, gguf):
    digest = registry.add("library/smollm2:135m", gguf)
    env = offline(home, registry)
    pulled = run(env, "models", "pull", "smollm2:135m", "--yes")
    assert pulled.returncode == 0, pulled.stderr
    err = pulled.stderr
    assert f"pulling smollm2:135m for the embedded engine: {len(gguf) / 1e6:.0f} MB from {registry.url}" in err
    assert "licence: Apache License" in err and f"verified {digest[:19]}" in err
    assert "smollm2:135m: 0% of" in err and "smollm2:135m: 100% of" in err  # a line a quarter, not a terminal
    file = home.parent / "models" / "pulled" / "smollm2-135m.gguf"
    assert file.read_bytes() == gguf and not list(file.parent.glob("*.partial"))
    config = Path(err.split('model = "smollm2:135m" in ')[1].splitlines()[0])  # made the default, as asked
    assert config.is_relative_to(home) and 'model = "smollm2:135m"' in config.read_text()
    assert registry.blob_requests(digest) == [None]  # the model layer once, whole

    embedded = importlib.util.find_spec("xllamacpp") is not None  # without the engine, `models` lists Ollama's only
    if embedded:
        listed = run(env, "models")
        assert listed.returncode == 0 and "smollm2:135m" in listed.stdout and "* smollm2:135m" in listed.stdout

    again = run(env, "models", "pull", "smollm2:135m")  # nothing to fetch twice
    assert again.returncode == 0 and "is here already" in again.stderr and registry.blob_requests(digest) == [None]

    removed = run(env, "models", "rm", "smollm2:135m")
    assert removed.returncode == 0 and "removed smollm2:135m" in removed.stderr and not file.exists()
    assert not embedded or "smollm2:135m" not in run(env, "models").stdout


def test_a_dropped_download_resumes_where_it_stopped(home, registry, gguf):
    digest = registry.add("library/smollm2:135m", gguf)
    env = offline(home, registry)
    registry.cut_after = 30 << 20
    cut = run(env, "models", "pull", "smollm2:135m")
    assert cut.returncode == 3 and "Traceback" not in cut.stderr
    assert "resumes where it stopped" in cut.stderr and len(cut.stderr.strip().splitlines()[-1]) < 400
    partial = home.parent / "models" / "pulled" / "smollm2-135m.partial"
    assert partial.stat().st_size == 30 << 20 and not list(partial.parent.glob("*.json"))  # not registered
    done = run(env, "models", "pull", "smollm2:135m")
    assert done.returncode == 0, done.stderr
    assert "resuming at 31 MB" in done.stderr
    assert registry.blob_requests(digest) == [None, f"bytes={30 << 20}-"]
    assert (home.parent / "models" / "pulled" / "smollm2-135m.gguf").read_bytes() == gguf


def test_a_download_that_does_not_match_its_digest_is_deleted(home, registry, gguf):
    registry.add("library/smollm2:135m", gguf)
    registry.corrupt = True
    failed = run(offline(home, registry), "models", "pull", "smollm2:135m")
    assert failed.returncode == 6 and "does not match the registry's digest" in failed.stderr
    assert "assistant models pull smollm2:135m" in failed.stderr
    assert not any((home.parent / "models" / "pulled").iterdir())  # no file, no partial, no record


def test_a_hugging_face_gguf_by_its_quantization(home, registry, gguf):
    registry.add("bartowski/SmolLM2-135M-Instruct-GGUF:Q4_1", gguf, license_text="MIT License")
    env = offline(home, registry)
    pulled = run(env, "models", "pull", "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:q4_1", "--to", "embedded")
    assert pulled.returncode == 0, pulled.stderr
    assert "licence: MIT License" in pulled.stderr and "To answer with it: assistant models default" in pulled.stderr
    record = json.loads((home.parent / "models" / "pulled" / "hf.co_bartowski_smollm2-135m-instruct-gguf-q4_1.json")
                        .read_text())
    assert record["name"] == "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:q4_1"


def test_an_unknown_model_is_one_line(home, registry):
    failed = run(offline(home, registry), "models", "pull", "nosuchmodel:7b")
    assert failed.returncode == 4 and "nosuchmodel:7b is not in the registry" in failed.stderr
    assert "ollama.com/library" in failed.stderr and "Traceback" not in failed.stderr


async def test_free_space_is_checked_before_a_byte_is_fetched(tmp_path):
    from assistant.config import Settings

    free = shutil.disk_usage(tmp_path).free
    plan = Plan(ModelName.parse("huge:1t"), "http://127.0.0.1:9/none", "sha256:" + "0" * 64, free * 2, 0, "",
                tmp_path / "huge-1t.gguf")
    with pytest.raises(ModelError, match=f"huge:1t needs .* free in {tmp_path}"):
        Registry(Settings(), "huge:1t").check_space(plan)


# With Ollama: Ollama pulls


def test_ollama_pulls_with_its_progress_shown(home, fake):
    fake.pullable = {"qwen2.5:1.5b": ["completion", "tools"]}
    env = cli_env(home, fake)
    pulled = run(env, "models", "pull", "qwen2.5:1.5b", "--yes")
    assert pulled.returncode == 0, pulled.stderr
    assert "qwen2.5:1.5b: pulling manifest" in pulled.stderr and "qwen2.5:1.5b: success" in pulled.stderr
    assert "pulling qwen2.5:1.5b: 100% of 2.0 MB" in pulled.stderr
    assert "qwen2.5:1.5b" in fake.models
    listed = run(env, "models")
    assert "* qwen2.5:1.5b" in listed.stdout and "tools" in listed.stdout


def test_ollama_without_the_model_is_one_line(home, fake):
    failed = run(cli_env(home, fake), "models", "pull", "nosuch:7b")
    assert failed.returncode == 4 and "Ollama has no model nosuch:7b to pull" in failed.stderr


def test_ctrl_c_leaves_nothing_half_registered(home, fake):
    fake.pullable = {"qwen2.5:1.5b": ["completion", "tools"]}
    fake.pull_delay = 0.2
    from processes import as_at_a_terminal

    proc = subprocess.Popen([sys.executable, "-m", "assistant", "models", "pull", "qwen2.5:1.5b"],
                            env=cli_env(home, fake), stderr=subprocess.PIPE, text=True, preexec_fn=as_at_a_terminal)
    assert proc.stderr is not None
    assert "pulling manifest" in proc.stderr.readline()
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    assert proc.wait(30) == 130 and "interrupted" in rest and "Traceback" not in rest
    deadline = time.monotonic() + 10
    while fake.pulls_cancelled == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.pulls_cancelled == 1 and "qwen2.5:1.5b" not in fake.models


@pytest.mark.slow
def test_the_pulled_model_answers(home, registry, gguf):
    pytest.importorskip("xllamacpp")
    registry.add("library/smollm2:135m", gguf)
    env = offline(home, registry, ASSISTANT_EMBEDDED_THREADS="1")
    assert run(env, "models", "pull", "smollm2:135m", "--yes").returncode == 0
    answered = run(env, "ask", "--json", "Hello!")
    assert answered.returncode == 0, answered.stderr
    import json

    result = json.loads(answered.stdout)
    assert result["ok"] and result["answer"]
    assert "smollm2:135m" in run(env, "doctor").stdout
    assert os.environ.get("ASSISTANT_MODELS") != env["ASSISTANT_MODELS"]  # the shared model folder was not touched


@pytest.mark.slow
def test_the_chat_offers_the_capable_model_when_the_built_in_one_declines(home, registry, gguf, gazetteer_index):
    """In a terminal, once a session: the decline names /pull, a command the user chooses (no key is read off the
    next question), which pulls it and asks the question again with it. (The registry's 'qwen2.5:3b' is the small
    file again, so that model declines too, by name; a real one would answer.)"""
    pytest.importorskip("xllamacpp")
    from tmux import Terminal

    if not Terminal.available():
        pytest.skip("tmux is not installed")
    registry.add("library/qwen2.5:3b", gguf)
    env = offline(home, registry, ASSISTANT_EMBEDDED_THREADS="1", ASSISTANT_GAZETTEER_INDEX=gazetteer_index,
                  TERM="xterm-256color", PATH=os.environ.get("PATH", ""), HOME=str(home))
    models = Path(env["ASSISTANT_MODELS"])
    models.mkdir(parents=True)
    (models / model_file.GGUF).write_bytes(gguf)  # the built-in model, in this test's own folder
    term = Terminal([sys.executable, "-m", "assistant", "chat"], env)
    try:
        term.wait_for("· /help", timeout=60)
        term.type("Who wrote Pride and Prejudice?")
        term.wait_for("/pull gets qwen2.5:3b (1.9 GB) now and asks this again with it.", timeout=60)
        assert "the built-in model is too small" in term.screen()
        term.type("yes, who wrote it?")  # a question that starts with y is a question: nothing is pulled
        term.wait_for("yes, who wrote it?", timeout=10)
        term.wait_for("the built-in model is too small", after=1, timeout=60)
        assert not (models / "pulled").exists()
        term.type("/pull")
        term.wait_for("qwen2.5:3b answers from now on; asking again.", timeout=60)
        term.wait_for("Sorry, qwen2.5:3b is too small to answer this reliably", timeout=60)
        assert (models / "pulled" / "qwen2.5-3b.gguf").read_bytes() == gguf
        term.type("What is the capital of France?")
        term.wait_for("Sorry, qwen2.5:3b is too small to answer this reliably", after=1, timeout=60)
        time.sleep(1)
        assert term.screen().count("/pull gets qwen2.5:3b") == 1  # said once a session
    finally:
        term.close()


@pytest.mark.slow
def test_a_running_daemon_answers_with_the_model_just_pulled(home, registry, gguf, gazetteer_index):
    """The pull changes what `model` loads without a word of config: the daemon sees it at its next question."""
    pytest.importorskip("xllamacpp")
    from processes import Daemon

    registry.add("library/qwen2.5:3b", gguf)
    env = offline(home, registry, ASSISTANT_BACKEND="embedded", ASSISTANT_EMBEDDED_THREADS="1",
                  ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    models = Path(env["ASSISTANT_MODELS"])
    models.mkdir(parents=True)
    (models / model_file.GGUF).write_bytes(gguf)
    daemon = Daemon(home, env).start()
    try:
        before = run(env, "ask", "--debug", "Who wrote Hamlet?")
        assert "answered by the daemon" in before.stderr and "the built-in model is too small" in before.stdout
        assert run(env, "models", "pull", "qwen2.5:3b").returncode == 0  # `model` names it already
        after = run(env, "ask", "--debug", "Who wrote Hamlet?")
        assert "answered by the daemon" in after.stderr, after.stderr
        assert "Sorry, qwen2.5:3b is too small" in after.stdout  # the pulled model's own decline, by name
        assert "settings reloaded (a model was pulled)" in daemon.log()
    finally:
        daemon.stop()
