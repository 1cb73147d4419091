"""The first weather question in a new home, against the second (issue 63, item 6): in the chat, which builds the
place index in the background as it starts, while you type; and in `ask`, whose first weather question builds it.

    python scripts/bench_first_weather.py [--typing SECONDS] [--runs N]

Each run makes a new home (no place index), starts the fake Ollama and the fake Open-Meteo on loopback, and times
from the question sent to its answer on screen (the chat, in tmux) or to the process's end (`ask`), for a first and
a second weather question (two places). ``--typing``: the seconds between the chat's prompt and the first question,
as a person types it (default 8). Target: first / second <= 1.5. Needs tmux for the chat.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine

from conftest import cli_env
from fake_ollama import FakeOllama, Script
from fake_open_meteo import FakeOpenMeteo
from tmux import Terminal

FIRST, SECOND = "what's the weather in Paris?", "what's the weather in Berlin?"


def env_for(home: Path, fake: FakeOllama, meteo: FakeOpenMeteo) -> dict[str, str]:
    return cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL=meteo.url, ASSISTANT_WEATHER_GEOCODING_URL=meteo.url,
                   ASSISTANT_RENDERED_ANSWERS="true", TERM="xterm-256color", PATH=os.environ.get("PATH", ""),
                   HOME=str(home))


def in_chat(home: Path, fake: FakeOllama, meteo: FakeOpenMeteo, typing: float) -> tuple[float, float]:
    term = Terminal([sys.executable, "-m", "assistant", "chat"], env_for(home, fake, meteo), width=200)
    try:
        term.wait_for("· /help", timeout=60)
        time.sleep(typing)
        times = []
        for question, place in ((FIRST, "Paris"), (SECOND, "Berlin")):
            t0 = time.perf_counter()
            term.type(question)
            term.wait_for(f"{place}: ", timeout=120)
            times.append(time.perf_counter() - t0)
        return times[0], times[1]
    finally:
        term.close()


def in_ask(home: Path, fake: FakeOllama, meteo: FakeOpenMeteo) -> tuple[float, float]:
    times = []
    for question in (FIRST, SECOND):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "assistant", "ask", question], env=env_for(home, fake, meteo),
                       capture_output=True, timeout=300, check=True)
        times.append(time.perf_counter() - t0)
    return times[0], times[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--typing", type=float, default=8.0, help="seconds before the chat's first question (default 8)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--front", choices=("chat", "ask"), action="append", help="only this front end (repeatable)")
    args = ap.parse_args()
    fake, meteo = FakeOllama().start(), FakeOpenMeteo().start()
    fake.handler = Script().always("responder", "ok")
    print(f"machine: {machine()}; typing {args.typing:g} s in the chat; {args.runs} runs each")
    try:
        for name, run in (("chat", lambda h: in_chat(h, fake, meteo, args.typing)),
                          ("ask", lambda h: in_ask(h, fake, meteo))):
            if args.front and name not in args.front:
                continue
            if name == "chat" and not Terminal.available():
                print("chat: skipped (tmux is not installed)")
                continue
            pairs = []
            for _ in range(args.runs):
                with tempfile.TemporaryDirectory() as home:
                    pairs.append(run(Path(home)))
            first = statistics.median(p[0] for p in pairs)
            second = statistics.median(p[1] for p in pairs)
            print(f"{name:5} first weather question {first:5.2f} s, second {second:5.2f} s: "
                  f"{first / second:.2f}x (target <= 1.5)")
    finally:
        fake.stop()
        meteo.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
