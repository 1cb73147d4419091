"""The popup, a launcher-style window: one input line, the answer below it, the stage while it works.

Centred on the screen, undecorated and on top; the hotkey (the daemon sends SIGUSR1) brings an open popup to
the front with the keyboard. Enter asks, Esc closes, Up/Down walk through the questions asked before,
Ctrl+Shift+C copies the answer. The answer area is read-only, scrolls with the stream (unless you scrolled up),
and shows the answer's Markdown as formatting. The session is kept: a reopened popup shows the last exchange, and
a follow-up works. It talks to the daemon through the thin client (no model code here).

    python -m assistant.frontends.popup [--session ID]
"""

from __future__ import annotations

import argparse
import queue
import signal
import subprocess
import sys
import threading
import tkinter as tk
from tkinter import font as tkfont
from typing import Any

from assistant.frontends.client import Client, DaemonError, DaemonUnavailable
from assistant.frontends.markdown import spans
from assistant.paths import resolve_paths
from assistant.capable import CAPABLE_MODEL, CAPABLE_SIZE, TOO_SMALL
from assistant.wire import stage_label

HINT = "Enter asks · ↑↓ earlier questions · Ctrl+Shift+C copies the answer · Esc closes"
WIDTH, HEIGHT = 680, 360


def undecorated(root: tk.Tk) -> bool:
    """Ask the window manager for no title bar and no borders (the Motif hint GTK and Qt set for the same), so the
    window stays managed: it can be focused, raised and seen as the active window, which an override-redirect
    window cannot under most managers. X11 only; elsewhere the window keeps its decorations."""
    if root.tk.call("tk", "windowingsystem") != "x11":
        return False
    try:
        import ctypes
        import ctypes.util

        x11 = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
        x11.XOpenDisplay.restype = ctypes.c_void_p
        x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x11.XInternAtom.restype = ctypes.c_ulong
        x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        x11.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int,
                                        ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        x11.XFlush.argtypes = x11.XCloseDisplay.argtypes = x11.XFree.argtypes = [ctypes.c_void_p]
        x11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                   ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint)]
        display = x11.XOpenDisplay(root.winfo_screen().encode())
        if not display:
            return False
        # The window the manager manages is Tk's wrapper, the parent of the toplevel's own window.
        top, parent, children, count = ctypes.c_ulong(), ctypes.c_ulong(), ctypes.c_void_p(), ctypes.c_uint()
        x11.XQueryTree(display, root.winfo_id(), ctypes.byref(top), ctypes.byref(parent), ctypes.byref(children),
                       ctypes.byref(count))
        if children:
            x11.XFree(children)
        window = parent.value
        atom = x11.XInternAtom(display, b"_MOTIF_WM_HINTS", 0)
        hints = (ctypes.c_long * 5)(2, 0, 0, 0, 0)  # flags: decorations given; decorations: none
        x11.XChangeProperty(display, window, atom, atom, 32, 0, ctypes.cast(hints, ctypes.c_void_p), 5)
        x11.XFlush(display)
        x11.XCloseDisplay(display)
        return True
    except (OSError, AttributeError, ValueError, tk.TclError):
        return False


