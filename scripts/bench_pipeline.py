"""Pipeline cost per turn, store writes included, against the fake Ollama answering instantly.

    python scripts/bench_pipeline.py [--turns N]

Prints p50/p95 wall time per turn and model calls per turn for: pure arithmetic (no model call),
a chat question (router + responder) and a word problem (router, executor, validator, responder).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from _common import machine, pct
from fake_ollama import FakeOllama, Script, tool_call

from assistant.app import build_assistant
from assistant.config import Settings
from assistant.paths import Paths

CASES = {
    "arithmetic": "123 * 456 是多少?",
    "chat": "Why is the moon round?",
    "word problem": "How much floor does a round rug of radius 3 cover?",
}


async def measure(turns: int) -> dict[str, dict[str, float]]:
    """Per case: mean model calls and p50/p95 ms per turn."""
    script = Script()
    script.always("router", lambda req: {"route": "calculator" if "circle" in req["messages"][-1]["content"] else "chat"})
    script.always("executor", tool_call("calculator", expression="pi*3^2"))
    script.always("validator", {"verdict": "PASS", "reason": "ok"})
    script.always("responder", "About 28.27.")
    out: dict[str, dict[str, float]] = {}
    with FakeOllama(script) as fake, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        app = build_assistant(Settings(ollama_host=fake.url, backend="ollama"),
                              Paths(root / "c", root / "d", root / "k", root / "l"))
        for name, question in CASES.items():
            await app.ask(question)  # warm-up
            times, calls = [], []
            for _ in range(turns):
                t0 = time.perf_counter()
                result = await app.ask(question)
                times.append((time.perf_counter() - t0) * 1000)
                calls.append(result.model_calls)
            out[name] = {"model_calls": statistics.mean(calls), "p50_ms": pct(times, 50), "p95_ms": pct(times, 95)}
        await app.aclose()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=200)
    turns = ap.parse_args().turns
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}, {turns} turns per case, fake Ollama answering instantly")
    print(f"{'case':<14}{'model calls':>12}{'p50 ms':>10}{'p95 ms':>10}")
    for name, r in asyncio.run(measure(turns)).items():
        print(f"{name:<14}{r['model_calls']:>12.1f}{r['p50_ms']:>10.2f}{r['p95_ms']:>10.2f}")


if __name__ == "__main__":
    main()
