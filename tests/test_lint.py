"""The code stays clean of what a linter or a type checker can prove wrong, with the settings in pyproject.toml, at
zero findings: ruff (pyflakes' unused and undefined names, statement and syntax errors, bugbear's likely bugs) on
everything, and mypy with the pydantic plugin on assistant/ and tools/; and no import runs against the house's
direction, and no modules import each other in a loop (scripts/house.py says which way is up)."""

from __future__ import annotations

import importlib.util
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    p = subprocess.run([ruff, "check", "--output-format", "concise", "assistant", "tools", "tests", "scripts", "prompts"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_finds_nothing(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    p = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "assistant", "tools"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-1000:]


def test_no_import_runs_up_the_house():
    house = runpy.run_path(str(ROOT / "scripts" / "house.py"))
    assert house["arrows_up"]() == []
    assert house["circles"]() == []  # no modules import each other in a loop
    assert house["circles"]({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # what it would find: the store reading the pipeline's event types, a backend a stage's helper, a tool the app,
    # the pipeline a front end (late imports too); and what is allowed (the app over the pipeline, a stage a model)
    late = "def f():\n    from assistant.pipeline.events import EventAdapter\n"
    assert house["arrows_in"]("assistant/trace_store.py", late) == [
        "assistant/trace_store.py imports assistant.pipeline.events"]
    assert house["arrows_in"]("assistant/models/ollama.py", "from assistant.pipeline import trust\n")
    assert house["arrows_in"]("tools/weather/tool.py", "import assistant.config\n")
    assert house["arrows_in"]("assistant/pipeline/turn.py", "from assistant.frontends.progress import Progress\n")
    assert house["arrows_in"]("assistant/frontends/repl.py", "from assistant.frontends.cli.pull import pull\n")
    assert house["arrows_in"]("assistant/frontends/cli/chat.py", "from assistant.frontends.repl import Repl\n") == []
    assert house["arrows_in"]("assistant/app.py", "from assistant.pipeline.turn import Assistant\n") == []
    assert house["arrows_in"]("assistant/pipeline/turn.py", "from assistant.models.base import Backend\n") == []
    assert house["arrows_in"]("assistant/pipelines.py", "from assistant.pipelines_x import y\n") == []


def test_the_jail_is_a_room_of_its_own():
    """tools/jail/ imports nothing of the house but itself, the tool interface it runs and the tools' log; nothing
    outside it imports one of its own modules (only its face, ``tools.jail``)."""
    house = runpy.run_path(str(ROOT / "scripts" / "house.py"))
    assert house["wall_breaches"]() == []
    wall = house["wall_in"]
    # what it would find: the zygote loading the built-in tools by name, the worker a plugin host, a tool the jail's
    # internals, the app a module behind the face; and what is allowed
    assert wall("tools/jail/zygote.py", "def f():\n    import tools.builtin\n") == [
        "tools/jail/zygote.py (in the jail) imports tools.builtin"]
    assert wall("tools/jail/worker.py", "from tools import plugins\n")
    assert wall("tools/jail/runner.py", "from tools.registry import run_direct\n")
    assert wall("tools/plugins.py", "from tools.jail.grants import Grants\n")
    assert wall("assistant/app.py", "from tools.jail import landlock\n")
    assert wall("tools/jail/runner.py", "from tools.base import Tool\nfrom tools.jail.zygote import Zygote\n") == []
    assert wall("assistant/app.py", "from tools.jail import SandboxRunner, Zygote, report\n") == []
