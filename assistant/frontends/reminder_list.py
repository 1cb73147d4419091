"""The popup's list of pending reminders and timers (Ctrl+L): each on a row with when it is due and what it is
about, one of them chosen (↑↓), cancelled with Delete pressed twice (the row asks first) or a click on its ✕. Read
from and cancelled in the store, as ``assistant reminders`` does: the daemon fires only what is still pending. The
popup (:mod:`assistant.frontends.popup`) owns the window and the keys; this owns the rows."""

from __future__ import annotations

import tkinter as tk
from tkinter import font as tkfont
from datetime import datetime
from pathlib import Path
from typing import Callable, Protocol

from assistant.frontends.transcript import BG, ERROR, FAINT, FG, MUTED

EMPTY = ("No reminders pending. Set one in words: “remind me at 4 to call the dentist”, “set a timer for 10 minutes”.",
         "没有待办的提醒。用一句话设置:“下午4点提醒我给牙医打电话”、“定一个10分钟的计时”。")


class ReminderList:
    def __init__(self, parent: tk.Frame, family: str, database: Path, zh: bool = False) -> None:
        self.database, self.zh = database, zh
        self.text = tk.Text(parent, wrap="word", font=(family, 12), relief="flat", bd=0, highlightthickness=0,
                            bg=BG, fg=FG, state="disabled", cursor="arrow", takefocus=False, padx=16, pady=10,
                            spacing1=4, spacing3=4, exportselection=False)
        self.text.tag_configure("when", foreground=MUTED)
        self.text.tag_configure("chosen", background=FAINT)
        self.text.tag_configure("cancel", foreground=MUTED)
        self.text.tag_configure("asking", foreground=ERROR)
        self.rows: list[int] = []  # the reminders' ids, in the rows' order
        self.chosen = 0
        self.asking = False  # Delete was pressed once on the chosen row: the next one cancels it
        self.said: str | None = None  # what a click on a ✕ cancelled, for the popup's hint line

    def refresh(self) -> None:
        """The pending ones, read again (one fired, one was set or cancelled elsewhere)."""
        from tools.reminders.book import Book
        from tools.reminders.tool import when_said

        try:
            pending = Book(self.database).listed()
        except Exception:  # noqa: BLE001 - a store busy or not made yet: shown as none, read again next time
            pending = []
        now = datetime.now().astimezone()
        t = self.text
        whens = [when_said(r.due.astimezone(), now, r.lang == "zh") for r in pending]
        measure = tkfont.Font(font=t.cget("font")).measure
        t.configure(tabs=(f"{max((measure(w) for w in whens), default=0) + 24}",))  # the texts in one column
        t.configure(state="normal")
        t.delete("1.0", "end")
        self.rows = [r.id for r in pending]
        self.chosen = min(self.chosen, max(0, len(self.rows) - 1))
        self.asking = False
        if not pending:
            t.insert("end", EMPTY[self.zh], ("when",))
        for i, r in enumerate(pending):
            zh = r.lang == "zh"
            row = f"row{i}"
            t.insert("end", whens[i], ("when", row))
            t.insert("end", f"\t{r.what(zh, fired=False)}", (row,))
            t.insert("end", "   ✕", ("cancel", row, f"x{i}"))
            t.tag_bind(f"x{i}", "<Button-1>", self._on_click(r.id))
            t.tag_bind(f"x{i}", "<Enter>", lambda _e: t.configure(cursor="hand2"))
            t.tag_bind(f"x{i}", "<Leave>", lambda _e: t.configure(cursor="arrow"))
            if i < len(pending) - 1:
                t.insert("end", "\n", (row,))
        t.configure(state="disabled")
        self._mark()

    def _on_click(self, rid: int) -> Callable[[object], None]:
        def click(_event: object) -> None:
            self.said = self.cancel_id(rid)
        return click

    def _mark(self) -> None:
        t = self.text
        t.tag_remove("chosen", "1.0", "end")
        t.tag_remove("asking", "1.0", "end")
        if self.rows:
            ranges = t.tag_ranges(f"row{self.chosen}")
            if ranges:
                t.tag_add("chosen", ranges[0], ranges[-1])
                t.see(ranges[0])
            if self.asking:
                x = t.tag_ranges(f"x{self.chosen}")
                if x:
                    t.configure(state="normal")
                    t.delete(x[0], x[1])
                    t.insert(x[0], "   Delete again cancels it" if not self.zh else "   再按 Delete 取消",
                             ("asking", f"row{self.chosen}", f"x{self.chosen}"))
                    t.configure(state="disabled")

    def move(self, step: int) -> None:
        """↑↓: another row chosen (a Delete pressed on the last one is forgotten)."""
        if self.rows:
            if self.asking:
                self.refresh()
            self.chosen = max(0, min(len(self.rows) - 1, self.chosen + step))
            self._mark()

    def delete(self) -> str | None:
        """Delete: the first press asks on the row, the second cancels it; what was cancelled, said for the hint line."""
        if not self.rows:
            return None
        if not self.asking:
            self.asking = True
            self._mark()
            return None
        return self.cancel_id(self.rows[self.chosen])

    def cancel_id(self, rid: int) -> str | None:
        """Cancel one (a click on its ✕, or Delete twice); the line that says so, or ``None`` when it was no longer
        pending (it fired meanwhile)."""
        from tools.reminders.book import Book

        try:
            done = Book(self.database).cancel([rid])
        except Exception as e:  # noqa: BLE001 - said on the hint line, the list left as it is
            return f"could not cancel it: {e}"
        self.refresh()
        if not done:
            return None
        r = done[0]
        zh = r.lang == "zh"
        return f"已取消:{r.what(zh, fired=False)}" if zh else f"cancelled: {r.what(zh, fired=False)}"


