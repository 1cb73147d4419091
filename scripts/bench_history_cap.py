"""The history cap under a big batch: what it keeps, and what trimming costs per question.

    python scripts/bench_history_cap.py [--cap-mb 2 5] [--batch N]
    python scripts/bench_history_cap.py --process 6000 [--cap-mb 2]   # a real `assistant batch` of N questions

On the store itself (no processes): 300 chat turns, then a finished batch job of N questions (each a turn of its
own and a record of the job), then an unfinished job of N/4 (its records are what a resume needs), then 300 more
chat turns; each turn with a trace of the size a real one has (~3 KB: events, a model call). For each cap it
prints the chat turns kept (of 600), the batch turns kept, the records kept of the finished and the unfinished
job, the bytes used against the cap (the open job's records are held beyond it: what a resume needs), the store's
CPU per saved question against the same run with no cap (the least of three runs each), and, once the open job ends
and its records go, the turns kept and the bytes used (the cap keeps what it has room for): the cost of deleting what a capped store must delete, against the save alone; a
whole question costs several times the save (scripts/bench_batch.py --long N --cap-mb M measures that).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine

sys.path[:0] = [str(ROOT)]
from assistant.pipeline.events import AnswerDelta, StageStarted  # noqa: E402
from assistant.store import Store, TurnRow  # noqa: E402

TRACE = [StageStarted(stage="responder"), *(AnswerDelta(text="word " * 25) for _ in range(24))]  # ~3 KB, as a real
_n = 0


def save(store: Store, session: str, question: str) -> str:
    global _n
    _n += 1
    tid = f"{_n:012d}"
    stamp = f"2026-11-25T{(_n // 3600) % 24:02d}:{(_n // 60) % 60:02d}:{_n % 60:02d}.{_n:06d}"
    store.save_turn(TurnRow(id=tid, session_id=session, question=question, answer="An answer. " * 20, ok=True,
                            route="chat", route_by="model", route_reason="", attempts=1, model_calls=1, error=None,
                            started_at=stamp, finished_at=stamp), [], [], TRACE)
    return tid


def run(cap_mb: float, batch: int, root: Path) -> dict[str, float]:
    root.mkdir(parents=True, exist_ok=True)
    store = Store(root / f"cap{cap_mb}.db", max_bytes=int(cap_mb * 2**20))
    chat = store.create_session()
    t0 = time.process_time()
    saves = 0
    for i in range(300):
        save(store, chat, f"chat question {i}")
        saves += 1
    for job, n, done in (("job-done", batch, True), ("job-open", batch // 4, False)):
        session = store.rolling_session("batch", f"batch {job}")
        store.batches.open(job, f"{job}.txt", n)
        for i in range(n):
            save(store, session, f"{job} question {i}")
            store.batches.record(job, i, True, json.dumps({"id": i, "question": f"{job} question {i}",
                                                         "answer": "An answer. " * 20, "ok": True}))
            saves += 1
        store.batches.close(job, done)
    for i in range(300, 600):
        save(store, chat, f"chat question {i}")
        saves += 1
    cpu = time.process_time() - t0
    count = lambda sql, *a: store.db.execute(sql, a).fetchone()[0]  # noqa: E731
    out = {
        "chat": count("SELECT count(*) FROM turns WHERE session_id = ?", chat),
        "batch_turns": count("SELECT count(*) FROM turns WHERE session_id != ?", chat),
        "done_records": count("SELECT count(*) FROM batch_items WHERE job_id = 'job-done'"),
        "open_records": count("SELECT count(*) FROM batch_items WHERE job_id = 'job-open'"),
        "used_mb": store.used_bytes() / 2**20, "cpu_ms": 1000 * cpu / saves,
    }
    # the open job ends (its records go, as a finished job's do), and the next question is asked: what the cap
    # keeps then is what it had room for, not what the records left
    store.batches.close("job-open", True)
    save(store, chat, "chat question after the jobs")
    out["after_turns"] = count("SELECT count(*) FROM turns")
    out["after_mb"] = store.used_bytes() / 2**20
    store.close()
    return out


def whole_batch(n: int, cap_mb: float) -> None:
    """A real ``assistant batch -j 8`` of ``n`` chat questions on a new home under the cap, against the fake Ollama:
    the turns kept and the bytes used once it has ended (its records gone)."""
    import os
    import sqlite3
    import subprocess

    sys.path[:0] = [str(ROOT / "tests" / "fakes"), str(ROOT / "tests")]
    from fake_ollama import FakeOllama, Script

    fake = FakeOllama(Script().always("router", '{"route": "chat"}').always("responder", "A short answer.")
                      .always("decide", "A short answer.")).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, questions = Path(tmp) / "home", Path(tmp) / "questions.jsonl"
            questions.write_text("".join(json.dumps({"id": i, "question": f"Tell me about topic {i}"}) + "\n"
                                         for i in range(n)))
            env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
            env.update(ASSISTANT_HOME=str(home), OLLAMA_HOST=fake.url, ASSISTANT_BACKEND="ollama",
                       ASSISTANT_HISTORY_MAX_MB=f"{cap_mb:g}")
            done = subprocess.run([sys.executable, "-m", "assistant", "batch", "-j", "8", str(questions)], env=env,
                                  capture_output=True, text=True)
            db = sqlite3.connect(home / "data" / "assistant.db")
            page, count, free = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "page_count",
                                                                                   "freelist_count"))
            turns = db.execute("SELECT count(*) FROM turns").fetchone()[0]
            db.close()
            print(f"a batch of {n:,} under {cap_mb:g} MB (exit {done.returncode}): {turns:,} turns kept in "
                  f"{(count - free) * page / 2**20:.2f} MB once it ended")
    finally:
        fake.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cap-mb", type=float, nargs="+", default=[2, 5])
    ap.add_argument("--batch", type=int, default=6000)
    ap.add_argument("--process", type=int, metavar="N", help="a real batch process of N questions instead")
    args = ap.parse_args()
    if args.process:
        for cap in args.cap_mb:
            whole_batch(args.process, cap)
        return
    m = machine()
    print(f"bench_history_cap · batch of {args.batch:,} + an unfinished one of {args.batch // 4:,} · "
          f"{m['cores']} cores · Python {m['python']}")

    def best(cap: float) -> dict[str, float]:  # the least CPU of three runs (the counts are the same each time)
        with tempfile.TemporaryDirectory() as tmp:
            runs = [run(cap, args.batch, Path(tmp) / str(k)) for k in range(3)]
        return min(runs, key=lambda r: r["cpu_ms"])

    free = best(0)
    print(f"no cap: {free['used_mb']:.1f} MB, {free['cpu_ms']:.2f} ms CPU a question")
    print(f"{'cap':>6}  {'chat kept':>10}  {'batch turns':>11}  {'done job':>9}  {'open job':>9}  {'used':>8}  "
          f"{'CPU/question':>13}  {'once the open job ends: turns kept, used':>42}")
    for cap in args.cap_mb:
        r = best(cap)
        print(f"{cap:>4g}MB  {r['chat']:>6}/600  {r['batch_turns']:>11,}  {r['done_records']:>9,}  "
              f"{r['open_records']:>4,}/{args.batch // 4:<4,}  {r['used_mb']:>6.2f}MB  "
              f"{r['cpu_ms']:>6.2f} ms {100 * (r['cpu_ms'] / free['cpu_ms'] - 1):+4.0f}%  "
              f"{r['after_turns']:>30,} turns, {r['after_mb']:.2f} MB")


if __name__ == "__main__":
    main()
