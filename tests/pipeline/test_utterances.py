"""Real people's requests (CLINC150 and SLURP, tests/data/utterances/; the whole shared sets when they are here) through
the rule tier with no model: nothing raises, and no intent the assistant does not serve gets a tool route or a
reminder set or cancelled by rule (scripts/eval_intents.py prints the figures, intent by intent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import paths_under

from assistant.app import build_registry
from assistant.config import Settings
from assistant.pipeline import plan, router
from assistant.pipeline.context import TurnContext
from assistant.trace import Trace

DATA = Path(__file__).resolve().parents[1] / "data" / "utterances"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "utterances"
# Labels of the sets that name, in fact, what the assistant serves (a reminders list asked as a calendar query, a
# weather question filed under chat or "query"), or an alarm under "set": not false routes.
SERVED_UNDER_ANOTHER_LABEL = {"calendar_query", "calendar_remove", "query", "set", "chat", "general_quirky"}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _read_all(rows: list[dict], tmp_path: Path, intents: Path = DATA / "intents.json") -> tuple[list[str], list[str], list[str]]:
    """(raised, tool routes, reminder changes) on the rows whose intent the assistant does not serve."""
    mapping = json.loads(intents.read_text(encoding="utf-8"))
    settings = Settings(clock="2026-11-27T10:00:00+00:00")
    registry = build_registry(settings, paths_under(tmp_path))
    raised, routed, changed = [], [], []
    for row in rows:
        ctx = TurnContext(settings, None, registry, None, row["text"], [], Trace())  # type: ignore[arg-type]
        try:
            steps = plan.by_rule(ctx)
            routes = [(s.route, s.args) for s in steps] if steps else []
            if not steps and (decision := router.by_rule(ctx)) is not None and decision.route not in (router.CHAT,
                                                                                                      router.CLARIFY):
                routes = [(decision.route, decision.args)]
        except Exception as e:  # noqa: BLE001 - what the test reports
            raised.append(f"{row['text']!r}: {type(e).__name__}: {e}")
            continue
        served = mapping.get(row["source"], {}).get(row["intent"], "none").startswith("tool.")
        if served or row["intent"] in SERVED_UNDER_ANOTHER_LABEL:
            continue
        for route, args in routes:
            routed.append(f"{row['intent']}: {row['text']} → {route}")
            if route == "reminders" and any(getattr(a, "action", "") in ("set", "cancel") for a in args or []):
                changed.append(f"{row['intent']}: {row['text']}")
    return raised, routed, changed


@pytest.mark.slow  # ~2,600 utterances through every rule: a few seconds
def test_real_requests_raise_nothing_and_other_intents_change_no_reminder(tmp_path):
    raised, routed, changed = _read_all(_rows(DATA / "sample.jsonl"), tmp_path)
    assert raised == []
    assert changed == []  # "forget it", "stop this song and go to the next one", "delete soda from my list"
    assert len(routed) <= 2, routed  # of ~2,300 utterances of intents no tool serves


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.exists(), reason="../shared/utterances/ is not here (a development checkout has it)")
@pytest.mark.parametrize("part", range(4))  # a quarter each, so that the cores share the 34,686 utterances
def test_every_shared_utterance_raises_nothing(tmp_path, part):
    rows = []
    for name, source in (("clinc150_train.jsonl", "clinc150"), ("slurp_devel.jsonl", "slurp"),
                         ("snips.jsonl", "snips"), ("smp2017_train_develop.jsonl", "smp2017")):
        rows += [{**r, "source": source} for r in _rows(SHARED / name)]
    raised, _, changed = _read_all(rows[part::4], tmp_path, SHARED / "intents.json")
    assert raised == []
    assert len(changed) <= 3, changed
