"""The popup, a launcher: one input line on open, the session's conversation growing below it as answers come.

Centred on the screen, undecorated and on top, flat, in the system's font; the hotkey (the daemon sends SIGUSR1)
brings it to the front with the keyboard. Enter asks, Esc hides it (an answer still coming goes on, and is there
when it comes back), Up/Down walk through the questions asked before, Ctrl+Shift+C copies the last answer (as
written, without the check's note). The conversation is read-only, scrolls with the stream (unless you scrolled
up), has a scrollbar only when it is longer than the window, and shows the answers' Markdown as formatting. The
session is kept, also across daemon restarts: a follow-up works. It talks to the daemon through the thin client
(no model code here), and finds a restarted daemon again by itself.

    python -m assistant.frontends.popup [--session ID]
"""

from __future__ import annotations

import argparse
import gc
import queue
import signal
import subprocess
import sys
import threading
import time
import tkinter as tk
from tkinter import font as tkfont
from typing import Any


from assistant.errors import AssistantError
from assistant.frontends.client import Client, DaemonError, DaemonUnavailable, Turn
from assistant.frontends.reminder_list import ListPane
from assistant.frontends.transcript import BG, BORDER, FAINT, FG, MUTED, Transcript
from assistant.paths import resolve_paths
from assistant.capable import CAPABLE_MODEL, CAPABLE_SIZE, TOO_SMALL
from assistant.wire import stage_label

HINT = "Enter asks · ↑↓ history · Ctrl+L reminders · Ctrl+Shift+C copies · Esc hides"  # each fits its width
LIST_HINT = "↑↓ choose · Delete twice cancels it (or click its ✕) · Esc back to the conversation"
PLACEHOLDER = "Ask anything…"
WIDTH = 680  # and at most MAX_HEIGHT tall: compact on open, growing with the conversation
MAX_HEIGHT = 480
SHOWN_TURNS = 10  # exchanges of the session shown when it opens (the conversation scrolls)


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


def window_icon(root: tk.Tk) -> tk.PhotoImage | None:
    """The app's own icon on the window, as its notifications have it (a window manager shows it in the task
    switcher); ``None`` where Tk cannot read it. Kept by the caller: Tk drops an image nothing holds."""
    from assistant.icon import ICON

    try:
        icon = tk.PhotoImage(file=str(ICON))
        root.iconphoto(True, icon)
        return icon
    except (tk.TclError, OSError):
        return None


