"""A word read as the one name it misspells ("sacromento": Sacramento, "celsisus": celsius), one rule for every
table of names: the cities of the gazetteer, the units' names."""

from __future__ import annotations

from typing import Callable, Iterable


def misspelt(word: str, names: Iterable[str], meaning: Callable[[str], object]) -> str | None:
    """The name of ``names`` that ``word`` misspells: begun with the same two letters, close to it by ``difflib``'s
    ratio (0.85 or more), and every name as close meaning the same thing (``meaning``: a place's id, a unit); else
    ``None``. ``word`` and ``names`` are compared as given (fold them alike)."""
    import difflib  # loaded only when a word is looked for

    close = difflib.get_close_matches(word, _begun_with(names, word[:2]), n=3, cutoff=0.85)
    return close[0] if close and len({meaning(n) for n in close}) == 1 else None


# Each table's names by their first two letters, indexed once: a word is compared with the names it may misspell
_BY_START: dict[int, tuple[object, dict[str, list[str]]]] = {}


def _begun_with(names: Iterable[str], start: str) -> list[str]:
    held = _BY_START.get(id(names))
    if held is None or held[0] is not names:
        index: dict[str, list[str]] = {}
        for name in names:
            index.setdefault(name[:2], []).append(name)
        held = _BY_START[id(names)] = (names, index)
    return held[1].get(start, [])
