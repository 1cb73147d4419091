"""Reminders as the daemon keeps them: how late they fire, what a day of pending ones costs an idle daemon, and
how many wordings the rules read.

    python scripts/bench_reminders.py [--idle SECONDS]

1. Lateness: a real `assistant daemon run`, with a private session bus and the tests' notification server when
   dbus-daemon is here (the notification's own time is read), 50 reminders set in one go by another process,
   due one every 0.2 s from 3 s on; how late each was claimed and shown (median and worst).
2. Idle cost: the same daemon with no reminder pending, then with 1,000 (the most kept), each over ``--idle``
   seconds (default 30): CPU seconds it used and its resident memory.
3. Reading: the corpus below, English and Chinese, each wording read by rule (scripts/eval_requests.py reads the
   other tools' requests): how many are read whole (action, time due from a fixed clock, what it is about).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from _common import ROOT, machine

from tools.reminders.book import Book
from tools.reading import request
from tools.reminders.due import due
from tools.reminders.reading import read

TZ = timezone(timedelta(hours=8))
NOW = datetime(2026, 11, 26, 14, 5, tzinfo=TZ)  # a Thursday, 14:05
M = timedelta(minutes=1)
# (wording, due from NOW, what it is about): written as people ask, beyond the tests' own examples
CORPUS_EN = [
    ("set a timer for 5 minutes", NOW + 5 * M, ""), ("start a 3 minute timer", NOW + 3 * M, ""),
    ("timer for 45 seconds", NOW + timedelta(seconds=45), ""), ("10 minute timer please", NOW + 10 * M, ""),
    ("set a timer for half an hour", NOW + 30 * M, ""), ("set a 20-minute timer for the rice", NOW + 20 * M, "rice"),
    ("remind me in 15 minutes to take the laundry out", NOW + 15 * M, "take the laundry out"),
    ("remind me to call Sam in 2 hours", NOW + 120 * M, "call Sam"), ("remind me at 6pm to water the plants",
                                                                      NOW.replace(hour=18, minute=0), "water the plants"),
    ("remind me tomorrow at 8am to renew my passport", NOW.replace(day=27, hour=8, minute=0), "renew my passport"),
    ("remind me on Friday at 10 to submit the timesheet", NOW.replace(day=27, hour=10, minute=0), "submit the timesheet"),
    ("wake me up at 6:30 tomorrow", NOW.replace(day=27, hour=6, minute=30), ""),
    ("set an alarm for 7:15 am", NOW.replace(day=27, hour=7, minute=15), ""),
    ("set a reminder for 5 pm to leave for the airport", NOW.replace(hour=17, minute=0), "leave for the airport"),
    ("remind me in an hour to check the oven", NOW + 60 * M, "check the oven"),
    ("remind me in 90 minutes about the meeting", NOW + 90 * M, "the meeting"),
    ("ping me in 20 minutes", NOW + 20 * M, ""), ("remind me tonight at 9 to take my pills", NOW.replace(hour=21, minute=0),
                                                  "take my pills"),
    ("remind me at noon to eat lunch", NOW.replace(day=27, hour=12, minute=0), "eat lunch"),
    ("remind me in 1 hour and 15 minutes to move the car", NOW + 75 * M, "move the car"),
]
CORPUS_ZH = [
    ("设一个5分钟的定时器", NOW + 5 * M, ""), ("定个3分钟的计时器", NOW + 3 * M, ""), ("倒计时十分钟", NOW + 10 * M, ""),
    ("提醒我十五分钟后收衣服", NOW + 15 * M, "收衣服"), ("两小时后提醒我给妈妈打电话", NOW + 120 * M, "给妈妈打电话"),
    ("明天早上7点叫醒我", NOW.replace(day=27, hour=7, minute=0), ""), ("下午6点提醒我浇花", NOW.replace(hour=18, minute=0), "浇花"),
    ("提醒我明天上午9点去银行", NOW.replace(day=27, hour=9, minute=0), "去银行"),
    ("周五下午三点提醒我交周报", NOW.replace(day=27, hour=15, minute=0), "交周报"),
    ("今晚8点提醒我看球赛", NOW.replace(hour=20, minute=0), "看球赛"), ("半小时后提醒我关火", NOW + 30 * M, "关火"),
    ("一个小时后提醒我吃药", NOW + 60 * M, "吃药"), ("提醒我四十分钟后出门", NOW + 40 * M, "出门"),
    ("设个明天早上6点半的闹钟", NOW.replace(day=27, hour=6, minute=30), ""),
    ("过十分钟提醒我看一下锅", NOW + 10 * M, "看一下锅"), ("下周一上午10点提醒我开会", NOW.replace(day=30, hour=10, minute=0), "开会"),
    ("提醒我晚上9点半收快递", NOW.replace(hour=21, minute=30), "收快递"), ("1个半小时后提醒我喝水", NOW + 90 * M, "喝水"),
    ("提醒我中午12点吃饭", NOW.replace(day=27, hour=12, minute=0), "吃饭"), ("20分钟后叫我", NOW + 20 * M, ""),
]

# Written after the corpus above was read and its misses mended, and never tuned on.
HELD_EN = [
    ("could you set a timer for 8 minutes?", NOW + 8 * M, ""), ("remind me in thirty minutes to stretch", NOW + 30 * M,
                                                                 "stretch"),
    ("set a reminder to book the dentist for tomorrow at 11", NOW.replace(day=27, hour=11, minute=0), "book the dentist"),
    ("remind me at 7:45 pm to call grandma", NOW.replace(hour=19, minute=45), "call grandma"),
    ("start a countdown for 2 minutes", NOW + 2 * M, ""), ("remind me in 3 hours to check the bread", NOW + 180 * M,
                                                           "check the bread"),
    ("please remind me at 5 to pick up the kids", NOW.replace(hour=17, minute=0), "pick up the kids"),
    ("remind me this evening to reply to Anna", NOW.replace(hour=19, minute=0), "reply to Anna"),
    ("set a timer for 1 hour", NOW + 60 * M, ""), ("remind me in 45 seconds", NOW + timedelta(seconds=45), ""),
    ("remind me on Monday at 9 to pay rent", NOW.replace(day=30, hour=9, minute=0), "pay rent"),
    ("hey, remind me to feed the cat in 10 minutes", NOW + 10 * M, "feed the cat"),
]
HELD_ZH = [
    ("帮我设一个25分钟的倒计时", NOW + 25 * M, ""), ("三分钟后提醒我", NOW + 3 * M, ""), ("提醒我晚上十点睡觉", NOW.replace(hour=22, minute=0), "睡觉"),
    ("明天下午两点提醒我取快递", NOW.replace(day=27, hour=14, minute=0), "取快递"), ("请在一小时后提醒我开会", NOW + 60 * M, "开会"),
    ("提醒我五分钟后关灯", NOW + 5 * M, "关灯"), ("麻烦提醒我下午5点给客户回电话", NOW.replace(hour=17, minute=0), "给客户回电话"),
    ("后天早上8点叫我", NOW.replace(day=28, hour=8, minute=0), ""), ("定一个明早7点的闹钟", NOW.replace(day=27, hour=7, minute=0), ""),
    ("提醒我周六上午10点去健身", NOW.replace(day=28, hour=10, minute=0), "去健身"), ("十分钟以后提醒我看锅", NOW + 10 * M, "看锅"),
    ("两个半小时后提醒我拿衣服", NOW + 150 * M, "拿衣服"),
]


def reading() -> dict[str, tuple[int, int, list[str]]]:
    out = {}
    for lang, corpus in (("en", CORPUS_EN), ("zh", CORPUS_ZH), ("en, held out", HELD_EN), ("zh, held out", HELD_ZH)):
        missed = []
        for words, at, text in corpus:
            r = read(request.read(words).core)  # as the router hands it to the tool: its wrapper set aside
            if not (r and r.action == "set" and due(r.when, NOW).at == at and r.text == text):
                missed.append(f"{words} -> {r}")
        out[lang] = (len(corpus) - len(missed), len(corpus), missed)
    return out


def _cpu_and_rss(pid: int) -> tuple[float, int]:
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS"))
    return (int(stat[11]) + int(stat[12])) / ticks, rss * 1024


def _start_daemon(env: dict[str, str], home: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "daemon", "run"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (home / "data" / "run" / "daemon.json").exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("the daemon did not start")
        time.sleep(0.05)
    time.sleep(2)  # settled (warm-up done)
    return proc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--idle", type=float, default=30.0, help="seconds each idle measurement lasts")
    a = ap.parse_args()
    m = machine()
    print(f"bench_reminders · {m['cores']} cores · Python {m['python']} · {m['platform']}", flush=True)
    words = reading()
    for lang, (ok, n, missed) in words.items():
        print(f"read by rule ({lang}): {ok}/{n} wordings whole (action, time, what)")
        for line in missed:
            print("   missed:", line)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "OLLAMA_"))}
        env.update(ASSISTANT_HOME=str(home), ASSISTANT_BACKEND="ollama", OLLAMA_HOST="127.0.0.1:9", ASSISTANT_HOTKEY="")
        procs: list[subprocess.Popen] = []
        record = Path(tmp) / "notifications.jsonl"
        if shutil.which("dbus-daemon"):
            address = f"unix:path={tmp}/bus"
            bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", f"--address={address}", "--print-address"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            bus.stdout.readline()  # type: ignore[union-attr]
            server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakes" / "notifications.py"), address,
                                       str(record)], stdout=subprocess.PIPE, text=True)
            server.stdout.readline()  # type: ignore[union-attr]
            procs += [server, bus]
            env["DBUS_SESSION_BUS_ADDRESS"] = address
        daemon = _start_daemon(env, home)
        try:
            book = Book(home / "data" / "assistant.db")
            now = datetime.now(timezone.utc)
            dues = [now + timedelta(seconds=3 + 0.2 * i) for i in range(50)]
            for i, at in enumerate(dues):
                book.add("reminder", f"bench {i}", at, "en", now)
            deadline = time.monotonic() + 30
            while book.listed() and time.monotonic() < deadline:
                time.sleep(0.2)
            fired = [r for r in book.recent(100) if r.text.startswith("bench")]
            claimed = sorted((r.fired_at - r.due).total_seconds() for r in fired if r.fired_at)
            print(f"lateness, claimed in the store, 50 reminders: median {statistics.median(claimed) * 1000:.0f} ms, "
                  f"worst {max(claimed) * 1000:.0f} ms, early {sum(x < 0 for x in claimed)}")
            if record.exists():
                time.sleep(1)
                shown = {n["body"]: n["at"] for n in map(json.loads, record.read_text().splitlines())}
                late = sorted(shown[r.text] - r.due.timestamp() for r in fired if r.text in shown)
                print(f"lateness, shown by the notification server ({len(late)} of 50): median "
                      f"{statistics.median(late) * 1000:.0f} ms, worst {max(late) * 1000:.0f} ms")
            for label, pending in (("none pending", 0), ("1,000 pending", 1000)):
                for r in book.listed():
                    book.cancel([r.id])
                far = datetime.now(timezone.utc) + timedelta(days=30)
                for i in range(pending):
                    book.add("reminder", f"idle {i}", far + timedelta(minutes=i), "en", datetime.now(timezone.utc))
                time.sleep(2)
                cpu0, _ = _cpu_and_rss(daemon.pid)
                time.sleep(a.idle)
                cpu1, rss = _cpu_and_rss(daemon.pid)
                print(f"idle daemon, {label}: {cpu1 - cpu0:.3f} CPU-s over {a.idle:.0f} s "
                      f"({(cpu1 - cpu0) / a.idle * 100:.2f}% of a core), resident memory {rss / 2**20:.0f} MB")
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(15)
            for p in procs:
                p.terminate()
                p.wait(10)


if __name__ == "__main__":
    main()
