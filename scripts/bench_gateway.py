"""A batch through LiteLLM's proxy beside the same batch through ``hosts``: two real llama.cpp servers (the
embedded engine's own server, SmolLM2, one thread each), each behind a counting relay.

    ASSISTANT_TEST_LITELLM=/path/to/litellm python scripts/bench_gateway.py [--questions N] [-j N]

For each path: questions/s, how the calls were spread over the two servers, and, with one server killed once
it has served a quarter of its share, the share answered (a record for the question: its answer, or the honest
sentence when the answer check held the tiny model's text back) and the questions answered twice.
Needs the openai and embedded extras, the model file, and LiteLLM's proxy installed apart
(`python -m venv /tmp/litellm && /tmp/litellm/bin/pip install 'litellm[proxy]==1.80.0'`).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import tempfile
import threading
import time
from pathlib import Path

from _common import machine
from processes import LiteLLMProxy, litellm_command, start_engine_server, stop_process
from relay import CountingRelay

from assistant.app import build_assistant
from assistant.config import Settings
from assistant.frontends.batch import run_batch
from assistant.paths import Paths

KEY = "upstream-key"


async def batch(settings: Settings, root: Path, questions: int, concurrency: int) -> tuple[float, list[dict]]:
    app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
    source = root / "q.txt"
    source.write_text("".join(f"Name a colour, number {i}.\n" for i in range(questions)))
    out = io.StringIO()
    t0 = time.perf_counter()
    await run_batch(app, str(source), out, concurrency, ordered=False, progress=False, jobs_dir=root / "jobs",
                    err=io.StringIO())
    seconds = time.perf_counter() - t0
    await app.aclose()
    return seconds, [json.loads(line) for line in out.getvalue().splitlines()]


def one(path: str, questions: int, concurrency: int, kill: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        servers = []
        for name in ("a", "b"):
            proc, base = start_engine_server(root / f"{name}.log", KEY)
            servers.append((proc, CountingRelay(base.removesuffix("/v1")).start()))
        proxy = None
        try:
            common = dict(model="smollm2", seed=7, max_retries=0, responder_max_tokens=32)
            if path == "litellm":
                proxy = LiteLLMProxy(litellm_command(), [r.url + "/v1" for _, r in servers], "smollm2", KEY, root).wait()
                settings = Settings(backend="openai", openai_base_url=proxy.url, openai_api_key=proxy.master_key, **common)
            else:
                settings = Settings(backend="openai", hosts=[r.url + "/v1" for _, r in servers], openai_api_key=KEY,
                                    **common)
            (doomed_proc, doomed) = servers[0]
            killer = None
            if kill:
                def die() -> None:
                    deadline = time.monotonic() + 300
                    while doomed.chats < max(1, questions // 8) and time.monotonic() < deadline:
                        time.sleep(0.01)
                    doomed.stop()
                    stop_process(doomed_proc)

                killer = threading.Thread(target=die)
                killer.start()
            seconds, rows = asyncio.run(batch(settings, root, questions, concurrency))
            if killer:
                killer.join()
            ids = [r["id"] for r in rows]
            return {"per_s": questions / seconds, "a": servers[0][1].chats, "b": servers[1][1].chats,
                    "answered": len(set(ids)) / questions, "shown": sum(1 for r in rows if r["ok"]),
                    "twice": len(ids) - len(set(ids))}
        finally:
            if proxy:
                proxy.stop()
            for proc, relay in servers:
                relay.stop()
                if proc.poll() is None:
                    stop_process(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=int, default=24)
    ap.add_argument("-j", type=int, default=4)
    a = ap.parse_args()
    if litellm_command() is None:
        raise SystemExit("LiteLLM's proxy is not installed: set ASSISTANT_TEST_LITELLM to its `litellm` command")
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}; {a.questions} chat questions at -j {a.j}, "
          "two llama.cpp servers (SmolLM2, 1 thread each)")
    for path in ("hosts", "litellm"):
        for kill in (False, True):
            r = one(path, a.questions, a.j, kill)
            label = f"{'LiteLLM proxy' if path == 'litellm' else 'hosts'}{', one killed' if kill else ''}"
            print(f"  {label:<26} {r['per_s']:5.2f} questions/s · calls a/b {r['a']:.0f}/{r['b']:.0f} · "
                  f"{r['answered']:.0%} answered ({r['shown']:.0f} shown, the rest held back by the answer check) · "
                  f"{r['twice']:.0f} answered twice")


if __name__ == "__main__":
    main()
