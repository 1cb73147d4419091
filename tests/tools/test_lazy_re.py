"""Patterns compiled at their first use (a one-shot question compiles only what it reads), and all at once by a
process that lives and warms while it waits (the chat, the daemon)."""

from __future__ import annotations

import re

from tools import lazy_re


def test_a_lazy_pattern_compiles_at_its_first_use_and_all_of_them_on_warming():
    first, second = lazy_re.lazy_compile(r"\bsnow(?:ing)?\b", re.I), lazy_re.lazy_compile(r"\d+ ?km")
    assert first._compiled is None and second._compiled is None  # type: ignore[attr-defined]  # not at import
    assert first.search("Is it SNOWING?") and second._compiled is None  # type: ignore[attr-defined]  # only what is read
    assert lazy_re.compile_all() >= 1 and second._compiled is not None  # type: ignore[attr-defined]  # all of the rest
    assert second.findall("5 km and 12km") == ["5 km", "12km"] and lazy_re.compile_all() == 0


async def test_a_warmed_assistant_has_compiled_every_rule_pattern(make_app):
    app = make_app()
    await app.warm()
    assert lazy_re.compile_all() == 0  # nothing left for the first question to compile
