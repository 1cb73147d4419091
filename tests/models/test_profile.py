"""Every backend fills the one declared description of its model (``ModelProfile``): the table below holds each
backend (and each wrapper) to it, against the same fakes the pipeline's tests use. A backend of
``select.BACKENDS`` without a row fails, named."""

from __future__ import annotations

import importlib.util
import struct
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest
from fake_ollama import FakeOllama

from assistant.config import Settings
from assistant.models.base import ModelProfile
from assistant.models.embedded import EmbeddedBackend
from assistant.models.function import FunctionBackend
from assistant.models.hosts import HostPool
from assistant.models.ollama import OllamaBackend
from assistant.models.select import BACKENDS, SelectedBackend
from assistant.models.thinking import WithoutThinking
from assistant.trace import RecordingModel, Trace

SOURCES = {"server", "file", "name", ""}


def gguf(path: Path, size_label: str) -> str:
    """A GGUF header alone, with the size its file says (what the profile reads; no engine loads it)."""
    entries = [(b"general.size_label", size_label.encode())]
    with open(path, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, len(entries)))
        for key, value in entries:
            f.write(struct.pack("<Q", len(key)) + key + struct.pack("<IQ", 8, len(value)) + value)
    return str(path)


def complete(profile: ModelProfile, backend: str) -> None:
    """What "filled" means: every field set as its type says, and consistent with the others."""
    assert isinstance(profile, ModelProfile)
    assert profile.label.strip() and profile.backend == backend
    assert profile.parameters_from in SOURCES
    assert (profile.parameters is None) == (profile.parameters_from == "")
    assert profile.languages is None or (profile.languages and all(len(code) == 2 for code in profile.languages))
    assert not profile.built_in or profile.languages is not None  # the built-in model's languages are known
    for flag in (profile.tools, profile.structured_output, profile.thinking, profile.vision, profile.built_in):
        assert isinstance(flag, bool)


Row = Callable[[Path, FakeOllama, ExitStack], Awaitable[tuple[Any, str, str, dict[str, Any]]]]


async def ollama(tmp: Path, fake: FakeOllama, stack: ExitStack):
    return OllamaBackend(fake.url, timeout=10), "qwen2.5:3b", "ollama", {"label": "qwen2.5:3b", "tools": True,
                                                             "parameters": 3.1e9, "parameters_from": "server"}


async def ollama_hosts(tmp: Path, fake: FakeOllama, stack: ExitStack):
    pool = HostPool([(fake.url, OllamaBackend(fake.url, timeout=10, transport_retries=0)),
                     (fake.url + "/", OllamaBackend(fake.url, timeout=10, transport_retries=0))])
    return pool, "qwen2.5:3b", "ollama", {"label": "qwen2.5:3b", "parameters_from": "server"}


async def selected(tmp: Path, fake: FakeOllama, stack: ExitStack):
    s = Settings(backend="ollama", ollama_host=fake.url)
    return SelectedBackend(s), "qwen2.5:3b", "ollama", {"label": "qwen2.5:3b", "parameters": 3.1e9}


async def recorded(tmp: Path, fake: FakeOllama, stack: ExitStack):
    return RecordingModel(OllamaBackend(fake.url, timeout=10), Trace()), "qwen2.5:3b", "ollama", {"label": "qwen2.5:3b"}


async def without_thinking(tmp: Path, fake: FakeOllama, stack: ExitStack):
    return WithoutThinking(OllamaBackend(fake.url, timeout=10)), "qwen2.5:3b", "ollama", {"tools": True}


async def embedded_own(tmp: Path, fake: FakeOllama, stack: ExitStack):
    path = gguf(tmp / "my-tiny-0.5b.gguf", "494M")
    return EmbeddedBackend(path), "ignored", "embedded", {"label": "my-tiny-0.5b", "built_in": False,
                                                          "parameters": 494e6, "parameters_from": "file"}


async def embedded_built_in(tmp: Path, fake: FakeOllama, stack: ExitStack):
    from assistant.models import model_file

    path = gguf(tmp / model_file.GGUF, "135M")
    return EmbeddedBackend(path), "ignored", "embedded", {"label": Path(model_file.GGUF).stem, "built_in": True,
                                                          "languages": frozenset({"en"}), "parameters": 135e6}


async def function(tmp: Path, fake: FakeOllama, stack: ExitStack):
    return FunctionBackend(lambda request: ""), "qwen2.5-7b-instruct", "function", {
        "label": "qwen2.5-7b-instruct", "parameters": 7e9, "parameters_from": "name"}


async def openai(tmp: Path, fake: FakeOllama, stack: ExitStack):
    if importlib.util.find_spec("openai") is None:
        pytest.skip("the openai extra is not installed")
    from fake_openai import FakeOpenAI

    from assistant.models.openai_compat import OpenAIBackend

    server = FakeOpenAI().start()
    stack.callback(server.stop)
    return OpenAIBackend(server.url + "/v1", None, timeout=10), "qwen2.5-3b-instruct", "openai", {
        "label": "qwen2.5-3b-instruct", "tools": True, "parameters": 3e9, "parameters_from": "name"}


ROWS: dict[str, tuple[str, Row]] = {  # a row: what it is, the backend it fills the profile of, how it is built
    "ollama": ("ollama", ollama), "ollama on two hosts": ("ollama", ollama_hosts),
    "selected (ollama)": ("ollama", selected), "recorded": ("ollama", recorded),
    "without thinking": ("ollama", without_thinking), "openai-compatible": ("openai", openai),
    "embedded, a GGUF of one's own": ("embedded", embedded_own),
    "embedded, the built-in model": ("embedded", embedded_built_in), "function (tests)": ("function", function)}


def test_every_backend_has_a_row():
    missing = sorted(set(BACKENDS) - {kind for kind, _ in ROWS.values()})
    assert not missing, f"no row of ROWS fills the model profile of {', '.join(missing)} (select.BACKENDS)"


@pytest.mark.parametrize("row", list(ROWS))
async def test_every_backend_fills_its_models_profile(row, tmp_path, fake):
    kind, build = ROWS[row]
    stack = ExitStack()
    backend, model, name, expected = await build(tmp_path, fake, stack)
    assert name == kind
    try:
        asked = len(fake.show_requests)
        known = await backend.profile(model, ask=False)
        complete(known, name)
        assert len(fake.show_requests) == asked  # known without asking the server (a header, a decline)
        described = await backend.profile(model)
        complete(described, name)
        assert known.label == described.label and known.built_in == described.built_in
        for field, value in expected.items():
            assert getattr(described, field) == value, field
    finally:
        await backend.aclose()
        stack.close()


async def test_a_server_that_does_not_say_a_size_gets_the_size_its_name_says(tmp_path, fake):
    fake.models["qwen2.5-0.5b-instruct"] = ["completion", "tools"]
    fake.sizes["qwen2.5-0.5b-instruct"] = ""  # as LM Studio and vLLM: no parameter_size
    backend = OllamaBackend(fake.url, timeout=10)
    try:
        described = await backend.profile("qwen2.5-0.5b-instruct")
        assert (described.parameters, described.parameters_from, described.size_said) == (0.5e9, "name",
                                                                                          "as its name says")
    finally:
        await backend.aclose()

