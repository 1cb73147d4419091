"""Fetching a model, as a terminal shows it: who pulls (Ollama when it answers, else the embedded engine's own
store), the download's progress on stderr, and what was fetched. ``assistant models pull`` and the chat's ``/pull``
both pull through :func:`pull_model`."""

from __future__ import annotations

import sys
import time
from typing import Any

from assistant.control import one_line
from assistant.errors import ConfigError
from assistant.frontends.progress import terminal


def size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit in ("B", "KB") or n >= 10 else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.0f} TB"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Transfer:
    """A download's progress on stderr: one line redrawn on a terminal (bytes, rate, time left), a line per
    quarter elsewhere (a log stays readable)."""

    BAR = 24

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.live = terminal(self.stream)
        self.started = time.monotonic()
        self.first = 0  # bytes already here when this run began (a resumed download)
        self.shown_at = 0.0
        self.quarter = -1
        self.drawn = False

    def update(self, done: int, total: int, status: str = "") -> None:
        now = time.monotonic()
        if not self.drawn:
            self.first, self.started = done, now
        if total <= 0:
            if status and self.live:
                self._draw(f"{self.label}: {status}")
            return
        fraction = min(1.0, done / total)
        if not self.live:
            quarter = int(fraction * 4)
            if quarter != self.quarter:
                self.quarter = quarter
                print(f"{self.label}: {fraction:.0%} of {size(total)}", file=self.stream, flush=True)
            self.drawn = True
            return
        if now - self.shown_at < 0.1 and done < total:
            return
        self.shown_at = now
        elapsed = now - self.started
        rate = (done - self.first) / elapsed if elapsed > 0.5 else 0.0
        left = f" · {_clock((total - done) / rate)} left" if rate > 0 and done < total else ""
        filled = int(fraction * self.BAR)
        bar = "█" * filled + " " * (self.BAR - filled)
        self._draw(f"{self.label} {fraction:4.0%} ▕{bar}▏ {size(done)} / {size(total)}"
                   + (f" · {size(rate)}/s" if rate else "") + left)

    def _draw(self, line: str) -> None:
        self.drawn = True
        self.stream.write("\r\033[K" + line)
        self.stream.flush()

    def end(self) -> None:
        if self.drawn and self.live:
            self.stream.write("\n")
            self.stream.flush()
        self.drawn = False


async def where(settings: Any, to: str = "auto") -> str:
    """Who pulls: Ollama when it is the backend (or answers, in auto), else the embedded engine's own store."""
    from assistant.models import ollama

    if to != "auto":
        return to
    if settings.backend == "openai":
        raise ConfigError("an OpenAI-compatible server loads its own models; 'models pull' fetches for Ollama or "
                          "the embedded engine.", "Pull on that server, or add --to embedded (or --to ollama).")
    if settings.backend == "ollama" or settings.backend == "auto" and await ollama.reachable(settings):
        return "ollama"
    return "embedded"


async def pull_model(settings: Any, name: str, to: str = "auto") -> tuple[str, str]:
    """Pull ``name`` with its progress on stderr: (the model's name as it is now known, where it went)."""
    place = await where(settings, to)
    pulled = await (_pull_with_ollama(settings, name) if place == "ollama" else _pull_for_embedded(settings, name))
    return pulled, place


async def _pull_with_ollama(settings: Any, name: str) -> str:
    from assistant.models import ollama

    shown = Transfer(f"pulling {name}")
    last = [""]

    def progress(status: str, done: int, total: int) -> None:
        if status != last[0] and not (status.startswith("pulling ") and last[0].startswith("pulling ") and total):
            shown.end()
            last[0] = status
            if not total:
                print(f"{name}: {one_line(status)}", file=sys.stderr, flush=True)
        if total:
            shown.update(done, total)

    try:
        await ollama.pull(settings, name, progress)
    finally:
        shown.end()
    return name


async def _pull_for_embedded(settings: Any, name: str) -> str:
    from assistant.models.registry import Registry, pulled_models

    async with Registry(settings, name) as registry:
        plan = await registry.plan()
        done = next((p for p in pulled_models() if p.name == str(plan.name) and p.digest == plan.digest), None)
        if done is not None:
            print(f"{plan.name} is here already ({done.file}).", file=sys.stderr)
            return str(plan.name)
        resumed = f", resuming at {size(plan.have)}" if plan.have else ""
        print(f"pulling {plan.name} for the embedded engine: {size(plan.size)} from {registry.base} into "
              f"{plan.target.parent}{resumed}", file=sys.stderr)
        if plan.license:
            first = next(line for line in plan.license.splitlines() if line.strip())
            print(f"licence: {one_line(first, 100)} (the whole text is kept beside the model)", file=sys.stderr)
        elif plan.license_note:
            print(f"licence: {plan.license_note}", file=sys.stderr)
        registry.check_space(plan)
        shown = Transfer(f"pulling {plan.name}")
        try:
            record = await registry.fetch(plan, shown.update)
        finally:
            shown.end()
        print(f"verified {plan.digest[:19]}…; {record.name} is in {record.file}", file=sys.stderr)
        return record.name
