"""A word read as the one name it misspells ("sacromento": Sacramento, "celsisus": celsius), one rule for every
table of names: the cities of the gazetteer, the units' names."""

from __future__ import annotations

from typing import Callable, Iterable


def misspelt(word: str, names: Iterable[str], meaning: Callable[[str], object]) -> str | None:
    """The name of ``names`` that ``word`` misspells: begun with the same two letters, close to it by ``difflib``'s
    ratio (0.85 or more), and every name as close meaning the same thing (``meaning``: a place's id, a unit); else
    ``None``. ``word`` and ``names`` are compared as given (fold them alike)."""
    import difflib  # loaded only when a word is looked for

    close = [n for n in difflib.get_close_matches(word, names, n=3, cutoff=0.85) if n[:2] == word[:2]]
    return close[0] if close and len({meaning(n) for n in close}) == 1 else None
