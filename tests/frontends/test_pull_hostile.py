"""A registry, a hub and a model file are remote parties: what they serve is checked before it is trusted, and what
they say reaches a terminal cleaned. A loopback registry serves what a hostile party could (escape sequences in a
licence, sizes that lie, an empty layer, a trickle, a digest that is a path), and a hostile GGUF nests its
metadata thousands deep; each is met with one clear line, nothing written beyond a declared size, nothing hung, no
internal error, and no control sequence on the screen."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, closed_port
from fake_registry import FakeRegistry, digest_of

from assistant.models import gguf

pytestmark = pytest.mark.slow

# What a terminal obeys: ESC sequences (OSC 52 clipboard, a title, a screen clear, CSI), C1 controls and bidi controls.
HOSTILE = ("Apache License\x1b]52;c;cm0gLXJmIH4=\x07 \x1b]0;pwned\x07\x1b[2J\x1b[H\x9b31m\u202egnp.exe\u202c"
           "\x1bP+q\x1b\\ Version 2.0\r\nmore\x90dcs\x9c\x07")
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
MODEL = b"GGUF" + b"\x00" * 4096  # a model layer's bytes (never loaded here)


@pytest.fixture
def registry():
    server = FakeRegistry().start()
    try:
        yield server
    finally:
        server.stop()


def run(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def offline(home: Path, registry: FakeRegistry, **extra: str) -> dict[str, str]:
    return cli_env(home, **{"ASSISTANT_BACKEND": "embedded", "OLLAMA_HOST": f"http://127.0.0.1:{closed_port()}",
                            "ASSISTANT_MODELS": str(home.parent / "models"), "ASSISTANT_MODEL_REGISTRY": registry.url,
                            "ASSISTANT_HF_REGISTRY": registry.url, **extra})


def one_clean_line(done: subprocess.CompletedProcess[str], *said: str) -> str:
    """The failure's last line: what it says, with no traceback, no internal error and no control character."""
    assert done.returncode not in (0, 1), done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert not CONTROLS.search(done.stdout + done.stderr.replace("\r", "").replace("\n", "")), done.stderr
    last = done.stderr.strip().splitlines()[-1]
    for words in said:
        assert words in last, last
    return last


def pulled(home: Path) -> list[Path]:
    folder = home.parent / "models" / "pulled"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_a_licence_full_of_escape_sequences_reaches_neither_the_screen_nor_the_disk(home, registry):
    registry.add("library/tiny:1", MODEL, license_text=HOSTILE)
    done = run(offline(home, registry), "models", "pull", "tiny:1")
    assert done.returncode == 0, done.stderr
    assert not CONTROLS.search(done.stderr.replace("\n", "")), done.stderr
    assert "licence: Apache License" in done.stderr and "Version 2.0" in done.stderr
    kept = (home.parent / "models" / "pulled" / "tiny-1.license.txt").read_text()
    assert "Apache License" in kept and not CONTROLS.search(kept.replace("\n", ""))
    listed = run(offline(home, registry), "models")
    assert not CONTROLS.search((listed.stdout + listed.stderr).replace("\n", ""))


def test_what_an_ollama_server_says_while_it_pulls_is_shown_cleaned(home, fake):
    fake.pullable = {"qwen2.5:1.5b": ["completion", "tools"]}
    fake.pull_status = "pulling manifest\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b1m\u202eedoc"
    done = run(cli_env(home, fake), "models", "pull", "qwen2.5:1.5b")
    assert done.returncode == 0 and "qwen2.5:1.5b: success" in done.stderr, done.stderr
    assert not CONTROLS.search(done.stderr.replace("\n", "").replace("\r", "")), done.stderr
    fake.pull_status = None
    failed = run(cli_env(home, fake), "models", "pull", "nosuch:7b\x1b]0;x\x07")
    assert failed.returncode == 2 and not CONTROLS.search(failed.stderr.replace("\n", ""))


def test_a_layer_larger_than_it_declared_is_cut_at_its_declared_size(home, registry):
    digest = registry.add("library/tiny:1", MODEL)
    registry.extra[digest] = b"\0" * (8 << 20)  # 8 MB more than the manifest says
    done = run(offline(home, registry), "models", "pull", "tiny:1")
    one_clean_line(done, "sent more than the 4 KB it declared", "deleted")
    assert pulled(home) == []  # nothing kept, nothing registered


def test_a_licence_served_beyond_its_declared_size_is_not_read_whole(home, registry):
    registry.add("library/tiny:1", MODEL, license_text="MIT License")
    licence = next(layer for layer in registry.manifest("library/tiny:1")["layers"] if "license" in layer["mediaType"])
    registry.extra[licence["digest"]] = b"x" * (64 << 20)
    done = run(offline(home, registry), "models", "pull", "tiny:1")
    one_clean_line(done, "licence", "larger than")
    assert pulled(home) == []


@pytest.mark.parametrize("layer, words", [
    ({"size": 0}, "declares an empty model file"),
    ({"digest": "sha256:../../../../etc/passwd"}, "not a SHA-256 digest"),
    ({"digest": "sha256:" + "A" * 64}, "not a SHA-256 digest"),
    ({"digest": "md5:" + "0" * 32}, "not a SHA-256 digest"),
    ({"size": -5}, "no size"),
    ({"size": "12"}, "no size"),
])
def test_a_manifest_that_lies_about_its_model_layer_is_one_line_before_any_download(home, registry, layer, words):
    registry.add("library/tiny:1", MODEL)
    manifest = registry.manifest("library/tiny:1")
    manifest["layers"][0] = {**manifest["layers"][0], **layer}
    done = run(offline(home, registry), "models", "pull", "tiny:1")
    one_clean_line(done, words)
    assert not [p for p, _ in registry.requests if "/blobs/" in p or "/cdn/" in p]  # no request named it
    assert pulled(home) == []


