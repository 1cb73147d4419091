"""Sandbox overhead: a warm calculator call in a worker process vs the same call in-process.

    python scripts/bench_sandbox.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools import InProcessRunner  # noqa: E402
from tools.calculator import Calculator, CalculatorArgs  # noqa: E402
from tools.sandbox import SandboxRunner  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def timed(runner, calls: int) -> list[float]:
    tool, args = Calculator(), CalculatorArgs(expression="π * 12^2 * 2 / 3")
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        result = await runner.run(tool, args)
        out.append((time.perf_counter() - t0) * 1000)
        assert result.ok
    return out


async def main(calls: int) -> None:
    sandbox = SandboxRunner()
    t0 = time.perf_counter()
    await sandbox.warm([Calculator()])
    cold = (time.perf_counter() - t0) * 1000
    inproc = await timed(InProcessRunner(), calls)
    boxed = await timed(sandbox, calls)
    await sandbox.aclose()
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}, {calls} calls each, seccomp={sandbox.seccomp.get('calculator')}")
    print(f"{'runner':<22}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'in-process':<22}{pct(inproc, 50):>10.3f}{pct(inproc, 95):>10.3f}")
    print(f"{'sandboxed (warm)':<22}{pct(boxed, 50):>10.3f}{pct(boxed, 95):>10.3f}")
    print(f"overhead p50: {pct(boxed, 50) - pct(inproc, 50):.3f} ms (target < 15 ms); "
          f"cold worker start: {cold:.0f} ms (mean of warm calls {statistics.mean(boxed):.3f} ms)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=500)
    asyncio.run(main(ap.parse_args().calls))
