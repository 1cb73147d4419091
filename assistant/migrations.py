"""The store's schema, as an ordered list of small migrations: each is applied once, in its own transaction, and
recorded (:meth:`assistant.store.Store.migrate`). A database written by any earlier version is brought up to date;
a migration is never edited once released, only followed by another."""

from __future__ import annotations

import sqlite3
from typing import Callable


def _script(db: sqlite3.Connection, sql: str) -> None:
    # executescript() would COMMIT the migration's transaction half-way; run statements one by one.
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def _m001_initial(db: sqlite3.Connection) -> None:
    _script(db, """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY, created_at TEXT NOT NULL, title TEXT
        );
        CREATE TABLE turns (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            question TEXT NOT NULL, answer TEXT, ok INTEGER NOT NULL DEFAULT 0,
            route TEXT, route_by TEXT, route_reason TEXT,
            attempts INTEGER NOT NULL DEFAULT 0, model_calls INTEGER NOT NULL DEFAULT 0,
            error TEXT, started_at TEXT NOT NULL, finished_at TEXT
        );
        CREATE INDEX turns_session ON turns(session_id, started_at);
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            turn_id TEXT REFERENCES turns(id) ON DELETE CASCADE,
            role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL
        );
        CREATE INDEX messages_session ON messages(session_id, id);
        CREATE TABLE model_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL, role TEXT NOT NULL, model TEXT NOT NULL, backend TEXT NOT NULL,
            request TEXT NOT NULL, reply TEXT, error TEXT,
            prompt_tokens INTEGER, output_tokens INTEGER, prompt_eval_ns INTEGER, eval_ns INTEGER,
            load_ns INTEGER, total_ns INTEGER, transport_retries INTEGER NOT NULL DEFAULT 0,
            context_full INTEGER NOT NULL DEFAULT 0,
            wall_ms REAL NOT NULL, started_at TEXT NOT NULL
        );
        CREATE INDEX model_calls_turn ON model_calls(turn_id, seq);
        CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL, attempt INTEGER NOT NULL, name TEXT NOT NULL, args TEXT NOT NULL,
            ok INTEGER NOT NULL, result TEXT, error TEXT, duration_ms REAL NOT NULL, started_at TEXT NOT NULL
        );
        CREATE INDEX tool_calls_turn ON tool_calls(turn_id, seq);
        CREATE TABLE events (
            turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (turn_id, seq)
        );
    """)


