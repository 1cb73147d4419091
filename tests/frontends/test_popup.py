"""The popup's window in-process on a virtual screen (Xvfb): read-only answer, Markdown as formatting, history,
copy, the last exchange on reopening. The whole desktop path (daemon, hotkey, window manager) is in
tests/frontends/test_daemon.py."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from assistant.frontends.markdown import plain, spans

@pytest.fixture(scope="module")
def display():
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    tk = pytest.importorskip("tkinter")
    from processes import virtual_screen

    with virtual_screen(range(150, 200)) as screen:
        old = os.environ.get("DISPLAY")
        os.environ["DISPLAY"] = screen
        yield tk
        if old is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = old


class FakeClient:
    """The daemon's answers to the popup, without a daemon."""

    def __init__(self, turns: list[dict] | None = None, events: list[dict] | None = None) -> None:
        self.turns = turns or []
        self.script = events or []

    def get(self, path: str) -> dict:
        assert path.endswith("/turns")
        return {"turns": self.turns}

    def ask(self, question: str, session_id: str | None = None):
        self.asked = [*getattr(self, "asked", []), question]
        yield from self.script


# an image Tk collects from another thread after its window ended ("main thread is not in main loop") is a failure
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")


@pytest.fixture
def popup(display, monkeypatch):
    from assistant.frontends import selection
    from assistant.frontends.popup import Popup

    # what another test left selected on the shared screen is not this popup's context (tests/frontends/
    # test_selection.py reads a real selection)
    monkeypatch.setattr(selection, "read_selection", lambda timeout=2.0: None)
    made = []

    def make(**kw):
        p = Popup(FakeClient(**kw), "s1" if kw.get("turns") else None)
        p.root.update()
        made.append(p)
        return p
    yield make
    for p in made:
        p.destroy()


