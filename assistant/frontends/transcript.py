"""The popup's conversation area: a read-only text whose exchanges, streamed answers (Markdown drawn as styles) and
lines (a fired reminder, a failure and its fix) are written here, with a thin scrollbar shown only while there is
something to scroll to. The popup (:mod:`assistant.frontends.popup`) owns the window; this owns what it shows."""

from __future__ import annotations

import tkinter as tk
from tkinter import font as tkfont
from tkinter import ttk

from assistant.frontends.markdown import spans

# A flat, light look (the launchers people know: Raycast, Alfred, KRunner, GNOME's search): the popup's colours too
BORDER, BG, FG, MUTED, FAINT, CODE_BG, ERROR = "#b8bec8", "#ffffff", "#1f2328", "#6b7280", "#e5e7eb", "#f3f4f6", "#b42318"


class Transcript:
    def __init__(self, root: tk.Tk, parent: tk.Frame, family: str) -> None:
        self.text = tk.Text(parent, wrap="word", font=(family, 12), relief="flat", bd=0, highlightthickness=0,
                            bg=BG, fg=FG, state="disabled", cursor="arrow", takefocus=False, padx=16, pady=10,
                            spacing1=2, spacing3=2, exportselection=False)  # never takes the X selection
        style = ttk.Style(root)
        if "clam" in style.theme_names():
            style.theme_use("clam")
        # a thin scrollbar without arrows, shown only when the conversation is longer than the window
        style.layout("Thin.Vertical.TScrollbar", [("Vertical.Scrollbar.trough", {  # type: ignore[list-item]  # typeshed: a layout's options too narrow
            "sticky": "ns", "children": [("Vertical.Scrollbar.thumb", {"expand": "1", "sticky": "nswe"})]})])
        style.configure("Thin.Vertical.TScrollbar", troughcolor=BG, background="#c7ccd4", bordercolor=BG,
                        lightcolor="#c7ccd4", darkcolor="#c7ccd4", gripcount=0, arrowsize=9)  # clam: its width
        self.scroll = ttk.Scrollbar(parent, orient="vertical", command=self.text.yview,
                                    style="Thin.Vertical.TScrollbar")
        self.text.configure(yscrollcommand=self._scrolled)
        self.text.pack(side="left", fill="both", expand=True)
        self._tags(family)

    def _scrolled(self, first: float | str, last: float | str) -> None:
        """The scrollbar is there only while there is something to scroll to."""
        self.scroll.set(first, last)
        if float(first) <= 0.0 and float(last) >= 1.0:
            self.scroll.pack_forget()
        elif not self.scroll.winfo_ismapped():
            self.scroll.pack(side="right", fill="y", before=self.text)

    def _tags(self, family: str) -> None:
        t = self.text
        t.tag_configure("bold", font=(family, 12, "bold"))
        t.tag_configure("italic", font=(family, 12, "italic"))
        t.tag_configure("heading", font=(family, 13, "bold"))
        fixed = tkfont.nametofont("TkFixedFont").actual("family")  # a monospace family (a named font is not one)
        t.tag_configure("code", font=(fixed, 11), background=CODE_BG)
        t.tag_configure("code_block", font=(fixed, 11), background=CODE_BG, lmargin1=12, lmargin2=12)
        t.tag_configure("table", font=(fixed, 11), foreground="#888888")
        t.tag_configure("table_cell", font=(fixed, 11))
        t.tag_configure("quote", foreground="#555555", lmargin1=12, lmargin2=12)
        t.tag_configure("list", lmargin1=8, lmargin2=22)
        t.tag_configure("question", foreground=MUTED, font=(family, 12, "bold"), spacing1=8)
        t.tag_configure("error", foreground=ERROR)

    def line(self, text: str, tags: tuple[str, ...] = ()) -> None:
        """A line of its own below what is there (a fired reminder)."""
        self.text.configure(state="normal")
        if self.text.index("end-1c") != "1.0":
            self.text.insert("end", "\n\n")
        self.text.insert("end", text, tags)
        self.text.configure(state="disabled")
        self.text.see("end")

    def start_exchange(self, question: str) -> None:
        """A new exchange below the ones before (the conversation is kept, not replaced)."""
        self.text.configure(state="normal")
        if self.text.index("end-1c") != "1.0":
            self.text.insert("end", "\n\n")
        self.text.insert("end", f"› {question}\n", ("question",))
        self.text.mark_set("answer", "end-1c")
        self.text.mark_gravity("answer", "left")
        self.text.configure(state="disabled")
        self.text.see("end")

    def draw(self, answer: str) -> None:
        """The answer so far, drawn again from its Markdown; the view follows it when it was at the bottom."""
        following = self.text.yview()[1] >= 0.999  # at the bottom: keep following the stream
        self.text.configure(state="normal")
        self.text.delete("answer", "end-1c")  # Tk keeps its final newline: to "end" would take the one before
        for piece, styles in spans(answer):
            self.text.insert("end", piece, styles)
        self.text.configure(state="disabled")
        if following:
            self.text.see("end")

    def failure(self, message: str, after_answer: bool) -> None:
        """A failure said as text, its fix with it (Markdown: a command shows as code), after what came of the
        answer on a line of its own."""
        self.text.configure(state="normal")
        if after_answer:
            self.text.insert("end", "\n")
        self.text.insert("end", "⚠ ", ("error",))
        for piece, styles in spans(message):
            self.text.insert("end", piece, ("error", *styles))
        self.text.configure(state="disabled")
        self.text.see("end")

    def holds(self, text: str) -> bool:
        return text in self.text.get("1.0", "end")
