"""Several model servers (``hosts``): a batch shared between fake Ollama hosts, least busy first within a limit
per host; a host that dies mid-batch costs no question and duplicates none; ``ask`` uses the first healthy one."""

from __future__ import annotations

import io
import json
import threading
import time

import pytest
from conftest import closed_port
from fake_ollama import FakeOllama, Reply, Script

from assistant.errors import ServerUnreachable
from assistant.frontends.batch import run_batch


def chat_script(delay: float) -> Script:
    """Chat questions: one call that decides and answers (or, for a model without tools, a routing call and a streamed
    answer), each ``delay`` seconds before its first byte."""
    return (Script().always("router", Reply(content='{"route": "chat"}', delay=delay))
            .always("responder", lambda req: Reply(content="answer to " + req["messages"][-1]["content"], delay=delay)))


@pytest.fixture
def hosts():
    started: list[FakeOllama] = []

    def make(n: int, delay: float = 0.02) -> list[FakeOllama]:
        for _ in range(n):
            started.append(FakeOllama(chat_script(delay)).start())
        return started[-n:]

    yield make
    for s in started:
        s.stop()


def questions(tmp_path, n: int) -> str:
    path = tmp_path / "q.txt"
    path.write_text("".join(f"Why is the sky blue, question {i}?\n" for i in range(n)))
    return str(path)


async def _batch(app, source: str, tmp_path, concurrency: int = 8) -> list[dict]:
    out = io.StringIO()
    await run_batch(app, source, out, concurrency, ordered=False, progress=False, jobs_dir=tmp_path / "jobs",
                    err=io.StringIO())
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_two_hosts_share_a_batch_within_their_limit(make_app, hosts, tmp_path):
    a, b = hosts(2)
    app = make_app(hosts=[a.url, b.url], host_max_in_flight=2)
    rows = await _batch(app, questions(tmp_path, 24), tmp_path)
    assert sorted(r["id"] for r in rows) == list(range(1, 25)) and all(r["ok"] for r in rows)
    assert len(a.requests) >= 8 and len(b.requests) >= 8 and len(a.requests) + len(b.requests) == 24  # one call each
    assert a.max_in_flight <= 2 and b.max_in_flight <= 2 and max(a.max_in_flight, b.max_in_flight) == 2


async def test_a_listed_host_takes_as_many_calls_as_it_would_unlisted(make_app, hosts, tmp_path):
    """No constant of ours: a server that never says it is busy gets every call the batch has in flight."""
    (a,) = hosts(1, delay=0.3)  # long enough that all 8 overlap on a loaded machine too (0.05 s let 5 of 8 meet)
    rows = await _batch(make_app(hosts=[a.url]), questions(tmp_path, 24), tmp_path, concurrency=8)
    assert len(rows) == 24 and all(r["ok"] for r in rows)
    assert a.max_in_flight == 8


async def test_a_host_that_answers_busy_gets_fewer_calls_and_nothing_is_lost(make_app, tmp_path):
    """Ollama with one slot and a short queue answers 503 "server busy" past it: that host's limit is halved (the
    others take the work), each refused call is sent again, and no question is answered twice."""
    small = FakeOllama(chat_script(0.05), parallel=1, max_queue=1).start()
    big = FakeOllama(chat_script(0.05)).start()
    try:
        app = make_app(hosts=[small.url, big.url])
        rows = await _batch(app, questions(tmp_path, 32), tmp_path, concurrency=8)
        assert sorted(r["id"] for r in rows) == list(range(1, 33)) and all(r["ok"] for r in rows)
        assert all(r["answer"] == f"answer to Why is the sky blue, question {r['id'] - 1}?" for r in rows)
        assert small.busy_replies > 0
        answered = len(small.requests) - small.busy_replies + len(big.requests)
        assert answered == 32  # one answered call per question: none twice
        assert len(big.requests) > len(small.requests) - small.busy_replies  # the busy host took less of the work
    finally:
        small.stop()
        big.stop()


async def test_a_host_that_dies_mid_batch_costs_nothing_and_duplicates_nothing(make_app, hosts, tmp_path):
    alive = hosts(3, delay=0.05)
    doomed = alive[1]
    app = make_app(hosts=[s.url for s in alive], host_max_in_flight=2)

    def kill_when_busy() -> None:
        deadline = time.monotonic() + 30
        while len(doomed.requests) < 6 and time.monotonic() < deadline:
            time.sleep(0.005)
        doomed.stop()  # connections in flight are cut; new ones are refused

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    rows = await _batch(app, questions(tmp_path, 40), tmp_path, concurrency=6)
    killer.join()
    assert sorted(r["id"] for r in rows) == list(range(1, 41)) and all(r["ok"] for r in rows)
    assert all(r["answer"] == f"answer to Why is the sky blue, question {r['id'] - 1}?" for r in rows)
    served = [len(s.requests) for s in alive]
    assert 6 <= served[1] < 20 and served[0] + served[2] >= 40 - served[1]
    again = await _batch(app, questions(tmp_path, 40), tmp_path)  # a rerun adds nothing
    assert sorted(r["id"] for r in again) == list(range(1, 41))
    assert sum(len(s.requests) for s in alive) == sum(served)


async def test_ask_uses_the_first_healthy_host(make_app, hosts):
    (alive,) = hosts(1)
    app = make_app(hosts=[f"http://127.0.0.1:{closed_port()}", alive.url])
    first = await app.ask("Why is the sky blue?")
    assert first.ok and first.answer == "answer to Why is the sky blue?"
    calls = app.store.turn(first.turn_id)["model_calls"]
    router = json.loads(calls[0]["reply"])
    # the dead host was found when the model's capabilities were asked (before any call): the call went to the live one
    assert calls[0]["transport_retries"] == 0 and router["notes"] == [f"answered by {alive.url}"]
    second = await app.ask("Why is grass green?")  # the dead host is out of rotation: not tried again
    assert [c["transport_retries"] for c in app.store.turn(second.turn_id)["model_calls"]] == [0]


async def test_every_host_down_is_one_clear_error(make_app):
    app = make_app(hosts=[f"http://127.0.0.1:{closed_port()}", f"http://127.0.0.1:{closed_port()}"],
                   transport_retries=1)
    with pytest.raises(ServerUnreachable):
        await app.ask("Why is the sky blue?")


def test_hosts_from_the_environment(tmp_path):
    from assistant.config_load import load_settings
    from conftest import paths_under

    settings = load_settings(paths_under(tmp_path), env={"ASSISTANT_HOSTS": "http://a:11434, http://b:11434"})
    assert settings.hosts == ["http://a:11434", "http://b:11434"]


async def test_doctor_names_each_host(hosts):
    from assistant.config import Settings
    from assistant.models.select import backend_checks

    (alive,) = hosts(1)
    dead = f"http://127.0.0.1:{closed_port()}"
    checks = await backend_checks(Settings(backend="ollama", hosts=[alive.url, dead]))
    by_name = {c.name: c for c in checks}
    assert by_name[f"ollama @ {alive.url}"].level == "ok"
    assert by_name[f"ollama @ {dead}"].level == "warn" and not any(c.blocking for c in checks)