class Popup:
    def __init__(self, client: Client, session_id: str | None, hidden: bool = False) -> None:
        self.client = client
        self.session_id = session_id
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.busy = False
        self.answer = ""  # the answer being written (Markdown), redrawn as it streams
        self.history: list[str] = []
        self.back = 0  # how far Up went into the history
        self.raise_asked = threading.Event()
        self.decor_asked = False
        self.expanded = False  # the conversation is on show (not the input line alone)
        self.selection: str | None = None  # text selected in another window, attached to the next question
        self.used_selection: str | None = None  # the last one asked about: not attached again
        self.reminded = threading.Event()  # the daemon fired a reminder (SIGUSR2)
        self.shown_reminders: set[int] = set()
        self.opened_at = time.time()
        root = self.root = tk.Tk()
        root.title("assistant")
        self.icon = window_icon(root)
        root.withdraw()  # placed, then shown: no flash at the top-left corner
        root.attributes("-topmost", True)
        root.configure(bg=BORDER)
        base = tkfont.nametofont("TkDefaultFont")
        family = self.family = base.actual("family")
        frame = self.frame = tk.Frame(root, bg=BG)
        frame.pack(fill="both", expand=True, padx=2, pady=2)  # a border of two pixels, not a hairline
        top = self.top = tk.Frame(frame, bg=BG)
        top.pack(fill="x", padx=16, pady=(12, 8))
        # exportselection off: selecting its own text (on every show) must never take the X selection away from the
        # window that holds it, which is the very text the popup attaches
        self.entry = tk.Entry(top, font=(family, 17), relief="flat", bd=0, highlightthickness=0, bg=BG, fg=FG,
                              insertbackground=FG, exportselection=False)
        self.entry.pack(fill="x", ipady=4)
        self.placeholder = tk.Label(top, text=PLACEHOLDER, font=(family, 17), bg=BG, fg=MUTED, anchor="w")
        self.placeholder.bind("<Button-1>", lambda _e: self.entry.focus_force())
        self.rule = tk.Frame(frame, height=1, bg=FAINT)
        self.body = tk.Frame(frame, bg=BG)
        self.transcript = Transcript(root, self.body, family)
        self.text = self.transcript.text  # its height is measured here, as the window grows
        # a note longer than the window's width wraps at words (the window grows by its lines), never cut at the edge
        self.status = tk.Label(frame, text=HINT, anchor="w", justify="left", fg=MUTED, bg=BG, font=(family, 11),
                               wraplength=WIDTH - 40)
        self.status.pack(fill="x", padx=16, pady=(0, 10), side="bottom")
        # measured once, here: a Font object that the garbage collector met in another thread would abort Tcl
        self.line_height = tkfont.Font(root=root, family=family, size=12).metrics("linespace") + 4
        self.entry.bind("<Return>", self.ask)
        self.entry.bind("<Up>", lambda _e: self.walk(1))
        self.entry.bind("<Down>", lambda _e: self.walk(-1))
        self.entry.bind("<KeyRelease>", lambda _e: self._placeholder())
        root.protocol("WM_DELETE_WINDOW", lambda: self.close("the window manager"))
        root.bind("<Control-C>", self.copy)  # Ctrl+Shift+C
        root.bind("<Control-r>", self.drop_selection)
        self.entry.bind("<Control-a>", self.select_all)
        root.bind("<FocusOut>", self._focus_out, add="+")
        self.queued: str | None = None  # a question asked while an answer comes: asked when it is done
        self.offer = PullOffer(self)  # the capable model, offered once after a decline as too small
        self.pane = ListPane(self, LIST_HINT, HINT)  # the pending reminders, in place of the conversation (Ctrl+L)
        root.bind("<Control-l>", self.pane.toggle)
        root.bind("<Escape>", lambda _e: self.pane.toggle() if self.pane.shown else self.close("Esc"))
        self.entry.bind("<Delete>", self.pane.delete_key)
        root.bind("<Map>", self._mapped, add="+")  # before it is shown: its first mapping is when it takes the keyboard
        self.show_last()
        self._placeholder()
        self.place(shown=not hidden)
        threading.Thread(target=daemon_notes, args=(self.client, self.events), daemon=True).start()
        signal.signal(signal.SIGUSR1, lambda *_: self.raise_asked.set())
        signal.signal(signal.SIGUSR2, lambda *_: self.reminded.set())
        self.look_for_selection()
        root.after(50, self.pump)

    def _placeholder(self) -> None:
        if self.entry.get():
            self.placeholder.place_forget()
        else:
            self.placeholder.place(in_=self.entry, x=0, rely=0.5, anchor="w")

    def place(self, shown: bool = True) -> None:
        """Centred across the screen, its top edge where a window of the largest size would sit a third of the way
        down: it grows downwards as the conversation does, and never moves. Not ``shown``: placed, and left hidden
        until the hotkey (the daemon makes it ready so)."""
        root = self.root
        width = min(WIDTH, root.winfo_screenwidth() - 40)
        x = (root.winfo_screenwidth() - width) // 2
        y = (root.winfo_screenheight() - min(MAX_HEIGHT, root.winfo_screenheight() - 40)) // 3
        root.geometry(f"{width}x{self._height()}+{x}+{y}")
        if shown:
            root.deiconify()

    def say(self, text: str) -> None:
        """The hint line's text: a note, a stage, the selection attached; wrapped to the window's width, which grows
        by its lines."""
        width = self.root.winfo_width() if self.root.winfo_ismapped() else min(WIDTH, self.root.winfo_screenwidth() - 40)
        self.status.config(text=text, wraplength=width - 40)
        self.grow()

    def _height(self) -> int:
        """The input line and the hint alone, or with as much of the conversation as fits (up to MAX_HEIGHT)."""
        self.root.update_idletasks()
        # the input line and the hint (as many lines as it wraps to), with their margins and the border
        chrome = self.top.winfo_reqheight() + 20 + self.status.winfo_reqheight() + 10 + 4
        if not self.expanded and not self.pane.shown:
            return chrome
        view = self.pane.text or self.text  # what the body shows
        if view.winfo_width() > 1:  # laid out: the conversation's height in pixels, as Tk draws it
            counted = view.count("1.0", "end", "update", "ypixels")  # an int or a tuple, by Python's version
            content = int((counted[-1] if isinstance(counted, tuple) else counted) or 0)
        else:
            content = int(view.index("end-1c").split(".")[0]) * self.line_height
        padding = 2 * int(view.cget("pady")) + 4
        return min(MAX_HEIGHT, self.root.winfo_screenheight() - 40, chrome + 1 + padding + content)

    def expand(self) -> None:
        """The conversation comes into view (the first answer, or a reopened session's exchanges)."""
        if not self.expanded:
            self.expanded = True
            if not self.pane.shown:  # the list is on show: the conversation comes back with Ctrl+L
                self.rule.pack(fill="x")
                self.body.pack(fill="both", expand=True)
        self.grow()

    def grow(self) -> None:
        height = self._height()
        if self.root.winfo_height() != height and self.root.winfo_ismapped():
            self.root.geometry(f"{self.root.winfo_width()}x{height}")

    def destroy(self) -> None:
        """The window ended: its icon dropped first, in this thread while Tk runs (an image collected later, from the
        thread of a pull that still held the popup, would call a Tk that is gone); then what is left of its widgets in
        cycles is collected here too. Tk objects freed by a collection that happens to run on another thread abort the
        process ("Tcl_AsyncDelete: async handler deleted by the wrong thread"): seen in the test process, where a fake
        server's thread collected a popup's leftovers three runs in four."""
        self.icon = None
        self.root.destroy()
        gc.collect()

    def close(self, by: str) -> None:
        """Hidden, not ended: an answer still coming goes on, and the hotkey brings it all back at once."""
        print(f"hidden by {by}", flush=True)  # the popup's log
        self.root.withdraw()

    def _mapped(self, event: tk.Event) -> None:
        if event.widget is not self.root:
            return
        if not self.decor_asked:
            # Tk makes the frame the manager decorates only when the window is first shown: the hint goes on it now
            self.decor_asked = True
            undecorated(self.root)
        self.root.after(20, self._keyboard)  # once it is on screen: take the keyboard

    def _keyboard(self) -> None:
        """Take the keyboard, if still shown (Esc may have hidden it since: it stays hidden)."""
        if self.root.winfo_ismapped():
            self.entry.focus_force()
            self.root.after(150, lambda: self.entry.focus_force() if self.root.winfo_ismapped() else None)

    def focus(self) -> None:
        """To the front, with the keyboard: an undecorated window is not focused by the window manager, so it
        takes the focus itself (and again shortly after, in case the manager moved it on the way). What was left in
        the input line is selected, so that typing replaces it."""
        if not self.root.winfo_ismapped():
            print("shown again" + (f", with the last exchange: {self.history[-1]}" if self.history else ""),
                  flush=True)  # the popup's log
        self.root.deiconify()
        self.root.lift()
        self.root.attributes("-topmost", True)
        self.entry.select_range(0, "end")
        self.entry.icursor("end")
        self._keyboard()

    def show_last(self) -> None:
        """The session's recent exchanges (the conversation, scrolled to its end), and its questions for Up/Down."""
        if not self.session_id:
            return
        try:
            turns = self.client.get(f"/v1/sessions/{self.session_id}/turns")["turns"]
        except (DaemonUnavailable, DaemonError, KeyError, ValueError):
            return
        self.history = [t["question"] for t in turns]
        for turn in turns[-SHOWN_TURNS:]:
            self.start_exchange(turn["question"])
            self.answer = turn["answer"] or ""
            self.draw_answer()
        if turns:
            self.expand()
            print(f"reopened with the last exchange: {turns[-1]['question']}", flush=True)  # the popup's log

    # the answer area: read-only for the user, written here

    def look_for_selection(self) -> None:
        """The text selected in another window as the popup is summoned: attached to the next question."""
        threading.Thread(target=selected_elsewhere, args=(self.events, self.used_selection), daemon=True).start()

    def select_all(self, _event: object = None) -> str:
        self.entry.select_range(0, "end")
        self.entry.icursor("end")
        return "break"

    def _focus_out(self, _event: object = None) -> None:
        """A click elsewhere hides it, as a launcher does (an answer in flight goes on); checked a moment later,
        for the focus moving between its own widgets is a FocusOut too."""
        def check() -> None:
            if self.root.winfo_ismapped() and self.root.focus_displayof() is None:
                self.close("losing the focus")
        self.root.after(150, check)

    def toggle(self) -> None:
        """The hotkey: shown and holding the keyboard, it hides; otherwise it comes to the front with it."""
        if self.root.winfo_ismapped() and self.root.focus_displayof() is not None:
            self.close("the hotkey")
        else:
            self.look_for_selection()  # read before the popup takes the keyboard: what the user had selected
            self.focus()

    def drop_selection(self, _event: object = None) -> str:
        self.selection = None
        self.say(HINT)
        return "break"

    def start_exchange(self, question: str) -> None:
        """A new exchange below the ones before (the conversation is kept, not replaced)."""
        self.transcript.start_exchange(question)
        self.answer = ""

    def draw_answer(self) -> None:
        self.transcript.draw(self.answer)
        following = self.text.yview()[1] >= 0.999
        self.grow()
        if following:  # the window grew or stopped growing: the answer's last line stays in view
            self.text.see("end")

    def copy(self, _event: object = None) -> str:
        """The last answer as the model wrote it, without the note the check adds (what is copied is the answer)."""
        from assistant.pipeline.language import without_note

        if self.answer:
            self.root.clipboard_clear()
            self.root.clipboard_append(without_note(self.answer))
            self.say("answer copied")
        return "break"

    def walk(self, step: int) -> str:
        """Up: an earlier question into the input line; Down: a later one (past the last: empty). With the list on
        show: another reminder chosen."""
        if self.pane.move(-step):
            return "break"
        if not self.history:
            return "break"
        self.back = max(0, min(len(self.history), self.back + step))
        self.entry.delete(0, "end")
        if self.back:
            self.entry.insert(0, self.history[-self.back])
        return "break"

    def ask(self, _event: object = None) -> None:
        question = self.entry.get().strip()
        if not question:
            return
        if self.busy:  # one answer at a time: this one is asked as soon as the answer coming is done
            self.queued = question
            self.entry.delete(0, "end")
            self._placeholder()
            self.say(f"Asked next, once this answer is done: {question[:80]}")
            return
        self.busy = True
        self.back = 0
        self.history.append(question)
        self.entry.delete(0, "end")
        self._placeholder()
        sent, quoted = question, bool(self.selection)
        if self.selection:  # asked about the selected text: it goes before the question, as an -f file does
            from assistant.frontends.selection import attached

            sent, self.used_selection = attached(self.selection, question), self.selection
            shown = self.selection.replace("\n", " ")
            question = f"{question}  [selected text: {shown[:60]}{'…' if len(shown) > 60 else ''}]"
            self.selection = None
        self.start_exchange(question)
        self.expand()
        threading.Thread(target=self._worker, args=(sent, quoted), daemon=True).start()

    def _worker(self, question: str, quoted: bool = False) -> None:
        turn = Turn(self.client, {"question": question, "session_id": self.session_id,
                                  **({"quoted": True} if quoted else {})})
        last: dict[str, Any] = {}
        try:
            for last in turn:
                self.events.put(last)
            turn.outcome()  # a stream that ended without its last event (the daemon stopped) is said too
        except (DaemonUnavailable, DaemonError) as e:
            self.events.put({"type": "turn_failed", "message": f"{e}.",
                             "hint": "Is the daemon running? `assistant daemon status` says."})
        except AssistantError as e:
            if last.get("type") != "turn_failed":  # not one the window already has
                self.events.put({"type": "turn_failed", "message": e.message, "hint": e.hint})
        self.client = turn.client  # a restarted daemon: its new socket and token
        self.events.put({"type": "_end"})

    def pump(self) -> None:
        if self.raise_asked.is_set():
            self.raise_asked.clear()
            self.toggle()
        if self.reminded.is_set():
            self.reminded.clear()
            show_fired(self)
            self.pane.fired()
        self.pane.clicked()
        while True:
            try:
                e = self.events.get_nowait()
            except queue.Empty:
                break
            kind = e.get("type")
            if kind == "turn_started":
                self.session_id = e["session_id"]
            elif (label := stage_label(e)) is not None:
                self.say(label)
            elif kind == "answer_delta":
                if not self.answer:  # the answer is coming: the stage before it ("routing…") is over
                    self.say("answering…")
                self.answer += e["text"]
                self.draw_answer()
            elif kind == "turn_done":
                if e.get("answer") and e["answer"] != self.answer:
                    self.answer = e["answer"]
                    self.draw_answer()
                self.say(HINT)
                print(f"answer: {e['answer']}", flush=True)  # the popup's log, for a look afterwards
                if e.get("replaced") == TOO_SMALL:
                    self.offer.made()
            elif kind in ("pull", "pulled"):
                self.offer.heard(e)
            elif kind == "turn_failed":  # said as text, its fix with it
                self.transcript.failure(f"{e['message']} {e.get('hint') or ''}".strip(), bool(self.answer.strip()))
                self.grow()
                self.say(HINT)
            elif kind == "note":
                self.say(f"note: {e['text']}"[:400])
            elif kind == "selection":
                if self.transcript.holds(e["text"]):  # selected in the popup itself: not another window's
                    continue
                self.selection = e["text"]
                print(f"selection attached: {len(e['text'])} characters", flush=True)  # the popup's log
                self.say(f"Selected text attached ({len(e['text'])} characters): ask about it · Ctrl+R drops it")
            elif kind == "_end":
                self.busy = False
                if self.queued:  # the question typed while this answer came
                    question, self.queued = self.queued, None
                    self.entry.insert(0, question)
                    self.ask()
        self.root.after(50, self.pump)  # also lets Python see SIGUSR1 between Tk events


