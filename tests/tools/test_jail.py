"""The kernel holds a tool: hostile tools (tests/fakes/escape_tools.py) first switch the Python tripwire off from inside,
then try every way out that worked before the jail: io_uring, Unix sockets (a path, and abstract), native code
opening files (sqlite3), reading the user's files and listing their home, writing outside the cache, a child
process that outlives the worker, the parent's secrets, a server on loopback. Each is refused by the kernel, the
refusal is a tool error with a sentence in the user's language, and nothing is left running."""

from __future__ import annotations

import os
import platform
import socket
import sqlite3
import sys
import threading

import pytest

from escape_tools import (
    AbstractSocket, Environment, Forker, IoUring, ListHome, Loopback, Metadata, ReadFile, Sqlite, Target, UnixSocket, WriteFile,
)

from tools.jail import landlock
from tools.jail.runner import SandboxRunner

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or landlock.abi() < 1,
                                reason="the kernel jail needs Linux with Landlock")


@pytest.fixture
async def runner(tmp_path):
    r = SandboxRunner(timeout=5, log=tmp_path / "tools.log")
    yield r
    await r.aclose()


def refused(result) -> bool:
    return (not result.ok and result.data is None and "not allowed" in (result.error or "")
            and result.message is not None and result.message.zh and result.message.en)


