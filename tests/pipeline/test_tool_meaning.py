"""A tool answer's sentences are held to what the results mean, not to their digits: a date's parts, an internal
id, a share given as a temperature, a time the report does not have, a sky the report contradicts are never
shown; the same facts written in words, in either language, are."""

from __future__ import annotations

import json

import pytest
from fake_ollama import Script

from assistant.pipeline.gate import SentenceGate, tool_piece_check

PARIS = (48.8534, 2.3488)
EVIDENCE = json.dumps(["What's the weather in Paris?", [[{"place": "Paris"}, {
    "place": "Paris", "resolved": "Paris, FR", "observed_at": "2026-11-22T12:00", "temperature": "12.3°C",
    "feels_like": "10.3°C", "humidity": "60%", "wind_speed": "10.0 km/h", "conditions": "slight rain"}]],
    "Paris: 12.3°C now, slight rain, feels like 10.3°C, humidity 60%, wind 10 km/h."], ensure_ascii=False)
CLOCK = json.dumps(["东京现在几点?", [[{"place": "东京"}, {"place": "东京", "time": "14:05", "date": "2026-11-22"}]],
                    "东京现在是 14:05(11月22日 周日)。"], ensure_ascii=False)


def held(evidence: str, sentence: str) -> str | None:
    gate = SentenceGate(tool_piece_check("q", evidence, []))
    gate.feed(sentence)
    gate.finish()
    return gate.held.reason if gate.held else None


@pytest.mark.parametrize("sentence, why", [
    ("Paris 2026 11 22 12.", "do not have: 11, 22"),  # the parts of the date the report was observed on
    ("It is 60°C in Paris.", "60 as a temperature; in the results it is a share"),
    ("The wind in Paris is 12.3 km/h.", "as a speed; in the results it is a temperature"),
    ("Humidity is 10%.", "as a share; in the results it is a speed"),
    ("It was observed at 3:45 pm.", "do not have: 3:45 pm"),
    ("Observed on 23 November.", "do not have: 23 November"),
])
def test_figures_given_another_meaning_are_held(sentence, why):
    reason = held(EVIDENCE, sentence)
    assert reason and why in reason


@pytest.mark.parametrize("sentence", [
    "In Paris it is 12.3°C now, slight rain.",
    "It's about 12 degrees, feeling like 10°C, with humidity at 60% and wind at 10 km/h.",
    "The report is from 12:00 on 22 November 2026.",
    "Observed at noon, 12 pm, on Nov 22nd.",
    "Paris, 2026-11-22: 12.3°C.",
])
def test_the_same_facts_in_words_are_shown(sentence):
    assert held(EVIDENCE, sentence) is None


@pytest.mark.parametrize("sentence, ok", [
    ("东京现在是下午2点05分。", True), ("现在是 2:05 pm。", True), ("东京现在是11月22日14:05。", True),
    ("东京现在是3点。", False), ("东京现在是 2026 11 22。", False),
])
def test_times_and_dates_in_chinese(sentence, ok):
    assert (held(CLOCK, sentence) is None) is ok


async def test_a_sky_the_report_contradicts_is_never_shown(fake, meteo, weather_app):
    meteo.set_weather(*PARIS, 12.3, code=61)  # slight rain
    fake.handler = Script().always("responder", "It's sunny in Paris at 12.3°C.")
    result = await weather_app().ask("What's the weather in Paris?")
    assert result.ok and result.replaced and "the report says slight rain" in result.replaced
    assert "sunny" not in result.answer and "12.3°C" in result.answer  # the tool's own sentence in its place


@pytest.mark.parametrize("answer", [
    "Paris: 12.3°C, light rain, no sun today.",  # negated
    "Paris is cloudy with some rain at 12.3°C.",
    "巴黎现在12.3°C,小雨,记得带伞。",
])
async def test_the_report_stated_in_other_words_is_shown_whole(fake, meteo, weather_app, answer):
    meteo.set_weather(*PARIS, 12.3, code=61)
    fake.handler = Script().always("responder", answer)
    question = "巴黎天气怎么样?" if "巴黎" in answer else "What's the weather in Paris?"
    result = await weather_app().ask(question)
    assert result.ok and result.replaced is None and result.answer == answer


async def test_the_internal_id_is_neither_shown_to_the_model_nor_evidence(fake, meteo, weather_app):
    meteo.set_weather(*PARIS, 12.3, code=61)
    fake.handler = Script().always("responder", "Paris (2988507) is at 12.3°C with slight rain.")
    result = await weather_app().ask("What's the weather in Paris?")
    assert result.replaced and "2988507" in result.replaced and "2988507" not in result.answer
    assert "geonameid" not in json.dumps(fake.requests[-1]["messages"])
