"""What starting costs: the CPU of a rule-answered `assistant ask` for its whole process tree (its sandbox worker
included), of the chat until its first prompt, and how the history's listings scale from 1,000 turns to 100,000.

    python scripts/bench_startup.py [--runs N] [--turns N] [--instructions]

Each command runs in a fresh process (median of N), its bytecode written once before, as an install does; CPU is user
+ system time of the process and its children (resource.RUSAGE_CHILDREN), so the worker that runs the calculator
(forked from a zygote, tools/jail/zygote.py) counts. Targets (issue 54): a rule-answered ask
≤ 0.3 CPU-s (issue 62: the learned reader included: a request worded as people word them), the chat's first prompt ≤ 0.6 CPU-s, every listing on 100k turns within 1.1× of the same on 1k.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine

from assistant.store import Store, TurnRow


def _cpu(argv: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    """The CPU of one process (and of its children it waited for), user + system."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_of(args: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    return _cpu([sys.executable, "-m", "assistant", *args], env, stdin)


_FLOOR = ("import asyncio, sqlite3\nfrom pydantic import BaseModel\n\n\nclass One(BaseModel):\n    x: int = 0\n\n\n"
          "One(x=1)\n")


def cpu_of_code(code: str, env: dict[str, str]) -> float:
    """The CPU of ``python -c code`` (pydantic's plugins off, as the command turns them off)."""
    return _cpu([sys.executable, "-c", code], {**env, "PYDANTIC_DISABLE_PLUGINS": "__all__"})


def filled(path: Path, turns: int) -> Store:
    store = Store(path)
    sessions = [store.create_session(title=f"session {i}") for i in range(100)]  # the same sessions, more turns
    for n in range(turns):
        question = f"question {n}" + (" about the aurora" if n == 500 else "")  # one turn a search finds
        store.save_turn(TurnRow(id=f"{n:012d}", session_id=sessions[n % len(sessions)], question=question,
                                answer=f"answer {n}", ok=True, route="chat", route_by="rule", route_reason=None,
                                attempts=1, model_calls=0, error=None, started_at=f"2026-11-{1 + n % 25:02d}T10:00:00",
                                finished_at="2026-11-25T10:00:01"), [], [], [])
    return store


def instructions_of(args: list[str], env: dict[str, str]) -> int | None:
    """The instructions one command's own process runs, counted by valgrind's callgrind (``None`` where valgrind is
    not installed): the same on every run, where CPU seconds on a shared machine move by ±20 % between runs. Its
    sandbox worker is not counted (a forked child's count starts with its parent's)."""
    import shutil

    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={out}/cg.%p",
                        sys.executable, "-m", "assistant", *args], env=env, capture_output=True, timeout=600)
        counts = sorted(Path(out).glob("cg.*"), key=lambda f: int(f.suffix[1:]))
        for line in (counts[0].read_text().splitlines() if counts else []):
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    return None


def listing_seconds(store: Store, runs: int) -> dict[str, float]:
    out = {}
    for name, call in (("sessions list", lambda: store.sessions(20)), ("logs", lambda: store.logs(3)),
                       ("logs -q (one match)", lambda: store.logs(3, "aurora")),
                       ("last turn", lambda: store.find_turn("last"))):
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--instructions", action="store_true",
                    help="also count the instructions of a rule-answered ask with valgrind (about 30 s each)")
    a = ap.parse_args()
    m = machine()
    print(f"bench_startup · {m['cores']} cores · Python {m['python']} · {m['platform']}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        # as installed: pip writes the bytecode at install, so no run here compiles our sources (a checkout with
        # PYTHONDONTWRITEBYTECODE set would, each time: about 0.2 CPU-s that no user pays)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))
               and k != "PYTHONDONTWRITEBYTECODE"}
        env.update(ASSISTANT_HOME=str(Path(tmp) / "home"), OLLAMA_HOST="127.0.0.1:9", ASSISTANT_BACKEND="ollama")
        cpu_of(["ask", "2+3"], env)  # the home made, the index of places not needed
        cpu_of(["ask", "what is tomorrow's date"], env)  # and the index of places, once, as a first use builds it
        # the floor under any ask answered in this process: the interpreter, and the libraries the turn is built on
        for label, code in (("python -c pass (the interpreter)", "pass"),
                            ("python: asyncio, pydantic and one model", _FLOOR)):
            xs = [cpu_of_code(code, env) for _ in range(a.runs)]
            print(f"{label:40} median {statistics.median(xs):.3f} CPU-s (min {min(xs):.3f})", flush=True)
        for label, args, stdin in (("assistant --version", ["--version"], None),
                                   ("rule-answered ask (2+3)", ["ask", "2+3"], None),
                                   # the learned reader loaded and read, then the clock's own date reader
                                   ("reader-answered ask (tomorrow's date)", ["ask", "what is tomorrow's date"], None),
                                   ("rule-answered ask --no-log", ["ask", "--no-log", "2+3"], None),
                                   ("chat to its first prompt (and /exit)", ["chat", "--no-daemon"], "/exit\n")):
            xs = [cpu_of(args, env, stdin) for _ in range(a.runs)]
            print(f"{label:40} median {statistics.median(xs):.3f} CPU-s (min {min(xs):.3f})", flush=True)
        if a.instructions:
            for label, args in (("rule-answered ask (2+3)", ["ask", "2+3"]),
                                ("reader-answered ask (tomorrow's date)", ["ask", "what is tomorrow's date"])):
                counted = instructions_of(args, env)
                print(f"{label:40} " + (f"{counted / 1e6:,.0f} M instructions (valgrind)" if counted else
                                        "not counted: valgrind is not installed"), flush=True)
        small = listing_seconds(filled(Path(tmp) / "small.db", 1_000), 20)
        large = listing_seconds(filled(Path(tmp) / "large.db", a.turns), 20)
        for name in small:
            print(f"{name:40} 1k turns {small[name] * 1000:.2f} ms · {a.turns // 1000}k turns "
                  f"{large[name] * 1000:.2f} ms ({large[name] / small[name]:.2f}×)", flush=True)


if __name__ == "__main__":
    main()
