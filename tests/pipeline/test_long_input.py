"""A long text, hostile or pasted (a 15,000-digit number, a line of question marks, a run of spaces), through the
rules and the answer's checks: the rules do not read a text longer than a request is (tools/reading/request.py:
LONGEST), nothing raises, and nothing backtracks over a long run of one character (a pattern tried at each digit
of a run cost the run's length squared: 38 s for 5,000 digits, minutes for a document). A tool's result and a
document are read by the checks whatever their length, so the checks are held to a long run too."""

from __future__ import annotations

import multiprocessing
import random
from typing import Any, Callable

import pytest
from conftest import by_rule, first_turn
from fake_ollama import Script

from assistant.pipeline import plan
from assistant.pipeline.answer_check import numbers_in
from assistant.pipeline.claims import Evidence, checked_arithmetic
from tools.reading.request import LONGEST, read
from tools.units import amounts

_RUN = 15_000  # characters: within the question room of the default context, and far past any request

# One character (or a few) again and again: what makes a pattern that starts anywhere in a run try every start.
RUNS = ["9", " ", "?", "-", "，", "1 ", "a ", "1.", "1,", "一", "点", "$1", "1%", "at ", "1 and ", "'", "1x", "。"]


def _run(unit: str, length: int = _RUN) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def _finishes(work: Callable[[], Any], seconds: float = 30.0) -> bool:
    """Whether ``work`` returns, without raising, within ``seconds``, run in a forked process that is killed when it
    does not (a hang guard, not a measure: the work here takes well under a second; the backtracking it guards
    against took minutes, in one call of the regular-expression engine that no thread could interrupt)."""
    child = multiprocessing.get_context("fork").Process(target=work, daemon=True)
    child.start()
    child.join(seconds)
    if child.is_alive():
        child.kill()
        child.join()
        return False
    return child.exitcode == 0


@pytest.mark.parametrize("unit", RUNS)
def test_a_text_longer_than_a_request_is_not_read_by_the_rules(tmp_path, unit):
    question = "what is " + _run(unit) + " then"
    request = read(question)
    assert request.long and not request.readable and request.intent is None
    assert _finishes(lambda: (plan.by_rule(first_turn(tmp_path, question)), by_rule(tmp_path, question)))
    assert plan.by_rule(first_turn(tmp_path, question)) is None and by_rule(tmp_path, question) is None


def test_a_request_as_long_as_one_is_still_read(tmp_path):
    words = " ".join(["pick up the blue folder"] * 20)  # a long subject, yet a sentence: 479 characters of it
    question = f"remind me tomorrow at 9 to {words}"
    assert len(question) <= LONGEST and read(question).readable
    decision = by_rule(tmp_path, question, clock="2026-11-27T10:00:00+00:00")
    assert decision is not None and decision.route == "reminders" and decision.args[0].text == words


@pytest.mark.parametrize("unit", RUNS)
def test_the_rules_read_a_run_up_to_the_longest_request_without_backtracking(tmp_path, unit):
    for start in ("", "what is ", "remind me to ", "convert "):
        question = start + _run(unit, LONGEST - len(start))
        assert _finishes(lambda q=question: (plan.by_rule(first_turn(tmp_path, q)), by_rule(tmp_path, q)))


@pytest.mark.parametrize("unit", RUNS)
def test_the_checks_read_a_long_run_in_a_tool_result_or_a_document(unit):
    text = "The result: " + _run(unit) + "\n"  # nothing after the run that would end a match at its first character

    def check() -> None:
        amounts(text)
        numbers_in(text)
        checked_arithmetic(text)
        Evidence(text)

    assert _finishes(check)


def test_random_digits_and_marks_in_an_answer_are_checked_whole():
    rng = random.Random(5)
    text = "".join(rng.choice("0123456789 .,-°%kgm×=") for _ in range(_RUN))
    assert _finishes(lambda: (amounts(text), numbers_in(text), checked_arithmetic(text), Evidence(text)))


def test_numbers_are_still_read_where_they_start():
    assert amounts("it is 12.5 km, then -3 °C and 5kg") == [(12.5, "kilometer", "length"), (-3.0, "degC", "temperature"),
                                                            (5.0, "kilogram", "mass")]
    assert numbers_in("minus 4, 1,250 and 2.5") == [(-4.0, 0), (1250.0, 0), (2.5, 1)]
    assert checked_arithmetic("so 3 × 12 = 36 and 10-4=7") == ({36.0}, ["10-4=7"])


@pytest.mark.parametrize("unit", ["9", " ", "?"])
async def test_a_long_question_is_the_models_and_answered_once(fake, make_app, unit):
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "That is a long line.")
    result = await make_app().ask("what do you make of this: " + _run(unit))
    assert result.ok and result.route == "chat" and result.answer == "That is a long line."
    assert result.model_calls == 1
