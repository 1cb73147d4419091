"""The chat REPL's view of a running daemon (RemoteAssistant) over the one daemon client, against the real
API served in this process on a Unix socket."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aiohttp import web
from fake_ollama import Script

from assistant.errors import AssistantError
from assistant.frontends.client import ENDPOINT_FILE, TOKEN_FILE, Client
from assistant.frontends.remote import RemoteAssistant
from assistant.frontends.server import DaemonState, build_api
from assistant.pipeline.events import AnswerDelta, TurnDone
from assistant.store import Store


@pytest.fixture
async def remote(make_app, tmp_path: Path):
    app = make_app()
    runner = web.AppRunner(build_api(app, "t0ken", DaemonState()))
    await runner.setup()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    sock = run_dir / "d.sock"
    await web.UnixSite(runner, str(sock)).start()
    (run_dir / ENDPOINT_FILE).write_text(json.dumps({"transport": "unix", "path": str(sock)}))
    (run_dir / TOKEN_FILE).write_text("t0ken")
    r = RemoteAssistant(Client(run_dir), app.settings, Store(app.store.path))
    yield r
    await r.aclose()
    await runner.cleanup()


async def test_the_daemon_answers_and_streams_its_events(fake, remote):
    fake.handler = Script(router={"route": "chat"}, responder="Gravity pulls it round.")
    events: list = []
    await remote.ask("Why is the moon round?", emit=events.append)
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "Gravity pulls it round."
    done = [e for e in events if isinstance(e, TurnDone)]
    assert len(done) == 1 and done[0].ok
    assert remote.store.turn(remote.store.find_turn("last"))["answer"] == "Gravity pulls it round."


async def test_the_daemon_returns_the_same_result_as_this_process(fake, make_app, remote):
    """``Answering.ask`` returns what the turn came to, in-process and through the daemon alike."""
    here = make_app()
    session = here.store.create_session()
    local = await here.ask("12*(3+4)", session_id=session)
    through = await remote.ask("12*(3+4)", session_id=remote.store.create_session())
    assert through is not None and local is not None
    same = ("ok", "answer", "route", "route_by", "attempts", "model_calls", "error", "replaced", "steps")
    assert {k: getattr(through, k) for k in same} == {k: getattr(local, k) for k in same}
    assert through.answer == "12*(3+4) = 84" and through.route == "calculator" and through.route_by == "rule"
    assert [(c.name, c.ok, c.result) for c in through.tool_calls] == [(c.name, c.ok, c.result) for c in local.tool_calls]
    assert through.tool_calls and through.session_id and through.turn_id != local.turn_id


async def test_a_failed_turn_in_the_daemon_is_the_same_error_as_here(fake, remote):
    fake.models.pop(remote.settings.model_for("router"))
    with pytest.raises(AssistantError) as failure:
        await remote.ask("Why is the moon round?")
    assert failure.value.exit_code == 4 and "ollama pull" in (failure.value.hint or "")


async def test_a_daemon_that_is_gone_is_one_clear_error(remote, tmp_path):
    (tmp_path / "run" / ENDPOINT_FILE).write_text(json.dumps({"transport": "unix", "path": str(tmp_path / "nothing")}))
    remote.client = Client(tmp_path / "run")
    with pytest.raises(AssistantError, match="daemon"):
        await remote.ask("hello")


async def test_a_restarted_daemon_is_found_again_and_a_gone_one_answered_here(fake, make_app, remote, tmp_path):
    """An open chat outlives the daemon: a restart (a new socket and token) is reconnected to, said once; a daemon
    that does not come back leaves this process answering, said once too."""
    said: list[str] = []
    remote.notice = said.append
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "Still here.")
    run_dir = tmp_path / "run"
    app = make_app()
    runner = web.AppRunner(build_api(app, "n3w-t0ken", DaemonState()))  # the daemon as it comes back
    await runner.setup()
    sock = run_dir / "d2.sock"
    await web.UnixSite(runner, str(sock)).start()
    (run_dir / ENDPOINT_FILE).write_text(json.dumps({"transport": "unix", "path": str(sock)}))
    (run_dir / TOKEN_FILE).write_text("n3w-t0ken")
    remote.client.endpoint = {"transport": "unix", "path": str(run_dir / "gone.sock")}  # the old one's socket is gone
    result = await remote.ask("Are you there?")
    assert result.ok and result.answer == "Still here." and said == ["the daemon restarted; reconnected."]
    await runner.cleanup()
    (run_dir / ENDPOINT_FILE).unlink()  # gone for good
    remote.local = lambda: make_app()
    result = await remote.ask("And now?")
    assert result.ok and said[-1] == "the daemon is not running any more; answering in this process from now on."
    assert (await remote.ask("Once more?")).ok and len(said) == 2
