"""The daemon over a long run of mixed load with faults: memory over time, answers, failures by kind, lost turns.

    python scripts/soak.py [--minutes M] [--clients N] [--seconds S]

A real daemon (its own process) against the fake Ollama, asked by N clients at once through its API: chat questions
(one model call each), arithmetic and conversions (no model), follow-ups in a session. Injected all the while: the
model server failing 1 call in 20 (HTTP 500) and stalling 1 in 50 for a second, clients that drop the connection
after the first event, a SIGHUP every 20 s (settings reloaded), and, where a tmpfs (256 MB) can be mounted for the
home, its disk filled to the last byte for 5 s each minute. Weather questions (a fake Open-Meteo) use the place index
and the weather cache, and both are damaged under load (garbage written over them every 15 s, one of them sometimes
while the disk is full): they must be rebuilt once, by one process, with nothing left behind. The history is capped
(48 MB): the soak writes about half a megabyte a second, so the trims run under load too. Every 30 s it prints the daemon's memory and the counts. At the
end: answers, failures by kind, internal errors (target 0), lost turns (an answer the client saw whose turn is not in
the store; target 0), partial files left by cache builds and the disk they hold (target 0), and memory growth from
the first minute to the last (target: flat).

--seconds S runs a short soak (the tests use 8).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import machine
from fake_ollama import FakeOllama, Reply, Script
from fake_open_meteo import FakeOpenMeteo
from processes import Daemon

from assistant.frontends.client import Client, DaemonError, DaemonUnavailable


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def model_reply(rng: random.Random) -> object:
    def reply(request: dict) -> Reply:
        roll = rng.random()
        if roll < 0.05:
            return Reply(error="an injected server error", status=500)
        return Reply(content="A short answer about " + request["messages"][-1]["content"][:40] + ".",
                     delay=1.0 if roll > 0.98 else 0.0)
    return reply


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--seconds", type=float, help="a short soak of this many seconds instead")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--cap-mb", type=int, default=48, help="the history cap (the soak writes ~0.5 MB a second)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    duration = args.seconds if args.seconds else args.minutes * 60
    rng = random.Random(11)
    m = machine()
    print(f"soak · {duration / 60:.1f} min · {args.clients} clients · {m['cores']} cores · Python {m['python']}",
          flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        disk = root / "disk"
        disk.mkdir()
        tmpfs = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(disk)],
                               capture_output=True).returncode == 0
        home = disk / "home"
        fake = FakeOllama(Script().always("router", '{"route": "chat"}').always("responder", model_reply(rng))
                          .always("decide", model_reply(rng))).start()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
        meteo = FakeOpenMeteo().start()
        env.update(ASSISTANT_HOME=str(home), OLLAMA_HOST=fake.url, ASSISTANT_BACKEND="ollama",
                   ASSISTANT_TRANSPORT_BACKOFF="0.01", ASSISTANT_HISTORY_MAX_MB=str(args.cap_mb),
                   ASSISTANT_WEATHER_FORECAST_URL=meteo.url, ASSISTANT_WEATHER_GEOCODING_URL=meteo.url)
        caches = home / "cache"
        daemon = Daemon(home, env).start()
        pid = daemon.proc.pid  # type: ignore[union-attr]
        counts: collections.Counter[str] = collections.Counter()
        internal: collections.Counter[str] = collections.Counter()  # the internal errors' lines, to fix each
        seen: list[tuple[str, float]] = []  # (turn id, when) of answers a client received as saved
        lock = threading.Lock()
        stop = threading.Event()

        def client(k: int) -> None:
            crng = random.Random(100 + k)
            session: str | None = None
            while not stop.is_set():
                kind = crng.choice(["chat", "chat", "arithmetic", "convert", "follow-up", "drop", "weather"])
                question = {"chat": f"Tell me something about topic {crng.randrange(10**6)}",
                            "weather": crng.choice(["what's the weather in Paris", "北京天气怎么样", "weather in Oslo",
                                                    "is it cold in Tokyo?"]),
                            "arithmetic": f"{crng.randrange(1000)} * {crng.randrange(1000)}",
                            "convert": f"convert {crng.randrange(1, 500)} km to miles",
                            "follow-up": "and 20 km?", "drop": f"Tell me about {crng.randrange(10**6)}"}[kind]
                try:
                    stream = Client(home / "data" / "run").ask(question, session if kind == "follow-up" else None)
                    done, answered = None, None
                    for event in stream:
                        if kind == "drop":
                            stream.abort()
                            break
                        if event.get("type") == "turn_started":
                            session = event.get("session_id") or session
                        if event.get("type") in ("turn_done", "turn_failed"):
                            done = event  # the last one counts (an answer shown but not saved ends failed)
                            answered = answered or (event if event["type"] == "turn_done" else None)
                    with lock:
                        if kind == "drop":
                            counts["dropped by the client"] += 1
                        elif done is None:
                            counts["no end event"] += 1
                        elif done["type"] == "turn_done":
                            counts["answered" if done.get("ok") else "answered: honest failure"] += 1
                            if done.get("turn_id"):
                                seen.append((done["turn_id"], time.time()))
                        else:
                            text = f"{done.get('message')} {done.get('hint')}"
                            why = "disk full" if "is full" in text else "damaged" if "damaged" in text else "other"
                            if "internal error" in text:
                                internal[text[:200]] += 1
                            counts["internal error" if "internal error" in text else
                                   f"answered, said not saved ({why})" if answered is not None else
                                   f"failed: exit {done.get('exit_code')} ({why})"] += 1
                    if done is not None and done["type"] == "turn_failed":
                        time.sleep(0.1)  # a person does not ask again at once
                except (DaemonUnavailable, DaemonError) as e:
                    with lock:
                        counts[f"client error: {type(e).__name__}"] += 1
                    time.sleep(0.2)

        ready = time.monotonic() + 120  # the place index the daemon builds as it starts (a new home): a daemon that
        while not list(caches.glob("gazetteer/places-v*.sqlite")) and time.monotonic() < ready:  # has run a while
            time.sleep(0.2)
        threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(args.clients)]
        for t in threads:
            t.start()
        fill_every = 60.0 if duration > 120 else duration / 3
        hup_every = 20.0 if duration > 120 else duration / 2
        start, samples, next_sample, next_hup, next_fill = time.monotonic(), [], 0.0, hup_every, fill_every * 0.75
        filler = disk / "filler"
        damage_every = 15.0 if duration > 120 else duration  # a short soak: once, halfway
        next_damage = damage_every / 2
        try:
            while (elapsed := time.monotonic() - start) < duration:
                if elapsed >= next_damage:  # garbage over a cache file in use (the daemon's, and its workers')
                    for target in [*caches.glob("gazetteer/places-v*.sqlite"), *caches.glob("weather/weather.sqlite")]:
                        try:
                            with open(target, "r+b") as f:
                                f.write(b"\x00garbage" * 512)
                            counts["caches garbled (injected)"] += 1
                        except OSError:
                            pass
                    next_damage += damage_every
                if elapsed >= next_sample:
                    mem = rss_mb(pid)
                    samples.append((elapsed, mem))
                    with lock:
                        done = dict(counts)
                    print(f"{elapsed / 60:5.1f} min  daemon {mem:6.1f} MB  {sum(done.values()):6,} asks  "
                          f"{done.get('answered', 0):6,} answered  {done.get('internal error', 0)} internal errors",
                          flush=True)
                    next_sample += 30.0 if duration > 120 else 5.0
                if elapsed >= next_hup:
                    os.kill(pid, signal.SIGHUP)
                    counts["SIGHUP sent"] += 1
                    next_hup += hup_every
                if tmpfs and elapsed >= next_fill:
                    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
                    try:
                        while True:
                            os.write(fd, b"x" * 65536)
                    except OSError:
                        pass
                    finally:
                        os.close(fd)
                    counts["disk filled"] += 1
                    time.sleep(5.0 if duration > 120 else 1.5)  # the disk stays full for a while
                    filler.unlink()
                    next_fill += fill_every
                time.sleep(0.2)
        finally:
            stop.set()
            for t in threads:
                t.join(30)
            alive = daemon.proc is not None and daemon.proc.poll() is None  # type: ignore[union-attr]
            daemon.stop()
            fake.stop()
            meteo.stop()
        db = sqlite3.connect(home / "data" / "assistant.db")
        stored = {r[0] for r in db.execute("SELECT id FROM turns")}
        oldest = db.execute("SELECT min(started_at) FROM turns").fetchone()[0] or ""
        db.close()
        # an answer the client saw as saved, whose turn is not in the store and not older than what the cap keeps
        from datetime import datetime

        since = datetime.fromisoformat(oldest).timestamp() + 2 if oldest else 0
        lost = [t for t, at in seen if t not in stored and at > since]
        log = (home / "log" / "daemon.log").read_text() if (home / "log" / "daemon.log").exists() else ""
        partials = [p for p in caches.rglob("*") if ".partial" in p.name or ".tmp" in p.name]
        partial_bytes = sum(p.stat().st_size for p in partials if p.exists())
        if tmpfs:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True)
    first = [m for t, m in samples if t <= 60] or [samples[0][1]]
    last = [m for t, m in samples if t >= samples[-1][0] - 60] or [samples[-1][1]]
    growth = max(last) - max(first)
    print("\nby kind:")
    for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:<32} {n:>8,}")
    print(f"answers seen by clients with a turn id: {len(seen):,}; lost turns: {len(lost)}; internal errors: "
          f"{counts.get('internal error', 0)}; daemon alive to the end: {alive}")
    for line, n in internal.most_common(5):
        print(f"  internal error ×{n}: {line}")
    print(f"caches damaged under load: {counts.get('caches garbled (injected)', 0)}; partial files left by their builds: "
          f"{len(partials)} ({partial_bytes / 2**20:.1f} MB)")
    print(f"daemon memory: {max(first):.1f} MB in the first minute, {max(last):.1f} MB in the last ({growth:+.1f} MB); "
          f"disk filled: {'yes' if tmpfs else 'no (no tmpfs here)'}; daemon log errors: "
          f"{sum('Traceback' in line for line in log.splitlines())} tracebacks")
    if args.json:
        Path(args.json).write_text(json.dumps({"counts": counts, "lost": len(lost), "samples": samples,
                                               "growth_mb": growth, "alive": alive, "partials": len(partials)}))
    ok = not lost and not counts.get("internal error") and alive and not partials
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
