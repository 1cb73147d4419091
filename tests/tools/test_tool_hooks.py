"""A tool lives in one place: its module (and one line in tools/builtin.py) gives how it is built from the
settings, what doctor checks of it, and which claims of any answer it can refute or derive. Nothing in the
pipeline, the wiring or doctor names it."""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel

from assistant.frontends.doctor import run_checks
from assistant.models.function import RoleScript
from conftest import paths_under
from tools import Finding, Tool, ToolResult
from tools import builtin


class YearsArgs(BaseModel):
    born: int


class Years(Tool):
    """How old someone born in a year is, with its own rules about answers."""

    name = "years"
    description = "age from a birth year"
    Args = YearsArgs
    built_with: list[Any] = []

    @classmethod
    def from_settings(cls, settings: Any, paths: Any) -> Years:
        cls.built_with.append((settings.clock, paths.cache_dir.name))
        return cls()

    async def run(self, args: YearsArgs) -> ToolResult:  # type: ignore[override]
        return ToolResult.success(age=2026 - args.born)

    async def doctor(self) -> list[Finding]:
        return [Finding(name="years", level="warn", detail="the calendar is fixed at 2026", fix="wait a year")]

    def wrong_claims(self, text: str) -> list[str]:
        return ["no one is 200 years old"] if "200 years old" in text else []

    def derives(self, evidence: str) -> Callable[[str], set[float]] | None:
        if "born in 1990" not in evidence:
            return None
        return lambda sentence: {36.0} if "36" in sentence else set()


async def test_a_new_tool_is_one_class_and_one_line(monkeypatch, scripted_app, model, fake, tmp_path, gazetteer_index):
    from assistant.config import Settings

    monkeypatch.setattr(builtin, "BUILTIN", (*builtin.BUILTIN, Years))
    monkeypatch.setattr("assistant.app.BUILTIN", (*builtin.BUILTIN,))
    app = scripted_app()
    assert "years" in app.registry.names() and Years.built_with[-1][0] == app.settings.clock  # built from the settings

    async def ask(question: str, answer: str):
        model.fn = RoleScript(router={"route": "chat"}, responder=answer)
        return await app.ask(question)

    refuted = await (ask("Tell me about my grandfather.", "He was a carpenter. He is 200 years old."))
    assert "200" not in refuted.answer and "no one is 200 years old" in refuted.replaced  # its claim check holds it back
    derived = await (ask("I was born in 1990; what does that make me?", "That makes you 36."))
    assert derived.ok and derived.answer == "That makes you 36."  # a figure it derives stands
    checks = await (run_checks(Settings(backend="ollama", ollama_host=fake.url, gazetteer_index=gazetteer_index),
                                    paths_under(tmp_path / "doctor")))
    assert any(c.name == "years" and c.level == "warn" and c.fix == "wait a year" for c in checks)  # its doctor check


def test_the_tool_docstring_says_where_each_hook_a_plugin_overrides_runs():
    """A tool's author reads where each hook runs on ``Tool`` itself: every hook forwarded to a plugin's hook host
    is named there (a new hook is named, or this fails)."""
    from tools.plugins import HOOKS

    assert [hook for hook in HOOKS if f"``{hook}``" not in (Tool.__doc__ or "")] == []


class CoinArgs(BaseModel):
    times: int


class Coin(Tool):
    """A new tool whose requests the learned reader never saw (it reads them as no tool's: "other")."""

    name = "test_coin"
    description = "flip a coin"
    Args = CoinArgs

    def route(self, question: str) -> list[BaseModel] | None:
        return [CoinArgs(times=1)] if question.lower().rstrip("?!.") == "flip a coin" else None

    async def run(self, args: CoinArgs) -> ToolResult:  # type: ignore[override]
        return ToolResult.success(flipped=args.times)


def test_a_new_tools_rule_is_not_vetoed_by_a_reader_that_never_learned_it(monkeypatch, tmp_path, gazetteer_index):
    from conftest import by_rule
    from tools.reading.reader import knows, read

    assert read("flip a coin").is_("other") and read("flip a coin").p > 0.99 and not knows("test_coin")
    monkeypatch.setattr("assistant.app.BUILTIN", (*builtin.BUILTIN, Coin))
    decision = by_rule(tmp_path, "flip a coin", gazetteer_index=gazetteer_index)
    assert decision is not None and decision.route == "test_coin" and decision.args[0].times == 1
    # a tool the reader learned is still held to it: "set the table for 6" is no reminder, no sum
    assert by_rule(tmp_path, "set the table for 6", gazetteer_index=gazetteer_index) is None
