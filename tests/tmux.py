"""Drive a program in a real terminal: tmux with send-keys and capture-pane, on a private server socket."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid


class Terminal:
    def __init__(self, command: list[str], env: dict[str, str], width: int = 120, height: int = 40) -> None:
        self.socket = f"assistant-test-{uuid.uuid4().hex[:8]}"
        env_args = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        line = f"env -i {env_args} {shlex.join(command)}; echo '[exited]'; sleep 30"
        self._tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), line)

    @staticmethod
    def available() -> bool:
        return shutil.which("tmux") is not None

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True).stdout

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", text)
        self.send("Enter")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-t", "t", "-p", "-J", "-S", "-500")

    def rows(self) -> list[str]:
        """The screen's rows as the terminal shows them (a long line folded by the terminal is several rows)."""
        return self._tmux("capture-pane", "-t", "t", "-p", "-S", "-500").splitlines()

    def wait_for(self, text: str, timeout: float = 20, after: int = 0) -> str:
        """Wait until ``text`` appears on screen (past the first ``after`` occurrences); return the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if screen.count(text) > after:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear; the screen was:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
