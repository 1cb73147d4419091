"""A figure that contradicts a known fact is refuted for every model, trusted or not; one the table shows true is
supported for an untrusted model too; and a sentence near a known fact that states another true quantity is let be
(scripts/eval_known_figures.py measures both ways on sentences the table was not written from)."""

from __future__ import annotations

import pytest
from fake_ollama import Reply, Script

from assistant.pipeline.known_figures import confirmed, contradicted


@pytest.mark.parametrize("sentence, fact", [
    ("Water boils at 90 °C at sea level.", "water boils at 100"),
    ("水在90度沸腾。", "water boils at 100"),
    ("Water boils at 200 °F.", "water boils at 100"),  # the other scale, its own true value
    ("Absolute zero is 273.15 degrees above zero, −100 °C.", "absolute zero"),
    ("The speed of light is 3 × 10^6 m/s.", "light travels"),
    ("光速约为每秒3万公里。", "light travels"),
    ("The Moon is 1.5 million km from Earth.", "the Moon is about"),
    ("An adult human has three hundred bones.", "206 bones"),  # number words are read
    ("成年人有三百零六块骨头。", "206 bones"),  # Chinese numerals too
    ("There are 9 planets in our solar system.", "8 planets"),
    ("一年有13个月。", "a year has"),
    ("π ≈ 3.15", "π is"),
    ("Apollo 11 landed on the Moon in 1968.", "1969"),
    ("Einstein (1879–1965) was a physicist.", "Einstein"),
    ("爱因斯坦1880年出生于德国。", "Einstein"),
    ("Gold has atomic number 80.", "gold is 79"),
])
def test_a_figure_against_a_known_fact_is_refuted(sentence, fact):
    why = contradicted(sentence)
    assert why is not None and fact in why


@pytest.mark.parametrize("sentence", [
    "Water boils at 100 °C (212 °F) at sea level.",
    "On top of Everest water boils at about 70 °C.",  # another condition, another true figure
    "Bring the water to a boil, then let it cool to 80 °C.",  # a boil, not the boiling point
    "Salt water freezes at about −2 °C.",
    "Babies are born with about 270 bones.",
    "The human hand has 27 bones.",
    "Pluto was one of the 9 planets until 2006.",
    "π ≈ 22/7, and 2π is about 6.283.",
    "√2 × √2 = 2.",
    "The Moon is 3,474 km across.",
    "Mars is 228 million km from the Sun.",
    "Einstein's son Hans Albert was born in 1904.",
    "Galileo died in 1642, the year Newton was born.",
    "Carbon (atomic number 6) bonds with oxygen.",
    "The angles of a triangle add up to 180°, so two angles of 60° leave 60°.",
    "A marathon runner trains 50 km a week.",
    "There are over 200 bones in the body.",  # a bound, not a value
    "The US has 50 states; marijuana is legal in 24 states.",
])
def test_a_true_sentence_near_a_known_fact_is_let_be(sentence):
    assert contradicted(sentence) is None


def test_the_figures_the_table_shows_true_are_known_as_written_and_as_meant():
    assert {150.0, 150e6} <= confirmed("The Earth is about 150 million km from the Sun.")
    assert confirmed("The Earth is about 15 million km from the Sun.") == set()


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
async def test_a_models_false_known_figure_is_refuted_for_every_trust(fake, make_app, trust):
    fake.handler = Script(decide=Reply(content="The Moon is about 38,000 km from Earth."),
                          responder="I would rather not guess the distance.")
    result = await make_app(model_trust=trust).ask("How far away is the Moon?")
    assert "38,000" not in result.answer


async def test_a_known_figure_needs_no_other_support_for_an_untrusted_model(fake, make_app):
    """The table supports what it shows true: an untrusted model's right figure is shown, in one call."""
    fake.handler = Script(decide=Reply(content="Sunlight takes about 8.3 minutes to reach Earth."))
    result = await make_app(model_trust="untrusted").ask("How long does sunlight take to get here?")
    assert result.ok and "8.3 minutes" in result.answer and result.model_calls == 1


def _conditions() -> tuple[list[str], list[str]]:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "eval_known_figures.py"
    spec = importlib.util.spec_from_file_location("eval_known_figures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CONDITION_TRUE, module.CONDITION_FALSE


def test_a_true_sentence_stating_its_own_condition_is_let_be_and_its_false_twins_are_not():
    """A height or a pressure as a figure, a place high up, a medium, another substance set against water: each is
    the condition under which the sentence's figure is true (scripts/eval_known_figures.py, 'conditions')."""
    true, false = _conditions()
    assert [s for s in true if contradicted(s)] == []
    assert [s for s in false if not contradicted(s)] == []
