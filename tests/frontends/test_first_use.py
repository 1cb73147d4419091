"""First-use work is done before it is needed, or said while it is done: the place index of a new home is built in
the background by the daemon (which lives), by `doctor`, and a question that needs it says so; a build a process
did not live to finish leaves nothing behind."""

from __future__ import annotations

import time

import pytest
from conftest import cli_env, paths_under

from assistant.app import build_assistant
from assistant.config import Settings
from processes import run

pytestmark = pytest.mark.slow  # the index is built for real (a few seconds)


async def test_a_living_process_builds_the_place_index_before_the_first_question(tmp_path):
    paths = paths_under(tmp_path / "state")
    app = build_assistant(Settings(), paths, prepare_places=True)
    try:
        deadline = time.monotonic() + 120
        while not list((paths.cache_dir / "gazetteer").glob("places-v*.sqlite")):
            assert time.monotonic() < deadline, "the place index was not built"
            time.sleep(0.1)
    finally:
        await app.aclose()


def test_doctor_builds_a_missing_place_index_and_a_one_shot_question_says_it_builds_it(home, fake, tmp_path):
    env = cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL="http://127.0.0.1:9",
                  ASSISTANT_WEATHER_GEOCODING_URL="http://127.0.0.1:9")
    asked = run(["ask", "what's the weather in Paris"], env)
    assert "building the place index (once, a few seconds)" in asked.stderr
    doctor = run(["doctor"], cli_env(tmp_path / "other", fake))
    assert "place index:" in doctor.stdout and "(built now: it was missing)" in doctor.stdout


def test_a_build_cut_short_leaves_no_file_behind(tmp_path):
    from tools.gazetteer import build_index

    index = tmp_path / "places-v4.sqlite"
    (tmp_path / "places-v4.tmp999999.1").write_bytes(b"half")  # a process that was killed while building
    build_index(index)
    assert index.exists() and not list(tmp_path.glob("*.tmp*"))
