"""Tools from installed packages (the ``assistant.tools`` entry point group): a real distribution on the path,
found by importlib.metadata as pip-installed ones are, run in the sandbox like the built-in tools; broken
plugins skipped with one line each."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import paths_under

from assistant.app import TOOLS
from assistant.config import Settings
from assistant.frontends.doctor import run_checks

BUILTIN = [make(Settings(), paths_under(Path("unused"))).name for make in TOOLS]

PLUGIN = '''
from pydantic import BaseModel
from tools import Tool, ToolResult


class EchoArgs(BaseModel):
    text: str


class Echo(Tool):
    name = "echo"
    description = "Repeat the user's words back."
    Args = EchoArgs
    renders_directly = True

    def route(self, question):
        return [EchoArgs(text=question[5:])] if question.startswith("echo ") else None

    async def run(self, args):
        import os
        return ToolResult.success(text=args.text, pid=os.getpid())

    def render(self, question, args, result):
        return result.data["text"]


class Shouting(Echo):
    name = "Shout!"


class NoSchema(Echo):
    name = "noschema"
    Args = dict


class Calculator(Echo):
    name = "calculator"


NOT_A_TOOL = 42
'''

ENTRY_POINTS = """
[assistant.tools]
echo = echo_plugin:Echo
missing = no_such_module:Tool
notatool = echo_plugin:NOT_A_TOOL
shout = echo_plugin:Shouting
noschema = echo_plugin:NoSchema
clash = echo_plugin:Calculator
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    (site / "echo_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "echo_plugin.py").write_text(textwrap.dedent(PLUGIN))
    (site / "echo_plugin-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-plugin\nVersion: 1.0\n")
    (site / "echo_plugin-1.0.dist-info" / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(site))
    return site


async def test_a_plugin_tool_joins_the_registry_and_runs_in_the_sandbox(plugin, make_app):
    app = make_app(sandboxed=True)
    assert app.registry.names()[:len(BUILTIN)] == BUILTIN and "echo" in app.registry.names()
    result = await app.ask("echo hello from a plugin")
    assert result.ok and result.route == "echo" and result.model_calls == 0
    assert result.answer == "hello from a plugin"
    assert result.tool_calls[0].result["pid"] != __import__("os").getpid()  # it ran in a worker process


def test_each_broken_plugin_is_skipped_with_one_line_saying_why(plugin, make_app):
    app = make_app()
    assert [n for n in app.registry.names() if n not in BUILTIN] == ["echo"]
    skipped = "\n".join(app.registry.skipped)
    assert len(app.registry.skipped) == 5
    assert "plugin 'missing' (no_such_module:Tool, from echo-plugin): skipped, ModuleNotFoundError" in skipped
    assert "'notatool'" in skipped and "not a tools.Tool" in skipped
    assert "'shout'" in skipped and "lower-case letters" in skipped
    assert "'noschema'" in skipped and "not a pydantic model" in skipped
    assert "'clash'" in skipped and "'calculator' is taken" in skipped


async def test_doctor_reports_broken_plugins_and_still_runs(plugin, fake, tmp_path, gazetteer_index):
    from assistant.config import Settings
    from conftest import paths_under

    checks = await run_checks(Settings(backend="ollama", ollama_host=fake.url, gazetteer_index=gazetteer_index),
                              paths_under(tmp_path / "state"))
    tools = next(c for c in checks if c.name == "tools")
    assert tools.level == "ok" and "echo" in tools.detail
    plugins = [c for c in checks if c.name.startswith("plugin '")]
    assert len(plugins) == 5 and all(c.level == "warn" and not c.blocking for c in plugins)
