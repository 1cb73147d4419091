"""The popup: one input line, the answer streaming below it, the stage while it works. Enter asks,
Esc closes; the session is kept, so a follow-up works. It talks to the daemon through the thin client.

    python -m assistant.frontends.popup [--session ID]
"""

from __future__ import annotations

import argparse
import queue
import threading
import tkinter as tk
from typing import Any

from assistant.frontends.client import Client, DaemonError, DaemonUnavailable
from assistant.paths import resolve_paths

STAGES = {"router": "routing…", "validator": "checking…", "responder": "answering…"}


class Popup:
    def __init__(self, client: Client, session_id: str | None) -> None:
        self.client = client
        self.session_id = session_id
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.busy = False
        root = self.root = tk.Tk()
        root.title("assistant")
        root.geometry("640x320")
        root.attributes("-topmost", True)
        self.entry = tk.Entry(root, font=("TkDefaultFont", 14))
        self.entry.pack(fill="x", padx=8, pady=(8, 4))
        self.status = tk.Label(root, text="Enter asks · Esc closes", anchor="w", fg="#777")
        self.status.pack(fill="x", padx=8)
        self.text = tk.Text(root, wrap="word", height=12, font=("TkDefaultFont", 12), relief="flat")
        self.text.pack(fill="both", expand=True, padx=8, pady=(4, 8))
        self.entry.bind("<Return>", self.ask)
        root.bind("<Escape>", lambda _e: root.destroy())
        root.after(50, self.pump)
        root.after(100, self.focus)

    def focus(self) -> None:
        self.root.lift()
        self.root.focus_force()
        self.entry.focus_set()

    def ask(self, _event: object = None) -> None:
        question = self.entry.get().strip()
        if not question or self.busy:
            return
        self.busy = True
        self.entry.delete(0, "end")
        self.text.delete("1.0", "end")
        self.text.insert("end", f"› {question}\n\n")
        self.text.mark_set("answer", "end-1c")
        self.text.mark_gravity("answer", "left")
        threading.Thread(target=self._worker, args=(question,), daemon=True).start()

    def _worker(self, question: str) -> None:
        try:
            for event in self.client.ask(question, self.session_id):
                self.events.put(event)
        except (DaemonUnavailable, DaemonError) as e:
            self.events.put({"type": "turn_failed", "message": str(e), "hint": "is the daemon still running?"})
        self.events.put({"type": "_end"})

    def pump(self) -> None:
        while True:
            try:
                e = self.events.get_nowait()
            except queue.Empty:
                break
            kind = e.get("type")
            if kind == "turn_started":
                self.session_id = e["session_id"]
            elif kind == "stage_started":
                label = STAGES.get(e["stage"]) or f"{e.get('detail') or e['stage']}…"
                self.status.config(text=label)
            elif kind == "answer_delta":
                self.text.insert("end", e["text"])
                self.text.see("end")
            elif kind == "answer_reset":  # the answer failed its check: another text replaces it
                self.text.delete("answer", "end")
                self.status.config(text="checking the answer…")
            elif kind == "turn_done":
                self.status.config(text="done · Enter asks · Esc closes")
                print(f"answer: {e['answer']}", flush=True)  # the popup's log, for a look afterwards
            elif kind == "turn_failed":
                self.text.insert("end", f"error: {e['message']} {e.get('hint', '')}")
                self.status.config(text="error")
            elif kind == "_end":
                self.busy = False
        self.root.after(50, self.pump)


def main() -> None:
    ap = argparse.ArgumentParser(description="the assistant popup (normally opened by the daemon)")
    ap.add_argument("--session", help="continue this session")
    args = ap.parse_args()
    client = Client(resolve_paths().run_dir)
    Popup(client, args.session).root.mainloop()


if __name__ == "__main__":
    main()
