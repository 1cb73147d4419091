"""Terminal presentation of a turn's events: one status line on stderr while a stage runs, replaced
by the answer streaming to stdout. Works on event objects and on the plain dicts the daemon streams,
and imports nothing heavy, so the daemon's thin client can use it."""

from __future__ import annotations

import sys
from typing import Any

_LABELS = {"router": "routing…", "validator": "checking…", "responder": "answering…"}


class Progress:
    def __init__(self, enabled: bool, stream_answer: bool = True) -> None:
        self.enabled = enabled
        self.stream_answer = stream_answer
        self._status = False
        self._answered = False

    def _clear(self) -> None:
        if self._status:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self._status = False

    def _show(self, text: str) -> None:
        if self.enabled and not self._answered:
            sys.stderr.write("\r\033[K\033[2m" + text + "\033[0m")
            sys.stderr.flush()
            self._status = True

    def on_event(self, event: Any) -> None:
        e = event if isinstance(event, dict) else event.model_dump()
        kind = e.get("type")
        if kind == "stage_started":
            if e["stage"] in ("executor", "tool"):
                label = e.get("detail") or "tool"
                self._show(f"{label} try {e['attempt']}/{e['of']}…" if e.get("attempt", 0) > 1 else f"{label}…")
            else:
                self._show(_LABELS.get(e["stage"], "working…"))
        elif kind == "answer_delta" and self.stream_answer:
            self._clear()
            self._answered = True
            sys.stdout.write(e["text"])
            sys.stdout.flush()
        elif kind == "turn_done":
            self._clear()

    def finish(self) -> None:
        self._clear()
        if self._answered:
            sys.stdout.write("\n")
            sys.stdout.flush()
