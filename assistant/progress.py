"""Terminal presentation of a turn's events: one status line on stderr while a stage runs, replaced
by the answer streaming to stdout."""

from __future__ import annotations

import sys

from assistant.events import AnswerDelta, Event, StageStarted, TurnDone

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

    def on_event(self, event: Event) -> None:
        if isinstance(event, StageStarted):
            if event.stage in ("executor", "tool"):
                label = event.detail or "tool"
                self._show(f"{label} try {event.attempt}/{event.of}…" if event.attempt > 1 else f"{label}…")
            else:
                self._show(_LABELS[event.stage])
        elif isinstance(event, AnswerDelta) and self.stream_answer:
            self._clear()
            self._answered = True
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, TurnDone):
            self._clear()

    def finish(self) -> None:
        self._clear()
        if self._answered:
            sys.stdout.write("\n")
            sys.stdout.flush()
