"""The daemon fires reminders: a real `assistant daemon run` process, a real session bus (dbus-daemon) and a
notification server on it (tests/fakes/notifications.py: org.freedesktop.Notifications, recording each Notify),
reminders set in words through `assistant ask`, listed and cancelled with `assistant reminders`, the daemon killed
with SIGKILL around a due time and started again."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env

from processes import Daemon, run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="no dbus-daemon: apt-get install dbus"),
]
FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture
def bus(tmp_path):
    """A private session bus, and a notification server on it; yields (address, the server's record)."""
    pytest.importorskip("desktop_notifier", reason="the notify extra is not installed: pip install '.[notify]'")
    address = f"unix:path={tmp_path / 'bus'}"
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", f"--address={address}", "--print-address"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    daemon.stdout.readline()  # it listens
    record = tmp_path / "notifications.jsonl"
    server = subprocess.Popen([sys.executable, str(FAKES / "notifications.py"), address, str(record)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert server.stdout.readline().strip() == "ready"
    yield address, record, server
    for proc in (server, daemon):
        proc.terminate()
        proc.wait(10)


def notified(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def env(home, fake, bus, gazetteer_index):
    address, _, _ = bus
    return cli_env(home, fake, ASSISTANT_GAZETTEER_INDEX=gazetteer_index, DBUS_SESSION_BUS_ADDRESS=address,
                   ASSISTANT_HOTKEY="")


def reminders(env) -> list[dict]:
    return json.loads(run(["reminders", "--json"], env).stdout)


def test_a_reminder_set_in_words_fires_on_time_as_a_notification(home, env, bus, fake):
    _, record, _ = bus
    d = Daemon(home, env).start()
    try:
        said = run(["ask", "remind me in 3 seconds to stretch your legs"], env)
        assert said.returncode == 0 and "stretch your legs" in said.stdout and "daemon start" not in said.stdout
        zh = run(["ask", "提醒我5秒后关火"], env)
        assert zh.returncode == 0 and "关火" in zh.stdout
        kept = reminders(env)
        assert [r["state"] for r in kept] == ["pending", "pending"] and kept[0]["due"].endswith(("+00:00", "Z"))
        assert wait_for(lambda: len(notified(record)) == 2, 15), d.log()
        shown = notified(record)
        assert [(n["summary"], n["body"]) for n in shown] == [("Reminder", "stretch your legs"), ("提醒", "关火")]
        due = {r["text"]: r["due"] for r in kept}
        from datetime import datetime

        late = shown[0]["at"] - datetime.fromisoformat(due["stretch your legs"]).timestamp()
        assert 0 <= late < 2.5  # within a second or two of its time, never early
        assert [r["state"] for r in reminders(env)][:2] == ["fired", "fired"]
        assert fake.requests == []  # read by rule: no model call
    finally:
        d.stop()


def test_a_timer_says_its_length_in_its_list_and_its_notification(home, env, bus):
    _, record, _ = bus
    d = Daemon(home, env).start()
    try:
        assert run(["ask", "set a timer for 2 seconds"], env).returncode == 0
        assert run(["ask", "设一个3秒的定时器"], env).returncode == 0
        listed = run(["reminders"], env).stdout
        assert "timer (2 seconds)" in listed and "timer (3 seconds)" in listed  # the command lists it in English
        assert sorted(r["span"] for r in reminders(env)) == [2, 3]  # in the order they fall due: either, on a busy machine
        assert wait_for(lambda: len(notified(record)) == 2, 15), d.log()
        assert sorted((n["summary"], n["body"]) for n in notified(record)) == [("Timer", "2 seconds are up"),
                                                                             ("计时结束", "3秒的计时到了")]
    finally:
        d.stop()


def test_killed_around_its_time_a_reminder_is_missed_once_never_lost_nor_twice(home, env, bus):
    _, record, _ = bus
    d = Daemon(home, env).start()
    run(["ask", "remind me in 2 seconds to water the plants"], env)
    run(["ask", "remind me in 1 hour to stretch"], env)
    d.stop(signal.SIGKILL)  # down before its time
    time.sleep(3)  # its time passes while the daemon is down
    d = Daemon(home, env).start()
    try:
        assert wait_for(lambda: len(notified(record)) == 1, 10), d.log()
        assert notified(record)[0]["summary"].startswith("Missed reminder") and \
            notified(record)[0]["body"] == "water the plants"
        states = {r["text"]: r["state"] for r in reminders(env)}
        assert states == {"water the plants": "missed", "stretch": "pending"}  # the other is kept, not fired
        d.stop(signal.SIGKILL)
        d = Daemon(home, env).start()
        time.sleep(2)
        assert len(notified(record)) == 1  # shown once, across restarts
    finally:
        d.stop()


def _serve_notifications(address: str, record: Path, *more: str) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, str(FAKES / "notifications.py"), address, str(record), *more],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert server.stdout.readline().strip() == "ready"
    return server


def test_without_a_notification_service_a_reminder_waits_is_said_and_is_shown_once_one_answers(home, env, bus):
    address, record, server = bus
    server.terminate()
    server.wait(10)
    env = {**env, "ASSISTANT_NOTIFY_RETRY": "1"}
    d = Daemon(home, env).start()
    try:
        run(["ask", "remind me in 1 second to breathe"], env)
        assert wait_for(lambda: reminders(env)[0]["state"] == "due", 10), d.log()  # claimed, never marked shown
        time.sleep(1.5)
        assert reminders(env)[0]["state"] == "due"
        assert d.proc.poll() is None and d.log().count("could not be shown as a desktop notification") == 1
        asked = run(["ask", "2+3"], env)  # the next command: its answer, then the reminder it could not show
        assert asked.stdout.strip().endswith("= 5")
        assert "1 reminder came due but could not be shown" in asked.stderr and "breathe" in asked.stderr
        assert "could not be shown" not in run(["ask", "2+4"], env).stderr  # said once
        doctor = run(["doctor"], env)
        assert "notifications" in doctor.stdout and "could not be shown" in doctor.stdout
        listed = run(["reminders"], env)
        assert "due: not shown yet" in listed.stdout and "not shown:" in listed.stdout and "every 1 s" in listed.stdout
        later = _serve_notifications(address, record)  # a notification service starts
        try:
            assert wait_for(lambda: reminders(env)[0]["state"] in ("fired", "missed"), 10), d.log()
            assert [n["body"] for n in notified(record)] == ["breathe"]
            assert wait_for(lambda: "could not be shown" not in run(["doctor"], env).stdout, 5)
        finally:
            later.terminate()
            later.wait(10)
    finally:
        d.stop()


def test_killed_while_the_notification_is_being_shown_it_is_shown_at_the_next_start_once(home, env, bus):
    """A notification service slow to answer; the daemon killed while it waits: the reminder was claimed, not
    shown; the next daemon shows it, as missed, and no third start shows it again."""
    address, record, server = bus
    server.terminate()
    server.wait(10)
    slow = _serve_notifications(address, record, "--slow", "30")
    d = Daemon(home, env).start()
    try:
        run(["ask", "remind me in 1 second to water the plants"], env)
        assert wait_for(lambda: reminders(env)[0]["state"] == "due", 10)
        time.sleep(0.5)  # the daemon waits on the service's answer
        d.stop(signal.SIGKILL)
    finally:
        slow.terminate()
        slow.wait(10)
    fresh = tmp_record = record.with_name("after.jsonl")
    quick = _serve_notifications(address, tmp_record)
    d = Daemon(home, env).start()
    try:
        assert wait_for(lambda: len(notified(fresh)) == 1, 10), d.log()
        assert notified(fresh)[0]["summary"].startswith("Missed reminder") and notified(fresh)[0]["body"] == "water the plants"
        assert wait_for(lambda: reminders(env)[0]["state"] == "missed", 5)
        d.stop(signal.SIGKILL)
        d = Daemon(home, env).start()
        time.sleep(2)
        assert len(notified(fresh)) == 1  # once, across restarts
    finally:
        d.stop()
        quick.terminate()
        quick.wait(10)


def test_reminders_lists_cancels_and_says_an_unknown_id_in_one_line(home, env):
    run(["ask", "remind me tomorrow at 9 to call the dentist"], env)
    run(["ask", "set a timer for 10 minutes"], env)
    listed = run(["reminders"], env)
    assert "call the dentist" in listed.stdout and "timer" in listed.stdout
    first = reminders(env)[0]
    assert set(first) >= {"id", "text", "due", "state"}
    cancelled = run(["reminders", "cancel", str(first["id"])], env)
    assert cancelled.returncode == 0 and f"cancelled #{first['id']}" in cancelled.stdout
    unknown = run(["reminders", "cancel", "999"], env)
    assert unknown.returncode != 0 and unknown.stderr.count("\n") == 1 and "no reminder #999" in unknown.stderr
    assert {r["state"] for r in reminders(env)} == {"pending", "cancelled"}
    by_words = run(["ask", "cancel the dentist one"], env)
    assert by_words.returncode in (0, 1)


def test_a_second_daemon_on_the_same_home_is_refused_and_stop_ends_the_one_that_runs(home, env):
    first = Daemon(home, env).start()
    try:
        second = subprocess.run([sys.executable, "-m", "assistant", "daemon", "run"], env=env, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode != 0 and "already running" in second.stderr and second.stderr.count("\n") <= 2
        assert "Traceback" not in second.stderr
        assert first.proc.poll() is None and first.client.get("/v1/health")["pid"] == first.proc.pid
        stopped = run(["daemon", "stop"], env)
        assert "stopped" in stopped.stdout
        first.proc.wait(15)
        assert run(["daemon", "status"], env).stdout.strip().startswith("not running") or \
            "not running" in run(["daemon", "status"], env).stdout
    finally:
        first.stop()


@pytest.mark.parametrize("plain", [False, True])
async def test_a_notification_has_the_apps_icon_and_text_as_the_server_reads_it(bus, monkeypatch, plain):
    address, record, server = bus
    if plain:  # a server without the body-markup capability shows a body as it is
        server.terminate()
        server.wait(10)
        server = _serve_notifications(address, record, "--plain")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    from assistant.icon import ICON
    from assistant.reminders import Notifier

    try:
        assert await Notifier().send("Reminder", "buy <milk> & eggs")
    finally:
        if plain:
            server.terminate()
            server.wait(10)
    (shown,) = notified(record)
    assert shown["body"] == ("buy <milk> & eggs" if plain else "buy &lt;milk&gt; &amp; eggs")
    assert shown["app"] == "assistant" and shown["icon"].endswith(str(ICON)) and ICON.is_file()


def test_snooze_on_a_notification_puts_the_reminder_off_ten_minutes(home, env, bus):
    address, record, server = bus
    server.terminate()
    server.wait(10)
    server = _serve_notifications(address, record, "--press", "Snooze 10 min|10分钟后再提醒")  # the user snoozes
    d = Daemon(home, env).start()
    try:
        assert run(["ask", "remind me in 2 seconds to stretch"], env).returncode == 0
        assert run(["ask", "提醒我3秒后关火"], env).returncode == 0
        assert wait_for(lambda: len(notified(record)) == 2, 15), d.log()
        shown = notified(record)
        assert sorted([t for t in n["actions"] if t] for n in shown) == [["10分钟后再提醒", "完成"], ["Snooze 10 min", "Done"]]
        assert wait_for(lambda: [r["state"] for r in reminders(env)] == ["pending", "pending"], 10), d.log()
        kept = reminders(env)  # pending again, ten minutes from the press, and nothing shown twice
        from datetime import datetime

        later = [datetime.fromisoformat(r["due"]).timestamp() - n["at"] for r, n in zip(kept, shown, strict=True)]
        assert all(590 <= s <= 610 for s in later), later
        assert "snoozed until" in d.log() and len(notified(record)) == 2
    finally:
        d.stop()
        server.terminate()
        server.wait(10)