class Popup:
    def __init__(self, client: Client, session_id: str | None) -> None:
        self.client = client
        self.session_id = session_id
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.busy = False
        self.answer = ""  # the answer as the model wrote it (Markdown), redrawn as it streams
        self.history: list[str] = []
        self.back = 0  # how far Up went into the history
        self.raise_asked = threading.Event()
        self.offered = False  # the capable model's pull, offered once
        self.pulling = False
        self.decor_asked = False
        root = self.root = tk.Tk()
        root.title("assistant")
        root.withdraw()  # placed, then shown: no flash at the top-left corner
        root.attributes("-topmost", True)
        frame = tk.Frame(root, bd=1, relief="solid", bg="#fafafa")
        frame.pack(fill="both", expand=True)
        base = tkfont.nametofont("TkDefaultFont")
        self.entry = tk.Entry(frame, font=(base.actual("family"), 15), relief="flat", bg="white")
        self.entry.pack(fill="x", padx=10, pady=(10, 4), ipady=4)
        self.status = tk.Label(frame, text=HINT, anchor="w", fg="#777", bg="#fafafa")
        self.status.pack(fill="x", padx=10)
        body = tk.Frame(frame, bg="#fafafa")
        body.pack(fill="both", expand=True, padx=10, pady=(4, 10))
        self.text = tk.Text(body, wrap="word", font=(base.actual("family"), 12), relief="flat", bg="#fafafa",
                            state="disabled", cursor="arrow", takefocus=False)
        scroll = tk.Scrollbar(body, command=self.text.yview)
        self.text.configure(yscrollcommand=scroll.set)
        scroll.pack(side="right", fill="y")
        self.text.pack(side="left", fill="both", expand=True)
        self._tags(base.actual("family"))
        self.entry.bind("<Return>", self.ask)
        self.entry.bind("<Up>", lambda _e: self.walk(1))
        self.entry.bind("<Down>", lambda _e: self.walk(-1))
        root.bind("<Escape>", lambda _e: self.close("Esc"))
        root.protocol("WM_DELETE_WINDOW", lambda: self.close("the window manager"))
        root.bind("<Control-C>", self.copy)  # Ctrl+Shift+C
        self.place()
        self.show_last()
        threading.Thread(target=self._notes, daemon=True).start()
        signal.signal(signal.SIGUSR1, lambda *_: self.raise_asked.set())
        root.after(50, self.pump)
        root.bind("<Map>", self._mapped, add="+")

    def _tags(self, family: str) -> None:
        t = self.text
        t.tag_configure("bold", font=(family, 12, "bold"))
        t.tag_configure("italic", font=(family, 12, "italic"))
        t.tag_configure("heading", font=(family, 13, "bold"))
        fixed = tkfont.nametofont("TkFixedFont").actual("family")  # a monospace family (a named font is not one)
        t.tag_configure("code", font=(fixed, 11), background="#eeeeee")
        t.tag_configure("code_block", font=(fixed, 11), background="#eeeeee", lmargin1=12, lmargin2=12)
        t.tag_configure("table", font=(fixed, 11), foreground="#888888")
        t.tag_configure("table_cell", font=(fixed, 11))
        t.tag_configure("quote", foreground="#555555", lmargin1=12, lmargin2=12)
        t.tag_configure("list", lmargin1=8, lmargin2=22)
        t.tag_configure("question", foreground="#555")
        t.tag_configure("error", foreground="#a00")

    def place(self) -> None:
        """Centred on the screen, a third of the way down."""
        root = self.root
        width = min(WIDTH, root.winfo_screenwidth() - 40)
        height = min(HEIGHT, root.winfo_screenheight() - 40)
        x = (root.winfo_screenwidth() - width) // 2
        y = (root.winfo_screenheight() - height) // 3
        root.geometry(f"{width}x{height}+{x}+{y}")
        root.deiconify()

    def close(self, by: str) -> None:
        print(f"closed by {by}", flush=True)  # the popup's log
        self.root.withdraw()
        self.root.destroy()

    def _mapped(self, event: tk.Event) -> None:
        if event.widget is not self.root:
            return
        if not self.decor_asked:
            # Tk makes the frame the manager decorates only when the window is first shown: the hint goes on it now
            self.decor_asked = True
            undecorated(self.root)
        self.root.after(20, self.focus)  # once it is on screen: take the keyboard

    def focus(self) -> None:
        """To the front, with the keyboard: an undecorated window is not focused by the window manager, so it
        takes the focus itself (and again shortly after, in case the manager moved it on the way)."""
        self.root.deiconify()
        self.root.lift()
        self.root.attributes("-topmost", True)
        self.entry.focus_force()
        self.root.after(150, self.entry.focus_force)

    def show_last(self) -> None:
        """The session's last exchange, and its questions for Up/Down."""
        if not self.session_id:
            return
        try:
            turns = self.client.get(f"/v1/sessions/{self.session_id}/turns")["turns"]
        except (DaemonUnavailable, DaemonError, KeyError, ValueError):
            return
        self.history = [t["question"] for t in turns]
        if turns:
            self.start_exchange(turns[-1]["question"])
            self.answer = turns[-1]["answer"] or ""
            self.draw_answer()
            print(f"reopened with the last exchange: {turns[-1]['question']}", flush=True)  # the popup's log

    # the answer area: read-only for the user, written here

    def _notes(self) -> None:
        """What the daemon says the user must know (a plugin that runs unconfined), in the hint line, once."""
        try:
            notes = self.client.get("/v1/health", timeout=2).get("notes") or []
        except Exception:  # noqa: BLE001 - no note is better than no popup
            return
        if notes:
            self.events.put({"type": "note", "text": str(notes[-1])})

    def _write(self, text: str, tags: tuple[str, ...] = ()) -> None:
        self.text.configure(state="normal")
        self.text.insert("end", text, tags)
        self.text.configure(state="disabled")

    def start_exchange(self, question: str) -> None:
        self.text.configure(state="normal")
        self.text.delete("1.0", "end")
        self.text.insert("end", f"› {question}\n\n", ("question",))
        self.text.mark_set("answer", "end-1c")
        self.text.mark_gravity("answer", "left")
        self.text.configure(state="disabled")
        self.answer = ""

    def draw_answer(self) -> None:
        following = self.text.yview()[1] >= 0.999  # at the bottom: keep following the stream
        self.text.configure(state="normal")
        self.text.delete("answer", "end-1c")  # Tk keeps its final newline: to "end" would take the one before
        for piece, styles in spans(self.answer):
            self.text.insert("end", piece, styles)
        self.text.configure(state="disabled")
        if following:
            self.text.see("end")

    def copy(self, _event: object = None) -> str:
        if self.answer:
            self.root.clipboard_clear()
            self.root.clipboard_append(self.answer)
            self.status.config(text="answer copied")
        return "break"

    def offer_pull(self) -> None:
        """The built-in model declined as too small: offer the capable model, once, one key, its size shown."""
        self.offered = True
        self.status.config(text=f"Ctrl+P pulls {CAPABLE_MODEL} ({CAPABLE_SIZE}), a model that can answer this")
        self.root.bind("<Control-p>", self.pull)

    def pull(self, _event: object = None) -> str:
        if self.pulling:
            return "break"
        self.pulling = True
        self.root.unbind("<Control-p>")
        threading.Thread(target=self._pull_worker, daemon=True).start()
        return "break"

    def _pull_worker(self) -> None:
        """`assistant models pull` in a process of its own (its progress, a line a quarter, on the hint line); the
        daemon loads the pulled model at its next question."""
        proc = subprocess.Popen([sys.executable, "-m", "assistant", "models", "pull", CAPABLE_MODEL, "--yes"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        last = ""
        for line in proc.stderr or []:
            last = line.strip() or last
            self.events.put({"type": "pull", "text": last})
        ok = proc.wait() == 0
        self.events.put({"type": "pulled", "ok": ok, "text": f"{CAPABLE_MODEL} is here; asking again…" if ok
                         else f"the pull did not finish: {last.removeprefix('assistant: ')}"})

    def walk(self, step: int) -> str:
        """Up: an earlier question into the input line; Down: a later one (past the last: empty)."""
        if not self.history:
            return "break"
        self.back = max(0, min(len(self.history), self.back + step))
        self.entry.delete(0, "end")
        if self.back:
            self.entry.insert(0, self.history[-self.back])
        return "break"

    def ask(self, _event: object = None) -> None:
        question = self.entry.get().strip()
        if not question or self.busy:
            return
        self.busy = True
        self.back = 0
        self.history.append(question)
        self.entry.delete(0, "end")
        self.start_exchange(question)
        threading.Thread(target=self._worker, args=(question,), daemon=True).start()

    def _worker(self, question: str) -> None:
        try:
            for event in self.client.ask(question, self.session_id):
                self.events.put(event)
        except (DaemonUnavailable, DaemonError) as e:
            self.events.put({"type": "turn_failed", "message": str(e), "hint": "is the daemon still running?"})
        self.events.put({"type": "_end"})

    def pump(self) -> None:
        if self.raise_asked.is_set():
            self.raise_asked.clear()
            self.focus()
        while True:
            try:
                e = self.events.get_nowait()
            except queue.Empty:
                break
            kind = e.get("type")
            if kind == "turn_started":
                self.session_id = e["session_id"]
            elif (label := stage_label(e)) is not None:
                self.status.config(text=label)
            elif kind == "answer_delta":
                self.answer += e["text"]
                self.draw_answer()
            elif kind == "turn_done":
                if e.get("answer") and e["answer"] != self.answer:
                    self.answer = e["answer"]
                    self.draw_answer()
                self.status.config(text=HINT)
                print(f"answer: {e['answer']}", flush=True)  # the popup's log, for a look afterwards
                if e.get("replaced") == TOO_SMALL and not self.offered:
                    self.offer_pull()
            elif kind == "pull":
                self.status.config(text=e["text"][:160])
            elif kind == "pulled":
                self.pulling = False
                self.status.config(text=e["text"][:160])
                if e["ok"] and self.history:  # ask again, now that a capable model answers
                    self.entry.delete(0, "end")
                    self.entry.insert(0, self.history.pop())
                    self.ask()
            elif kind == "turn_failed":
                self._write(f"error: {e['message']} {e.get('hint', '')}", ("error",))
                self.status.config(text="error")
            elif kind == "note":
                self.status.config(text=f"note: {e['text']}"[:160])
            elif kind == "_end":
                self.busy = False
        self.root.after(50, self.pump)  # also lets Python see SIGUSR1 between Tk events


def main() -> None:
    ap = argparse.ArgumentParser(description="the assistant popup (normally opened by the daemon)")
    ap.add_argument("--session", help="continue this session")
    args = ap.parse_args()
    client = Client(resolve_paths().run_dir)
    popup = Popup(client, args.session)
    print("ready", flush=True)
    popup.root.mainloop()


if __name__ == "__main__":
    sys.exit(main())
