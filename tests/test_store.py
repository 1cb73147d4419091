"""The store's schema and its migrations."""

from __future__ import annotations

import pytest

from assistant.store import MIGRATIONS, Store, TurnRow


def tables(store: Store) -> set[str]:
    return {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_an_older_database_loses_the_unread_messages_table_and_keeps_its_history(tmp_path):
    path = tmp_path / "assistant.db"
    store = Store(path)
    session = store.create_session()
    store.save_turn(TurnRow(**{"id": "t1", "session_id": session, "question": "hi", "answer": "hello", "ok": 1, "route": "chat",
                     "route_by": "model", "route_reason": "", "attempts": 0, "model_calls": 2, "error": None,
                     "started_at": "2026-11-22T10:00:00", "finished_at": "2026-11-22T10:00:01"}), [], [], [])
    # as a database written before migration 005 looked
    store.db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, turn_id TEXT, role TEXT, content TEXT, created_at TEXT)")
    store.db.execute("DELETE FROM schema_migrations WHERE name = '005_no_messages'")
    store.close()
    again = Store(path)
    assert "messages" not in tables(again)
    assert again.schema_version == len(MIGRATIONS)
    assert again.recent_messages(session, 4) == [("user", "hi"), ("assistant", "hello")]  # read from the turns
    again.close()


def _turn(store: Store, session: str, tid: str, question: str, answer: str, when: str) -> None:
    store.save_turn(TurnRow(**{"id": tid, "session_id": session, "question": question, "answer": answer, "ok": 1, "route": "chat",
                     "route_by": "model", "route_reason": "", "attempts": 0, "model_calls": 1, "error": None,
                     "started_at": when, "finished_at": when}), [], [], [])


def test_logs_are_searched_in_chinese_and_english_and_follow_deletions(tmp_path):
    store = Store(tmp_path / "assistant.db")
    chat, other = store.create_session(), store.create_session()
    _turn(store, chat, "a", "上海明天的天气怎么样", "明天上海小雨,12°C。", "2026-11-22T10:00:00")
    _turn(store, chat, "b", "What is the WEATHER in Paris?", "Clear, 12°C.", "2026-11-22T10:01:00")
    _turn(store, other, "c", "Who wrote Hamlet?", "Shakespeare.", "2026-11-22T10:02:00")
    assert [r["id"] for r in store.logs(0, "天气怎么")] == ["a"]
    assert [r["id"] for r in store.logs(0, "天气")] == ["a"]  # two characters: below a trigram, found all the same
    assert [r["id"] for r in store.logs(0, "weather")] == ["b"]  # case does not matter
    assert [r["id"] for r in store.logs(0, "12°C")] == ["a", "b"]  # answers too, oldest first
    assert [r["id"] for r in store.logs(2)] == ["b", "c"]  # the last two
    assert store.logs(0, '"; DROP TABLE turns; --') == []  # a query is text, never syntax
    store.delete_session(chat)
    assert store.logs(0, "12°C") == [] and [r["id"] for r in store.logs(0)] == ["c"]
    store.close()


def test_sessions_are_listed_with_their_turns_and_last_activity_whatever_removed_turns(tmp_path):
    store = Store(tmp_path / "assistant.db", max_bytes=0)
    a, b, empty = store.create_session(), store.create_session(), store.create_session()
    store.db.execute("UPDATE sessions SET created_at = '2026-11-01T00:00:00', last_active = '2026-11-01T00:00:00' "
                     "WHERE id = ?", (empty,))
    for i in range(3):
        _turn(store, a, f"a{i}", f"q{i}", "x", f"2026-11-2{i}T10:00:00")
    _turn(store, b, "b0", "q", "x", "2026-11-25T10:00:00")
    listed = {s.id: (s.turns, s.last_active) for s in store.sessions()}
    assert listed == {a: (3, "2026-11-22T10:00:00"), b: (1, "2026-11-25T10:00:00"), empty: (0, None)}
    assert [s.id for s in store.sessions()] == [b, a, empty]  # the most recently active first
    store.db.execute("DELETE FROM turns WHERE id = 'a2'")  # the history's cap and prune delete turns this way
    assert {s.id: (s.turns, s.last_active) for s in store.sessions(2)} == {a: (2, "2026-11-21T10:00:00"),
                                                                         b: (1, "2026-11-25T10:00:00")}
    store.db.execute("DELETE FROM turns WHERE session_id = ?", (b,))
    assert [(s.id, s.turns, s.last_active) for s in store.sessions()][-1][1:] == (0, None)
    store.delete_session(a)
    assert a not in {s.id for s in store.sessions()}
    plan = " ".join(r[3] for r in store.db.execute("EXPLAIN QUERY PLAN SELECT id FROM sessions ORDER BY last_active DESC"))
    assert "sessions_active" in plan  # the listing reads an index of the sessions, never the turns
    store.close()