def _serve_unix(path: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()

    def answer() -> None:
        try:
            conn, _ = server.accept()
            conn.sendall(b"you reached me")
            conn.close()
        except OSError:
            pass

    threading.Thread(target=answer, daemon=True).start()
    return server


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the raw syscall numbers are x86-64's")
async def test_io_uring_is_refused_even_with_the_tripwire_off(runner):
    assert refused(await runner.run(IoUring(), Target()))


async def test_a_unix_socket_on_the_machine_is_unreachable(runner, tmp_path):
    path = str(tmp_path / "daemon.sock")  # stands for the daemon's socket, D-Bus, docker.sock
    server = _serve_unix(path)
    try:
        assert refused(await runner.run(UnixSocket(), Target(path=path)))
    finally:
        server.close()


async def test_an_abstract_unix_socket_is_unreachable(runner):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0assistant-test-abstract")
    server.listen()
    try:
        assert refused(await runner.run(AbstractSocket(), Target(path="assistant-test-abstract")))
    finally:
        server.close()


async def test_native_code_cannot_open_the_users_store_or_make_a_database_elsewhere(runner, tmp_path):
    store = tmp_path / "assistant.db"
    sqlite3.connect(store).execute("CREATE TABLE turns (question)").connection.commit()
    assert refused(await runner.run(Sqlite(), Target(path=str(store))))
    assert refused(await runner.run(Sqlite(), Target(path=str(tmp_path / "elsewhere.db"))))
    assert not (tmp_path / "elsewhere.db").exists()
    assert [r[0] for r in sqlite3.connect(store).execute("SELECT name FROM sqlite_master")] == ["turns"]


async def test_the_users_files_and_home_are_out_of_reach(runner, tmp_path, monkeypatch):
    secret = tmp_path / "notes.txt"
    secret.write_text("my private notes")
    monkeypatch.chdir(tmp_path)  # the working directory the assistant runs in is not the tool's
    assert refused(await runner.run(ReadFile(), Target(path=str(secret))))
    relative = await runner.run(ReadFile(), Target(path="notes.txt"))  # its own working directory is empty
    assert not relative.ok and "No such file" in relative.error
    assert refused(await runner.run(ListHome(), Target()))


async def test_nothing_is_written_outside_the_tools_own_folder(runner, tmp_path):
    target = tmp_path / "planted.txt"
    assert refused(await runner.run(WriteFile(), Target(path=str(target))))
    assert not target.exists()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the raw fork syscall is x86-64's")
async def test_no_metadata_changes_anywhere_even_on_files_it_may_read(runner, tmp_path):
    """chmod, fchmod (through a descriptor it may open), utime and setxattr: modes and times stay as they were."""
    from tools.jail import seccomp

    if not seccomp.allowlist_available():
        pytest.skip("the seccomp allow-list (libseccomp) is not available here")
    import tools

    victims = [tmp_path / "id_ed25519", tools.__file__]  # a private key; a file of the code it reads
    (tmp_path / "id_ed25519").write_text("key")
    os.chmod(tmp_path / "id_ed25519", 0o600)
    before = [(os.stat(v).st_mode, os.stat(v).st_mtime) for v in victims]
    for victim in victims:
        assert refused(await runner.run(Metadata(), Target(path=str(victim))))
    assert [(os.stat(v).st_mode, os.stat(v).st_mtime) for v in victims] == before


async def test_no_child_process_can_be_started(runner):
    result = await runner.run(Forker(), Target())
    assert refused(result)
    pids = [w.proc.pid for pool in runner._pools.values() for w in pool.idle]
    await runner.aclose()
    import time

    for pid in pids:  # the workers, their process groups and their PID namespaces are gone (once reaped)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"worker group {pid} still exists")


async def test_the_parents_secrets_are_not_visible(runner, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-never-reach-a-tool")
    monkeypatch.setenv("ASSISTANT_OPENAI_API_KEY", "sk-nor-this")
    result = await runner.run(Environment(), Target(path=str(os.getpid())))  # told where the assistant is
    assert refused(result) and "sk-" not in str(result)


async def test_a_tool_without_network_reaches_nothing_on_loopback(runner):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    try:
        assert refused(await runner.run(Loopback(), Target(path=f"127.0.0.1:{port}")))
    finally:
        server.close()


async def test_the_worker_reports_what_the_kernel_enforces(runner):
    await runner.run(ReadFile(), Target(path="/etc/hostname"))
    enforced = runner.enforced["read_file"]
    assert enforced["landlock"] and enforced["seccomp"] in ("allow-list", "deny-list")
    from tools.jail import namespaces

    assert enforced["pidns"] is namespaces.available()  # its own PID namespace: the whole tree dies with it


async def test_where_the_kernel_cannot_confine_third_party_tools_they_run_only_by_consent(tmp_path, monkeypatch):
    from tools.jail import enforced as jail_report
    from tools.calculator import Calculator, CalculatorArgs

    monkeypatch.setattr(jail_report, "report", lambda: jail_report.JailReport(0, False, False))  # an old kernel
    plugin = ReadFile()
    plugin.source = "plugin escape-tools"  # type: ignore[misc]
    strict = SandboxRunner(timeout=5)
    refused_here = await strict.run(plugin, Target(path="/etc/hostname"))
    assert not refused_here.ok and "allow_unconfined_tools" in refused_here.error and refused_here.message.zh
    builtin = await strict.run(Calculator(), CalculatorArgs(expression="6*7"))
    assert builtin.ok and builtin.data["value"] == "42"  # our own tools run with what the system has
    await strict.aclose()
    consent = SandboxRunner(timeout=5, allow_unconfined=True)
    ran = await consent.run(plugin, Target(path="/etc/hostname"))
    assert "allow_unconfined_tools" not in (ran.error or "")
    await consent.aclose()


def test_doctor_and_tools_say_what_the_kernel_enforces(home):
    import subprocess

    from conftest import cli_env

    env = cli_env(home)
    doctor = subprocess.run([sys.executable, "-m", "assistant", "doctor"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert "sandbox: files: Landlock ABI" in doctor.stdout and "syscalls: seccomp" in doctor.stdout
    tools = subprocess.run([sys.executable, "-m", "assistant", "tools"], env=env, capture_output=True, text=True,
                           timeout=120)
    assert "what the kernel enforces here:" in tools.stdout and "folders it may write:" in tools.stdout


def test_a_worker_starts_where_the_code_is_reached_through_an_import_finder_not_sys_path(tmp_path):
    """An editable install maps `tools` through an import finder, not a sys.path entry: the jail still lets the
    worker read its code (it could not start before), and stopping it leaves no reaping race behind."""
    import subprocess

    script = ("import asyncio, sys\n"
              "sys.path[:] = [p for p in sys.path if not p.endswith(('/tests', '/main')) and p not in ('', '.')]\n"
              "from tools.jail.runner import SandboxRunner\n"
              "from tools.calculator import Calculator, CalculatorArgs\n"
              "async def main():\n"
              "    r = SandboxRunner()\n"
              "    print(await r.run(Calculator(), CalculatorArgs(expression='6*7')))\n"
              "    await r.aclose()\n"
              "asyncio.run(main())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert "ok=True" in p.stdout and "'42'" in p.stdout, p.stdout + p.stderr
    assert "Unknown child process" not in p.stderr


def test_the_folder_a_process_was_launched_in_stays_off_a_workers_path_after_it_changes_folder(tmp_path):
    """``python -m`` put the launch folder on sys.path; a process that then changed folder once handed that folder
    on to its workers (and so its files to the jail's readable set). The launch folder is remembered at import."""
    import subprocess
    import sys

    launch = tmp_path / "launched-here"
    launch.mkdir()
    code = ("import os, sys; sys.path.insert(0, os.getcwd()); import tools; os.chdir('/'); "
            "from tools.jail.importpath import interpreter_path; "
            "print(any(os.path.realpath(p) == os.path.realpath(sys.argv[1]) for p in interpreter_path()))")
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code, str(launch)], cwd=launch, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
