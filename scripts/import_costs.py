"""What a module costs to import, in a fresh interpreter each time (median of N): the price a command-line library
would add to every `assistant` start, the thin `ask` through the daemon included (its target: the first byte in
under 200 ms, of which imports are most).

    python scripts/import_costs.py [--runs N] [MODULE ...]

By default it compares the parsers and renderers a CLI might use (argparse, click; rich's console and Markdown)
with what `assistant` itself imports for the thin path. Modules that are not installed are reported as such."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

DEFAULT = ["argparse", "click", "rich.console", "rich.markdown",
           "assistant.frontends.cli", "assistant.frontends.client", "assistant.frontends.progress"]


def cost_ms(module: str) -> float | None:
    """Cumulative import time of ``module`` in a new interpreter (``-X importtime``), in ms; None if it is missing."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    for line in reversed(p.stderr.splitlines()):
        parts = [x.strip() for x in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1000
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("modules", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    print(f"import cost, median of {a.runs} fresh interpreters (Python {sys.version.split()[0]})")
    for module in a.modules:
        runs = [cost_ms(module) for _ in range(a.runs)]
        if any(r is None for r in runs):
            print(f"  {module:<32} not installed")
            continue
        print(f"  {module:<32} {statistics.median(runs):7.1f} ms")  # type: ignore[type-var]


if __name__ == "__main__":
    main()