def test_a_store_from_before_the_session_counters_gets_them_from_its_turns(tmp_path):
    path = tmp_path / "assistant.db"
    store = Store(path)
    session = store.create_session()
    _turn(store, session, "t1", "q", "x", "2026-11-20T10:00:00")
    _turn(store, session, "t2", "q", "x", "2026-11-21T10:00:00")
    # as a database written before migration 018 looked
    for trigger in ("sessions_created", "turns_counted", "turns_uncounted"):
        store.db.execute(f"DROP TRIGGER {trigger}")
    store.db.execute("DROP INDEX sessions_active")
    store.db.execute("ALTER TABLE sessions DROP COLUMN turn_count")
    store.db.execute("ALTER TABLE sessions DROP COLUMN last_active")
    store.db.execute("DELETE FROM schema_migrations WHERE name = '018_session_counters'")
    store.close()
    again = Store(path)
    assert [(s.turns, s.last_active) for s in again.sessions()] == [(2, "2026-11-21T10:00:00")]
    _turn(again, session, "t3", "q", "x", "2026-11-22T10:00:00")
    assert [(s.turns, s.last_active) for s in again.sessions()] == [(3, "2026-11-22T10:00:00")]
    again.close()


def test_tables_measure_chinese_by_its_width():
    from assistant.frontends.columns import fit, pad, width
    from assistant.frontends.repl import sessions_table
    from assistant.store import SessionSummary

    assert width("上海 ok") == 7 and pad("上海", 6) == "上海  " and fit("上海明天的天气怎么样", 9) == "上海明天…"
    title = "上海明天的天气怎么样" * 10
    rows = [SessionSummary(id="a" * 12, created_at="2026-11-22T10:00:00", title=title, turns=1, last_active=None)]
    line = sessions_table(rows).splitlines()[1]
    assert width(line) <= 2 + 14 + 7 + 6 + 2 + 21 + 50


@pytest.mark.slow  # whole processes
def test_state_is_private_to_the_user_and_old_open_files_are_fixed_once(home):
    import os
    import stat
    import subprocess
    import sys

    from conftest import cli_env, closed_port

    data = home / "data"
    data.mkdir(parents=True)
    os.chmod(home / "data", 0o755)
    (data / "assistant.db").touch()
    os.chmod(data / "assistant.db", 0o644)  # as an older version left it
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}")
    first = subprocess.run([sys.executable, "-m", "assistant", "ask", "2^10"], env=env, capture_output=True, text=True,
                           timeout=60)
    assert first.returncode == 0 and first.stderr.count("of yours private") == 1
    again = subprocess.run([sys.executable, "-m", "assistant", "ask", "3^3"], env=env, capture_output=True, text=True,
                           timeout=60)
    assert "of yours private" not in again.stderr
    for path in [home / d for d in ("config", "data", "cache", "log")]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    for path in data.iterdir():
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path  # the store, its WAL: the user's alone


