"""Every rule is held to what it declares (``Tool.reads`` and ``Tool.near_misses``): the requests it must read, as
people wrap them, each with the arguments it must give; and the near-misses no rule may take for a request of it.
The router's own rule tier is asked, on the question as a turn reads it, alone and after a turn of that tool (a
near-miss must not become a follow-up either)."""

from __future__ import annotations

import pytest

from assistant.config import Settings
from assistant.pipeline import router
from assistant.pipeline.context import TurnContext
from assistant.trace import Trace
from tools import PreviousTurn
from tools.builtin import BUILTIN
from tools.reading.request import unwrapped

READS = [(tool, question, args) for tool in BUILTIN for question, args in tool.reads]
NEAR_MISSES = [(tool, text) for tool in BUILTIN for text in tool.near_misses]
@pytest.fixture(scope="module")
def registry(tmp_path_factory, gazetteer_index):
    from assistant.app import build_registry
    from conftest import paths_under

    return build_registry(Settings(gazetteer_index=gazetteer_index), paths_under(tmp_path_factory.mktemp("rules")))


def decide(registry, text: str, previous: PreviousTurn | None = None):
    ctx = TurnContext(Settings(), None, registry, None, unwrapped(text), [], Trace(), previous=previous)  # type: ignore[arg-type]
    return router.by_rule(ctx)


def after(registry, tool) -> PreviousTurn:
    """A turn of ``tool`` just answered: its first declared request, as its rule read it."""
    question = tool.reads[0][0]
    decision = decide(registry, question)
    assert decision is not None and decision.route == tool.name, (tool.name, question, decision)
    return PreviousTurn(question=question, route=tool.name,
                        calls=[(args.model_dump(exclude_none=True), None) for args in decision.args or []])


def test_every_builtin_tool_declares_what_it_reads_and_what_it_must_not():
    for tool in BUILTIN:
        assert tool.reads, f"{tool.name} declares no request its rule reads ({tool.__name__}.reads)"
        assert tool.near_misses, f"{tool.name} declares no near-miss ({tool.__name__}.near_misses)"


@pytest.mark.parametrize("tool, question, args", READS, ids=[f"{t.name}:{q[:30]}" for t, q, _ in READS])
def test_a_rule_reads_what_it_declares(registry, tool, question, args):
    decision = decide(registry, question)
    assert decision is not None and decision.route == tool.name, decision
    got = decision.args[0].model_dump()
    assert {k: got.get(k) for k in args} == args, got


@pytest.mark.parametrize("tool, text", NEAR_MISSES, ids=[f"{t.name}:{x[:30]}" for t, x in NEAR_MISSES])
def test_no_rule_takes_a_near_miss(registry, tool, text):
    for previous in (None, after(registry, tool)):
        decision = decide(registry, text, previous)
        assert decision is None or decision.route not in [*registry.names(), router.CLARIFY], (previous, decision)