class PullOffer:
    """The built-in model declined as too small: the capable model offered, once, on one key (its size shown);
    pulled by `assistant models pull` in a process of its own, its progress on the hint line, then the question asked
    again."""

    def __init__(self, popup: Popup) -> None:
        self.popup = popup
        self.offered = self.pulling = False

    def made(self) -> None:
        if not self.offered:
            self.offered = True
            self.popup.say(f"Ctrl+P pulls {CAPABLE_MODEL} ({CAPABLE_SIZE}), a model that can answer this")
            self.popup.root.bind("<Control-p>", self.pull)

    def pull(self, _event: object = None) -> str:
        if not self.pulling:
            self.pulling = True
            self.popup.root.unbind("<Control-p>")
            threading.Thread(target=pull_capable, args=(self.popup.events,), daemon=True).start()
        return "break"

    def heard(self, e: dict[str, Any]) -> None:
        """The pull's progress, then its end: the question asked again, now that a capable model answers."""
        p = self.popup
        p.say(e["text"][:400])
        if e["type"] == "pulled":
            self.pulling = False
            if e["ok"] and p.history:
                p.entry.delete(0, "end")
                p.entry.insert(0, p.history.pop())
                p.ask()


def daemon_notes(client: Client, events: queue.Queue[dict[str, Any]]) -> None:
    """What the daemon says the user must know (a plugin that runs unconfined), for the hint line, once."""
    try:
        notes = client.get("/v1/health", timeout=2).get("notes") or []
    except Exception:  # noqa: BLE001 - no note is better than no popup
        return
    if notes:
        events.put({"type": "note", "text": str(notes[-1])})


