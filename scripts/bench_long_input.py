"""What a long run of one character costs the rules and the answer's checks: CPU seconds per case.

    python scripts/bench_long_input.py [--lengths 600,5000,15000] [--limit 60] [--vs REV]

A question of a long run (a number of thousands of digits, a line of question marks, a run of spaces …) goes to
the rule tier (``plan.by_rule``, then ``router.by_rule``, as a first turn asks them); a tool's result or a document of
that kind goes to the answer's checks (the units' amounts, the numbers, the arithmetic and the evidence of tools/units.py and
assistant/pipeline/). Each case runs in a forked process, killed after --limit seconds (printed as ``>limit``):
a pattern tried at every character of a run costs the run's length squared, and once did minutes. --vs REV prints
the same cases for another revision beside (a git worktree of it, removed after).
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RUNS = ["9", " ", "?", "-", "，", "1 ", "a ", "1.", "一", "$1", "1%"]


def _cases(lengths: list[int]) -> list[tuple[str, str, int]]:
    return [(part, unit, n) for n in lengths for part in ("rules", "checks") for unit in RUNS]


def _work(root: Path, part: str, unit: str, n: int, conn: Any) -> None:
    sys.path[:0] = [str(root), str(root / "tests")]
    run = (unit * (n // len(unit) + 1))[:n]
    if part == "rules":
        from conftest import paths_under

        from assistant.app import build_registry
        from assistant.config import Settings
        from assistant.pipeline import plan, router
        from assistant.pipeline.context import TurnContext
        from assistant.trace import Trace
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings()
            registry = build_registry(settings, paths_under(Path(tmp)))
            for question in ("warm up: what is 2+3", ("what is " + run)[:n - 5] + " then"):  # as a turn asks them
                ctx = TurnContext(settings, None, registry, None, question, [], Trace())  # type: ignore[arg-type]
                start = time.process_time()
                plan.by_rule(ctx) or router.by_rule(ctx)
    else:
        from assistant.pipeline.answer_check import numbers_in
        from assistant.pipeline.claims import Evidence, checked_arithmetic
        from tools.units import amounts

        text = "The result: " + run + "\n"
        amounts("1 km")
        start = time.process_time()
        amounts(text), numbers_in(text), checked_arithmetic(text), Evidence(text)
    conn.send(f"{time.process_time() - start:.3f}")


def measure(root: Path, lengths: list[int], limit: float) -> dict[tuple[str, str, int], str]:
    out = {}
    for part, unit, n in _cases(lengths):
        fork = multiprocessing.get_context("fork")
        receive, send = fork.Pipe(duplex=False)
        child = fork.Process(target=_work, args=(root, part, unit, n, send), daemon=True)
        child.start()
        child.join(limit)
        if child.is_alive():
            child.kill()
            child.join()
            out[(part, unit, n)] = f">{limit:g}"
        else:
            out[(part, unit, n)] = receive.recv() if receive.poll() else "raised"
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="600,5000,15000", help="characters of each run (comma-separated)")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds a case may take before it is killed")
    ap.add_argument("--vs", metavar="REV", help="another revision, measured beside")
    args = ap.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]
    root = Path(__file__).resolve().parents[1]
    columns = {"now": measure(root, lengths, args.limit)}
    if args.vs:
        with tempfile.TemporaryDirectory() as tmp:
            other = Path(tmp) / "rev"
            subprocess.run(["git", "-C", str(root), "worktree", "add", "-q", "--detach", str(other), args.vs], check=True)
            try:
                columns[args.vs] = measure(other, lengths, args.limit)
            finally:
                subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(other)], check=True)
    print(f"CPU seconds of one case (a run of one character, {', '.join(map(str, lengths))} characters long)")
    print(f"  {'part':7} {'run':6} {'chars':>6} " + " ".join(f"{name[:10]:>10}" for name in columns))
    for part, unit, n in _cases(lengths):
        print(f"  {part:7} {unit!r:6} {n:>6} " + " ".join(f"{col[(part, unit, n)]:>10}" for col in columns.values()))
    for name, col in columns.items():
        worst = max(col.values(), key=lambda v: float(v.lstrip(">")) if v != "raised" else -1.0)
        print(f"{name}: the worst case {worst} CPU-s; raised {sum(v == 'raised' for v in col.values())}")


if __name__ == "__main__":
    main()