def test_a_licence_digest_that_is_a_path_is_never_asked_for(home, registry):
    registry.add("library/tiny:1", MODEL)
    manifest = registry.manifest("library/tiny:1")
    manifest["layers"][1]["digest"] = "sha256:..%2f..%2fadmin"
    done = run(offline(home, registry), "models", "pull", "tiny:1")
    one_clean_line(done, "licence", "not a SHA-256 digest")
    assert not [p for p, _ in registry.requests if "admin" in p]


def test_a_huge_manifest_is_refused_unread(home, registry):
    registry.add("library/tiny:1", MODEL)
    manifest = registry.manifest("library/tiny:1")
    manifest["padding"] = "x" * (4 << 20)
    done = run(offline(home, registry), "models", "pull", "tiny:1")
    one_clean_line(done, "manifest", "larger than")


def test_a_server_that_trickles_is_given_up_on_and_what_came_is_kept(home, registry):
    digest = registry.add("library/tiny:1", MODEL)
    registry.trickle = 0.2  # a byte every 0.2 s: alive, and never done
    env = offline(home, registry, ASSISTANT_PULL_MIN_RATE="100", ASSISTANT_PULL_RATE_WINDOW="2")
    done = run(env, "models", "pull", "tiny:1", timeout=60)
    one_clean_line(done, "sent less than 100 B/s for 2 s", "resumes")
    partial = home.parent / "models" / "pulled" / "tiny-1.partial"
    assert 0 < partial.stat().st_size < len(MODEL)  # kept for the next run to resume from
    registry.trickle = None
    again = run(env, "models", "pull", "tiny:1")
    assert again.returncode == 0, again.stderr
    assert registry.blob_requests(digest)[-1] == f"bytes={partial.stat().st_size if partial.exists() else 0}-" \
        or (home.parent / "models" / "pulled" / "tiny-1.gguf").read_bytes() == MODEL


def test_a_registry_address_that_is_no_registry_is_refused(home, registry):
    env = offline(home, registry, ASSISTANT_MODEL_REGISTRY="file:///etc")
    done = run(env, "models", "pull", "tiny:1")
    one_clean_line(done, "ASSISTANT_MODEL_REGISTRY", "http")


# A model file on disk ------------------------------------------------------------------------------------------------


def gguf_file(path: Path, kvs: list[bytes]) -> Path:
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path


def text(s: str) -> bytes:
    data = s.encode()
    return struct.pack("<Q", len(data)) + data


def nested(depth: int) -> bytes:
    """A value: arrays of arrays ``depth`` deep (each holding the next)."""
    return struct.pack("<I", 9) + b"".join(struct.pack("<IQ", 9, 1) for _ in range(depth - 1)) \
        + struct.pack("<IQ", 4, 0)


@pytest.mark.parametrize("kvs, why", [
    ([text("general.architecture") + nested(5000)], "nests arrays deeper"),
    ([text("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1 << 40)], "more items"),
    ([text("x" * 10) + struct.pack("<I", 8) + struct.pack("<Q", 1 << 50)], "implausibly long"),
    ([text("a") + struct.pack("<I", 77)], "unknown metadata type"),
], ids=["deep", "huge-count", "huge-string", "unknown-type"])
def test_a_model_files_header_is_read_within_limits(tmp_path, kvs, why):
    path = gguf_file(tmp_path / "hostile.gguf", kvs)
    with pytest.raises(ValueError, match=why):
        gguf.metadata(str(path), {"tokenizer.chat_template"})
    assert "cannot be read as a model file" in (gguf.chat_template_problem(str(path)) or "")
    assert gguf.size_label(str(path)) is None


def test_a_model_files_strings_are_cleaned(tmp_path):
    path = gguf_file(tmp_path / "m.gguf", [text("general.size_label") + struct.pack("<I", 8) + text("1B\x1b]0;x\x07"),
                                           text("tokenizer.chat_template") + struct.pack("<I", 8) + text("{{x}}")])
    assert gguf.size_label(str(path)) == "1B"
    assert gguf.chat_template_problem(str(path)) is None


def test_a_hostile_model_file_is_one_line_in_models_doctor_and_ask(home, tmp_path):
    path = gguf_file(tmp_path / "deep.gguf", [text("general.architecture") + nested(20000)])
    env = cli_env(home, ASSISTANT_BACKEND="embedded", ASSISTANT_EMBEDDED_MODEL=str(path))
    for args in (("models",), ("doctor",), ("ask", "--no-daemon", "tell me a story")):
        done = run(env, *args)
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, (args, done.stderr)
        assert not CONTROLS.search((done.stdout + done.stderr).replace("\n", "")), (args, done.stderr)
    import importlib.util

    # without the engine (the README's own test install) the answer is that line, before any file is read
    said = "cannot be read as a model file" if importlib.util.find_spec("xllamacpp") else "backend is not installed"
    assert said in done.stderr and done.returncode not in (0, 1)


def test_the_fake_serves_what_it_declares_unless_told_otherwise(registry):
    """The hostile cases above are the fake's choice, not its habit."""
    digest = registry.add("library/tiny:1", MODEL)
    assert digest == digest_of(MODEL) and registry.manifest("library/tiny:1")["layers"][0]["size"] == len(MODEL)
