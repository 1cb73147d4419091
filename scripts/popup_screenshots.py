"""Screenshots of the popup as a user meets it, for docs/daemon.md: under Xvfb (with openbox when installed), a
real daemon on the fake Ollama, questions typed with xdotool, each state captured with ImageMagick's import.

    python scripts/popup_screenshots.py [--out docs/images]

1. popup-open.png: just opened, the input line alone with its placeholder;
2. popup-answer.png: an answer with Markdown;
3. popup-conversation.png: a follow-up below it, the conversation longer than the window (the scrollbar shows);
4. popup-error.png: a failure, said as text with its fix;
5. popup-reminders.png: Ctrl+L, the pending reminders in place of the conversation, one asked about (Delete once);
6. popup-selection.png: text held by another client (xclip), the popup hidden with Esc and shown again, the third
   show: the selection attached and said on the hint line, and still the other client's.
Prints the window's size at each step."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from _common import ROOT
from fake_ollama import FakeOllama, Script
from processes import Daemon, virtual_screen

ANSWERS = [
    "The Moon is round because **gravity** pulls its mass toward the centre:\n\n- anything large enough "
    "becomes a sphere\n- smaller bodies, like asteroids, stay lumpy\n\nThe threshold is roughly `400 km` across.",
    "Tides come from the Moon's pull on the oceans. The water nearest the Moon is pulled hardest, and the solid "
    "Earth a little less, so the oceans bulge on the side facing it.\n\n1. High tide faces the Moon.\n2. A second "
    "bulge faces away from it.\n3. The Earth turns through both each day.\n\n> Spring tides come when the Sun "
    "and the Moon line up.\n\nNeap tides come when they pull at right angles, and the range is smaller.",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "docs" / "images"), help="where the PNG files go")
    args = ap.parse_args()
    if not (shutil.which("Xvfb") and shutil.which("xdotool") and shutil.which("import")):
        raise SystemExit("needs Xvfb, xdotool and ImageMagick (apt-get install xvfb xdotool imagemagick)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
    script = Script(router=[{"route": "chat"}] * 3, responder=[*ANSWERS, "x"], decide=[*ANSWERS, "x"])
    with FakeOllama(script) as fake, tempfile.TemporaryDirectory() as tmp, \
            virtual_screen(range(200, 260), window_manager=True) as screen:
        e = {**env, "DISPLAY": screen, "ASSISTANT_HOME": tmp, "OLLAMA_HOST": fake.url, "ASSISTANT_BACKEND": "ollama",
             "ASSISTANT_HOTKEY": ""}
        daemon = Daemon(Path(tmp), e).start()
        try:
            client = daemon.client
            xdo = lambda *a: subprocess.run(["xdotool", *a], env=e, capture_output=True, text=True, timeout=10)  # noqa: E731
            log = Path(tmp) / "log" / "popup.log"

            def wait(done: Callable[[], bool], what: str) -> None:
                deadline = time.monotonic() + 20
                while not done():
                    if time.monotonic() > deadline:
                        raise SystemExit(f"the popup did not {what}: {log.read_text()[-600:] if log.exists() else ''}")
                    time.sleep(0.05)

            def shot(name: str, window: str) -> None:
                time.sleep(0.6)  # the last redraw and the window's growth
                geometry = xdo("getwindowgeometry", window).stdout.split("Geometry: ")[-1].strip()
                subprocess.run(["import", "-window", window, str(out / name)], env=e, check=True, timeout=20)
                print(f"{name}: {geometry}")

            client.post("/v1/popup", {})
            wait(lambda: bool(xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.strip()), "open")
            window = xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.split()[0]
            wait(lambda: xdo("getwindowfocus").stdout.strip() == window, "take the keyboard")
            shot("popup-open.png", window)
            for n, question in enumerate(["Why is the moon round?", "And why are there tides?"]):
                xdo("type", "--delay", "10", question)
                xdo("key", "Return")
                wait(lambda n=n: log.exists() and log.read_text().count("answer: ") > n, "answer")
                shot("popup-answer.png" if n == 0 else "popup-conversation.png", window)
            fake.models.clear()  # the model is gone: the failure and its fix, as text
            xdo("type", "--delay", "10", "One more?")
            xdo("key", "Return")
            time.sleep(1.5)
            shot("popup-error.png", window)
            from datetime import datetime, timedelta

            from tools.reminders.book import Book

            book, now = Book(Path(tmp) / "data" / "assistant.db"), datetime.now().astimezone()
            book.add("reminder", "call the dentist about Tuesday", now + timedelta(hours=2), "en", now)
            book.add("timer", "", now + timedelta(minutes=10), "en", now, span=600)
            book.add("reminder", "交房租", now + timedelta(days=1), "zh", now, repeat="weekly")
            xdo("key", "ctrl+l")
            wait(lambda: "reminders listed: 3" in log.read_text(), "list the reminders")
            xdo("key", "Down")
            xdo("key", "Delete")
            shot("popup-reminders.png", window)
            xdo("key", "Escape")  # back to the conversation
            if shutil.which("xclip"):
                held = subprocess.Popen(["xclip", "-selection", "primary", "-quiet"], stdin=subprocess.PIPE, env=e,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                assert held.stdin is not None
                held.stdin.write(b"The quick brown fox jumps over the lazy dog.")
                held.stdin.close()
                time.sleep(0.5)
                try:
                    for show in range(3):
                        xdo("key", "Escape")
                        wait(lambda: not xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.strip(), "hide")
                        before = log.read_text().count("selection attached")
                        client.post("/v1/popup", {})
                        wait(lambda b=before: log.read_text().count("selection attached") > b, f"attach on show {show + 1}")
                    owner = subprocess.run(["xclip", "-selection", "primary", "-o"], env=e, capture_output=True,
                                           text=True, timeout=10).stdout
                    shot("popup-selection.png", window)
                    print(f"the selection after the third show: {owner!r}")
                finally:
                    held.terminate()
        finally:
            daemon.stop()


if __name__ == "__main__":
    main()
