"""``assistant batch`` as a script would run it: whole processes against the fake Ollama."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from conftest import cli_env, closed_port
from fake_ollama import Reply, Script, tool_call

pytestmark = pytest.mark.slow  # whole processes


def chat_script(delay: float = 0.0, slow: str | None = None) -> Script:
    script = Script()
    script.always("router", {"route": "chat"})
    script.always("responder", lambda req: Reply(
        content="answer to " + req["messages"][-1]["content"],
        delay=1.0 if slow and slow in req["messages"][-1]["content"] else delay))
    return script


def batch(args: list[str], env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", "batch", *args], env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_text_input(home, fake, tmp_path):
    fake.handler = chat_script()
    src = tmp_path / "questions.txt"
    src.write_text("# a comment\nWhy is the sky blue?\n\n123 * 456\nWho wrote Hamlet?\n")
    p = batch([str(src)], cli_env(home, fake))
    assert p.returncode == 0, p.stderr
    out = {r["id"]: r for r in records(p.stdout)}
    assert sorted(out) == [1, 2, 3]
    assert out[1]["answer"] == "answer to Why is the sky blue?" and out[1]["route"] == "chat" and out[1]["model_calls"] == 1
    assert out[2]["answer"] == "123 * 456 = 56088" and out[2]["model_calls"] == 0
    assert set(out[3]) == {"id", "question", "ok", "answer", "route", "attempts", "model_calls", "latency_ms", "turn_id", "error",
                           "replaced", "model", "cut", "declined"}
    assert "3 ok, 0 failed" in p.stderr and "mean model calls" in p.stderr and "p95" in p.stderr
    listed = subprocess.run([sys.executable, "-m", "assistant", "sessions", "list", "--kind", "batch"],
                            env=cli_env(home, fake), capture_output=True, text=True).stdout
    assert "batch questions.txt (job " in listed  # a job's session is titled by its input


def test_jsonl_input_copies_extra_fields(home, fake, tmp_path):
    fake.handler = chat_script()
    src = tmp_path / "q.jsonl"
    src.write_text('{"id": "a", "question": "hello", "tag": "x"}\n{"id": "b", "question": "2^10", "meta": {"n": 1}}\n')
    out = tmp_path / "out.jsonl"
    p = batch([str(src), "--output", str(out), "--ordered"], cli_env(home, fake))
    assert p.returncode == 0, p.stderr
    rows = records(out.read_text())
    assert [(r["id"], r.get("tag"), r.get("meta")) for r in rows] == [("a", "x", None), ("b", None, {"n": 1})]
    assert rows[1]["answer"] == "2^10 = 1024"


def test_a_decline_is_counted_apart_from_a_failure(home, fake, tmp_path):
    fake.handler = chat_script()
    src = tmp_path / "questions.txt"
    src.write_text("Why is the sky blue?\nsend an email to bob saying hi\n")
    p = batch([str(src)], cli_env(home, fake))
    out = {r["id"]: r for r in records(p.stdout)}
    assert out[2]["declined"] == "out_of_reach" and not out[2]["ok"] and out[1]["declined"] is None
    assert "1 ok, 1 declined, 0 failed" in p.stderr


def test_stdin_input(home, fake):
    fake.handler = chat_script()
    p = batch(["-"], cli_env(home, fake), stdin="1+1\n2+2\n")
    assert p.returncode == 0 and sorted(r["answer"] for r in records(p.stdout)) == ["1+1 = 2", "2+2 = 4"]


def test_one_failing_question_does_not_stop_the_batch(home, fake, tmp_path):
    script = Script()
    script.always("router", lambda req: {"route": "calculator" if "rug" in req["messages"][-1]["content"] else "chat"})
    script.always("executor", tool_call("calculator", expression="2*pi*3"))
    script.always("validator", {"verdict": "FAIL", "reason": "use pi*r^2"})
    script.always("responder", "fine")
    fake.handler = script
    src = tmp_path / "q.txt"
    src.write_text("hello\nHow much floor does a round rug of radius 3 cover?\n3*3\n")
    p = batch([str(src)], cli_env(home, fake))
    assert p.returncode == 1
    rows = records(p.stdout)
    assert [r["ok"] for r in rows] == [True, False, True]
    assert "use pi*r^2" in rows[1]["error"] and "2 ok, 1 failed" in p.stderr


def test_a_question_a_server_error_left_unanswered_leaves_a_gap_in_order(home, fake, tmp_path):
    """In input order, a question the server failed on is left for a rerun: the records after it are still written,
    in their order, and the rerun writes every question once."""
    from fake_ollama import Reply

    fail = Reply(error="model crashed", status=500)
    script = Script()
    script.always("router", lambda req: fail if "second" in req["messages"][-1]["content"] else {"route": "chat"})
    script.always("decide", lambda req: fail if "second" in req["messages"][-1]["content"] else Reply(content="fine"))
    script.always("responder", "fine")
    fake.handler = script
    src = tmp_path / "q.txt"
    src.write_text("first question\nsecond question\nthird question\nfourth question\n")
    env = cli_env(home, fake, ASSISTANT_TRANSPORT_RETRIES="0")
    p = batch([str(src), "-j", "1"], env)
    assert p.returncode == 1 and [r["question"] for r in records(p.stdout)] == ["first question", "third question",
                                                                               "fourth question"]
    fake.handler = Script().always("router", {"route": "chat"}).always("decide", Reply(content="fine")) \
        .always("responder", "fine")
    again = batch([str(src), "-j", "1"], env)
    assert again.returncode == 0 and [r["id"] for r in records(again.stdout)] == [1, 2, 3, 4]


def test_ordered_output_and_real_concurrency(home, fake, tmp_path):
    fake.handler = chat_script(delay=0.2, slow="question 0")
    src = tmp_path / "q.txt"
    src.write_text("".join(f"question {i}\n" for i in range(8)))
    p = batch([str(src), "--concurrency", "4", "--unordered"], cli_env(home, fake))
    unordered = [r["id"] for r in records(p.stdout)]
    assert sorted(unordered) == list(range(1, 9)) and unordered[0] != 1  # the slow first one finished later
    assert fake.max_in_flight >= 4
    src.write_text("".join(f"question {i}\n" for i in range(8)) + "# same questions, new input\n")
    p = batch([str(src), "--concurrency", "4"], cli_env(home, fake))  # input order by default, as paste(1) expects
    assert [r["id"] for r in records(p.stdout)] == list(range(1, 9))


def test_resume_after_kill_gives_every_question_exactly_once(home, fake, tmp_path):
    fake.handler = chat_script(delay=0.25)
    src = tmp_path / "q.txt"
    src.write_text("".join(f"question {i}\n" for i in range(12)))
    out = tmp_path / "out.jsonl"
    env = cli_env(home, fake)
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "batch", str(src), "--output", str(out), "-j", "2"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 4):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = len(records(out.read_text()))
    assert 4 <= before < 12
    asked_before = len(fake.requests)
    status = subprocess.run([sys.executable, "-m", "assistant", "batch", "--status"], env=env, capture_output=True, text=True)
    assert "interrupted" in status.stdout and "running" not in status.stdout  # its process is gone

    p = batch([str(src), "--output", str(out), "-j", "2"], env)
    assert p.returncode == 0, p.stderr
    assert "resuming job" in p.stderr
    ids = [r["id"] for r in records(out.read_text())]
    assert sorted(ids) == list(range(1, 13))  # all, none twice
    # only what was missing was asked again (plus at most the 2 in flight when killed)
    assert (len(fake.requests) - asked_before) // 2 <= 12 - before + 2
    status = subprocess.run([sys.executable, "-m", "assistant", "batch", "--status"], env=env, capture_output=True, text=True)
    assert "12/12" in status.stdout and "done" in status.stdout
    assert f"12 of 12 answered ({before}" in p.stderr  # the summary covers the whole job, earlier runs included


def test_another_model_is_another_job_and_fresh_starts_over(home, fake, tmp_path):
    fake.models = {"qwen2.5:3b": ["completion", "tools"], "llama3.2:1b": ["completion", "tools"]}
    script = Script()
    script.always("router", {"route": "chat"})
    script.always("responder", lambda req: f"{req['model']} says hi")
    fake.handler = script
    src = tmp_path / "chat.txt"
    src.write_text("hello\nhow are you?\n")
    env = cli_env(home, fake)
    a = batch([str(src)], env)
    b = batch([str(src), "--model", "llama3.2:1b"], env)
    assert a.returncode == b.returncode == 0, b.stderr
    assert [r["answer"] for r in records(a.stdout)] == ["qwen2.5:3b says hi"] * 2
    assert [r["answer"] for r in records(b.stdout)] == ["llama3.2:1b says hi"] * 2  # not the first model's answers
    assert "already answered" not in b.stderr
    status = subprocess.run([sys.executable, "-m", "assistant", "batch", "--status"], env=env, capture_output=True,
                            text=True).stdout
    jobs = status.splitlines()[1:]
    assert len(jobs) == 2 and all(" done " in job for job in jobs)
    assert "model llama3.2:1b" in status and "model qwen2.5:3b" in status
    asked = len(fake.requests)
    again = batch([str(src), "--model", "llama3.2:1b"], env)
    assert "2 of 2 already answered" in again.stderr and len(fake.requests) == asked
    fresh = batch([str(src), "--model", "llama3.2:1b", "--fresh"], env)
    assert "already answered" not in fresh.stderr and len(fake.requests) == asked + 2  # asked again: one call each
    assert "2 of 2 answered: 2 ok, 0 failed" in fresh.stderr


def test_another_temperature_is_another_job(home, fake, tmp_path):
    """Sampling changes answers: a run at another temperature or top_p does not resume the first run's answers."""
    script = Script()
    script.always("router", {"route": "chat"})
    script.always("responder", lambda req: "sampled warm" if req["options"].get("temperature") else "sampled cold")
    fake.handler = script
    src = tmp_path / "chat.txt"
    src.write_text("hello\n")
    env = cli_env(home, fake)
    cold = batch([str(src)], env)
    warm = batch([str(src)], {**env, "ASSISTANT_TEMPERATURE": "0.9"})
    assert [r["answer"] for r in records(cold.stdout)] == ["sampled cold"]
    assert [r["answer"] for r in records(warm.stdout)] == ["sampled warm"] and "already answered" not in warm.stderr
    nucleus = batch([str(src)], {**env, "ASSISTANT_TEMPERATURE": "0.9", "ASSISTANT_TOP_P": "0.5"})
    assert "already answered" not in nucleus.stderr and len(records(nucleus.stdout)) == 1
    status = subprocess.run([sys.executable, "-m", "assistant", "batch", "--status"], env=env, capture_output=True,
                            text=True).stdout
    assert "temperature 0.9" in status and "top_p 0.5" in status


