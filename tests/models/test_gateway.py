"""Past a few machines, an existing gateway: LiteLLM's proxy in front of two real llama.cpp servers (the embedded
engine's own server, SmolLM2), the assistant pointed at the proxy as at any OpenAI-compatible server. A batch is
spread over both, one server is killed mid-batch, and every question is still answered exactly once.

LiteLLM is installed apart from the project (it brings ~150 packages): .ci/run puts it in its own environment
and names it in ASSISTANT_TEST_LITELLM; elsewhere the test is skipped unless ``litellm`` is on PATH."""

from __future__ import annotations

import importlib.util
import io
import json
import threading
import time

import pytest
from processes import LiteLLMProxy, litellm_command, start_engine_server, stop_process
from relay import CountingRelay

from assistant.frontends.batch import run_batch
from assistant.models import embedded

KEY = "upstream-key"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("openai") is None or not embedded.available()
                       or not embedded.default_model_path(),
                       reason="needs the openai and embedded extras and the model file"),
    pytest.mark.skipif(litellm_command() is None,
                       reason="LiteLLM's proxy is not installed (ASSISTANT_TEST_LITELLM, or litellm on PATH)"),
]


@pytest.fixture
def upstreams(tmp_path):
    """Two real engine servers, each behind a counting relay (stopping both is that server dying)."""
    started = []
    for name in ("a", "b"):
        proc, base = start_engine_server(tmp_path / f"engine-{name}.log", KEY)
        relay = CountingRelay(base.removesuffix("/v1")).start()
        started.append((proc, relay))
    yield started
    for proc, relay in started:
        relay.stop()
        stop_process(proc)


async def test_a_batch_through_litellm_over_two_servers_survives_one_dying(weather_app, upstreams, tmp_path):
    proxy = LiteLLMProxy(litellm_command(), [relay.url + "/v1" for _, relay in upstreams], "smollm2", KEY,
                         tmp_path).wait()
    try:
        app = weather_app(backend="openai", openai_base_url=proxy.url, openai_api_key=proxy.master_key,
                          model="smollm2", seed=7, max_retries=0, responder_max_tokens=32,
                          request_timeout=600)  # one engine thread takes the rest: a loaded machine's wait, no failure
        (doomed_proc, doomed), (_, survivor) = upstreams

        def kill_when_busy() -> None:
            deadline = time.monotonic() + 120
            while doomed.chats < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            doomed.stop()  # gone from the network: connections refused
            stop_process(doomed_proc)

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        source = tmp_path / "q.txt"
        source.write_text("".join(f"Name a colour, number {i}.\n" for i in range(12)))
        out, err = io.StringIO(), io.StringIO()
        await run_batch(app, str(source), out, 4, ordered=False, progress=False, jobs_dir=tmp_path / "jobs", err=err)
        killer.join()
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert sorted(r["id"] for r in rows) == list(range(1, 13)), err.getvalue()  # each once
        # no server failure reached a question: each is answered, or the tiny model's text was held back honestly
        honest = "could not answer that reliably"  # by the name of the model in use
        assert all(r["error"] is None or r["answer"].startswith(honest) for r in rows), [r for r in rows if r["error"]]
        assert doomed.chats >= 2 and survivor.chats >= 12 - doomed.chats  # both worked; the survivor took the rest
        assert "smollm2" in proxy.log.read_text() and proxy.proc.poll() is None
    finally:
        proxy.stop()
