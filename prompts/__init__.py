"""Prompt templates, one file per role: plain text with ``$name`` placeholders (string.Template),
so JSON braces in examples need no escaping. Loaded as package data, so they work from a wheel."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template


@lru_cache(maxsize=None)
def template(name: str) -> Template:
    return Template(resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8"))


def render(name: str, **values: object) -> str:
    """Fill a template; a missing placeholder is a bug and raises ``KeyError``."""
    return template(name).substitute({k: str(v) for k, v in values.items()}).strip()
