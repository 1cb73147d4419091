"""Files on disk and settings are read within bounds and shown cleaned: a template whose name or text carries
escape sequences, a FIFO where a template or an attachment should be, /dev/zero and an oversized file given with
-f, and settings with control characters, 100 KB values or an address of a scheme no backend speaks. Each is one
line, nothing hangs, and no control sequence reaches the terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env

from assistant.config import Settings
from assistant.config_file import parse_setting
from assistant.errors import ConfigError
from assistant.limits import MAX_TEXT, NotARegularFile, read_capped

CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ESCAPES = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x9b1m\u202e"


def run(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True,
                          input=stdin, timeout=60)


def clean(done: subprocess.CompletedProcess[str]) -> bool:
    return not CONTROLS.search((done.stdout + done.stderr).replace("\n", "").replace("\t", ""))


@pytest.fixture
def templates(home: Path) -> Path:
    folder = home / "config" / "templates"
    folder.mkdir(parents=True)
    return folder


@pytest.mark.slow
def test_templates_with_escapes_in_their_names_and_texts_are_shown_cleaned(home, templates):
    (templates / f"evil{ESCAPES}.toml").write_text('system = "x"\n')
    toml_escapes = ESCAPES.replace("\x1b", "\\u001b").replace("\x07", "\\u0007").replace("\x9b", "\\u009b")
    (templates / "terse.toml").write_text(f'system = "Answer{toml_escapes} briefly"\n')
    env = cli_env(home)
    listed = run(env, "templates")
    assert listed.returncode == 0 and clean(listed), listed.stdout
    assert "terse" in listed.stdout and "Answer" in listed.stdout and "pwned" not in listed.stdout
    shown = run(env, "templates", "show", "terse")
    assert shown.returncode == 0 and clean(shown) and "briefly" in shown.stdout
    saved = run(env, "ask", "--save", "mine", "-s", f"Be kind{ESCAPES}.")
    assert saved.returncode == 0 and clean(saved) and "saved template mine" in saved.stdout


@pytest.mark.slow
def test_a_fifo_among_the_templates_hangs_nothing(home, templates):
    os.mkfifo(templates / "pipe.toml")
    (templates / "terse.toml").write_text('system = "Answer briefly"\n')
    env = cli_env(home)
    listed = run(env, "templates")  # a FIFO is no template: not listed, not opened
    assert listed.returncode == 0 and "terse" in listed.stdout and "pipe" not in listed.stdout
    used = run(env, "ask", "-t", "pipe", "2+3")
    assert used.returncode == 2 and "not a regular file" in used.stderr and "Traceback" not in used.stderr


def test_an_attachment_is_read_up_to_its_cap_and_only_from_a_regular_file(tmp_path):
    with pytest.raises(NotARegularFile):
        read_capped("/dev/zero", MAX_TEXT)  # refused before a byte is read
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile):
        read_capped(fifo, MAX_TEXT)  # no writer: opening it would wait for ever
    with pytest.raises(NotARegularFile):
        read_capped(tmp_path, MAX_TEXT)
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(64 << 20)  # sparse: 64 MB that take no disk
    assert len(read_capped(big, 1000)) == 1001


@pytest.mark.slow
@pytest.mark.parametrize("target, said", [
    ("/dev/zero", "not a regular file"),
    ("fifo", "not a regular file"),
    ("big.txt", "larger than 8 MB"),
])
def test_attachments_that_are_no_files_or_too_large_are_one_line(home, tmp_path, target, said):
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
    if target == "big.txt":
        with open(tmp_path / "big.txt", "wb") as f:
            f.truncate(200 << 20)
    path = target if target.startswith("/") else str(tmp_path / target)
    done = run(cli_env(home), "ask", "--no-daemon", "-f", path, "summarise this")
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_file_name_with_escapes_is_cleaned_where_it_is_shown(home, tmp_path):
    name = tmp_path / f"notes{ESCAPES}.txt"
    name.write_bytes(b"\xff\xfe not text")
    done = run(cli_env(home), "ask", "--no-daemon", "-f", str(name), "summarise")
    assert done.returncode != 0 and "is not UTF-8 text" in done.stderr and clean(done), done.stderr


@pytest.mark.parametrize("key, value, said", [
    ("ollama_host", "http://127.0.0.1:11434\n", "control characters"),
    ("ollama_host", "http://127.0.0.1:11434\x1b]0;x\x07", "control characters"),
    ("ollama_host", "http://" + "a" * 100_000, "at most 4096 characters"),
    ("ollama_host", "file:///var/run/ollama.sock", "http:// or https://"),
    ("model_registry", "file:///etc", "http:// or https://"),
    ("hf_registry", "ftp://mirror.example", "http:// or https://"),
    ("openai_base_url", "127.0.0.1:8080/v1", "http:// or https://"),
    ("weather_forecast_url", "javascript:alert(1)", "http:// or https://"),
    ("home_city", "Paris\u202e", "control characters"),
])
def test_settings_are_checked_at_the_boundary(key, value, said):
    with pytest.raises(ConfigError, match=re.escape(said)):
        parse_setting(key, value)


@pytest.mark.parametrize("value", ["127.0.0.1:11434", "0.0.0.0", "http://localhost:11434", "https://ollama.example/"])
def test_ollama_addresses_as_ollama_reads_them_still_work(value):
    assert Settings(ollama_host=value).ollama_host == value
    assert Settings(hosts=[value, "http://b:11434"]).hosts[0] == value


@pytest.mark.slow
def test_a_bad_address_in_the_environment_is_one_readable_line(home):
    done = run(cli_env(home, OLLAMA_HOST="http://x\x1b]0;pwned\x07" + "y" * 100_000), "ask", "2+3")
    assert done.returncode == 2 and "OLLAMA_HOST=" in done.stderr and "must " in done.stderr
    assert clean(done) and len(done.stderr) < 600
