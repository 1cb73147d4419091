"""First use costs nothing the second does not: the place index of a new home is unpacked from the one the package
ships (a fraction of a second) by a process that lives (the chat, the daemon) as it starts, by the first question
about a place, or by `doctor`; an unpacking a process did not
live to finish leaves nothing behind."""

from __future__ import annotations

import json
import time

import pytest
from conftest import cli_env, paths_under
from fake_ollama import Script

from assistant.app import build_assistant
from assistant.config import Settings
from processes import run

pytestmark = pytest.mark.slow  # whole processes


async def test_a_living_process_unpacks_the_place_index_before_the_first_question(tmp_path):
    paths = paths_under(tmp_path / "state")
    app = build_assistant(Settings(), paths, prepare_places=True)
    try:
        deadline = time.monotonic() + 60
        while not list((paths.cache_dir / "gazetteer").glob("places-v*.sqlite")):
            assert time.monotonic() < deadline, "the place index was not unpacked"
            time.sleep(0.05)
    finally:
        await app.aclose()

def test_a_new_homes_first_weather_question_unpacks_the_index_and_doctor_says_it_did(home, fake, meteo, tmp_path):
    fake.handler = Script().always("responder", "Mild in Paris.")
    env = cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL=meteo.url, ASSISTANT_WEATHER_GEOCODING_URL=meteo.url)
    asked = run(["ask", "--json", "what's the weather in Paris"], env)
    assert json.loads(asked.stdout)["tool_calls"][0]["result"]["resolved"] == "Paris, FR"
    assert "index" not in asked.stderr  # nothing to wait for, nothing said
    assert list(home.rglob("places-v*.sqlite"))
    doctor = run(["doctor"], cli_env(tmp_path / "other", fake))
    assert "place index:" in doctor.stdout and "(unpacked now: it was missing)" in doctor.stdout


def test_a_build_cut_short_leaves_no_file_behind(tmp_path):
    from tools.gazetteer import build_index

    index = tmp_path / "places-v5.sqlite"
    (tmp_path / "places-v5.tmp999999.1").write_bytes(b"half")  # a process that was killed while building
    build_index(index)
    assert index.exists() and not list(tmp_path.glob("*.tmp*"))
