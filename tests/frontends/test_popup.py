"""The popup's window in-process on a virtual screen (Xvfb): read-only answer, Markdown as formatting, history,
copy, the last exchange on reopening. The whole desktop path (daemon, hotkey, window manager) is in
tests/frontends/test_daemon.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from assistant.frontends.markdown import plain, spans

@pytest.fixture(scope="module")
def display():
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    tk = pytest.importorskip("tkinter")
    number = next(n for n in range(150, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    xvfb = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        assert time.monotonic() < deadline, "Xvfb did not start"
        time.sleep(0.05)
    old = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = f":{number}"
    yield tk
    if old is None:
        os.environ.pop("DISPLAY", None)
    else:
        os.environ["DISPLAY"] = old
    xvfb.terminate()
    xvfb.wait(10)


class FakeClient:
    """The daemon's answers to the popup, without a daemon."""

    def __init__(self, turns: list[dict] | None = None, events: list[dict] | None = None) -> None:
        self.turns = turns or []
        self.script = events or []

    def get(self, path: str) -> dict:
        assert path.endswith("/turns")
        return {"turns": self.turns}

    def ask(self, question: str, session_id: str | None = None):
        yield from self.script


@pytest.fixture
def popup(display):
    from assistant.frontends.popup import Popup

    made = []

    def make(**kw):
        p = Popup(FakeClient(**kw), "s1" if kw.get("turns") else None)
        p.root.update()
        made.append(p)
        return p
    yield make
    for p in made:
        p.root.destroy()


def run_until(p, done, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline
        p.root.update()
        time.sleep(0.02)


def shown(p) -> str:
    return p.text.get("1.0", "end-1c")


def test_the_answer_is_read_only_and_its_markdown_is_formatting(popup):
    answer = "The moon is **round** because:\n\n- gravity pulls it\n- into a `sphere`"
    p = popup(events=[{"type": "turn_started", "session_id": "s9"},
                      *({"type": "answer_delta", "text": answer[i:i + 7]} for i in range(0, len(answer), 7)),
                      {"type": "turn_done", "answer": answer, "ok": True}])
    p.entry.insert(0, "Why is the moon round?")
    p.ask()
    run_until(p, lambda: not p.busy)
    assert shown(p) == "› Why is the moon round?\n\nThe moon is round because:\n\n• gravity pulls it\n• into a sphere"
    assert "bold" in p.text.tag_names(p.text.search("round", "3.0"))
    assert "code" in p.text.tag_names(p.text.search("sphere", "3.0"))
    assert p.session_id == "s9"  # the follow-up continues the session
    assert str(p.text.cget("state")) == "disabled"
    p.text.focus_force()
    p.text.event_generate("<Key>", keysym="z")
    p.text.insert("end", "typed")  # what a keystroke would do to an editable widget: refused while disabled
    p.root.update()
    assert "typed" not in shown(p) and "z" not in shown(p).split("\n")[-1]


def test_a_reopened_popup_shows_the_last_exchange_and_walks_the_history(popup):
    p = popup(turns=[{"question": "1+1", "answer": "2", "ok": True},
                     {"question": "北京天气怎么样?", "answer": "北京现在 **3°C**,晴。", "ok": True}])
    assert shown(p) == "› 北京天气怎么样?\n\n北京现在 3°C,晴。"
    p.walk(1)
    assert p.entry.get() == "北京天气怎么样?"
    p.walk(1)
    assert p.entry.get() == "1+1"
    p.walk(-1)
    p.walk(-1)
    assert p.entry.get() == ""
    p.copy()
    assert p.root.clipboard_get() == "北京现在 **3°C**,晴。"  # the answer as written, for pasting elsewhere


def test_it_opens_centred_on_the_screen(popup):
    p = popup()
    p.root.update()
    width, height = p.root.winfo_width(), p.root.winfo_height()
    assert (width, height) == (680, 360)
    assert abs(p.root.winfo_rootx() - (1280 - width) // 2) <= 2 and abs(p.root.winfo_rooty() - (800 - height) // 3) <= 2


@pytest.mark.parametrize("text, expect", [
    ("**bold** and *italic* and `code`", [("bold", ("bold",)), (" and ", ()), ("italic", ("italic",)), (" and ", ()),
                                          ("code", ("code",))]),
    ("2*3*4 and snake_case_name", [("2*3*4 and snake_case_name", ())]),  # not emphasis
    ("half **streamed", [("half **streamed", ())]),  # until its partner arrives
    ("```\nprint(1)\n```", [("print(1)\n", ("code_block",))]),
    ("# Title", [("Title", ("heading",))]),
    ("1. first\n2. **second**", [("1. ", ("list",)), ("first", ("list",)), ("\n", ()), ("2. ", ("list",)),
                                 ("second", ("list", "bold"))]),
])
def test_markdown_spans(text, expect):
    assert spans(text) == expect


def test_markdown_plain_text_keeps_the_words():
    assert plain("- **a** b\n- `c`") == "• a b\n• c"
