"""What the pipeline costs, in one command: model calls per question, latency against the limit, pipeline
and sandbox overhead, cold start, and batch throughput, each with the machine it ran on.

    python scripts/bench.py [--quick] [--json FILE]

Everything runs against the fake Ollama (tests/fakes/fake_ollama.py) and the fake Open-Meteo, scripted as an
oracle that answers every stage correctly for the questions in scripts/bench_questions.jsonl.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from _common import ROOT, machine, pct
from fake_ollama import FakeOllama, Reply, kind_of
from fake_open_meteo import FakeOpenMeteo
from oracle import results_of, written_answer

import bench_batch
import bench_first_word
import bench_memory
import bench_pipeline
import bench_sandbox
from assistant.app import build_assistant
from assistant.config import Settings
from assistant.paths import Paths
from tools.gazetteer import build_index

QUESTIONS = [json.loads(line) for line in (ROOT / "scripts" / "bench_questions.jsonl").read_text().splitlines() if line]
TARGETS = {"mean_calls_tiers_on": 0.6, "arithmetic_calls": 0, "overhead_p50_ms": 3, "sandbox_p50_ms": 15,
           "version_ms": 150, "daemon_first_byte_ms": 200, "forecast_calls": 1, "forecast_router_calls": 0,
           "plan_wall_ratio": 1.2}


ENGLISH = ("light", "air", "water", "stone", "glass", "sand", "wind", "rain", "snow", "fire", "earth", "wood", "iron",
           "salt", "milk", "bread", "paper", "cloth")
CHINESE = ("光", "空气", "水", "石头", "玻璃", "沙子", "风", "雨", "雪", "火", "土", "木头", "铁")


class Oracle:
    """Answers each stage as a correct model would, looked up from the question set."""

    def __init__(self, latency: float = 0.0, token_rate: float | None = None, answer_tokens: int = 40) -> None:
        self.by_question = {q["question"]: q for q in QUESTIONS}
        self.latency, self.token_rate, self.answer_tokens = latency, token_rate, answer_tokens

    def _entry(self, request: dict[str, Any]) -> dict[str, Any]:
        for m in reversed(request["messages"]):
            content = m.get("content") or ""
            if m["role"] != "user":
                continue
            if content.startswith("User request: "):
                content = content[len("User request: "):]
            for line in (content, content.split("\n")[0]):
                if line in self.by_question:
                    return self.by_question[line]
        raise LookupError("the oracle does not know this question")

    def __call__(self, request: dict[str, Any]) -> Reply:
        entry, kind = self._entry(request), kind_of(request)
        if kind == "router":
            return Reply(content=json.dumps({"route": entry["route"]}), delay=self.latency)
        if kind == "executor" or (kind == "decide" and entry["route"] not in ("chat", "clarify")):
            # a capable model offered every tool calls the right one at once (the deciding call)
            return Reply(tool_calls=[{"name": entry["route"], "arguments": a} for a in entry["args"]], delay=self.latency)
        if kind == "validator":
            return Reply(content='{"verdict": "PASS", "reason": "the arguments fit the request"}', delay=self.latency)
        # A conversation answer as a correct model writes one: no figure the question does not hold (the answer
        # check would hold it back), never one piece over and over.
        words = " ".join(f"it is {w}." for w in ENGLISH[:self.answer_tokens // 3])
        try:  # an answer from tool results states their figures, as the answer check requires
            words = written_answer(*results_of(request))
        except LookupError:
            if any("\u4e00" <= ch <= "\u9fff" for ch in entry["question"]):
                words = "".join(f"这是{w}。" for w in CHINESE[:self.answer_tokens // 4])
        if self.token_rate:
            return Reply(content=words, chunk_size=5, chunk_delay=1 / self.token_rate, delay=self.latency)  # 5 chars: 1 token
        return Reply(content=words)


async def run_set(settings_overrides: dict[str, Any], oracle: Oracle) -> list[dict[str, Any]]:
    """Every question of the set through a fresh app; per question: category, model calls, seconds, ok."""
    rows = []
    with FakeOllama(oracle) as fake, FakeOpenMeteo() as meteo, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = Settings(ollama_host=fake.url, backend="ollama", weather_forecast_url=meteo.url,
                            weather_geocoding_url=meteo.url, gazetteer_index=GAZETTEER, clock=meteo.now.isoformat(),
                            **settings_overrides)
        app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
        await app.warm()
        sessions: dict[int, str] = {}
        for q in QUESTIONS:
            session = None
            if q["session"] is not None:
                session = sessions.setdefault(q["session"], app.store.create_session())
            t0, seen = time.perf_counter(), len(fake.requests)
            result = await app.ask(q["question"], session_id=session)
            routers = sum(kind_of(r) == "router" for r in fake.requests[seen:])
            rows.append({"category": q["category"], "calls": result.model_calls, "seconds": time.perf_counter() - t0,
                         "ok": result.ok, "route": result.route, "router_calls": routers})
        await app.aclose()
    return rows


def by_category(rows: list[dict[str, Any]], key: str, fn=statistics.mean) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        groups[r["category"]].append(r[key])
    return {c: fn(v) for c, v in groups.items()}


async def plan_concurrency(repeats: int, model_latency: float = 0.2, api_latency: float = 0.3) -> dict[str, float]:
    """Two independent tool steps in one question against the slower step alone, with a fixed latency per model
    call and per weather request (no cache): the steps must overlap, not add up."""
    both_q, alone_q = "北京天气怎么样?顺便算一下 23*47", "北京天气怎么样?"

    def answer(request: dict[str, Any]) -> Reply:
        return Reply(content=written_answer(*results_of(request)), delay=model_latency)

    with FakeOllama(answer) as fake, FakeOpenMeteo() as meteo, tempfile.TemporaryDirectory() as tmp:
        meteo.delay = api_latency
        root = Path(tmp)
        settings = Settings(ollama_host=fake.url, backend="ollama", weather_forecast_url=meteo.url,
                            weather_geocoding_url=meteo.url, gazetteer_index=GAZETTEER, weather_cache_minutes=0)
        app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
        await app.warm()
        times: dict[str, list[float]] = {"both": [], "alone": []}
        for _ in range(repeats):
            for key, q in (("alone", alone_q), ("both", both_q)):
                t0 = time.perf_counter()
                result = await app.ask(q)
                assert result.ok, result.error
                times[key].append(time.perf_counter() - t0)
        await app.aclose()
    both, alone = statistics.median(times["both"]), statistics.median(times["alone"])
    return {"both_s": both, "alone_s": alone, "ratio": both / alone, "model_latency_s": model_latency,
            "api_latency_s": api_latency}


def cold_start(quick: bool) -> dict[str, float]:
    """Whole processes: `assistant --version`, and `assistant ask` to the first byte, with and without the daemon."""
    runs = 5 if quick else 10
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}

    def version() -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "assistant", "--version"], env=env, capture_output=True, check=True)
        return (time.perf_counter() - t0) * 1000

    def first_byte(args: list[str], env_: dict[str, str]) -> float:
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "assistant", "ask", *args], env=env_, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        assert p.stdout is not None
        p.stdout.read(1)
        ms = (time.perf_counter() - t0) * 1000
        p.wait()
        return ms

    out = {"version_ms": statistics.median(version() for _ in range(runs))}
    with FakeOllama(Oracle()) as fake, tempfile.TemporaryDirectory() as tmp:
        e = {**env, "ASSISTANT_HOME": tmp, "OLLAMA_HOST": fake.url, "ASSISTANT_BACKEND": "ollama",
             "ASSISTANT_GAZETTEER_INDEX": GAZETTEER}
        out["ask_first_byte_ms"] = statistics.median(first_byte(["--no-daemon", "Why is the moon round?"], e) for _ in range(runs))
        out["ask_arithmetic_first_byte_ms"] = statistics.median(first_byte(["--no-daemon", "123 * 456"], e) for _ in range(runs))
        cpu = [ask_cpu(["--no-daemon", "123 * 456"], e) for _ in range(runs)]
        out["ask_rule_cpu_s"] = statistics.median(c[0] for c in cpu)  # the asking process
        out["ask_rule_worker_cpu_s"] = statistics.median(c[1] for c in cpu)  # the calculator's sandbox worker
        daemon = subprocess.Popen([sys.executable, "-m", "assistant", "daemon", "run"], env=e,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            from assistant.frontends.client import connect

            deadline = time.monotonic() + 30
            while connect(Path(tmp) / "data" / "run") is None:
                if time.monotonic() > deadline:
                    raise SystemExit("the daemon did not start")
                time.sleep(0.05)
            first_byte(["Why is the moon round?"], e)  # warm
            out["daemon_first_byte_ms"] = statistics.median(first_byte(["Why is the moon round?"], e) for _ in range(runs))
        finally:
            daemon.terminate()
            daemon.wait(15)
    return out


def ask_cpu(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds of one whole `assistant ask`: its own process, and its children (the tool's sandbox worker)."""
    code = ("import resource, sys; from assistant.frontends.cli import main; main(sys.argv[1:]); "
            "s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code, "ask", *args], env=env, capture_output=True, text=True, check=True)
    own, children = p.stderr.split()[-2:]
    return float(own), float(children)


def hung_model(timeout: float = 5.0) -> dict[str, float]:
    """A model that never answers, request_timeout = 5: how long `assistant ask` takes to say so, and how many
    requests reached the server (a read timeout is not retried)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    with FakeOllama(lambda request: Reply(content='{"route": "chat"}', delay=timeout + 2)) as fake, \
            tempfile.TemporaryDirectory() as tmp:
        e = {**env, "ASSISTANT_HOME": tmp, "OLLAMA_HOST": fake.url, "ASSISTANT_BACKEND": "ollama",
             "ASSISTANT_GAZETTEER_INDEX": GAZETTEER, "ASSISTANT_REQUEST_TIMEOUT": f"{timeout:g}"}
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--no-daemon", "Why is the moon round?"], env=e,
                               capture_output=True, text=True)
            runs.append(time.perf_counter() - t0)
        return {"request_timeout_s": timeout, "seconds": statistics.median(runs), "exit_code": p.returncode,
                "requests": len(fake.requests) / 3, "message": p.stderr.strip()}


def popup_start(runs: int = 9) -> dict[str, Any] | None:
    """Hotkey to window: from the daemon's popup request (what the hotkey calls) to the popup on screen, under
    Xvfb (with openbox when installed). None where there is no virtual screen to measure on."""
    import shutil

    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        return None
    from processes import Daemon, virtual_screen

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    times: list[float] = []
    with FakeOllama(Oracle()) as fake, tempfile.TemporaryDirectory() as tmp, \
            virtual_screen(range(200, 260), window_manager=True) as screen:
        e = {**env, "DISPLAY": screen, "ASSISTANT_HOME": tmp, "OLLAMA_HOST": fake.url, "ASSISTANT_BACKEND": "ollama",
             "ASSISTANT_GAZETTEER_INDEX": GAZETTEER, "ASSISTANT_HOTKEY": ""}
        daemon = Daemon(Path(tmp), e).start()
        try:
            client = daemon.client
            xdo = lambda *a: subprocess.run(["xdotool", *a], env=e, capture_output=True, text=True, timeout=10)  # noqa: E731

            def wait(done: Callable[[], bool], what: str) -> None:
                deadline = time.monotonic() + 20
                while not done():
                    if time.monotonic() > deadline:
                        logs = [Path(tmp) / "log" / name for name in ("popup.log", "daemon.log")]
                        raise SystemExit(f"bench: the popup did not {what} in time; "
                                         + " | ".join(p.read_text()[-400:] for p in logs if p.exists()))
                    time.sleep(0.02)
            for _ in range(runs):
                t0 = time.perf_counter()
                client.post("/v1/popup", {})
                wait(lambda: bool(xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.strip()), "open")
                times.append(time.perf_counter() - t0)
                window = xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.split()[0]
                wait(lambda window=window: xdo("getwindowfocus").stdout.strip() == window, "take the keyboard")
                xdo("key", "Escape")
                wait(lambda: not xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.strip(), "close")
        finally:
            daemon.stop()
    return {"median_s": statistics.median(times), "max_s": max(times), "runs": runs,
            "window_manager": "openbox" if shutil.which("openbox") else "none"}


def main() -> None:
    global GAZETTEER
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (about a minute)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON, for comparison across commits")
    a = ap.parse_args()
    m = machine()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as gz:
        GAZETTEER = str(Path(gz) / "places.sqlite")
        build_index(Path(GAZETTEER))
        on = asyncio.run(run_set({}, Oracle()))
        off = asyncio.run(run_set({"deterministic": False}, Oracle()))
        routed = asyncio.run(run_set({"one_call": False}, Oracle()))  # a routing call first, as before one call decided
        rendered = asyncio.run(run_set({"rendered_answers": True}, Oracle()))  # the tool's own sentence shown
        latency, rate = 0.2, 50.0
        answer_call = latency + 40 / rate
        timed = asyncio.run(run_set({}, Oracle(latency=latency, token_rate=rate)))
        planned = asyncio.run(plan_concurrency(5 if a.quick else 15))
        overhead = asyncio.run(bench_pipeline.measure(50 if a.quick else 200))
        sandbox = asyncio.run(bench_sandbox.measure(100 if a.quick else 500, GAZETTEER))
        cold = cold_start(a.quick)
        batch = bench_batch.measure(questions=24 if a.quick else 40, memory_questions=2000 if a.quick else 10000)
        hung = hung_model()
        popup = popup_start()
        resident = bench_memory.measure(300 if a.quick else 2000)
        first_word = bench_first_word.measure(1 if a.quick else 3) if bench_first_word.available() else None
        several = bench_batch.hosts(questions=32 if a.quick else 64)  # 1 s per call: the hosts, not this machine, set the pace

    calls_on, calls_off = by_category(on, "calls"), by_category(off, "calls")
    calls_routed = by_category(routed, "calls")
    calls_rendered = by_category(rendered, "calls")
    mean_rendered = statistics.mean(r["calls"] for r in rendered)
    mean_on, mean_off = statistics.mean(r["calls"] for r in on), statistics.mean(r["calls"] for r in off)
    mean_routed = statistics.mean(r["calls"] for r in routed)
    ratios = [dict(r, ratio=r["seconds"] / answer_call) for r in timed]
    figures: dict[str, Any] = {
        "machine": m, "questions": len(QUESTIONS),
        "model_calls": {"tiers_on": {"mean": mean_on, **calls_on}, "tiers_off": {"mean": mean_off, **calls_off},
                        "routing_call_first": {"mean": mean_routed, **calls_routed},
                        "tools_own_sentence": {"mean": mean_rendered, **calls_rendered},
                        "saving": mean_off / mean_on if mean_on else float("inf"),
                        "correct_tiers_on": sum(r["ok"] for r in on), "correct_tiers_off": sum(r["ok"] for r in off)},
        "latency_vs_one_answer_call": {"per_call_latency_s": latency, "tokens_per_s": rate, "answer_tokens": 40,
                                       **{c: {"median": pct([r["ratio"] for r in ratios if r["category"] == c], 50),
                                              "p95": pct([r["ratio"] for r in ratios if r["category"] == c], 95)}
                                          for c in calls_on}},
        "pipeline_overhead": overhead, "sandbox": sandbox, "cold_start": cold, "batch": batch,
        "forecast": {"router_calls": max(r["router_calls"] for r in on if r["category"] == "forecast"),
                     "max_model_calls": max(r["calls"] for r in on if r["category"] == "forecast")},
        "plan_concurrency": planned, "hung_model": hung, "popup": popup, "hosts": several,
        "daemon_memory": resident, "first_word_built_in": first_word,
    }

    def mark(ok: bool) -> str:
        return "✓" if ok else "✗"

    print(f"assistant benchmarks · {m['cores']} cores · Python {m['python']} · {m['platform']} · {len(QUESTIONS)} questions")
    print("\n1. Model calls per question (fake Ollama answering correctly)")
    print(f"   {'category':<14}{'n':>4}{'tiers on':>10}{'tiers off':>11}{'routing call first':>20}"
          f"{'tool sentence':>15}")
    counts = defaultdict(int)
    for q in QUESTIONS:
        counts[q["category"]] += 1
    for c in calls_on:
        print(f"   {c:<14}{counts[c]:>4}{calls_on[c]:>10.2f}{calls_off[c]:>11.2f}{calls_routed[c]:>20.2f}"
              f"{calls_rendered[c]:>15.2f}")
    print(f"   {'mean':<14}{len(QUESTIONS):>4}{mean_on:>10.2f}{mean_off:>11.2f}{mean_routed:>20.2f}{mean_rendered:>15.2f}   "
          f"saving {mean_off / mean_on:.1f}x   "
          f"{mark(mean_on <= TARGETS['mean_calls_tiers_on'])} ≤ 0.6 · arithmetic {mark(calls_on['arithmetic'] == 0)} 0"
          f" · correct {figures['model_calls']['correct_tiers_on']}/{len(QUESTIONS)}")
    fc = figures["forecast"]
    print(f"   forecasts (known place, known day): router calls {fc['router_calls']} "
          f"{mark(fc['router_calls'] == 0)} 0 · model calls at most {fc['max_model_calls']} {mark(fc['max_model_calls'] <= 1)} ≤ 1")
    print(f"\n2. Wall time / one answer-writing call ({latency * 1000:.0f} ms per call + 40 tokens at {rate:.0f} tok/s = {answer_call:.1f} s)")
    for c in calls_on:
        lat = figures["latency_vs_one_answer_call"][c]
        print(f"   {c:<14} median {lat['median']:5.2f}   p95 {lat['p95']:5.2f}")
    print("\n3. Pipeline overhead per turn, instant model, store writes included")
    for c, r in overhead.items():
        print(f"   {c:<14} {r['model_calls']:.0f} calls   p50 {r['p50_ms']:6.2f} ms   p95 {r['p95_ms']:6.2f} ms")
    print(f"   {mark(overhead['arithmetic']['p50_ms'] < TARGETS['overhead_p50_ms'])} arithmetic p50 < 3 ms")
    print("\n4. Tools in the sandbox, warm, per call")
    print("\n".join(bench_sandbox.report(sandbox, indent="   ")))
    print("\n5. Cold start, whole processes (median)")
    print(f"   assistant --version                       {cold['version_ms']:6.0f} ms  {mark(cold['version_ms'] < 150)} < 150 ms")
    print(f"   assistant ask, no daemon, arithmetic      {cold['ask_arithmetic_first_byte_ms']:6.0f} ms to the first byte")
    print(f"   assistant ask, no daemon, arithmetic      {cold['ask_rule_cpu_s']:6.2f} CPU-s in its process "
          f"{mark(cold['ask_rule_cpu_s'] <= 0.4)} ≤ 0.4 (+ {cold['ask_rule_worker_cpu_s']:.2f} in the tool's sandbox worker)")
    print(f"   assistant ask, no daemon, chat            {cold['ask_first_byte_ms']:6.0f} ms to the first byte")
    print(f"   assistant ask, through the daemon, chat   {cold['daemon_first_byte_ms']:6.0f} ms to the first byte"
          f"  {mark(cold['daemon_first_byte_ms'] < 200)} < 200 ms")
    print(f"\n6. Batch: {batch['c1_per_s']:.2f} questions/s at -j 1, {batch['c8_per_s']:.2f} at -j 8 "
          f"({batch['speed_up']:.1f}x {mark(batch['speed_up'] >= 6)} ≥ 6x; {batch['latency_s'] * 1000:.0f} ms per call); "
          + ", ".join(f"peak {v:.0f} MB for {k.rsplit('_', 1)[1]} questions" for k, v in batch.items() if k.startswith("peak_rss")))
    print(f"\n7. Two independent tool steps in one question ({planned['model_latency_s'] * 1000:.0f} ms per model call, "
          f"{planned['api_latency_s'] * 1000:.0f} ms per weather request): {planned['both_s']:.2f} s vs "
          f"{planned['alone_s']:.2f} s for the slower step alone = {planned['ratio']:.2f}x {mark(planned['ratio'] <= 1.2)} ≤ 1.2x")
    print(f"\n8. A model that never answers, request_timeout = {hung['request_timeout_s']:g} s")
    print(f"   assistant ask gives up after {hung['seconds']:.2f} s (median of 3, process start included) with exit code "
          f"{hung['exit_code']}, {hung['requests']:g} request sent  {mark(hung['seconds'] < hung['request_timeout_s'] + 1)} < "
          f"{hung['request_timeout_s'] + 1:g} s")
    print(f"   {hung['message']}")
    if popup:
        print(f"\n9. Popup, hotkey to window (Xvfb, window manager: {popup['window_manager']}): median "
              f"{popup['median_s']:.2f} s, slowest {popup['max_s']:.2f} s of {popup['runs']}  "
              f"{mark(popup['median_s'] < 1)} < 1 s")
    else:
        print("\n9. Popup, hotkey to window: not measured (needs Xvfb and xdotool)")
    print("\n10. Several hosts (hosts = [...]), whole `assistant batch` processes")
    print("\n".join(bench_batch.report_hosts(several, indent="   ")))
    print(f"   {mark(several['speed_up_1'] >= 0.95)} 1 listed ≈ plain · {mark(several['speed_up_2'] >= 1.8)} ≥ 1.8x at 2 · "
          f"{mark(several['speed_up_4'] >= 3.4)} ≥ 3.4x at 4 · "
          f"{mark(several['death_answered'] == 1 and several['death_duplicates'] == 0)} 100% answered, none duplicated")
    print("\n11. The daemon's memory (a real daemon, the fake Ollama, long answers read by the language check)")
    print(f"   {resident['idle_mb']:.0f} MB idle once warm {mark(resident['idle_mb'] <= 80)} ≤ 80 MB · "
          f"{resident['after_mb']:.0f} MB after {resident['asks']:,} asks · peak {resident['peak_mb']:.0f} MB")
    print("\n12. The first word on the built-in model (SmolLM2-135M on the embedded engine, real output)")
    if first_word:
        print("\n".join(bench_first_word.report(first_word, indent="   ")))
    else:
        print("   not measured (needs the embedded extra and its model file)")
    print(f"\n(took {time.perf_counter() - started:.0f} s)")
    if a.json:
        Path(a.json).write_text(json.dumps(figures, ensure_ascii=False, indent=2))
        print(f"figures written to {a.json}")


GAZETTEER = ""

if __name__ == "__main__":
    main()
