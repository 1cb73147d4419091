"""CPU of a batch question and of a daemon ask, beside earlier builds (issue 63, item 9).

    python scripts/bench_cpu.py [--vs REV ...] [--asks N] [--rounds R]

Each build (this checkout, and each REV as a git worktree in a temporary folder) runs from its own source with this
environment's packages (a plain virtual environment whose path holds the build, so that every process it starts,
its workers too, runs the same build), against the same fake Ollama answering as a correct model would
(``scripts/oracle``) and the same fake Open-Meteo:

- **batch**: the 92 questions of ``scripts/bench_questions.jsonl`` (arithmetic, weather, forecasts, word problems,
  chat, traps, plans, units, the clock) in one ``assistant batch -j 4``: CPU of its whole process tree over the
  questions;
- **daemon**: ``assistant daemon run``, warmed by one pass, then N of the same questions through the thin client:
  CPU of the daemon's process tree (read from /proc, its workers included) over the asks; the thin client's own
  CPU apart.

Builds alternate in each round (A B A B …); medians are printed beside this checkout's, as ratios. Each build keeps
its own home (its place index is built in an unmeasured first pass).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine
from fake_ollama import FakeOllama
from fake_open_meteo import FakeOpenMeteo
from oracle import Oracle

CASES = [json.loads(line) for line in (ROOT / "scripts" / "bench_questions.jsonl").read_text().splitlines()]


def plain_venv(folder: Path) -> Path:
    """A virtual environment that sees this one's packages but not the editable install of this checkout (whose
    finder would take ``assistant`` from here whatever the build): its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    site = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    ours = next((folder / "lib").glob("python3*/site-packages"))
    (ours / "packages.pth").write_text(f"{site}\n")  # a path line: the folder's own .pth files are not run
    return folder / "bin" / "python"


class Build:
    def __init__(self, name: str, source: Path, python: Path, work: Path, fake: FakeOllama, meteo: FakeOpenMeteo):
        self.name, self.source, self.python = name, source, python
        self.home = work / f"home-{name}"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_", "PYTHON"))}
        self.env.update(PYTHONPATH=str(source), ASSISTANT_HOME=str(self.home), ASSISTANT_BACKEND="ollama",
                        OLLAMA_HOST=fake.url, ASSISTANT_WEATHER_FORECAST_URL=meteo.url,
                        ASSISTANT_WEATHER_GEOCODING_URL=meteo.url, ASSISTANT_HOTKEY="")
        self.work = work
        self.batch_cpu: list[float] = []
        self.daemon_cpu: list[float] = []
        self.answered = 0

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.python), "-m", "assistant", *args], env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def batch(self) -> float:
        """CPU seconds a question of one whole batch."""
        questions = self.work / f"questions-{time.monotonic_ns()}.txt"  # a new job each time: nothing resumed
        questions.write_text(f"# {questions.name}\n" + "".join(c["question"].replace("\n", " ") + "\n" for c in CASES))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = self.run("batch", str(questions), "-j", "4")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode not in (0, 1):
            raise SystemExit(f"{self.name}: batch failed ({p.returncode}): {p.stderr[-400:]}")
        self.answered = sum(1 for line in p.stdout.splitlines() if json.loads(line).get("ok"))
        return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / len(CASES)

    def daemon(self, asks: list[str]) -> float:
        """CPU seconds of the daemon's process tree an ask, warmed by one unmeasured pass."""
        proc = subprocess.Popen([str(self.python), "-m", "assistant", "daemon", "run"], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            endpoint = self.home / "data" / "run" / "daemon.json"
            deadline = time.monotonic() + 60
            while not endpoint.exists():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{self.name}: the daemon did not start")
                time.sleep(0.05)
            time.sleep(1.0)  # its warm-up, which is not an ask's
            for q in asks:
                self.run("ask", q)
            before = tree_cpu(proc.pid)
            for q in asks:
                self.run("ask", q)
            return (tree_cpu(proc.pid) - before) / len(asks)
        finally:
            proc.terminate()
            proc.wait(30)


def tree_cpu(root: int) -> float:
    """CPU seconds of a process and every process under it, living or reaped by it."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        own = int(fields[11]) + int(fields[12])
        reaped = int(fields[13]) + int(fields[14])
        times[pid] = (own + reaped) / tick

    def under(pid: int) -> bool:
        while pid > 1:
            if pid == root:
                return True
            pid = parents.get(pid, 1)
        return False

    return sum(t for pid, t in times.items() if under(pid))


def worktree(rev: str, folder: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(folder), rev], check=True,
                   capture_output=True)
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vs", action="append", default=[], metavar="REV", help="an earlier build to compare (repeatable)")
    ap.add_argument("--asks", type=int, default=30, help="asks through the daemon a round (default 30)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"bench_cpu · {machine()} · {len(CASES)} batch questions, {args.asks} daemon asks, {args.rounds} rounds")
    trees: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, FakeOllama(Oracle(CASES)) as fake, FakeOpenMeteo() as meteo:
        work = Path(tmp)
        python = plain_venv(work / "venv")
        builds = [Build("this", ROOT, python, work, fake, meteo)]
        try:
            for rev in args.vs:
                label = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], check=True,
                                       capture_output=True, text=True).stdout.strip()
                trees.append(worktree(rev, work / f"src-{label}"))
                builds.append(Build(label, trees[-1], python, work, fake, meteo))
            for b in builds:  # bytecode written, the place index built, the first store made: not measured
                subprocess.run([str(python), "-m", "compileall", "-q", str(b.source / "assistant"),
                                str(b.source / "tools")], capture_output=True)
                b.batch()
            asks = [c["question"] for c in CASES if c.get("session") is None][: args.asks]
            for r in range(args.rounds):
                for b in builds if r % 2 == 0 else reversed(builds):
                    b.batch_cpu.append(b.batch())
                    b.daemon_cpu.append(b.daemon(asks))
        finally:
            for t in trees:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(t)], capture_output=True)
    base = builds[0]
    print(f"{'build':10} {'batch CPU ms a question':>24} {'daemon CPU ms an ask':>22} {'answered':>9}")
    for b in builds:
        bq, da = statistics.median(b.batch_cpu) * 1000, statistics.median(b.daemon_cpu) * 1000
        ratio = "" if b is base else (f"   this ÷ {b.name}: batch {statistics.median(base.batch_cpu) / statistics.median(b.batch_cpu):.2f}×"
                                      f", daemon {statistics.median(base.daemon_cpu) / statistics.median(b.daemon_cpu):.2f}×")
        print(f"{b.name:10} {bq:24.1f} {da:22.1f} {b.answered:>4}/{len(CASES)}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