@pytest.mark.slow  # whole processes
def test_logs_prune_deletes_old_turns_with_their_calls_and_empty_sessions(home):
    import sqlite3
    import subprocess
    import sys

    from conftest import cli_env, closed_port

    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}")
    for q in ("2^10", "3^3", "4^4"):
        assert subprocess.run([sys.executable, "-m", "assistant", "ask", "-c" if q != "2^10" else "--no-daemon", q],
                              env=env, capture_output=True, text=True, timeout=60).returncode == 0
    db = sqlite3.connect(home / "data" / "assistant.db")
    db.execute("UPDATE turns SET started_at = '2020-01-01T00:00:00.000+00:00' WHERE question IN ('2^10', '3^3')")
    db.execute("UPDATE sessions SET created_at = '2020-01-01T00:00:00.000+00:00'")
    db.commit()
    unasked = subprocess.run([sys.executable, "-m", "assistant", "logs", "prune", "--older-than", "30d"], env=env,
                             capture_output=True, text=True, timeout=60)  # a script must say --yes
    assert unasked.returncode == 2 and "this would delete 2 turns older than 30d" in unasked.stderr
    assert "--yes" in unasked.stderr and db.execute("SELECT count(*) FROM turns").fetchone()[0] == 3
    run = subprocess.run([sys.executable, "-m", "assistant", "logs", "prune", "--older-than", "30d", "--yes"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.startswith("deleted 2 turns older than 30d"), run.stdout + run.stderr
    left = [r[0] for r in db.execute("SELECT question FROM turns")]
    assert left == ["4^4"] and db.execute("SELECT count(*) FROM turn_events WHERE turn_id NOT IN "
                                          "(SELECT id FROM turns)").fetchone()[0] == 0
    bad = subprocess.run([sys.executable, "-m", "assistant", "logs", "prune"], env=env, capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "--older-than" in bad.stderr
    plan = " ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN DELETE FROM turns WHERE started_at < '2021'"))
    assert "turns_started" in plan  # an index, not a scan of every row


@pytest.mark.slow  # whole processes
def test_a_damaged_database_is_one_line_with_its_fix_and_json_under_json(home):
    import json
    import subprocess
    import sys

    from conftest import cli_env, closed_port

    (home / "data").mkdir(parents=True)
    (home / "data" / "assistant.db").write_bytes(b"this is not a database at all" * 100)
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}")
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "2^10"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 7 and "is damaged" in p.stderr and "mv " in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2
    j = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", "2^10"], env=env, capture_output=True,
                       text=True, timeout=60)
    out = json.loads(j.stdout)
    assert j.returncode == 7 and out["ok"] is False and out["exit_code"] == 7 and "is damaged" in out["error"]
    doctor = subprocess.run([sys.executable, "-m", "assistant", "doctor"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert doctor.returncode == 1 and "is damaged" in doctor.stdout and "Traceback" not in doctor.stderr


def test_a_full_disk_is_never_told_to_discard_the_history():
    import sqlite3

    from assistant.errors import store_error

    full = store_error("/home/me/.local/share/assistant/assistant.db", sqlite3.OperationalError("database or disk is full"))
    assert full.exit_code == 7 and "is full" in full.message and "history is kept" in full.hint
    assert "mv " not in full.hint and "aside" not in full.hint
    readonly = store_error("/x/assistant.db", sqlite3.OperationalError("attempt to write a readonly database"))
    assert "read-only" in readonly.message and "ASSISTANT_HOME" in readonly.hint


@pytest.mark.slow  # whole processes
def test_arithmetic_that_needs_no_store_is_answered_beside_a_damaged_database(home):
    import subprocess
    import sys

    from conftest import cli_env, closed_port

    (home / "data").mkdir(parents=True)
    (home / "data" / "assistant.db").write_bytes(b"this is not a database at all" * 100)
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}")
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--no-log", "2^10"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "2^10 = 1024", p.stderr
    v = subprocess.run([sys.executable, "-m", "assistant", "--version"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert v.returncode == 0 and v.stdout.strip()


def test_past_its_size_cap_the_history_loses_its_oldest_turns_and_says_so(tmp_path):
    from assistant.store import CAP_CHECK_EVERY
    from assistant.store_upkeep import CAP_ROOM

    said: list[str] = []
    cap = 400 * 1024
    store = Store(tmp_path / "a.db", max_bytes=cap, notify=said.append)
    session = store.create_session()
    for i in range(3 * CAP_CHECK_EVERY + 1):  # ~4 KB a turn: 1.2 MB written against a 400 KB cap
        _turn(store, session, f"t{i:04d}", f"question {i}", f"answer {i} " + "x" * 4000, f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}")
    left = [r[0] for r in store.db.execute("SELECT id FROM turns ORDER BY started_at")]
    assert left[-1] == f"t{3 * CAP_CHECK_EVERY:04d}" and left == sorted(left)  # the newest kept, the oldest gone
    assert "t0000" not in left and len(left) < 200
    assert store.used_bytes() <= cap * CAP_ROOM + 4500  # trimmed just now, at the turn checked
    assert store.db.execute("SELECT count(*) FROM turn_events WHERE turn_id NOT IN (SELECT id FROM turns)").fetchone()[0] == 0
    assert len(said) >= 1 and "0.390625 MB" in said[0] and "oldest" in said[0] and "history_max_mb" in said[0]
    store.close()
    uncapped = Store(tmp_path / "b.db")
    session = uncapped.create_session()
    for i in range(CAP_CHECK_EVERY + 1):
        _turn(uncapped, session, f"t{i:04d}", "q", "x" * 4000, "2026-01-01T00:00:00")
    assert uncapped.db.execute("SELECT count(*) FROM turns").fetchone()[0] == CAP_CHECK_EVERY + 1


def _batch(store: Store, job: str, n: int, done: bool, start: int) -> None:
    session = store.rolling_session("batch", f"batch {job}")
    store.batches.open(job, f"{job}.txt", n)
    for i in range(n):
        _turn(store, session, f"{job}{i:05d}", f"{job} question {i}", "an answer " * 60,
              f"2026-01-02T{(start + i) // 3600:02d}:{(start + i) // 60 % 60:02d}:{(start + i) % 60:02d}")
        store.batches.record(job, i, True, '{"answer": "' + "an answer " * 60 + '"}')
    store.batches.close(job, done)


def test_the_cap_takes_finished_jobs_and_batch_questions_before_conversations(tmp_path):
    """A big batch under a small cap: the conversations stay; what goes first is what is needed least (the records of
    a finished job, then the batch's own turns); an unfinished job keeps every record it needs to resume."""
    said: list[str] = []
    store = Store(tmp_path / "a.db", max_bytes=600 * 1024, notify=said.append)
    chat = store.create_session()
    for i in range(40):
        _turn(store, chat, f"chat{i:04d}", f"question {i}", "answer " + "x" * 600, f"2026-01-01T00:00:{i:02d}")
    _batch(store, "done", 900, True, 0)
    _batch(store, "open", 150, False, 1000)
    store.upkeep.trim()
    count = lambda sql: store.db.execute(sql).fetchone()[0]  # noqa: E731
    assert count("SELECT count(*) FROM turns WHERE id LIKE 'chat%'") == 40  # every conversation turn kept
    assert count("SELECT count(*) FROM batch_items WHERE job_id = 'done'") == 0
    assert count("SELECT count(*) FROM batch_items WHERE job_id = 'open'") == 150  # what a resume needs
    from assistant.store_upkeep import RECORD_OVERHEAD

    held = RECORD_OVERHEAD * count("SELECT SUM(length(line)) FROM batch_items")  # beyond the cap until the job ends
    assert store.used_bytes() <= 600 * 1024 + held
    assert any("finished batch job" in s for s in said) and any("batch question" in s for s in said)


def test_records_an_unfinished_job_needs_do_not_cost_the_conversations(tmp_path):
    said: list[str] = []
    store = Store(tmp_path / "a.db", max_bytes=300 * 1024, notify=said.append)
    chat = store.create_session()
    for i in range(20):
        _turn(store, chat, f"chat{i:04d}", f"question {i}", "answer " + "x" * 600, f"2026-01-01T00:00:{i:02d}")
    _batch(store, "open", 800, False, 0)  # its records alone (~560 KB) are over the cap
    store.upkeep.trim()
    store.upkeep.trim()
    assert store.db.execute("SELECT count(*) FROM turns WHERE id LIKE 'chat%'").fetchone()[0] == 20
    assert store.db.execute("SELECT count(*) FROM batch_items").fetchone()[0] == 800
    assert sum("unfinished batch jobs hold" in s for s in said) == 1  # said once, with what to do


def test_a_batchs_records_never_leave_the_cap_with_less_than_it_has_room_for(tmp_path):
    """A batch runs under a small cap: while it runs, its records (what a resume needs) are held beyond the cap and
    cost no turn; once it ends and they go, the turns kept fill what the cap has room for, the newest first, and the
    line says how many were kept."""
    from assistant.store_upkeep import CAP_ROOM

    said: list[str] = []
    cap = 400 * 1024
    store = Store(tmp_path / "a.db", max_bytes=cap, notify=said.append)
    _batch(store, "big", 2000, False, 0)  # each question a turn and a record, as a real batch writes them
    store.upkeep.trim()
    store.batches.close("big", True)  # the job ends; its records go with the next trim
    store.upkeep.trim()
    kept = [r[0] for r in store.db.execute("SELECT id FROM turns ORDER BY started_at")]
    used = store.used_bytes()
    assert kept and kept[-1] == "big01999"  # the newest kept
    assert used <= cap and used >= 0.6 * cap * CAP_ROOM, (used, len(kept))  # the room used, not thrown away
    assert any(f"{len(kept):,} turn" in s for s in said)


def test_a_session_in_use_is_never_pruned_nor_deleted(tmp_path):
    """The popup's session (leased by the daemon) or a chat's (leased by its process) outlives a prune of everything;
    once that process is gone, it is pruned like any other."""
    import subprocess
    import sys

    from assistant.errors import ConfigError

    store = Store(tmp_path / "a.db")
    open_one, idle = store.create_session(), store.create_session()
    _turn(store, open_one, "t1", "q", "a", "2020-01-01T00:00:00")
    _turn(store, idle, "t2", "q", "a", "2020-01-01T00:00:00")
    store.db.execute("UPDATE sessions SET created_at = '2020-01-01T00:00:00'")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        store.db.execute("INSERT INTO session_leases VALUES (?, ?, ?)", (open_one, holder.pid, "9999"))  # another process
        assert store.prune_counts("2030-01-01") == (1, 1, 1)
        assert store.prune("2030-01-01")[:2] == (1, 1)
        assert store.session_exists(open_one) and not store.session_exists(idle)
        with pytest.raises(ConfigError, match=f"pid {holder.pid}"):
            store.delete_session(open_one)
    finally:
        holder.kill()
        holder.wait()
    assert store.prune("2030-01-01")[:2] == (1, 1) and not store.session_exists(open_one)  # its process is gone


def test_a_damaged_search_index_is_rebuilt_from_the_turns(tmp_path):
    """The full-text index is derived from the turns: when it is damaged (SQLite 3.40's FTS5 after many writes a full
    disk interrupted, found by scripts/soak.py), the next save rebuilds it, says so, and nothing is lost."""
    said: list[str] = []
    store = Store(tmp_path / "a.db", notify=said.append)
    session = store.create_session()
    for i in range(20):
        _turn(store, session, f"t{i:03d}", f"question about comets {i}", f"answer {i}", "2026-01-01T00:00:00")
    store.db._db.execute("UPDATE turns_fts_config SET v = 99 WHERE k = 'version'")  # as the soak left it: no
    # longer an index SQLite can open ("vtable constructor failed: turns_fts"), every save failing on its triggers
    store.close()
    store = Store(tmp_path / "a.db", notify=said.append)  # it opens: the turns are intact
    _turn(store, session, "t999", "question about planets", "answer", "2026-01-01T00:01:00")
    assert any("search index was damaged" in s and "nothing was lost" in s for s in said)
    assert len(store.logs(0, "comets")) == 20 and [r["id"] for r in store.logs(0, "planets")] == ["t999"]


@pytest.mark.slow  # whole processes
def test_a_new_store_opened_by_many_processes_at_once_is_migrated_once(tmp_path):
    """Many first commands started together on a new home: each migration is applied by whoever takes the write lock
    first, and the others see it done (they used to fail with "table … already exists" or "duplicate column")."""
    import subprocess
    import sys

    path = tmp_path / "assistant.db"
    code = ("import sys; from pathlib import Path; from assistant.store import Store; "
            "s = Store(Path(sys.argv[1])); print(s.schema_version); s.close()")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(12)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 12, [err for _, err in results if err]
    from assistant.migrations import MIGRATIONS

    assert {out.strip() for out, _ in results} == {str(len(MIGRATIONS))}
