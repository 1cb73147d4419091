"""The figures of hostile input and of the pull, as a user runs the commands (whole processes):

    python scripts/bench_hostile.py [--gb 1] [--runs 3] [--batch 6000]

1. A pull at wire speed: `assistant models pull` of a GB-sized model file from a loopback registry that serves it
   with sendfile (the server is not the limit), against `curl -o` of the same blob from the same server: seconds
   (best of --runs; the page cache is written back between runs), pull ÷ curl as a speed ratio, CPU seconds per GB
   of each, and the pull's peak memory (VmHWM).
2. Peak memory of `ask -f` on a 200 MB text file (refused at its cap before it is read whole) and of -f /dev/zero.
3. The store (scripts/bench_store.py): bytes per stored turn, and what a 2 MB cap keeps after a batch.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine

sys.path[:0] = [str(ROOT / "tests" / "fakes")]
from fake_registry import FakeRegistry  # noqa: E402

# The child's own peak (VmHWM), printed as it exits: ru_maxrss would carry the forking parent's size across exec.
PEAK = ("import runpy, sys; sys.argv = ['assistant'] + sys.argv[1:]\n"
        "try:\n    runpy.run_module('assistant', run_name='__main__')\n"
        "finally:\n"
        "    print('PEAK', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0],"
        " file=sys.stderr)\n")


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(seconds, CPU seconds of the child, the result)."""
    os.sync()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done


def peak_mb(done: subprocess.CompletedProcess[str]) -> float:
    return next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK")) / 1024


def pull_vs_curl(gb: float, runs: int, tmp: Path) -> None:
    blob = tmp / "model.gguf"
    with open(blob, "wb") as f:
        for _ in range(int(gb * 64)):
            f.write(os.urandom(16 << 20))
    size = blob.stat().st_size
    with FakeRegistry() as registry:
        digest = registry.add_file("library/big:1", str(blob))
        curl, pull = [], []
        peak = 0.0
        for run in range(runs):
            out = tmp / "curl.out"
            seconds, cpu, done = timed(["curl", "-sS", "-o", str(out), f"{registry.url}/cdn/{digest}"])
            assert done.returncode == 0, done.stderr
            curl.append((seconds, cpu))
            out.unlink()
            home = tmp / f"run{run}"
            env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
            env.update(ASSISTANT_HOME=str(home / "home"), ASSISTANT_MODELS=str(home / "models"),
                       ASSISTANT_MODEL_REGISTRY=registry.url, ASSISTANT_BACKEND="embedded")
            seconds, cpu, done = timed([sys.executable, "-c", PEAK, "models", "pull", "big:1", "--to", "embedded"], env)
            assert done.returncode == 0, done.stderr
            pull.append((seconds, cpu))
            peak = max(peak, peak_mb(done))
            shutil.rmtree(home)
    c, p = min(curl), min(pull)
    gbs = size / 1e9
    print(f"pull of a {gbs:.2f} GB blob from loopback (best of {runs}): {p[0]:.2f} s, curl -o {c[0]:.2f} s: "
          f"{c[0] / p[0]:.2f}× curl's speed (command start and the digest included)")
    print(f"  CPU per GB: pull {p[1] / gbs:.2f} s, curl {c[1] / gbs:.2f} s; the pull's peak memory {peak:.0f} MB")


def attachments(tmp: Path) -> None:
    big = tmp / "big.txt"
    with open(big, "wb") as f:
        f.truncate(200 << 20)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    env.update(ASSISTANT_HOME=str(tmp / "home"), ASSISTANT_BACKEND="ollama", OLLAMA_HOST="127.0.0.1:9")
    for name, path in (("a 200 MB file", str(big)), ("/dev/zero", "/dev/zero")):
        _, _, done = timed([sys.executable, "-c", PEAK, "ask", "--no-daemon", "-f", path, "summarise"], env)
        said = next((line for line in done.stderr.splitlines() if line.startswith("assistant:")), "")
        print(f"ask -f {name}: exit {done.returncode}, peak memory {peak_mb(done):.0f} MB; {said[:110]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=6000)
    a = ap.parse_args()
    m = machine()
    print(f"bench_hostile · {m['cores']} cores · Python {m['python']}")
    with tempfile.TemporaryDirectory() as tmp:
        pull_vs_curl(a.gb, a.runs, Path(tmp))
        attachments(Path(tmp))
    subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_store.py"), "--batch", str(a.batch)], check=True)


if __name__ == "__main__":
    main()