def _m002_tool_refusals(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE tool_calls ADD COLUMN refusals TEXT NOT NULL DEFAULT '[]'")


def _m003_batches(db: sqlite3.Connection) -> None:
    _script(db, """
        CREATE TABLE batch_jobs (
            id TEXT PRIMARY KEY, input TEXT NOT NULL, total INTEGER NOT NULL, status TEXT NOT NULL,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL
        );
        CREATE TABLE batch_items (
            job_id TEXT NOT NULL REFERENCES batch_jobs(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL, ok INTEGER NOT NULL, line TEXT NOT NULL, finished_at TEXT NOT NULL,
            PRIMARY KEY (job_id, idx)
        );
    """)


def _m004_pending(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE pending (session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, "
               "route TEXT NOT NULL, question TEXT NOT NULL, created_at TEXT NOT NULL)")


def _m005_no_messages(db: sqlite3.Connection) -> None:
    # The history is read from the turns; a second copy of every question and answer was written and never read.
    db.execute("DROP TABLE IF EXISTS messages")


def _m006_steps(db: sqlite3.Connection) -> None:
    # A question with several requests runs as a plan: each tool call belongs to a step (NULL: a one-step turn).
    db.execute("ALTER TABLE tool_calls ADD COLUMN step INTEGER")


def _m007_batch_keys(db: sqlite3.Connection) -> None:
    # A job is keyed by its input and the settings that change answers (recorded), and owned by a process while it runs.
    db.execute("ALTER TABLE batch_jobs ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'")
    db.execute("ALTER TABLE batch_jobs ADD COLUMN pid INTEGER")


def _m008_session_frontends(db: sqlite3.Connection) -> None:
    # Which front end a session belongs to: a chat (or the popup's), the rolling session of one-shot `ask`s, a batch job.
    db.execute("ALTER TABLE sessions ADD COLUMN frontend TEXT NOT NULL DEFAULT 'chat'")


def _m009_turns_search(db: sqlite3.Connection) -> None:
    # Full-text search over every turn's question and answer (`assistant logs -q`, /search). The trigram tokenizer
    # finds any three characters in a row, Chinese as English; shorter queries fall back to LIKE.
    db.execute("CREATE VIRTUAL TABLE turns_fts USING fts5(question, answer, content='turns', content_rowid='rowid', "
               "tokenize='trigram')")
    db.execute("INSERT INTO turns_fts(rowid, question, answer) SELECT rowid, question, answer FROM turns")
    db.execute("CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns BEGIN "
               "INSERT INTO turns_fts(rowid, question, answer) VALUES (new.rowid, new.question, new.answer); END")
    db.execute("CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns BEGIN "
               "INSERT INTO turns_fts(turns_fts, rowid, question, answer) VALUES ('delete', old.rowid, old.question, old.answer); END")
    db.execute("CREATE TRIGGER turns_fts_update AFTER UPDATE ON turns BEGIN "
               "INSERT INTO turns_fts(turns_fts, rowid, question, answer) VALUES ('delete', old.rowid, old.question, old.answer); "
               "INSERT INTO turns_fts(rowid, question, answer) VALUES (new.rowid, new.question, new.answer); END")


def _m010_answer_quality(db: sqlite3.Connection) -> None:
    # How each model's answers from tool results fared at the gate: a model whose last few all failed is not asked
    # to write one (the tool's own sentence is shown at once), and is tried again now and then.
    db.execute("CREATE TABLE answer_quality (id INTEGER PRIMARY KEY, model TEXT NOT NULL, outcome TEXT NOT NULL "
               "CHECK (outcome IN ('passed', 'failed', 'skipped')), at TEXT NOT NULL)")
    db.execute("CREATE INDEX answer_quality_model ON answer_quality (model, id)")


def _m011_turns_by_time(db: sqlite3.Connection) -> None:
    # Pruning by age (`assistant logs prune`) and listing the newest turns read turns by time: an index, not a scan.
    db.execute("CREATE INDEX turns_started ON turns(started_at)")


def _m012_cached_tokens(db: sqlite3.Connection) -> None:
    # How much of a call's prompt the server took from its prefix cache: the rest was evaluated before the first token.
    db.execute("ALTER TABLE model_calls ADD COLUMN cached_tokens INTEGER")


def _m013_turn_request(db: sqlite3.Connection) -> None:
    # The request a turn answered when it differs from the words typed (a follow-up completed by a rule, an answer
    # to a question back): the next follow-up continues from it ("and 20 kg?", then "换成克呢?").
    db.execute("ALTER TABLE turns ADD COLUMN request TEXT")


def _m014_session_leases(db: sqlite3.Connection) -> None:
    # A session open in a chat or served by the daemon (the popup's) is leased by that process: pruning and
    # `sessions delete` leave it alone while the process lives.
    db.execute("CREATE TABLE session_leases (session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, "
               "pid INTEGER NOT NULL, at TEXT NOT NULL)")


def _m015_shared_texts(db: sqlite3.Connection) -> None:
    # What every model call of a kind repeats (the system prompt, the tools offered): kept once, by its hash, and
    # named from the calls' requests (assistant.trace_store), so a stored turn weighs what is its own.
    db.execute("CREATE TABLE shared_texts (hash TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID")


def _m016_turn_events(db: sqlite3.Connection) -> None:
    # A turn's events as one row (a JSON array, compressed by assistant.trace_store): a row per event cost its key,
    # its index entry and the turn's id again, about 1.2 KB a turn of 1.5. Earlier turns' events move as they were
    # (an array of JSON text, read as it is).
    db.execute("CREATE TABLE turn_events (turn_id TEXT PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE, "
               "data BLOB NOT NULL) WITHOUT ROWID")
    db.execute("INSERT INTO turn_events (turn_id, data) SELECT turn_id, '[' || group_concat(data, ',') || ']' "
               "FROM (SELECT turn_id, data FROM events ORDER BY turn_id, seq) GROUP BY turn_id")
    db.execute("DROP TABLE events")


def _m017_reminders(db: sqlite3.Connection) -> None:
    # Reminders and timers (tools/reminders/book.py reads and writes them): kept apart from the history, so the
    # history's cap never prunes one. ``due`` and ``fired_at`` are UTC ISO 8601; the pending ones by time.
    db.execute("CREATE TABLE reminders (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL DEFAULT 'reminder', "
               "text TEXT NOT NULL DEFAULT '', due TEXT NOT NULL, lang TEXT NOT NULL DEFAULT 'en', "
               "created_at TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending', fired_at TEXT)")
    db.execute("CREATE INDEX reminders_pending ON reminders (state, due)")


def _m018_session_counters(db: sqlite3.Connection) -> None:
    # Each session's count of turns and time of its last one, kept on its row by triggers (whatever writes or
    # deletes turns: a turn saved, the history's cap, prune, a session deleted), so that listing sessions reads
    # their rows alone: counting each listed session's turns grew with the history (2.9x at 100k turns).
    db.execute("ALTER TABLE sessions ADD COLUMN turn_count INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE sessions ADD COLUMN last_active TEXT")
    db.execute("UPDATE sessions SET turn_count = (SELECT COUNT(*) FROM turns WHERE turns.session_id = sessions.id), "
               "last_active = COALESCE((SELECT MAX(started_at) FROM turns WHERE turns.session_id = sessions.id), "
               "created_at)")
    db.execute("CREATE INDEX sessions_active ON sessions(last_active)")
    db.execute("CREATE TRIGGER sessions_created AFTER INSERT ON sessions WHEN new.last_active IS NULL BEGIN "
               "UPDATE sessions SET last_active = new.created_at WHERE id = new.id; END")
    db.execute("CREATE TRIGGER turns_counted AFTER INSERT ON turns BEGIN UPDATE sessions SET "
               "turn_count = turn_count + 1, last_active = CASE WHEN turn_count = 0 THEN new.started_at "
               "ELSE MAX(last_active, new.started_at) END "
               "WHERE id = new.session_id; END")
    db.execute("CREATE TRIGGER turns_uncounted AFTER DELETE ON turns BEGIN UPDATE sessions SET "
               "turn_count = turn_count - 1, last_active = COALESCE((SELECT MAX(started_at) FROM turns "
               "WHERE session_id = old.session_id), created_at) WHERE id = old.session_id; END")


def _m019_reminder_wall_time(db: sqlite3.Connection) -> None:
    # A reminder set for a time of day keeps that wall time and the zone its instant was reckoned in ("tomorrow at
    # 9" fires at 9:00 across a daylight-saving change, and at 9:00 where the user is after a move to another zone);
    # a span ("in 10 minutes") keeps its instant alone. ``claimed_at``: due and claimed by the daemon, not yet
    # accepted by a notification service (state ``due``): shown at the next start if the daemon dies meanwhile.
    db.execute("ALTER TABLE reminders ADD COLUMN wall TEXT")
    db.execute("ALTER TABLE reminders ADD COLUMN zone TEXT")
    db.execute("ALTER TABLE reminders ADD COLUMN claimed_at TEXT")


def _m020_reminder_firer(db: sqlite3.Connection) -> None:
    # The process that fires the reminders (the daemon), while it runs: a reminder set elsewhere asks the store
    # whether it will fire (tools/reminders/book.py), not a file of the daemon's. One row at most.
    db.execute("CREATE TABLE reminder_firer (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, "
               "since TEXT NOT NULL)")


def _m021_reminder_span(db: sqlite3.Connection) -> None:
    # How long a timer (or a delay) was said to run, in seconds: said back in its list and its notification ("a
    # 10-minute timer"), which its due time alone cannot say once the clock has moved on. NULL for a time of day.
    db.execute("ALTER TABLE reminders ADD COLUMN span REAL")


def _m022_reminder_repeat(db: sqlite3.Connection) -> None:
    # A reminder that comes back ("every weekday at 9", "每天早上8点"): daily, weekdays or weekly; when one is shown,
    # the next is kept, at the same wall time. NULL: once.
    db.execute("ALTER TABLE reminders ADD COLUMN repeat TEXT")


def _m023_turn_schemas(db: sqlite3.Connection) -> None:
    # The schema a turn's answer followed (--schema, --schema-multi), kept once by its hash as llm keeps them:
    # `assistant logs --schema X --data` prints the objects answered with it.
    db.execute("CREATE TABLE schemas (id TEXT PRIMARY KEY, content TEXT NOT NULL) WITHOUT ROWID")
    db.execute("ALTER TABLE turns ADD COLUMN schema_id TEXT")
    db.execute("CREATE INDEX turns_schema ON turns(schema_id) WHERE schema_id IS NOT NULL")


MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("001_initial", _m001_initial),
    ("002_tool_refusals", _m002_tool_refusals),
    ("003_batches", _m003_batches),
    ("004_pending", _m004_pending),
    ("005_no_messages", _m005_no_messages),
    ("006_steps", _m006_steps),
    ("007_batch_keys", _m007_batch_keys),
    ("008_session_frontends", _m008_session_frontends),
    ("009_turns_search", _m009_turns_search),
    ("010_answer_quality", _m010_answer_quality),
    ("011_turns_by_time", _m011_turns_by_time),
    ("012_cached_tokens", _m012_cached_tokens),
    ("013_turn_request", _m013_turn_request),
    ("014_session_leases", _m014_session_leases),
    ("015_shared_texts", _m015_shared_texts),
    ("016_turn_events", _m016_turn_events),
    ("017_reminders", _m017_reminders),
    ("018_session_counters", _m018_session_counters),
    ("019_reminder_wall_time", _m019_reminder_wall_time),
    ("020_reminder_firer", _m020_reminder_firer),
    ("021_reminder_span", _m021_reminder_span),
    ("022_reminder_repeat", _m022_reminder_repeat),
    ("023_turn_schemas", _m023_turn_schemas),
]
