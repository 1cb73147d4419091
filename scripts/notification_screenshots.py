"""A reminder's notification as a desktop user meets it, for docs/daemon.md, and its Snooze pressed: under Xvfb, a
real session bus (dbus-daemon), a notification server on it that draws each notification as a desktop's server does
(tests/fakes/notifications.py --show: a bubble with the icon, summary, body and buttons it was sent), a real daemon
that fires the reminder, and the click on "Snooze 10 min" made with xdotool.

    python scripts/notification_screenshots.py [--out docs/images]

1. notification-reminder.png: the English reminder, with the app's icon and its two buttons;
2. notification-timer-zh.png: a Chinese timer, its length in the body;
then prints what `assistant reminders` lists after the click: the reminder pending again, ten minutes on.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT
from fake_ollama import FakeOllama, Script
from processes import Daemon, virtual_screen

FAKES = ROOT / "tests" / "fakes"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "images"), help="where the PNG files go")
    args = ap.parse_args()
    for tool in ("Xvfb", "xdotool", "import", "dbus-daemon"):
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool} (apt-get install xvfb xdotool imagemagick dbus)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_", "DBUS_"))}
    with FakeOllama(Script()) as fake, tempfile.TemporaryDirectory() as tmp, \
            virtual_screen(range(260, 300), window_manager=True) as screen:
        home = Path(tmp)
        address = f"unix:path={home / 'bus'}"
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", f"--address={address}", "--print-address"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert bus.stdout is not None
        bus.stdout.readline()
        e = {**env, "DISPLAY": screen, "ASSISTANT_HOME": str(home / "state"), "OLLAMA_HOST": fake.url,
             "ASSISTANT_BACKEND": "ollama", "ASSISTANT_HOTKEY": "", "DBUS_SESSION_BUS_ADDRESS": address}
        server = subprocess.Popen([sys.executable, str(FAKES / "notifications.py"), address,
                                   str(home / "notifications.jsonl"), "--show"], env=e, stdout=subprocess.PIPE,
                                  text=True)
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        daemon = Daemon(home / "state", e).start()

        def ask(question: str) -> str:
            p = subprocess.run([sys.executable, "-m", "assistant", "ask", question], env=e, capture_output=True,
                               text=True, timeout=60)
            return p.stdout.strip()

        def shown() -> dict:
            line = server.stdout.readline()  # type: ignore[union-attr]
            return json.loads(line)

        def shot(name: str, bubble: dict) -> None:
            time.sleep(0.4)
            xs = [p[0] for p in bubble["buttons"].values()]
            top = max(0, min(p[1] for p in bubble["buttons"].values()) - 110)
            left = max(0, min(xs) - 120)
            subprocess.run(["import", "-window", "root", "-crop", f"{1280 - left}x170+{left}+{top}",
                            str(out / name)], env=e, check=True)
            print(f"{name}: written")

        try:
            print("ask:", ask("remind me in 2 seconds to call the plumber about the leak"))
            reminder = shown()
            shot("notification-reminder.png", reminder)
            x, y = reminder["buttons"]["Snooze 10 min"]
            subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], env=e, check=True)
            time.sleep(1.5)
            listed = subprocess.run([sys.executable, "-m", "assistant", "reminders"], env=e, capture_output=True,
                                    text=True).stdout
            print("after Snooze, assistant reminders:\n" + listed)
            print("ask:", ask("设一个3秒的定时器"))
            timer = shown()
            shot("notification-timer-zh.png", timer)
        finally:
            daemon.stop()
            for proc in (server, bus):
                proc.terminate()
                proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