class Window(Protocol):
    """What of the popup the list's pane uses."""

    root: tk.Tk
    frame: tk.Frame
    rule: tk.Frame
    body: tk.Frame
    entry: tk.Entry
    expanded: bool
    family: str
    history: list[str]

    def say(self, text: str) -> None: ...

    def grow(self) -> None: ...


class ListPane:
    """The list's place in the popup: Ctrl+L shows it in place of the conversation, and Ctrl+L or Esc brings the
    conversation back; ↑↓ choose, Delete asks then cancels (with nothing typed)."""

    def __init__(self, window: Window, hint: str, back_hint: str) -> None:
        self.window, self.hint, self.back_hint = window, hint, back_hint
        self.frame = tk.Frame(window.frame, bg=BG)
        self.rows: ReminderList | None = None
        self.shown = False

    @property
    def text(self) -> tk.Text | None:
        return self.rows.text if self.shown and self.rows is not None else None

    def toggle(self, _event: object = None) -> str:
        w = self.window
        if self.shown:
            self.shown = False
            self.frame.pack_forget()
            if w.expanded:
                w.body.pack(fill="both", expand=True)
            else:
                w.rule.pack_forget()
            w.say(self.back_hint)
            return "break"
        if self.rows is None:
            from assistant.paths import resolve_paths

            zh = any("\u4e00" <= ch <= "\u9fff" for ch in (w.history[-1] if w.history else ""))
            self.rows = ReminderList(self.frame, w.family, resolve_paths().database, zh)
            self.rows.text.pack(fill="both", expand=True)
        self.rows.refresh()
        self.shown = True
        if w.expanded:
            w.body.pack_forget()
        else:
            w.rule.pack(fill="x")
        self.frame.pack(fill="both", expand=True)
        w.say(self.hint)
        print(f"reminders listed: {len(self.rows.rows)}", flush=True)  # the popup's log
        return "break"

    def move(self, step: int) -> bool:
        """↑↓ while it is on show (``False``: it is not, the keys are the input line's)."""
        if self.shown and self.rows is not None:
            self.rows.move(step)
        return self.shown

    def delete_key(self, _event: object = None) -> str | None:
        """Delete, on show and with nothing typed: the chosen reminder asked about, then cancelled."""
        if not self.shown or self.rows is None or self.window.entry.get():
            return None
        self.tell(self.rows.delete())
        return "break"

    def tell(self, said: str | None) -> None:
        if said:
            self.window.say(said)
            print(said, flush=True)  # the popup's log
        self.window.grow()

    def fired(self) -> None:
        """A reminder fired: no longer pending. A click on a ✕ meanwhile: said."""
        if self.shown and self.rows is not None:
            self.rows.refresh()
            self.window.grow()

    def clicked(self) -> None:
        if self.rows is not None and self.rows.said:
            said, self.rows.said = self.rows.said, None
            self.tell(said)
