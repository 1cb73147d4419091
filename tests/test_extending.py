"""The map of extension points (``assistant/extending.py``) is held to the code: every declaration it names exists
and every file it names is there, so a rename that would leave a newcomer lost fails here, named."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from assistant.extending import POINTS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("point", POINTS, ids=[p.what for p in POINTS])
def test_every_extension_point_names_a_declaration_that_exists(point):
    module, _, name = point.declared.partition(":")
    assert hasattr(importlib.import_module(module), name), f"{point.what}: {point.declared} is not there"
    for path in point.touches:
        if "<" in path or not path.startswith(("assistant/", "tools/", "tests/", "scripts/")):
            continue  # a file to write (its name is the addition's), or one of the user's or a plugin's
        assert (ROOT / path).is_file(), f"{point.what}: {path} is not there"


def test_a_built_in_tool_is_declared_in_one_line():
    from tools.builtin import BUILTIN

    text = (ROOT / "tools" / "builtin.py").read_text(encoding="utf-8")
    assert all(f"import {tool.__name__}\n" in text for tool in BUILTIN)  # its import, and its name in the tuple
