"""`assistant models pull` for the embedded engine, measured against a loopback registry that speaks as Ollama's does
(manifest, a 307 to a CDN, Range) and serves the built-in model's real file:

    python scripts/bench_pull.py [--runs N]

Prints, as a user runs it (the command in a subprocess): a fresh pull's seconds and throughput, what the digest check
costs (a pull of a file already whole but for its record: the check alone), a pull cut at half and run again (bytes
fetched twice: must be 0), and a corrupt download (deleted, nothing registered). Loopback has no network latency:
the throughput is the client's own ceiling (reading, hashing, writing), not a link's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine

sys.path[:0] = [str(ROOT / "tests" / "fakes")]
from fake_registry import FakeRegistry  # noqa: E402

from assistant.models import model_file  # noqa: E402


def pull(env: dict[str, str], name: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assistant", "models", "pull", name, "--to", "embedded"], env=env,
                          capture_output=True, text=True, timeout=600)
    return time.perf_counter() - t0, done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    source = model_file.local_path()
    if source is None:
        raise SystemExit("bench_pull: the built-in model file is not here (python -m assistant.models.model_file)")
    data = source.read_bytes()
    m = machine()
    print(f"bench_pull · {len(data) / 1e6:.0f} MB GGUF · {args.runs} runs · {m['cores']} cores · Python {m['python']}")
    with FakeRegistry() as registry, tempfile.TemporaryDirectory() as tmp:
        digest = registry.add("library/smollm2:135m", data)
        fresh, check = [], []
        for run in range(args.runs):
            root = Path(tmp) / f"run{run}"
            env = {**os.environ, "ASSISTANT_HOME": str(root / "home"), "ASSISTANT_MODELS": str(root / "models"),
                   "ASSISTANT_MODEL_REGISTRY": registry.url, "ASSISTANT_BACKEND": "embedded"}
            seconds, done = pull(env, "smollm2:135m")
            assert done.returncode == 0, done.stderr
            fresh.append(seconds)
            pulled = root / "models" / "pulled"
            (pulled / "smollm2-135m.json").unlink()  # the record gone: the file is re-checked, not re-fetched
            os.replace(pulled / "smollm2-135m.gguf", pulled / "smollm2-135m.partial")
            before = len(registry.blob_requests(digest))
            seconds, done = pull(env, "smollm2:135m")
            assert done.returncode == 0 and len(registry.blob_requests(digest)) == before + 1, done.stderr
            check.append(seconds)
        median = statistics.median(fresh)
        print(f"fresh pull: {median:.2f} s median ({len(data) / 1e6 / median:.0f} MB/s, command start included; "
              f"min {min(fresh):.2f}, max {max(fresh):.2f})")
        print(f"verify only (the whole file already here): {statistics.median(check):.2f} s median")

        root = Path(tmp) / "cut"
        env = {**os.environ, "ASSISTANT_HOME": str(root / "home"), "ASSISTANT_MODELS": str(root / "models"),
               "ASSISTANT_MODEL_REGISTRY": registry.url, "ASSISTANT_BACKEND": "embedded"}
        registry.requests.clear()
        registry.cut_after = len(data) // 2
        _, cut = pull(env, "smollm2:135m")
        _, resumed = pull(env, "smollm2:135m")
        ranges = registry.blob_requests(digest)
        start = int(ranges[1].removeprefix("bytes=").rstrip("-")) if len(ranges) > 1 and ranges[1] else 0
        twice = len(data) // 2 - start
        whole = (root / "models" / "pulled" / "smollm2-135m.gguf").read_bytes() == data
        print(f"cut at half (exit {cut.returncode}), run again (exit {resumed.returncode}): resumed at byte {start:,}, "
              f"bytes fetched twice {twice:,}, file identical: {whole}")

        root = Path(tmp) / "corrupt"
        env = {**env, "ASSISTANT_HOME": str(root / "home"), "ASSISTANT_MODELS": str(root / "models")}
        registry.corrupt = True
        _, bad = pull(env, "smollm2:135m")
        left = sorted(p.name for p in (root / "models" / "pulled").iterdir())
        print(f"corrupt download: exit {bad.returncode}, files left {left}, "
              f"said: {bad.stderr.strip().splitlines()[-1][:110]}")


if __name__ == "__main__":
    main()
