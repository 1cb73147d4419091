"""Our own pure tools' workers forked from a zygote (tools/jail/zygote.py): the same jail as a worker started as a new
interpreter, a dead worker replaced, nothing left running, and a gone zygote costing nothing but speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the zygote forks on Linux only")


@pytest.fixture(scope="module")
def probe() -> dict:
    # A process of its own: pytest's workers run threads, and a zygote is forked only by a process that runs none
    # (as `assistant ask` and `assistant chat` are when they fork theirs).
    env = {**os.environ, "OPENAI_API_KEY": "sk-probe-secret"}
    run = subprocess.run([sys.executable, str(Path(__file__).with_name("zygote_probe.py")), "--gone"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_a_forked_worker_answers_under_the_same_jail_as_a_new_interpreter(probe):
    assert probe["zygote"] and probe["worker_parent_is_zygote"]
    assert probe["answer"] == {"expression": "2^10", "value": "1024"}
    forked, started = probe["enforced"], probe["enforced_exec"]
    assert forked["seccomp"] == started["seccomp"] and forked["netns"] == started["netns"]
    assert forked["pidns"] == started["pidns"]
    assert [line for line in forked["landlock"] if not line.startswith("files:")] == \
        [line for line in started["landlock"] if not line.startswith("files:")]
    assert ("write 0" in forked["landlock"][0]) == ("write 0" in started["landlock"][0])


def test_the_environment_the_assistant_started_with_is_not_in_the_zygote(probe):
    assert probe["zygote_environ_has_secret"] is False  # /proc/self/environ of the zygote and of what it forks


def test_only_our_own_tools_that_reach_no_network_are_forked(probe):
    assert probe["eligible"] == {"calculator": True, "weather": False}


def test_a_killed_forked_worker_is_one_tool_error_and_is_replaced(probe):
    assert probe["after_kill_ok"] is False and probe["after_kill"]
    assert probe["replaced"] == {"expression": "3*3", "value": "9"}


def test_nothing_is_left_running_when_the_runner_closes(probe):
    assert probe["left"] == []  # the zygote reaped, its workers with it


def test_without_its_zygote_a_worker_starts_as_a_new_interpreter(probe):
    assert probe["gone"] == {"answer": {"expression": "6*7", "value": "42"}, "fell_back": True}


def test_a_process_that_runs_threads_forks_no_zygote():
    code = ("import threading, time; threading.Thread(target=time.sleep, args=(2,), daemon=True).start(); "
            "from tools.jail.zygote import Zygote; print(Zygote.start() is None)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "True", run.stderr
