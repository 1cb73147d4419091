"""The store's schema and its migrations."""

from __future__ import annotations

from assistant.store import MIGRATIONS, Store


def tables(store: Store) -> set[str]:
    return {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_an_older_database_loses_the_unread_messages_table_and_keeps_its_history(tmp_path):
    path = tmp_path / "assistant.db"
    store = Store(path)
    session = store.create_session()
    store.save_turn({"id": "t1", "session_id": session, "question": "hi", "answer": "hello", "ok": 1, "route": "chat",
                     "route_by": "model", "route_reason": "", "attempts": 0, "model_calls": 2, "error": None,
                     "started_at": "2026-11-22T10:00:00", "finished_at": "2026-11-22T10:00:01"}, [], [], [])
    # as a database written before migration 005 looked
    store.db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, turn_id TEXT, role TEXT, content TEXT, created_at TEXT)")
    store.db.execute("DELETE FROM schema_migrations WHERE name = '005_no_messages'")
    store.close()
    again = Store(path)
    assert "messages" not in tables(again)
    assert again.schema_version == len(MIGRATIONS)
    assert again.recent_messages(session, 4) == [("user", "hi"), ("assistant", "hello")]  # read from the turns
    again.close()
