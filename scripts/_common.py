"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import atexit
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "fakes")):
    if p not in sys.path:
        sys.path.insert(0, p)


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``values``."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def machine() -> dict[str, object]:
    return {"cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(terse=True)}


def scratch(prefix: str = "script-") -> Path:
    """A new empty folder for this run's files, removed when the script exits (an evaluation builds a home per
    conversation or per set; thousands were left in the temporary folder)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, True)
    return folder
