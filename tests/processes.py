"""Whole processes as the tests start them: an `assistant` command, a pseudo-terminal's output, a daemon."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from assistant.frontends.client import Client, connect


def run(args: list[str], env: dict[str, str], stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """A whole process; with no ``stdin`` text, its standard input is /dev/null (as from a terminal-less script)."""
    feed: dict = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True,
                          text=True, timeout=60, cwd=cwd, **feed)


def read_all(fd: int) -> bytes:
    """Everything a pseudo-terminal's other end wrote, until it closed."""
    screen = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    return screen


def ask_on_terminal(args: list[str], env: dict[str, str], on: str = "stdout") -> tuple[subprocess.CompletedProcess, str]:
    """``assistant ask ARGS`` with its stdout (or its stderr) on a pseudo-terminal and the other stream piped: the
    process, and all the terminal showed."""
    import pty

    main, child = pty.openpty()
    streams = {"stdout": child, "stderr": subprocess.PIPE} if on == "stdout" else {"stdout": subprocess.PIPE, "stderr": child}
    try:
        p = subprocess.run([sys.executable, "-m", "assistant", "ask", *args], env=env, text=True, timeout=60, **streams)
        os.close(child)
        return p, read_all(main).decode()
    finally:
        os.close(main)


class Daemon:
    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.home, self.env = home, env
        self.run_dir = home / "data" / "run"
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Daemon":
        self.proc = subprocess.Popen([sys.executable, "-m", "assistant", "daemon", "run"], env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if connect(self.run_dir) is not None:
                return self
            assert self.proc.poll() is None, self.log()
            time.sleep(0.05)
        raise AssertionError("the daemon did not come up: " + self.log())

    def log(self) -> str:
        path = self.home / "log" / "daemon.log"
        return path.read_text() if path.exists() else ""

    @property
    def client(self) -> Client:
        return Client(self.run_dir)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(15)
