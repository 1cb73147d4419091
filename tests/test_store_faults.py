"""What a disk and a store can throw, on real file systems where the machine allows it (a small tmpfs mounted for
the test; skipped with the reason where mounting is not allowed): a full disk is a full disk, never "damaged" and
never a reason to move the history aside; damage found at a later query is one line too; a home on a read-only file
system is one line, and what needs no store still answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from conftest import cli_env, closed_port

from assistant.store import Store, TurnRow


def mounted(path: Path, options: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
    return done.returncode == 0


def tmpfs(path: Path, options: str, what: str) -> Iterator[Path]:
    if not mounted(path, options):
        pytest.skip(f"cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN): {what} cannot be made")
    yield path
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    yield from tmpfs(tmp_path / "disk", "size=2m", "a full disk")


@pytest.fixture
def read_only_disk(tmp_path: Path) -> Iterator[Path]:
    yield from tmpfs(tmp_path / "ro", "size=1m,ro", "a read-only file system")


def fill(disk: Path) -> None:
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def turn(session: str, question: str, n: int) -> TurnRow:
    return TurnRow(id=f"{n:012d}", session_id=session, question=question, answer="answer", ok=True, route="chat",
                   route_by="rule", route_reason=None, attempts=1, model_calls=0, error=None,
                   started_at="2026-11-25T10:00:00", finished_at="2026-11-25T10:00:01")


@pytest.mark.slow  # whole processes
def test_a_full_disk_is_a_full_disk_and_the_history_stays(small_disk, home):
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_HOME=str(small_disk / "home"))
    assert run(env, "ask", "2^10").returncode == 0  # one turn stored
    fill(small_disk)
    for args in (("ask", "3^3"), ("logs",)):
        p = run(env, *args)
        if p.returncode == 0:
            continue  # a read, or a write that still fit: nothing to say
        assert p.returncode == 7 and "is full" in p.stderr and "damaged" not in p.stderr, p.stderr
        assert "history is kept" in p.stderr and "mv " not in p.stderr and "Traceback" not in p.stderr
    j = run(env, "ask", "--json", "5^5")
    out = json.loads(j.stdout)
    assert j.returncode == 7 and out["exit_code"] == 7 and "is full" in out["error"]
    assert run(env, "ask", "--no-log", "7^2").stdout.strip() == "7^2 = 49"  # what needs no store still answers
    config = run(env, "config", "set", "temperature", "0.5")
    assert config.returncode == 2 and "is full: temperature was not set" in config.stderr and "internal" not in config.stderr
    doctor = run(env, "doctor")
    assert "is on a full disk" in doctor.stdout and "is writable (" not in doctor.stdout
    (small_disk / "filler").unlink()  # space again: the history is all there, and grows
    assert run(env, "ask", "6^2").returncode == 0
    logs = run(env, "logs", "--json")
    questions = [json.loads(line)["question"] for line in logs.stdout.splitlines()]
    assert "2^10" in questions and "6^2" in questions
    assert sorted(p.name for p in (small_disk / "home" / "data").glob("assistant.db*"))[0] == "assistant.db"


def test_a_store_error_on_a_full_disk_says_full_even_when_sqlite_says_disk_io(small_disk):
    db = small_disk / "a.db"
    store = Store(db)
    store.create_session()
    store.close()  # checkpointed: no -wal left, so the next open has to create one
    fill(small_disk)
    from assistant.errors import StoreError

    with pytest.raises(StoreError) as info:
        Store(db).create_session()
    assert "is full" in info.value.message and "damaged" not in info.value.one_line()
    assert db.exists() and not list(small_disk.glob("*.damaged"))


def test_damage_found_by_a_later_query_is_one_line(tmp_path):
    from assistant.errors import StoreError

    db = tmp_path / "a.db"
    store = Store(db)
    session = store.create_session()
    for i in range(300):
        store.save_turn(turn(session, f"question {i:04d} " + "x" * 400, i), [], [], [])
    pages = [r[0] for r in store.db.execute("SELECT pageno FROM dbstat WHERE name = 'turns' AND pagetype = 'leaf'")]
    size = store.db.execute("PRAGMA page_size").fetchone()[0]
    store.close()
    data = bytearray(db.read_bytes())
    middle = (pages[len(pages) // 2] - 1) * size
    data[middle:middle + size] = os.urandom(size)  # a page of garbage inside an otherwise valid file
    db.write_bytes(bytes(data))
    opened = Store(db)  # the header is fine: it opens
    with pytest.raises(StoreError) as info:
        opened.logs(1000)
        opened.logs(1000, "question")
    assert "is damaged" in info.value.message and "mv " in info.value.hint


@pytest.mark.slow  # whole processes
def test_a_home_on_a_read_only_file_system_is_one_line(read_only_disk, home):
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_HOME=str(read_only_disk / "home"))
    p = run(env, "ask", "--json", "2^10")
    out = json.loads(p.stdout)
    assert p.returncode == 7 and out["exit_code"] == 7 and "read-only" in out["error"]
    assert len(p.stderr.strip().splitlines()) == 1 and "internal error" not in p.stderr
    logs = run(env, "logs")
    assert logs.returncode == 7 and "cannot be created (Read-only file system)" in logs.stderr
    ok = run(env, "ask", "--no-log", "2^10")
    assert ok.returncode == 0 and ok.stdout.strip() == "2^10 = 1024", ok.stderr
    assert run(env, "--version").returncode == 0
