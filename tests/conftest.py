from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

# The project first (tests/tools must not shadow the tools package when pytest runs without the project on sys.path),
# then the helpers and the fakes.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).parent), str(Path(__file__).parent / "fakes")]
# The embedded model file (98 MB) is fetched once per machine and shared by every test's home; .ci/run fetches it.
os.environ.setdefault("ASSISTANT_MODELS", str(Path.home() / ".cache" / "assistant-test-models"))
KEEP_ENV = ("ASSISTANT_HOME", "ASSISTANT_MODELS")

from fake_ollama import FakeOllama, Script  # noqa: E402
from fake_open_meteo import FakeOpenMeteo  # noqa: E402

from assistant.app import build_assistant, build_registry  # noqa: E402
from assistant.config import Settings  # noqa: E402
from assistant.models.function import FunctionBackend, RoleScript  # noqa: E402
from assistant.paths import Paths  # noqa: E402
from assistant.pipeline import language_id  # noqa: E402
from assistant.pipeline.turn import Assistant  # noqa: E402
from assistant.store import Store  # noqa: E402
from tools import InProcessRunner  # noqa: E402


def closed_port() -> int:
    """A loopback port nothing listens on (a server that is down)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(scope="session")
def gazetteer_index(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The place index is built once per test session (it takes a few seconds) and shared."""
    from tools.gazetteer import build_index

    path = tmp_path_factory.mktemp("gazetteer") / "gazetteer.sqlite"
    build_index(path)
    return str(path)


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    server = FakeOllama(Script()).start()
    try:
        yield server
    finally:
        server.stop()
    assert server.violations == [], server.violations


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ASSISTANT_HOME", str(tmp_path / "home"))
    for k in list(os.environ):
        if k.startswith("ASSISTANT_") and k not in KEEP_ENV:
            monkeypatch.delenv(k)
    return tmp_path / "home"


def paths_under(root: Path) -> Paths:
    return Paths(root / "config", root / "data", root / "cache", root / "log")


def first_turn(root: Path, question: str, **settings: Any) -> Any:
    """The context of ``question`` as a first turn (a ``TurnContext``), with the built-in tools over a state folder
    under ``root``: no model, no server."""
    from assistant.pipeline.context import TurnContext
    from assistant.trace import Trace

    chosen = Settings(**settings)
    return TurnContext(chosen, None, build_registry(chosen, paths_under(root)), None, question, [], Trace())  # type: ignore[arg-type]


def by_rule(root: Path, question: str, **settings: Any) -> Any:
    """What the rule tier decides for ``question`` as a first turn (a ``RouteDecision``, or ``None``: the model's),
    with the built-in tools over a state folder under ``root``: no model, no server."""
    from assistant.pipeline import router

    return router.by_rule(first_turn(root, question, **settings))


@pytest.fixture
async def make_app(fake: FakeOllama, tmp_path: Path, gazetteer_index: str):
    """Build the real app (Ollama backend, registry, store) pointed at the fake server. Tools run
    in-process unless ``sandboxed=True``: the sandbox has its own tests, and a worker's cold start would
    double the time of every test here."""
    apps: list[Assistant] = []

    def make(sandboxed: bool = False, **overrides: Any) -> Assistant:
        overrides.setdefault("ollama_host", fake.url)
        overrides.setdefault("gazetteer_index", gazetteer_index)
        overrides.setdefault("backend", "ollama")  # these tests are about the Ollama path; selection has its own
        settings = Settings(transport_backoff=0.01, **overrides)
        runner = None if sandboxed else InProcessRunner(settings.tool_timeout)
        app = build_assistant(settings, paths_under(tmp_path / "state"), runner=runner)
        apps.append(app)
        return app

    yield make
    for app in apps:
        await app.aclose()


@pytest.fixture
def meteo() -> Iterator[FakeOpenMeteo]:
    """A fake Open-Meteo (forecast and geocoding) on loopback."""
    server = FakeOpenMeteo().start()
    yield server
    server.stop()


@pytest.fixture
def weather_app(make_app, meteo: FakeOpenMeteo):
    """``make_app`` with the weather tool pointed at the fake Open-Meteo."""
    def make(sandboxed: bool = False, **overrides: Any) -> Assistant:
        overrides.setdefault("clock", meteo.now.isoformat())
        return make_app(sandboxed, weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url, **overrides)

    return make


@pytest.fixture
def model() -> FunctionBackend:
    """An in-process model scripted per role (``model.fn = RoleScript(router=..., responder=...)``)."""
    return FunctionBackend(RoleScript())


@pytest.fixture
async def scripted_app(model: FunctionBackend, meteo: FakeOpenMeteo, tmp_path: Path, gazetteer_index: str):
    """The pipeline with the in-process ``model`` and tools run in-process: its logic, with no model server."""
    apps: list[Assistant] = []

    def make(**overrides: Any) -> Assistant:
        overrides.setdefault("clock", meteo.now.isoformat())
        settings = Settings(weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url,
                            gazetteer_index=gazetteer_index, **overrides)
        paths = paths_under(tmp_path / "state")
        paths.ensure()
        language_id.use_cache(paths.cache_dir)  # as build_assistant does: never the user's own cache folder
        app = Assistant(settings, model, build_registry(settings, paths), InProcessRunner(), Store(paths.database))
        apps.append(app)
        return app

    yield make
    for app in apps:
        await app.aclose()


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted tool call for the in-process model."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def cli_env(home: Path, fake: FakeOllama | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_")) or k in KEEP_ENV}
    env["ASSISTANT_HOME"] = str(home)
    env["ASSISTANT_TRANSPORT_BACKOFF"] = "0.01"
    env["ASSISTANT_BACKEND"] = "ollama"
    if fake is not None:
        env["OLLAMA_HOST"] = fake.url
    env.update(extra)
    return env


def png(width: int = 2, height: int = 2) -> bytes:
    """A real PNG file (grey pixels), as a camera or a screenshot tool writes one."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

