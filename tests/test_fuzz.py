"""Fuzzing every stage with hostile replies, and the daemon's API with hostile bodies (fixed seeds): each turn
ends with an answer or a one-line error and is stored; the API answers 4xx, never 5xx, and every stream ends
with an event."""

from __future__ import annotations

import pytest
from fake_ollama import Script
from hostile import fuzz_api, fuzz_stage

CASES_PER_STAGE = 100  # per stage and path here; scripts/fuzz.py runs 200


@pytest.mark.parametrize("stage", ["router", "executor", "validator", "responder"])
async def test_every_stage_survives_hostile_replies(fake, meteo, weather_app, stage):
    app = weather_app(max_retries=1, request_timeout=5)
    counts = await fuzz_stage(app, fake, stage, CASES_PER_STAGE, seed=len(stage))
    assert counts["answered"] + counts["one_line_error"] == counts["tried"] == CASES_PER_STAGE
    assert counts["stored"] == CASES_PER_STAGE  # every turn is on disk, failed or not
    assert counts["answered"] >= CASES_PER_STAGE * 0.8  # hostile output is feedback, rarely a dead end


async def test_the_api_holds_against_hostile_bodies(fake, make_app):
    from aiohttp.test_utils import TestClient, TestServer

    from assistant.frontends.server import DaemonState, build_api

    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "ok")
    app = make_app()
    client = TestClient(TestServer(build_api(app, "t0ken", DaemonState())))
    await client.start_server()
    try:
        statuses = await fuzz_api(client, "t0ken", CASES_PER_STAGE, seed=7)
    finally:
        await client.close()
    assert statuses.get(400, 0) > CASES_PER_STAGE / 2 and statuses.get(200, 0) > 0