def test_ctrl_c_says_how_to_resume(home, fake, tmp_path):
    fake.handler = chat_script(delay=0.3)
    src = tmp_path / "q.txt"
    src.write_text("".join(f"question {i}\n" for i in range(20)))
    out = tmp_path / "out.jsonl"
    from processes import as_at_a_terminal

    proc = subprocess.Popen([sys.executable, "-m", "assistant", "batch", str(src), "--output", str(out), "-j", "1"],
                            env=cli_env(home, fake), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_at_a_terminal)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in err
    assert "answered and saved. Run the same command again to resume (--fresh starts over)." in err


def test_ollama_down_stops_the_batch_with_progress_saved(home, tmp_path):
    src = tmp_path / "q.txt"
    src.write_text("1+1\n" + "".join(f"question {i}\n" for i in range(20)))
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_TRANSPORT_RETRIES="0")
    p = batch([str(src), "-j", "1"], env)
    assert p.returncode == 3 and "Progress is saved" in p.stderr and "Traceback" not in p.stderr
    assert [r["answer"] for r in records(p.stdout)] == ["1+1 = 2"]


def test_bad_input_is_a_usage_error(home, tmp_path):
    src = tmp_path / "q.jsonl"
    src.write_text('{"question": "ok"}\n{"id": 2}\n')
    p = batch([str(src)], cli_env(home))
    assert p.returncode == 2 and "line 2" in p.stderr and "Traceback" not in p.stderr
    p = batch([str(tmp_path / "missing.txt")], cli_env(home))
    assert p.returncode == 2 and "cannot read" in p.stderr


