"""The code stays clean of what a linter or a type checker can prove wrong, with the settings in pyproject.toml, at
zero findings: ruff (pyflakes' unused and undefined names, statement and syntax errors, bugbear's likely bugs) on
everything, and mypy with the pydantic plugin on assistant/ and tools/."""

from __future__ import annotations

import importlib.util
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


def test_mypy_finds_nothing(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    p = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "assistant", "tools"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-1000:]
