"""The code stays clean of what a linter can prove wrong: pyflakes (unused and undefined names), statement and
syntax errors, and bugbear's likely bugs, with the rules in pyproject.toml, at zero findings."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    p = subprocess.run([ruff, "check", "--output-format", "concise", "assistant", "tools", "tests", "scripts", "prompts"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