def test_lines_that_cannot_be_answered_are_recorded_failed_and_not_asked_again(home, fake, tmp_path):
    script = chat_script()
    script.always("router", lambda req: Reply(content='{"route": "chat"}') if "refused" not in req["messages"][-1]["content"]
                  else Reply(status=400, error="invalid format: expected \"json\" or a JSON schema"))
    fake.handler = script
    src = tmp_path / "q.txt"
    src.write_bytes(b"hello\n\xff\xfe broken bytes\n" + b"x" * 30000 + b"\nrefused by the server\nbye\n")
    env = cli_env(home, fake, ASSISTANT_TRANSPORT_RETRIES="0")
    p = batch([str(src)], env)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    rows = records(p.stdout)
    assert [r["ok"] for r in rows] == [True, False, False, False, True]  # every line has its record, in order
    assert "line 2 is not UTF-8 text (byte 0xff" in rows[1]["error"]
    assert "The question is too long" in rows[2]["error"] and rows[2]["model_calls"] == 0
    assert "HTTP 400" in rows[3]["error"]
    assert "rerun" not in p.stderr.lower()  # permanent: nothing is left for a rerun
    asked = len(fake.requests)
    again = batch([str(src)], env)
    assert "5 of 5 already answered" in again.stderr and len(fake.requests) == asked  # none asked again
    assert records(again.stdout) == rows