def selected_elsewhere(events: queue.Queue[dict[str, Any]], used: str | None) -> None:
    """The text selected in another window (not the one last asked about), for the next question."""
    from assistant.frontends.selection import read_selection

    selected = read_selection()
    if selected and selected != used:
        events.put({"type": "selection", "text": selected})


def show_fired(popup: Popup) -> None:
    """The reminders the daemon fired while the popup is open, as lines of its conversation."""
    for rid, line in fired_since(popup.opened_at, popup.shown_reminders):
        popup.shown_reminders.add(rid)
        popup.transcript.line(line, ("question",))
        popup.expand()
        print(f"reminder shown: {line}", flush=True)  # the popup's log


def fired_since(opened_at: float, shown: set[int]) -> list[tuple[int, str]]:
    """The reminders the daemon fired since the popup opened and it has not shown, in the order they were due, each
    as the line the conversation shows (in the language it was set in)."""
    from tools.reminders.book import Book

    try:
        fired = [r for r in Book(resolve_paths().database).recent(50)
                 if (r.state == "due" or r.state in ("fired", "missed") and r.fired_at and
                     r.fired_at.timestamp() >= opened_at - 1) and r.id not in shown]  # due: no notification took it
    except Exception:  # noqa: BLE001 - a store busy for a moment: the next signal shows it
        return []
    lines = []
    for r in sorted(fired, key=lambda r: r.due):
        zh = r.lang == "zh"
        label = ("错过的提醒" if r.state == "missed" else "提醒") if zh else ("Missed reminder" if r.state == "missed"
                                                                        else "Reminder")
        # in words: not every desktop's font has an alarm clock sign
        lines.append((r.id, f"{label} · {r.due.astimezone().strftime('%H:%M')} · {r.what(zh)}"))
    return lines


def pull_capable(events: queue.Queue[dict[str, Any]]) -> None:
    """`assistant models pull` in a process of its own (its progress, a line a quarter, on the hint line); the
    daemon loads the pulled model at its next question."""
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "models", "pull", CAPABLE_MODEL, "--yes"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    last = ""
    for line in proc.stderr or []:
        last = line.strip() or last
        events.put({"type": "pull", "text": last})
    ok = proc.wait() == 0
    events.put({"type": "pulled", "ok": ok, "text": f"{CAPABLE_MODEL} is here; asking again…" if ok
                else f"the pull did not finish: {last.removeprefix('assistant: ')}"})


def main() -> None:
    ap = argparse.ArgumentParser(description="the assistant popup (normally opened by the daemon)")
    ap.add_argument("--session", help="continue this session")
    ap.add_argument("--hidden", action="store_true", help="start hidden, shown by the hotkey (SIGUSR1)")
    args = ap.parse_args()
    client = Client(resolve_paths().run_dir)
    popup = Popup(client, args.session, hidden=args.hidden)
    print("ready" + (" (hidden)" if args.hidden else ""), flush=True)
    popup.root.mainloop()


if __name__ == "__main__":
    main()
