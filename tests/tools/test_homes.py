"""The workers' private folders (tools.jail.homes): made where the next process finds them, and removed by it when
the process that made them died without removing them; never made in a folder that is not the user's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def in_a_process(tmp: Path, code: str) -> subprocess.CompletedProcess:
    """``code`` run by a new interpreter whose temporary folder is ``tmp`` (its first home sweeps, as a new
    assistant process's does)."""
    return subprocess.run([sys.executable, "-c", "from tools.jail import new_home\n" + code], cwd=ROOT,
                          env={**os.environ, "TMPDIR": str(tmp)}, capture_output=True, text=True, timeout=60)


def homes(tmp: Path) -> set[str]:
    return {str(p.relative_to(tmp)) for p in tmp.glob("*/*")}


def test_a_dead_process_s_homes_go_with_the_next_process_s_first_home(tmp_path):
    killed = in_a_process(tmp_path, "import os, signal\nprint(new_home('tool'))\nprint(new_home('plugin'), flush=True)\n"
                                    "os.kill(os.getpid(), signal.SIGKILL)")
    assert killed.returncode == -9
    left = [Path(line) for line in killed.stdout.split()]
    assert len(left) == 2 and all(p.is_dir() and p.parent.parent == tmp_path for p in left)
    assert oct(left[0].parent.stat().st_mode & 0o777) == "0o700"
    (left[0].parent / "notes").mkdir()  # not a home: kept
    alive = subprocess.Popen([sys.executable, "-c", "from tools.jail import new_home\nimport sys, time\n"
                              "print(new_home('tool'), flush=True)\nsys.stdin.read()"], cwd=ROOT, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)}, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        theirs = Path(alive.stdout.readline().strip())
        assert not any(p.exists() for p in left), "the dead process's homes were not removed"
        mine = in_a_process(tmp_path, "print(new_home('tool'))")
        assert theirs.is_dir(), "a live process's home was removed"
        assert homes(tmp_path) == {str(theirs.relative_to(tmp_path)), mine.stdout.strip()[len(str(tmp_path)) + 1:],
                                   str((left[0].parent / "notes").relative_to(tmp_path))}
    finally:
        alive.communicate("", timeout=30)


@pytest.mark.parametrize("how", ["open to others", "a link"])
def test_a_folder_not_the_user_s_own_is_never_used(tmp_path, how):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    first = Path(in_a_process(tmp_path, "print(new_home('tool'))").stdout.strip())
    parent = first.parent
    first.rmdir()
    parent.rmdir()
    if how == "a link":
        parent.symlink_to(elsewhere)
    else:
        parent.mkdir(0o755)
        parent.chmod(0o755)
    made = Path(in_a_process(tmp_path, "print(new_home('tool'))").stdout.strip())
    assert made.parent == tmp_path and made.name.startswith("assistant-tool-") and made.is_dir()
    assert not any(elsewhere.iterdir())


def _homes_of_this_process() -> set[Path]:
    from tools.jail.homes import _parent

    parent = _parent()
    return set(Path(parent).glob(f"tool-{os.getpid()}-*")) if parent else set()


async def test_a_runner_closed_while_a_call_runs_and_a_worker_starts_leaves_no_folder_and_no_process(tmp_path):
    """The daemon stopping while it warms its workers, or while a call is answered: the worker started, the one still
    starting and their folders all go with the runner (a clean stop had left folders behind)."""
    import asyncio

    from sandbox_tools import Arg, Sleeper

    from tools.calculator import Calculator
    from tools.jail.runner import SandboxRunner

    before = _homes_of_this_process()
    runner = SandboxRunner(timeout=30, log=tmp_path / "tools.log")
    call = asyncio.create_task(runner.run(Sleeper(), Arg()))  # a call that is still running at the close
    warming = asyncio.create_task(runner.warm([Calculator()]))
    for _ in range(200):  # until the sleeper's worker answers its call and the calculator's is starting or started
        await asyncio.sleep(0.05)
        if runner._workers:
            break
    warming.cancel()
    await runner.aclose()
    assert await call is not None
    await asyncio.gather(warming, return_exceptions=True)
    assert _homes_of_this_process() - before == set()
    assert not runner._workers