@pytest.mark.skipif(not __import__("tmux").Terminal.available(), reason="tmux is not installed")
def test_records_and_the_bar_share_a_terminal_without_garbling(home, fake, tmp_path):
    from tmux import Terminal

    fake.handler = chat_script(delay=0.1)
    src = tmp_path / "q.txt"
    src.write_text("".join(f"question {i}\n" for i in range(10)))
    term = Terminal([sys.executable, "-m", "assistant", "batch", str(src), "-j", "2"], cli_env(home, fake), width=200)
    try:
        screen = term.wait_for("[exited]", timeout=60)
    finally:
        term.close()
    lines = [line for line in screen.splitlines() if line.strip()]
    records_shown = [line for line in lines if line.startswith("{")]
    assert len(records_shown) == 10 and all(json.loads(line)["ok"] for line in records_shown)  # each record whole
    assert not any("█" in line or "·" * 5 in line for line in lines)  # no bar left between or inside records
    assert "10 of 10 answered" in lines[-2]


def test_a_job_answered_by_the_embedded_model_is_keyed_by_that_model(home, tmp_path):
    # Ollama down, the embedded backend chosen: the Ollama model names would mislead (and a later run with Ollama
    # back must not resume this job with another model)
    src = tmp_path / "q.txt"
    src.write_text("12*7\n")
    env = cli_env(home, OLLAMA_HOST=f"127.0.0.1:{closed_port()}", ASSISTANT_BACKEND="embedded")
    p = batch([str(src)], env)
    assert p.returncode == 0, p.stderr
    status = subprocess.run([sys.executable, "-m", "assistant", "batch", "--status"], env=env, capture_output=True,
                            text=True).stdout
    assert "backend embedded; embedded_model SmolLM2-135M (bundled)" in status and "qwen2.5" not in status


def test_the_same_job_started_twice_at_once_has_one_owner(home, fake, tmp_path):
    """The second run of a job that is running says so in one line (exit 2) and answers nothing: every question is
    answered once (two runs used to answer every question twice)."""
    fake.handler = chat_script(delay=0.3)
    src = tmp_path / "q.txt"
    src.write_text("".join(f"question {i}\n" for i in range(30)))
    env = cli_env(home, fake)
    first = subprocess.Popen([sys.executable, "-m", "assistant", "batch", str(src)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sum(k in ("decide", "responder") for k in fake.kinds()) < 2:
        time.sleep(0.05)  # the first run owns the job and is answering
    second = batch([str(src)], env)
    out, err = first.communicate(timeout=120)
    assert second.returncode == 2 and "is already running (process" in second.stderr and second.stdout == ""
    assert len(second.stderr.strip().splitlines()) <= 2  # one line, and what to do
    assert first.returncode == 0 and len(records(out)) == 30
    assert sum(k in ("decide", "responder") for k in fake.kinds()) == 30  # each question answered once


def test_jsonl_records_are_held_to_the_daemons_rules(home, fake, tmp_path):
    """null, true and numbers are not questions; duplicate keys, NUL, ESC and deep nesting are refused; an id of 1e400 is not
    written back as Infinity; a failed huge question is not echoed whole. Each is a failed record saying why, and
    the rest of the batch is answered."""
    fake.handler = chat_script()
    lines = ['{"id": 1, "question": null}', '{"id": 2, "question": true}', '{"id": 3, "question": 42}',
             '{"id": 4, "question": "a", "question": "b"}', '{"id": 5, "question": "nul\\u0000here"}',
             '{"id": 6, "question": "esc\\u001b]52;c;x\\u0007"}', '{"id": 1e400, "question": "big id"}',
             '{"id": 8, "question": "' + "很长的问题" * 20000 + '"}',
             '{"id": 9, "question": "deep", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"id": 10, "question": "hello"}']
    src = tmp_path / "q.jsonl"
    src.write_text("\n".join(lines) + "\n")
    p = batch([str(src)], cli_env(home, fake))
    assert "Infinity" not in p.stdout and "NaN" not in p.stdout
    rows = records(p.stdout)  # valid JSON, every line
    assert [r["ok"] for r in rows] == [False] * 9 + [True]
    why = [r["error"] for r in rows]
    assert "null, not text" in why[0] and "bool, not text" in why[1] and "int, not text" in why[2]
    assert "appears twice" in why[3] and "control character" in why[4] and "control character" in why[5]
    assert "finite number" in why[6] or "not a number" in why[6]
    assert all(len(r["question"]) < 400 for r in rows)  # the 100,000-character question is not echoed whole
    assert "nests deeper" in why[8]  # not a crash of the whole job
    assert rows[9]["answer"] == "answer to hello" and sum(k in ("decide", "responder") for k in fake.kinds()) == 1


def test_no_progress_line_where_records_go_to_a_pipe_unless_asked(home, fake, tmp_path):
    """With stderr on a terminal and the records piped on (| jq), the two would mix on one screen: no progress line
    unless --progress asks for it; --no-progress keeps it off anywhere."""
    import os
    import pty

    from processes import read_all

    fake.handler = chat_script()
    src = tmp_path / "q.txt"
    src.write_text("hello\nworld\n")
    screens = {}
    for flags in ([], ["--progress"]):
        main, child = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "assistant", "batch", str(src), "--fresh", *flags],
                                env=cli_env(home, fake, TERM="xterm"), stdout=subprocess.PIPE, stderr=child)
        os.close(child)
        out, _ = proc.communicate(timeout=60)
        screens[" ".join(flags)] = read_all(main).decode(errors="replace")
        os.close(main)
        assert proc.returncode == 0 and len(records(out.decode())) == 2
    assert "ETA" not in screens[""] and "2 of 2 answered" in screens[""]  # the summary, no progress line
    assert "ETA" in screens["--progress"]


