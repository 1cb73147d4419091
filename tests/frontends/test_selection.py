"""The text selected in another window as context: a real X11 selection (Xvfb, and xclip owning the primary
selection as a desktop application would), read by `ask --selection` and by the popup as the daemon shows it; the
rules read the question, never the selection. The popup also shows the reminders the daemon fires while it is open."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import cli_env
from fake_ollama import Script

from processes import Daemon, run, virtual_screen

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xclip")), reason="needs Xvfb and xclip"),
]
SELECTED = "Le chat est sur la table. 2+3 à Paris."


@contextlib.contextmanager
def selected(display: str, text: str):
    """``text`` selected (the primary selection, owned by xclip as an editor would own it) on ``display``."""
    env = {**os.environ, "DISPLAY": display}

    def own() -> subprocess.Popen:
        proc = subprocess.Popen(["xclip", "-i", "-selection", "primary", "-quiet"], stdin=subprocess.PIPE, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.stdin.write(text.encode())  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
        return proc

    owner = own()
    deadline = time.monotonic() + 20  # a loaded machine (every core running tests) is slow to start a client
    while subprocess.run(["xclip", "-o", "-selection", "primary"], env=env, capture_output=True).stdout.decode() != text:
        assert time.monotonic() < deadline, "xclip did not take the selection"
        if owner.poll() is not None:  # it could not open the display yet: own it again
            owner = own()
        time.sleep(0.05)
    try:
        yield
    finally:
        owner.terminate()
        owner.wait(5)


def test_ask_about_the_selection_puts_it_before_the_question_and_the_rules_read_only_the_question(home, fake):
    fake.handler = Script(router={"route": "chat"}, responder="The cat is on the table.")
    with virtual_screen(range(140, 160)) as display, selected(display, SELECTED):
        env = cli_env(home, fake, DISPLAY=display)
        out = json.loads(run(["ask", "--json", "--selection", "translate this into English"], env).stdout)
    assert out["ok"] and out["route"] == "chat" and out["answer"] == "The cat is on the table."  # not 2+3, not Paris
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert sent.startswith(f"selection:\n{SELECTED}") and sent.endswith("translate this into English")


def test_ask_with_nothing_selected_is_one_line(home, fake):
    with virtual_screen(range(160, 180)) as display:
        p = run(["ask", "--selection", "explain this"], cli_env(home, fake, DISPLAY=display))
    assert p.returncode != 0 and p.stderr.count("\n") == 1 and "no text is selected" in p.stderr
    assert fake.requests == []


def test_the_popup_asks_about_the_selection_and_shows_a_fired_reminder(home, fake, gazetteer_index):
    pytest.importorskip("tkinter")
    if not shutil.which("xdotool"):
        pytest.skip("needs xdotool")
    fake.handler = Script(router={"route": "chat"}, responder="It says the cat is on the table.")
    with virtual_screen(range(180, 200), "1024x768x24", window_manager=True) as display, selected(display, SELECTED):
        env = cli_env(home, fake, DISPLAY=display, ASSISTANT_GAZETTEER_INDEX=gazetteer_index, ASSISTANT_HOTKEY="")
        d = Daemon(home, env).start()
        log = home / "log" / "popup.log"
        try:
            assert run(["popup"], env).returncode == 0
            deadline = time.monotonic() + 20
            while "selection attached" not in (log.read_text() if log.exists() else ""):
                assert time.monotonic() < deadline, "the popup did not take the selection: " + (
                    log.read_text() if log.exists() else d.log())
                time.sleep(0.1)
            xdo = lambda *a: subprocess.run(["xdotool", *a], env=env, capture_output=True, text=True, timeout=20)  # noqa: E731
            window = xdo("search", "--sync", "--onlyvisible", "--name", "^assistant$").stdout.split()[0]
            deadline = time.monotonic() + 10
            while xdo("getwindowfocus").stdout.strip() != window:
                assert time.monotonic() < deadline, "the popup did not get the keyboard"
                time.sleep(0.1)
            time.sleep(0.3)
            xdo("type", "--delay", "15", "what does this say?")
            xdo("key", "Return")
            deadline = time.monotonic() + 20
            while "answer: It says the cat" not in log.read_text():
                assert time.monotonic() < deadline, "no answer in the popup"
                time.sleep(0.1)
            sent = fake.requests[-1]["messages"][-1]["content"]
            assert sent == f"selection:\n{SELECTED}\n\nwhat does this say?"
            run(["ask", "remind me in 1 second to stand up"], env)
            deadline = time.monotonic() + 15
            while "reminder shown: Reminder · " not in log.read_text():
                assert time.monotonic() < deadline, "the popup did not show the reminder: " + d.log()
                time.sleep(0.1)
            assert "stand up" in log.read_text().split("reminder shown:")[1]
            artifacts = Path(os.environ.get("ASSISTANT_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] /
                                            "test-artifacts"))
            artifacts.mkdir(parents=True, exist_ok=True)
            if shutil.which("import"):
                subprocess.run(["import", "-window", "root", str(artifacts / "popup-selection.png")], env=env, timeout=20)
        finally:
            d.stop()


def test_the_selection_is_attached_on_every_show_and_never_taken(home, fake, gazetteer_index):
    """Hidden (Esc) and shown again, twice: the text another window holds is attached each time, and it is still
    that window's (before, every later show took the X selection away and attached nothing)."""
    pytest.importorskip("tkinter")
    if not shutil.which("xdotool"):
        pytest.skip("needs xdotool")
    with virtual_screen(range(200, 220), "1024x768x24", window_manager=True) as display, selected(display, SELECTED):
        env = cli_env(home, fake, DISPLAY=display, ASSISTANT_GAZETTEER_INDEX=gazetteer_index, ASSISTANT_HOTKEY="")
        d = Daemon(home, env).start()
        log = home / "log" / "popup.log"
        xdo = lambda *a: subprocess.run(["xdotool", *a], env=env, capture_output=True, text=True, timeout=20)  # noqa: E731

        def said(text: str, times: int) -> None:
            deadline = time.monotonic() + 20
            while (log.read_text() if log.exists() else "").count(text) < times:
                assert time.monotonic() < deadline, f"{text!r} not {times} times: " + (
                    log.read_text() if log.exists() else d.log())
                time.sleep(0.1)

        try:
            for show in (1, 2, 3):
                assert run(["popup"], env).returncode == 0
                said("selection attached", show)
                window = xdo("search", "--sync", "--onlyvisible", "--name", "^assistant$").stdout.split()[0]
                deadline = time.monotonic() + 10
                while xdo("getwindowfocus").stdout.strip() != window:
                    assert time.monotonic() < deadline, "the popup did not get the keyboard"
                    time.sleep(0.1)
                held = subprocess.run(["xclip", "-o", "-selection", "primary"], env=env, capture_output=True,
                                      timeout=10).stdout.decode()
                assert held == SELECTED  # still the other window's: showing the popup took nothing
                xdo("key", "Escape")
                said("hidden by", show)
        finally:
            d.stop()
