"""Sandbox overhead: a warm calculator call in a worker process vs the same call in-process.

    python scripts/bench_sandbox.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from _common import machine, pct

from tools import InProcessRunner
from tools.calculator import Calculator, CalculatorArgs
from tools.sandbox import SandboxRunner


async def timed(runner, calls: int) -> list[float]:
    tool, args = Calculator(), CalculatorArgs(expression="π * 12^2 * 2 / 3")
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        result = await runner.run(tool, args)
        out.append((time.perf_counter() - t0) * 1000)
        assert result.ok
    return out


async def measure(calls: int) -> dict[str, float | bool | None]:
    sandbox = SandboxRunner()
    t0 = time.perf_counter()
    await sandbox.warm([Calculator()])
    cold = (time.perf_counter() - t0) * 1000
    inproc = await timed(InProcessRunner(), calls)
    boxed = await timed(sandbox, calls)
    await sandbox.aclose()
    return {"in_process_p50_ms": pct(inproc, 50), "in_process_p95_ms": pct(inproc, 95),
            "sandboxed_p50_ms": pct(boxed, 50), "sandboxed_p95_ms": pct(boxed, 95),
            "overhead_p50_ms": pct(boxed, 50) - pct(inproc, 50), "cold_start_ms": cold,
            "seccomp": sandbox.seccomp.get("calculator")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=500)
    calls = ap.parse_args().calls
    r = asyncio.run(measure(calls))
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}, {calls} calls each, seccomp={r['seccomp']}")
    print(f"{'runner':<22}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'in-process':<22}{r['in_process_p50_ms']:>10.3f}{r['in_process_p95_ms']:>10.3f}")
    print(f"{'sandboxed (warm)':<22}{r['sandboxed_p50_ms']:>10.3f}{r['sandboxed_p95_ms']:>10.3f}")
    print(f"overhead p50: {r['overhead_p50_ms']:.3f} ms (target < 15 ms); cold worker start: {r['cold_start_ms']:.0f} ms")


if __name__ == "__main__":
    main()
