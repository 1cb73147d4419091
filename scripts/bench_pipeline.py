"""Pipeline cost per turn, store writes included, against the fake Ollama answering instantly.

    python scripts/bench_pipeline.py [--turns N]

Prints p50/p95 wall time per turn and model calls per turn for: pure arithmetic (no model call),
a chat question (router + responder) and a word problem (router, executor, validator, responder).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fake_ollama import FakeOllama, Script, tool_call  # noqa: E402

from assistant.app import build_assistant  # noqa: E402
from assistant.config import Settings  # noqa: E402
from assistant.paths import Paths  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def main(turns: int) -> None:
    script = Script()
    script.always("router", lambda req: {"route": "calculator" if "circle" in req["messages"][-1]["content"] else "chat"})
    script.always("executor", tool_call("calculator", expression="pi*3^2"))
    script.always("validator", {"verdict": "PASS", "reason": "ok"})
    script.always("responder", "About 28.27.")
    with FakeOllama(script) as fake, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        app = build_assistant(Settings(ollama_host=fake.url), Paths(root / "c", root / "d", root / "k", root / "l"))
        cases = {
            "arithmetic": "123 * 456 是多少?",
            "chat": "Why is the moon round?",
            "word problem": "What is the area of a circle of radius 3?",
        }
        print(f"{os.cpu_count()} cores, Python {platform.python_version()}, {turns} turns per case, fake Ollama answering instantly")
        print(f"{'case':<14}{'model calls':>12}{'p50 ms':>10}{'p95 ms':>10}")
        for name, question in cases.items():
            await app.ask(question)  # warm-up
            times, calls = [], []
            for _ in range(turns):
                t0 = time.perf_counter()
                result = await app.ask(question)
                times.append((time.perf_counter() - t0) * 1000)
                calls.append(result.model_calls)
            print(f"{name:<14}{statistics.mean(calls):>12.1f}{pct(times, 50):>10.2f}{pct(times, 95):>10.2f}")
        await app.aclose()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=200)
    asyncio.run(main(ap.parse_args().turns))
