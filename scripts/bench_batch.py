"""Batch throughput and memory, as whole `assistant batch` processes against the fake Ollama.

    python scripts/bench_batch.py [--questions N] [--latency S] [--memory-questions M] [--hosts-only] [--long N
                                  [--cap-mb MB ...]]

1. Throughput: N chat questions (2 model calls each) with the fake answering each call after a fixed
   latency, at concurrency 1 and 8.
2. Peak memory (max RSS of the batch process) for 1,000 and M questions with an instant fake.
3. Several hosts: the same questions at -j 16 on one fake Ollama as a plain OLLAMA_HOST, then spread over 1, 2,
   3 and 4 hosts listed in ``hosts``, each fake answering ``parallel`` calls at once as Ollama does
   (OLLAMA_NUM_PARALLEL; more wait their turn) and no limit of ours; and the share answered (and duplicated) when
   one of four hosts is stopped mid-batch.
4. With --long N (alone): one job of N questions read as it streams: questions/s and CPU per question in each
   window of 5,000, and the peak RSS (the figures for 50,000 take about five minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import machine
from fake_ollama import FakeOllama, Reply, Script


def run_batch(fake: FakeOllama | list[FakeOllama], questions: list[str], concurrency: int, home: Path,
              per_host: int | None = None, lines: list[dict] | None = None) -> tuple[float, float, int]:
    """(seconds answering, as the batch's own summary reports it, peak RSS in MB, records) for one whole process.
    A list of fakes is given as ``hosts``; with ``lines``, the records are kept there and a short batch is no error."""
    src = home / f"q{len(questions)}-{concurrency}-{time.monotonic_ns()}.txt"
    src.write_text("".join(q + "\n" for q in questions))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    fakes = fake if isinstance(fake, list) else [fake]
    env.update(ASSISTANT_BACKEND="ollama", ASSISTANT_HOME=str(src.with_suffix(".state")), OLLAMA_HOST=fakes[0].url)  # a fresh store: no resume
    if isinstance(fake, list):
        env.update(ASSISTANT_HOSTS=",".join(f.url for f in fakes))
        if per_host is not None:
            env.update(ASSISTANT_HOST_MAX_IN_FLIGHT=str(per_host))
    code = ("import resource, runpy, sys; sys.argv = ['assistant'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('assistant', run_name='__main__')\n"
            "finally:\n"
            # VmHWM is this program's own peak; ru_maxrss would carry the forking parent's size across exec.
            "    hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
            "    print('MAXRSS', hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code, "batch", str(src), "-j", str(concurrency)], env=env,
                       capture_output=True, text=True)
    summary = re.search(r"this run \d+ in ([\d.]+)s", p.stderr)
    seconds = float(summary.group(1)) if summary else float("nan")
    rss = next(int(line.split()[1]) for line in p.stderr.splitlines() if line.startswith("MAXRSS")) / 1024
    records = [json.loads(line) for line in p.stdout.splitlines()]
    n = sum(1 for r in records if r["ok"])
    if lines is not None:
        lines.extend(records)
    elif p.returncode != 0 or n != len(questions):
        raise SystemExit(f"batch failed ({p.returncode}): {p.stderr[-500:]}")
    return seconds, rss, n


def measure(questions: int = 40, latency: float = 0.2, memory_questions: int = 10000) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Script().always("router", Reply(content='{"route": "chat"}', delay=latency))
        script.always("responder", Reply(content="An answer.", delay=latency))
        with FakeOllama(script) as fake:
            chat = [f"Tell me something about topic {i}" for i in range(questions)]
            t1, _, _ = run_batch(fake, chat, 1, Path(tmp))  # process start-up excluded: the batch's own clock
            t8, _, _ = run_batch(fake, chat, 8, Path(tmp))
        out = {"questions": questions, "latency_s": latency, "c1_per_s": questions / t1, "c8_per_s": questions / t8,
               "speed_up": t1 / t8}
        script = Script().always("router", '{"route": "chat"}').always("responder", "An answer.")
        with FakeOllama(script) as fake:
            for n in sorted({1000, memory_questions}):
                qs = [f"{i} * 3" if i % 2 else f"Tell me about {i}" for i in range(n)]
                secs, rss, _ = run_batch(fake, qs, 8, Path(tmp))
                out[f"peak_rss_mb_{n}"] = rss
                out[f"rate_{n}_per_s"] = n / secs
    return out


def long_job(n: int = 50000, window: int = 5000, cap_mb: float | None = None) -> dict[str, object]:
    """One job of ``n`` questions (half arithmetic, half chat) against an instant fake, read as it streams: questions/s
    and the batch's own CPU per question in each window of ``window`` records, and its peak RSS."""
    script = Script().always("router", '{"route": "chat"}').always("responder", "An answer.")
    windows: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(script) as fake:
        src = Path(tmp) / "q.txt"
        src.write_text("".join((f"{i} * 3" if i % 2 else f"Tell me about {i}") + "\n" for i in range(n)))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
        env.update(ASSISTANT_BACKEND="ollama", ASSISTANT_HOME=str(Path(tmp) / "state"), OLLAMA_HOST=fake.url)
        if cap_mb is not None:
            env["ASSISTANT_HISTORY_MAX_MB"] = f"{cap_mb:g}"
        code = ("import runpy, sys; sys.argv = ['assistant'] + sys.argv[1:]\n"
                "try:\n    runpy.run_module('assistant', run_name='__main__')\n"
                "finally:\n"
                "    print('MAXRSS', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0],"
                " file=sys.stderr)\n")
        p = subprocess.Popen([sys.executable, "-c", code, "batch", str(src), "-j", "8"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert p.stdout is not None
        ticks = os.sysconf("SC_CLK_TCK")
        last, last_cpu, seen = time.monotonic(), 0.0, 0
        for _ in p.stdout:
            seen += 1
            if seen % window == 0:
                stat = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
                cpu = (int(stat[11]) + int(stat[12])) / ticks  # utime + stime
                now = time.monotonic()
                windows.append((window / (now - last), (cpu - last_cpu) / window * 1000))
                last, last_cpu = now, cpu
        _, err = p.communicate()
    rss = next(int(line.split()[1]) for line in err.splitlines() if line.startswith("MAXRSS")) / 1024
    total_cpu = sum(c for _, c in windows) / len(windows) if windows else float("nan")
    return {"questions": n, "window": window, "windows": windows, "peak_rss_mb": rss, "cpu_ms": total_cpu,
            "last_vs_first": windows[-1][0] / windows[0][0] if windows else float("nan")}


def report_long(r: dict, indent: str = "") -> list[str]:
    rates = " ".join(f"{q:.0f}" for q, _ in r["windows"])
    cpu = " ".join(f"{c:.1f}" for _, c in r["windows"])
    ok = "✓" if abs(r["last_vs_first"] - 1) <= 0.10 else "✗"
    return [f"{indent}{r['questions']:,} questions, one job, instant model, -j 8; per {r['window']:,}:",
            f"{indent}  questions/s     {rates}",
            f"{indent}  CPU ms/question {cpu}",
            f"{indent}  last window / first {r['last_vs_first']:.2f} {ok} within 10% · peak {r['peak_rss_mb']:.0f} MB"]


def hosts(questions: int = 64, latency: float = 1.0, parallel: int = 4) -> dict[str, float]:
    """Throughput on one plain host, then over 1 to 4 listed hosts (each answering ``parallel`` calls at once),
    and one listed host of four dying mid-batch."""
    out: dict[str, float] = {"questions": questions, "latency_s": latency, "parallel": parallel}
    chat = [f"Tell me something about topic {i}" for i in range(questions)]

    def script() -> Script:
        return (Script().always("router", Reply(content='{"route": "chat"}', delay=latency))
                .always("responder", Reply(content="An answer.", delay=latency)))

    with tempfile.TemporaryDirectory() as tmp:
        with FakeOllama(script(), parallel=parallel) as plain:
            seconds, _, _ = run_batch(plain, chat, 16, Path(tmp))
        out["plain_per_s"] = questions / seconds
        for n in (1, 2, 3, 4):
            fakes = [FakeOllama(script(), parallel=parallel).start() for _ in range(n)]
            try:
                seconds, _, _ = run_batch(fakes, chat, 16, Path(tmp))
            finally:
                for f in fakes:
                    f.stop()
            out[f"hosts_{n}_per_s"] = questions / seconds
            out[f"speed_up_{n}"] = out[f"hosts_{n}_per_s"] / out["plain_per_s"]
        fakes = [FakeOllama(script(), parallel=parallel).start() for _ in range(4)]
        doomed = fakes[2]

        def kill() -> None:  # mid-batch: once the doomed host has served a quarter of its share
            deadline = time.monotonic() + 60
            while len(doomed.requests) < questions // 8 and time.monotonic() < deadline:
                time.sleep(0.005)
            doomed.stop()

        killer = threading.Thread(target=kill)
        killer.start()
        records: list[dict] = []
        try:
            run_batch(fakes, chat, 16, Path(tmp), lines=records)
        finally:
            killer.join()
            for f in fakes:
                f.stop()
        ids = [r["id"] for r in records]
        out["death_answered"] = sum(1 for r in records if r["ok"]) / questions
        out["death_duplicates"] = len(ids) - len(set(ids))
        out["death_host_served"] = len(doomed.requests)
    return out


def report_hosts(r: dict[str, float], indent: str = "") -> list[str]:
    return [
        f"{indent}{r['questions']:.0f} chat questions at -j 16, each call {r['latency_s'] * 1000:.0f} ms, "
        f"each host answering {r['parallel']:.0f} calls at once (OLLAMA_NUM_PARALLEL), no limit of ours:",
        f"{indent}  1 plain host (OLLAMA_HOST): {r['plain_per_s']:6.2f} questions/s",
        *(f"{indent}  {n} listed host{'s' if n > 1 else ' '}           : {r[f'hosts_{n}_per_s']:6.2f} questions/s   "
          f"{r[f'speed_up_{n}']:.2f}x the plain host" for n in (1, 2, 3, 4)),
        f"{indent}one of 4 hosts stopped mid-batch (after {r['death_host_served']:.0f} calls): "
        f"{r['death_answered']:.0%} answered (target 100%), {r['death_duplicates']:.0f} duplicated",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=int, default=40)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--memory-questions", type=int, default=10000)
    ap.add_argument("--hosts-only", action="store_true", help="only section 3, several hosts")
    ap.add_argument("--long", type=int, metavar="N", help="only one long job of N questions (50000: about 5 minutes)")
    ap.add_argument("--cap-mb", type=float, nargs="+", metavar="MB", help="with --long: the same job under each "
                    "history cap, against none (the CPU a trim costs per question)")
    a = ap.parse_args()
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}")
    if a.long and a.cap_mb:  # the history cap's cost: the same job with no cap, then under each cap
        free = long_job(a.long)
        print(f"{a.long:,} questions, -j 8, no cap: {free['cpu_ms']:.2f} ms CPU a question")
        for cap in a.cap_mb:
            r = long_job(a.long, cap_mb=cap)
            print(f"  history_max_mb = {cap:g}: {r['cpu_ms']:.2f} ms CPU a question "
                  f"({100 * (r['cpu_ms'] / free['cpu_ms'] - 1):+.0f}%)")
        return
    if a.long:
        print("\n".join(report_long(long_job(a.long))))
        return
    if a.hosts_only:
        print("\n".join(report_hosts(hosts())))
        return
    r = measure(a.questions, a.latency, a.memory_questions)
    print(f"throughput, {a.questions} chat questions, 2 calls each at {a.latency * 1000:.0f} ms per call:")
    print(f"  concurrency 1: {r['c1_per_s']:6.2f} questions/s")
    print(f"  concurrency 8: {r['c8_per_s']:6.2f} questions/s   speed-up {r['speed_up']:.1f}x (target >= 6x)")
    for n in sorted({1000, a.memory_questions}):
        print(f"peak memory, {n:>6} questions (half arithmetic, half chat), instant model: "
              f"{r[f'peak_rss_mb_{n}']:6.1f} MB max RSS, {r[f'rate_{n}_per_s']:,.0f} questions/s")
    print("\n".join(report_hosts(hosts())))


if __name__ == "__main__":
    main()