def test_plain_text_lines_are_held_to_the_same_rules_as_jsonl(home, fake, tmp_path):
    """A NUL or an ESC inside a plain-text line is refused as it is in a JSONL line: a failed record, nothing asked."""
    fake.handler = chat_script()
    src = tmp_path / "q.txt"
    src.write_bytes(b"nul\x00here\nesc\x1b]52;c;eA==\x07 there\nhello\n")
    p = batch([str(src)], cli_env(home, fake))
    rows = records(p.stdout)
    assert [r["ok"] for r in rows] == [False, False, True]
    assert all("control character" in r["error"] and "Take the control character out" in r["error"] for r in rows[:2])
    assert "\x1b" not in p.stdout and "\x00" not in p.stdout
    assert sum(k in ("decide", "responder") for k in fake.kinds()) == 1  # only "hello" was asked


@pytest.mark.slow  # whole processes, killed again and again
def test_a_capped_batch_killed_at_random_points_loses_nothing(home, fake, tmp_path):
    """Under a history cap small enough that trims run while it works, kill -9 at random points, then run again until
    done: every question has its record once, right, and the job's records were never trimmed while it was unfinished."""
    import random

    fake.handler = chat_script()
    n = 400
    src = tmp_path / "q.txt"
    src.write_text("".join((f"{i} * 3" if i % 2 else f"question {i}") + "\n" for i in range(n)))
    out = tmp_path / "out.jsonl"
    env = cli_env(home, fake, ASSISTANT_HISTORY_MAX_MB="1")
    rng = random.Random(7)
    kills = 0
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-m", "assistant", "batch", str(src), "--output", str(out), "-j", "4"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.8, 2.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    done = batch([str(src), "--output", str(out), "-j", "4"], env)
    assert done.returncode == 0, done.stderr
    rows = records(out.read_text())
    assert sorted(r["id"] for r in rows) == list(range(1, n + 1)) and kills >= 2  # all, none twice
    for r in rows:
        i = r["id"] - 1
        assert r["ok"] and (r["answer"] == f"{i} * 3 = {i * 3}" if i % 2 else r["answer"] == f"answer to question {i}")


@pytest.mark.skipif(not __import__("tmux").Terminal.available(), reason="tmux is not installed")
@pytest.mark.parametrize("columns", [60, 80])
def test_the_summary_is_broken_at_spaces_on_a_narrow_terminal(home, fake, tmp_path, columns):
    from tmux import Terminal

    fake.handler = chat_script()
    src = tmp_path / "q.txt"
    src.write_text("question one\nquestion two\n")
    out = tmp_path / "out.jsonl"
    term = Terminal([sys.executable, "-m", "assistant", "batch", str(src), "--output", str(out)], cli_env(home, fake),
                    width=columns)
    try:
        screen = term.wait_for("[exited]", timeout=60)
    finally:
        term.close()
    rows = [row.rstrip() for row in screen.splitlines() if row.strip() and "[exited]" not in row]
    said = " ".join(" ".join(rows).split())
    assert said.startswith("2 of 2 answered: 2 ok, 0 failed") and "mean model calls" in said and "latency p50" in said
    assert all(len(row) < columns for row in rows)  # a row the terminal itself broke would fill it to the edge