def run_until(p, done, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline
        p.root.update()
        time.sleep(0.02)


def shown(p) -> str:
    return p.text.get("1.0", "end-1c")



def selected_in(entry) -> str:
    """The text selected in the input line, read off the widget: it never exports it as the X selection (which is
    the text another window holds, for the popup to attach)."""
    return entry.get()[entry.index("sel.first"):entry.index("sel.last")]

def test_the_answer_is_read_only_and_its_markdown_is_formatting(popup):
    answer = "The moon is **round** because:\n\n- gravity pulls it\n- into a `sphere`"
    p = popup(events=[{"type": "turn_started", "session_id": "s9"},
                      *({"type": "answer_delta", "text": answer[i:i + 7]} for i in range(0, len(answer), 7)),
                      {"type": "turn_done", "answer": answer, "ok": True}])
    p.entry.insert(0, "Why is the moon round?")
    p.ask()
    run_until(p, lambda: not p.busy)
    assert shown(p) == "› Why is the moon round?\nThe moon is round because:\n\n• gravity pulls it\n• into a sphere"
    assert "bold" in p.text.tag_names(p.text.search("round", "2.0"))
    assert "code" in p.text.tag_names(p.text.search("sphere", "2.0"))
    assert p.session_id == "s9"  # the follow-up continues the session
    from tkinter import font as tkfont

    code_font = tkfont.Font(font=p.text.tag_cget("code_block", "font"))
    assert code_font.measure("iiii") == code_font.measure("WWWW")  # code blocks (and tables) in a monospace font
    assert str(p.text.cget("state")) == "disabled"
    p.text.focus_force()
    p.text.event_generate("<Key>", keysym="z")
    p.text.insert("end", "typed")  # what a keystroke would do to an editable widget: refused while disabled
    p.root.update()
    assert "typed" not in shown(p) and "z" not in shown(p).split("\n")[-1]


def test_a_reopened_popup_shows_the_last_exchange_and_walks_the_history(popup):
    p = popup(turns=[{"question": "1+1", "answer": "2", "ok": True},
                     {"question": "北京天气怎么样?", "answer": "北京现在 **3°C**,晴。", "ok": True}])
    assert shown(p) == "› 1+1\n2\n\n› 北京天气怎么样?\n北京现在 3°C,晴。"  # the conversation, not only its end
    p.walk(1)
    assert p.entry.get() == "北京天气怎么样?"
    p.walk(1)
    assert p.entry.get() == "1+1"
    p.walk(-1)
    p.walk(-1)
    assert p.entry.get() == ""
    p.copy()
    assert p.root.clipboard_get() == "北京现在 **3°C**,晴。"  # the answer as written, for pasting elsewhere
    p.answer = "Paris is 12°C.\n\n(The rest is not shown: it made claims that could not be checked.)"
    p.copy()
    assert p.root.clipboard_get() == "Paris is 12°C."  # without the check's note


def test_it_opens_compact_and_centred_and_grows_downwards_with_the_conversation(popup):
    from assistant.frontends.popup import MAX_HEIGHT, PLACEHOLDER

    long = "\n\n".join(f"Paragraph {i} of a long answer, with enough words to fill a line of the popup." for i in range(30))
    p = popup(events=[{"type": "turn_done", "answer": "A short answer.", "ok": True}])
    p.root.update()
    width, height = p.root.winfo_width(), p.root.winfo_height()
    assert width == 680 and height < 120 and not p.body.winfo_ismapped()  # the input line alone
    assert p.placeholder.winfo_ismapped() and p.placeholder.cget("text") == PLACEHOLDER
    top = p.root.winfo_rooty()
    assert abs(p.root.winfo_rootx() - (1280 - width) // 2) <= 2 and abs(top - (800 - MAX_HEIGHT) // 3) <= 2
    p.entry.insert(0, "Say something short")
    p._placeholder()
    assert not p.placeholder.winfo_ismapped()
    p.ask()
    run_until(p, lambda: not p.busy and not p.transcript.scroll.winfo_ismapped())  # nothing to scroll to: no scrollbar
    assert 120 < p.root.winfo_height() < MAX_HEIGHT and p.root.winfo_rooty() == top
    p.client.script = [{"type": "turn_done", "answer": long, "ok": True}]
    p.entry.insert(0, "Now something long")
    p.ask()
    run_until(p, lambda: not p.busy and p.transcript.scroll.winfo_ismapped())  # a scrollbar only when there is more to see
    assert p.root.winfo_height() == MAX_HEIGHT
    assert "A short answer." in shown(p) and "Paragraph 29" in shown(p)  # one conversation


def test_a_failure_is_text_with_its_fix_and_reopening_selects_what_was_left(popup):
    p = popup(events=[{"type": "turn_failed", "message": "Model 'qwen2.5:3b' is not installed.",
                       "hint": "Run `assistant models pull qwen2.5:3b`."}])
    p.entry.insert(0, "Hello?")
    p.ask()
    run_until(p, lambda: not p.busy)
    said = shown(p).split("\n")[-1]
    assert said == "⚠ Model 'qwen2.5:3b' is not installed. Run assistant models pull qwen2.5:3b."  # no backticks
    assert "code" in p.text.tag_names(p.text.search("assistant models pull", "1.0"))
    assert "error" not in p.status.cget("text")
    p.entry.insert(0, "an old draft")
    p.close("Esc")
    p.focus()
    p.root.update()
    assert p.entry.selection_present() and selected_in(p.entry) == "an old draft"  # typing replaces it


def test_an_answer_the_daemon_did_not_finish_says_so(popup):
    """The daemon stopped while answering: what came is kept, and one line says it ended early and what to do (it
    was said once, not twice, when the daemon's own failure came)."""
    p = popup(events=[{"type": "turn_started", "session_id": "s9"}, {"type": "answer_delta", "text": "The moon is"}])
    p.entry.insert(0, "Why is the moon round?")
    p.ask()
    run_until(p, lambda: not p.busy)
    assert shown(p).split("\n")[-2:] == ["The moon is", "⚠ the daemon ended the answer early (it stopped, or the "
                                          "connection broke). Ask again (assistant daemon status says whether it "
                                          "runs; its log, why it stopped), or use --no-daemon."]


@pytest.mark.parametrize("text, expect", [
    ("**bold** and *italic* and `code`", [("bold", ("bold",)), (" and ", ()), ("italic", ("italic",)), (" and ", ()),
                                          ("code", ("code",))]),
    ("2*3*4 and snake_case_name", [("2*3*4 and snake_case_name", ())]),  # not emphasis
    ("half **streamed", [("half **streamed", ())]),  # until its partner arrives
    ("```\nprint(1)\n```", [("print(1)\n", ("code_block",))]),
    ("# Title", [("Title", ("heading",))]),
    ("1. first\n2. **second**", [("1. first", ("list",)), ("\n", ()), ("2. ", ("list",)), ("second", ("list", "bold"))]),
    ("这是**“重点”**的,*斜体*。", [("这是", ()), ("“重点”", ("bold",)), ("的,", ()), ("斜体", ("italic",)), ("。", ())]),
    ("one line\nand its continuation", [("one line and its continuation", ())]),  # a soft break is a space
    ("> quoted\n> on", [("│ quoted on", ("quote",))]),
    ("a*b*c and 2*3", [("a*b*c and 2*3", ())]),
    # a sentence right after a list's last item is a paragraph of its own, not folded into the bullet; a line that
    # goes on in lower case continues the item
    ("- one\n- two\nThe end.", [("• one", ("list",)), ("\n", ()), ("• two", ("list",)), ("\n\nThe end.", ())]),
    ("1. 一\n2. 二\n以上。", [("1. 一", ("list",)), ("\n", ()), ("2. 二", ("list",)), ("\n\n以上。", ())]),
    ("- a long item\ngoing on", [("• a long item going on", ("list",))]),
    ("```\n- x\nY\n```", [("- x\nY\n", ("code_block",))]),
])
def test_markdown_spans(text, expect):
    assert spans(text) == expect


def test_markdown_plain_text_keeps_the_words():
    assert plain("- **a** b\n- `c`") == "• a b\n• c"


def test_a_table_is_aligned_with_its_header_ruled():
    shown = plain("| city | 温度 |\n|---|---|\n| 北京 | 3°C |\n| Paris | 12°C |")
    assert shown.splitlines() == ["city  │ 温度", "──────┼─────", "北京  │ 3°C ", "Paris │ 12°C"]
    assert ("city", ("table_cell", "bold")) in spans("| city | x |\n|---|---|\n| a | b |")


def test_the_terminal_shows_tables_quotes_and_cjk_emphasis_line_by_line():
    from assistant.frontends.progress import LineRenderer

    r = LineRenderer(colour=True)
    shown = [r.line(line) for line in ["| city | 温度 |", "|---|---|", "| 北京 | 3°C |", "> a quote", "这是*强调*的", "2*3*4"]]
    assert [s.plain for s in shown] == ["city │ 温度", "─────────", "北京 │ 3°C", "│ a quote", "这是强调的", "2*3*4"]
    assert "\x1b[3m强调\x1b[0m" in shown[4].styled and "|" not in shown[0].plain
    assert [s.prose for s in shown] == [False, False, False, True, True, True]  # a table row is not wrapped at words


def test_a_nested_list_keeps_its_nesting_line_by_line():
    """The terminal renders an answer a line at a time as it streams: a nested item keeps its indentation (alone, it
    would read as a top-level item, or past three spaces as code)."""
    from assistant.frontends.progress import LineRenderer

    r = LineRenderer(colour=False)
    lines = ["- fruit", "  - **apple**", "    - deep", "1. one", "   1. one-a", "2. two"]
    assert [r.line(line).plain for line in lines] == ["• fruit", "  • apple", "    • deep", "1. one", "   1. one-a",
                                                      "2. two"]


def test_a_soft_break_between_chinese_characters_is_nothing():
    assert plain("这是*强调*的\n中文第二行。") == "这是强调的中文第二行。" and plain("one\ntwo") == "one two"


def test_a_decline_as_too_small_offers_the_capable_model_once(popup, home, monkeypatch):
    """Ctrl+P pulls it (here from a loopback registry, for the embedded engine), then the question is asked again."""
    from fake_registry import FakeRegistry

    from assistant.capable import CAPABLE_MODEL, TOO_SMALL

    declined = {"type": "turn_done", "answer": "Sorry, the built-in model is too small…", "ok": False,
                "replaced": TOO_SMALL}
    with FakeRegistry() as registry:
        registry.add(f"library/{CAPABLE_MODEL}", b"GGUF a capable model")
        monkeypatch.setenv("ASSISTANT_MODELS", str(home.parent / "models"))
        monkeypatch.setenv("ASSISTANT_MODEL_REGISTRY", registry.url)
        monkeypatch.setenv("ASSISTANT_BACKEND", "embedded")
        p = popup(events=[declined])
        p.entry.insert(0, "Who wrote Hamlet?")
        p.ask()
        run_until(p, lambda: not p.busy)
        assert p.status.cget("text") == f"Ctrl+P pulls {CAPABLE_MODEL} (1.9 GB), a model that can answer this"
        p.root.event_generate("<Control-p>")
        run_until(p, lambda: p.client.asked == ["Who wrote Hamlet?"] * 2 and not p.busy, timeout=60)
        assert (home.parent / "models" / "pulled" / "qwen2.5-3b.gguf").read_bytes() == b"GGUF a capable model"
        assert p.status.cget("text") != f"Ctrl+P pulls {CAPABLE_MODEL} (1.9 GB), a model that can answer this"  # once


def test_a_status_line_is_one_row_that_fits(monkeypatch, capsys):
    """A stage label of several lines, or wider than the terminal, would fold into rows that clearing the line does
    not take back: it is drawn as one row, cut to fit."""
    from assistant.frontends.columns import width
    from assistant.frontends.progress import Progress

    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("NO_COLOR", "1")
    progress = Progress(enabled=True)
    progress.on_event({"type": "stage_started", "stage": "tool", "attempt": 1, "of": 4,
                       "detail": "calculator((1234567 + 7654321) * 3 -\n 2 * (111111 + 222222 + 333333))"})
    progress.finish()
    drawn = capsys.readouterr().err.split("\r\x1b[K")
    shown = [d for d in drawn if d]
    assert shown and all("\n" not in d and width(d) <= 39 for d in shown) and shown[0].startswith("calculator((1234567")


def test_the_row_writer_breaks_prose_at_words_and_takes_a_line_back_exactly():
    """The terminal's row writer, without a terminal: words move to the next row whole, a space never starts a row,
    Chinese breaks between characters, a word wider than a row is cut, a list item's rows hang under its text, and
    back() climbs exactly the rows the line took."""
    import io

    from assistant.frontends.wrap import RowWriter

    out = io.StringIO()
    row = RowWriter(out, width=lambda: 20)
    row.mark()
    row.write("the quick brown fox jumps over the lazy dog")
    row.end()
    assert out.getvalue().split("\n") == ["the quick brown fox", "jumps over the lazy", "dog"] and row.rows == 3
    out.seek(0), out.truncate()
    row.back()
    assert out.getvalue() == "\r\x1b[1A\x1b[1A\x1b[J" and row.col == 0
    out.seek(0), out.truncate()
    row.mark()
    row.write("- a list item that is long enough")
    row.end()
    assert out.getvalue().split("\n") == ["- a list item that", "  is long enough"]
    row.newline()
    out.seek(0), out.truncate()
    row.mark()
    row.write("潮汐是由月球和太阳的引力引起的")
    row.end()
    assert out.getvalue().split("\n") == ["潮汐是由月球和太阳的", "引力引起的"]  # ten wide characters a row
    row.newline()
    out.seek(0), out.truncate()
    row.mark()
    row.write("see https://example.com/a/very/long/path/indeed")
    row.end()
    assert out.getvalue().split("\n") == ["see", "https://example.com/", "a/very/long/path/ind", "eed"]


def test_a_question_typed_while_an_answer_comes_is_asked_next(popup):
    p = popup(events=[{"type": "answer_delta", "text": "An answer."}, {"type": "turn_done", "answer": "An answer.",
                                                                      "ok": True}])
    p.entry.insert(0, "first question")
    p.ask()
    assert p.busy
    p.entry.insert(0, "second question")
    p.ask()  # Enter while the first answer comes: not ignored
    assert "Asked next" in p.status.cget("text") and p.entry.get() == ""
    run_until(p, lambda: not p.busy and p.client.asked == ["first question", "second question"])
    run_until(p, lambda: not p.busy)
    assert shown(p).count("› ") == 2


def test_ctrl_a_selects_the_whole_input_line(popup):
    p = popup()
    p.entry.insert(0, "some words typed")
    p.entry.icursor(3)
    assert p.select_all() == "break"
    assert selected_in(p.entry) == "some words typed"


def test_the_hotkey_hides_the_popup_that_holds_the_keyboard_and_shows_one_that_does_not(popup):
    p = popup()
    p.root.deiconify()
    p.root.update()
    p.entry.focus_force()
    run_until(p, lambda: p.root.focus_displayof() is not None)
    p.toggle()
    p.root.update()
    assert not p.root.winfo_ismapped()
    p.toggle()
    run_until(p, lambda: p.root.winfo_ismapped())


def _inside(widget, window) -> bool:
    """Whether ``widget`` is drawn whole inside ``window`` (not cut at its bottom or right edge)."""
    bottom = widget.winfo_rooty() + widget.winfo_height()
    right = widget.winfo_rootx() + widget.winfo_width()
    return bottom <= window.winfo_rooty() + window.winfo_height() and right <= window.winfo_rootx() + window.winfo_width()


def test_a_long_note_wraps_on_the_hint_line_and_the_window_grows_to_show_it_whole(popup):
    note = ("the plugin 'weather-extra' runs unconfined: this kernel has no Landlock, so its code can read your files; "
            "`assistant doctor` says how to confine it, or remove it with `assistant plugins remove weather-extra`")
    p = popup()
    p.root.update()
    compact = p.root.winfo_height()
    p.events.put({"type": "note", "text": note})
    run_until(p, lambda: "unconfined" in p.status.cget("text"))
    p.root.update()
    assert p.status.cget("text").endswith("weather-extra`")  # the whole note, not its first 160 characters
    assert p.status.winfo_reqheight() > 2 * 14 and p.root.winfo_height() > compact  # wrapped: more than one line
    assert _inside(p.status, p.root) and p.status.winfo_reqwidth() <= p.root.winfo_width()
    p.entry.insert(0, "And a question")
    p.client.script = [{"type": "turn_done", "answer": "An answer.", "ok": True}]
    p.ask()
    run_until(p, lambda: not p.busy)
    p.root.update()
    assert _inside(p.status, p.root)


def test_the_last_line_of_a_long_answer_is_in_view(popup):
    long = "\n\n".join(f"Paragraph {i} of a long answer, with enough words to fill a line of the popup." for i in range(30))
    p = popup(events=[{"type": "answer_delta", "text": long[:400]}, {"type": "answer_delta", "text": long[400:]},
                      {"type": "turn_done", "answer": long + "\n\nThe last line.", "ok": True}])
    p.entry.insert(0, "Something long")
    p.ask()
    run_until(p, lambda: not p.busy)
    p.root.update()
    box = p.text.bbox(p.text.search("The last line.", "1.0"))
    assert box is not None  # drawn, not scrolled out of view
    assert box[1] + box[3] <= p.text.winfo_height()  # and not cut at the bottom edge


def test_ctrl_l_lists_the_pending_reminders_and_delete_twice_cancels_the_one_chosen(popup, tmp_path, monkeypatch):
    from datetime import datetime, timedelta

    from assistant.paths import resolve_paths
    from assistant.store import Store
    from tools.reminders.book import Book

    monkeypatch.setenv("ASSISTANT_HOME", str(tmp_path / "home"))
    database = resolve_paths().database
    database.parent.mkdir(parents=True, exist_ok=True)
    Store(database)  # made and migrated, as the daemon's is
    book, now = Book(database), datetime.now().astimezone()
    dentist = book.add("reminder", "call the dentist", now + timedelta(hours=1), "en", now)
    tea = book.add("timer", "", now + timedelta(minutes=10), "en", now, span=600)
    p = popup()
    p.root.update()
    p.pane.toggle()
    p.root.update()
    listed = p.pane.text.get("1.0", "end-1c")
    assert "timer (10 minutes)" in listed and "call the dentist" in listed  # the sooner first
    assert listed.index("timer") < listed.index("dentist") and p.status.cget("text").startswith("↑↓ choose")
    assert _inside(p.pane.text, p.root) and not p.body.winfo_ismapped()
    p.walk(-1)  # Down: the second row, the dentist
    p.pane.delete_key()
    assert "Delete again cancels it" in p.pane.text.get("1.0", "end-1c")  # asked first, nothing cancelled
    assert book.get(dentist.id).state == "pending"
    p.pane.delete_key()
    assert book.get(dentist.id).state == "cancelled" and book.get(tea.id).state == "pending"
    assert p.status.cget("text") == "cancelled: call the dentist"
    assert "dentist" not in p.pane.text.get("1.0", "end-1c")
    p.entry.insert(0, "typing")
    assert p.pane.delete_key() is None and book.get(tea.id).state == "pending"  # Delete edits what is typed
    p.entry.delete(0, "end")
    p.entry.focus_force()
    p.root.update()
    p.entry.event_generate("<Escape>")
    p.root.update()
    assert not p.pane.shown and p.root.winfo_ismapped()  # Esc: back from the list, not hidden


def test_the_list_says_how_to_set_one_when_none_is_pending(popup, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSISTANT_HOME", str(tmp_path / "empty"))
    p = popup()
    p.pane.toggle()
    p.root.update()
    assert p.pane.text.get("1.0", "end-1c").startswith("No reminders pending. Set one in words")
    assert _inside(p.pane.text, p.root)
