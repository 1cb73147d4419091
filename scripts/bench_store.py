"""What the store keeps: bytes per stored turn, and what a history cap keeps after a big batch.

    python scripts/bench_store.py [--batch N] [--chat N] [--cap-mb MB]

As a user runs it, against the fake Ollama (whole processes): N chat turns piped into `assistant chat` (half
arithmetic a rule answers, half conversation a model answers), then a batch of N questions of the same mix under
`history_max_mb` = MB. Prints the bytes a stored turn takes (of each kind, measured on a store with no cap: the
pages in use over the turns, and the share of each table), then, under the cap, the conversation turns kept (of
those asked), the batch turns kept, the bytes in use against the cap, and the file's size (pages freed by the cap
are given back to the disk)."""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, machine

sys.path[:0] = [str(ROOT / "tests" / "fakes")]
from fake_ollama import FakeOllama, Script  # noqa: E402


def env_for(home: Path, fake: FakeOllama, cap_mb: int | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    env.update(ASSISTANT_BACKEND="ollama", ASSISTANT_HOME=str(home), OLLAMA_HOST=fake.url)
    if cap_mb is not None:
        env["ASSISTANT_HISTORY_MAX_MB"] = str(cap_mb)
    return env


def questions(n: int, start: int = 0) -> list[str]:
    return [f"{i} * 3" if i % 2 else f"Tell me about topic {i}" for i in range(start, start + n)]


def chat(env: dict[str, str], lines: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "assistant", "chat"], env=env, input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"chat failed ({done.returncode}): {done.stderr[-400:]}")


def batch(env: dict[str, str], lines: list[str], home: Path) -> str:
    home.parent.mkdir(parents=True, exist_ok=True)
    src = home.parent / f"batch-{len(lines)}.txt"
    src.write_text("\n".join(lines) + "\n")
    done = subprocess.run([sys.executable, "-m", "assistant", "batch", str(src), "-j", "8"], env=env,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"batch failed ({done.returncode}): {done.stderr[-400:]}")
    return done.stderr


def usage(home: Path) -> dict[str, object]:
    path = home / "data" / "assistant.db"
    db = sqlite3.connect(path)
    page, count, free = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "page_count", "freelist_count"))
    kinds = dict(db.execute("SELECT s.frontend, count(*) FROM turns t JOIN sessions s ON s.id = t.session_id "
                            "GROUP BY s.frontend").fetchall())
    tables = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    turns = db.execute("SELECT count(*) FROM turns").fetchone()[0]
    db.close()
    return {"used": (count - free) * page, "file": path.stat().st_size, "kinds": kinds, "tables": tables,
            "turns": turns}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=6000)
    ap.add_argument("--chat", type=int, default=300)
    ap.add_argument("--cap-mb", type=int, default=2)
    a = ap.parse_args()
    m = machine()
    print(f"bench_store · {a.chat} chat turns, then a batch of {a.batch:,} · cap {a.cap_mb} MB · {m['cores']} cores "
          f"· Python {m['python']}")
    script = Script().always("router", '{"route": "chat"}').always("responder", "An answer of a few words.")
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(script) as fake:
        for kind, lines in (("rule (arithmetic)", [f"{i} * 3" for i in range(1, 2001)]),
                            ("model (one call, streamed)", [f"Tell me about topic {i}" for i in range(2000)])):
            home = Path(tmp) / f"bare-{len(kind)}" / "home"
            batch(env_for(home, fake, None), lines, home)
            u = usage(home)
            top = sorted(u["tables"].items(), key=lambda kv: -kv[1])[:4]  # type: ignore[union-attr]
            print(f"a {kind} turn: {u['used'] / u['turns']:,.0f} bytes stored ("  # type: ignore[operator]
                  + ", ".join(f"{name} {size / u['turns']:,.0f}" for name, size in top) + ")")  # type: ignore[operator]

        home = Path(tmp) / "capped" / "home"
        env = env_for(home, fake, a.cap_mb)
        chat(env, questions(a.chat))
        said = batch(env, questions(a.batch, a.chat), home)
        u = usage(home)
        kinds = u["kinds"]
        print(f"under a {a.cap_mb} MB cap after the batch: {kinds.get('chat', 0):,} of {a.chat} conversation turns "  # type: ignore[union-attr]
              f"kept, {kinds.get('batch', 0):,} batch turns; {u['used'] / 2**20:.2f} MB in use, file "  # type: ignore[union-attr,operator]
              f"{u['file'] / 2**20:.2f} MB")  # type: ignore[operator]
        for line in said.splitlines():
            if "cap of" in line:
                print(f"  said: {line.removeprefix('assistant: ')[:160]}")
                break


if __name__ == "__main__":
    main()
