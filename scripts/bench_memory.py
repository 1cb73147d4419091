"""The daemon's memory, as it stays resident all day: a real `assistant daemon run` process against the fake Ollama.

    python scripts/bench_memory.py [--asks N]

Prints the daemon's resident memory (VmRSS) once warm and idle, after N asks through its API (conversations
with long answers in several languages, so the language check reads every sentence; arithmetic; follow-ups in
a few sessions), and its peak (VmHWM) over the whole run. Target: idle <= 80 MB.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine
from fake_ollama import FakeOllama, Script

from processes import Daemon

ANSWERS = [
    "A closure is a function that keeps the variables of the scope it was defined in, so it can use them later.",
    "Rust's ownership rules let the compiler free memory without a garbage collector, at the cost of a learning curve.",
    "The tide rises and falls twice a day because the moon's gravity pulls the oceans on both sides of the earth.",
]


def status(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def measure(asks: int = 2000) -> dict[str, float]:
    turns = iter(range(10**9))
    script = Script().always("router", '{"route": "chat"}').always("responder", lambda _: ANSWERS[next(turns) % 3])
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(script) as fake:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
        env.update(ASSISTANT_HOME=str(home), ASSISTANT_BACKEND="ollama", OLLAMA_HOST=fake.url,
                   PYTHONPATH=str(ROOT))
        daemon = Daemon(home, env).start()
        try:
            assert daemon.proc is not None
            pid = daemon.proc.pid
            time.sleep(3)  # warm: the tools' workers and the models
            out = {"idle_mb": status(pid)["VmRSS"]}
            client = daemon.client
            sessions: list[str | None] = [None] * 4
            for i in range(asks):
                question = [f"Tell me something about topic {i}", f"{i} * 7 + 3", "and what about the next one?"][i % 3]
                slot = i % len(sessions)
                for event in client.ask(question, session_id=sessions[slot]):
                    if event.get("type") == "turn_done" and sessions[slot] is None:
                        sessions[slot] = event.get("session_id")
                if i % 50 == 49:
                    sessions = [None] * 4
            time.sleep(1)
            after = status(pid)
            out.update(asks=asks, after_mb=after["VmRSS"], peak_mb=after["VmHWM"])
        finally:
            daemon.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asks", type=int, default=2000)
    a = ap.parse_args()
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}")
    r = measure(a.asks)
    print(f"daemon resident memory: {r['idle_mb']:.0f} MB idle once warm (target <= 80 MB), "
          f"{r['after_mb']:.0f} MB after {r['asks']:,} asks, peak {r['peak_mb']:.0f} MB")


if __name__ == "__main__":
    main()
