"""The store stays lean and reads back whole: what every model call repeats (the system prompt, the tools) is kept
once; a turn's events are one compressed row, the pieces of a streamed answer one piece; a store from before keeps
its traces; and pages the history cap frees go back to the disk."""

from __future__ import annotations

import json
import sqlite3

from fake_ollama import Script

from assistant.frontends import trace_view
from assistant.store import MIGRATIONS, Store, TurnRow


async def test_a_stored_trace_reads_back_as_it_was_sent_and_emitted(fake, make_app):
    fake.handler = Script(responder=["The moon ", "is round ", "because gravity pulls ", "it into a ball."])
    app = make_app()
    first = await app.ask("Why is the moon round?")
    second = await app.ask("Why is the sky blue?")
    turn = app.store.turn(first.turn_id)
    request = json.loads(turn["model_calls"][0]["request"])
    system = request["messages"][0]
    assert system["role"] == "system" and "assistant" in system["content"] and len(system["content"]) > 256
    assert {t["function"]["name"] for t in request["tools"]} >= {"calculator", "weather"}
    assert request["messages"][-1] == {**request["messages"][-1], "role": "user", "content": "Why is the moon round?"}
    events = turn["events"]
    deltas = [e for e in events if e["type"] == "answer_delta"]
    assert len(deltas) == 1 and deltas[0]["text"] == first.answer  # one piece, the whole answer
    started = next(e for e in events if e["type"] == "stage_started")
    assert "step" not in started  # kept without its empty fields
    shown = json.loads(trace_view.as_json(turn))["events"]  # and there again as the trace reads them
    assert next(e for e in shown if e["type"] == "stage_started")["step"] is None
    assert [e["type"] for e in shown] == [e["type"] for e in events]
    # kept once: two turns, one system prompt and one tool list stored
    raw = app.store.db.execute("SELECT request FROM model_calls").fetchall()
    assert all('"$shared"' in r[0] for r in raw) and len(raw) == 2
    assert app.store.db.execute("SELECT count(*) FROM shared_texts").fetchone()[0] == 2
    assert app.store.turn(second.turn_id)["model_calls"][0]["request"].count("You are") == \
        turn["model_calls"][0]["request"].count("You are")


def _row(tid: str, session: str) -> TurnRow:
    return TurnRow(id=tid, session_id=session, question="q", answer="a", ok=True, route="chat", route_by="model",
                   route_reason="", attempts=0, model_calls=0, error=None, started_at=f"2026-11-22T10:00:0{tid[-1]}",
                   finished_at="2026-11-22T10:00:09")


def test_a_store_from_before_keeps_its_events(tmp_path):
    path = tmp_path / "assistant.db"
    store = Store(path)
    session = store.create_session()
    store.save_turn(_row("t1", session), [], [], [])
    # as a database written before migration 016 looked: one row per event
    store.db.execute("DROP TABLE turn_events")
    store.db.execute("CREATE TABLE events (turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE, "
                     "seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (turn_id, seq))")
    old = [{"type": "turn_started", "turn_id": "t1", "session_id": session, "question": "q"},
           {"type": "answer_delta", "step": None, "text": "a"},
           {"type": "something_newer", "x": 1}]
    store.db.executemany("INSERT INTO events VALUES ('t1', ?, ?, ?)",
                         [(i, e["type"], json.dumps(e)) for i, e in enumerate(old)])
    store.db.execute("DELETE FROM schema_migrations WHERE name = '016_turn_events'")
    store.close()
    again = Store(path)
    assert again.schema_version == len(MIGRATIONS)
    events = again.turn("t1")["events"]
    assert [e["type"] for e in events] == ["turn_started", "answer_delta", "something_newer"]
    assert events[1]["text"] == "a" and events[2] == {"type": "something_newer", "x": 1}
    assert again.db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'events'").fetchone()[0] == 0
    again.close()


def test_pages_the_cap_frees_go_back_to_the_disk(tmp_path):
    path = tmp_path / "assistant.db"
    store = Store(path, max_bytes=1 << 20)
    session = store.create_session()
    from assistant.pipeline.events import AnswerDelta

    big = [AnswerDelta(text=f"{i} " + "word " * 2000) for i in range(6)]  # little to compress away
    import random

    rng = random.Random(7)
    for i in range(400):
        words = " ".join(f"{rng.random():.12f}" for _ in range(60))
        store.save_turn(TurnRow(id=f"{i:012d}", session_id=session, question=words, answer=words, ok=True,
                                route="chat", route_by="model", route_reason="", attempts=0, model_calls=0, error=None,
                                started_at=f"2026-11-22T10:{i // 60:02d}:{i % 60:02d}",
                                finished_at="2026-11-22T11:00:00"), [], [], big[:1])
    store.upkeep.trim()  # as at the next look at the size
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    kept = store.db.execute("SELECT count(*) FROM turns").fetchone()[0]
    assert 0 < kept < 400  # the cap deleted the oldest
    assert store.used_bytes() <= 1 << 20
    assert path.stat().st_size <= store.used_bytes() + (64 << 10)  # the file holds no more: pages given back
    assert sqlite3.connect(path).execute("PRAGMA auto_vacuum").fetchone()[0] == 2
    store.close()
