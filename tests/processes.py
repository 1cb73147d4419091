"""Whole processes as the tests start them: an `assistant` command, a pseudo-terminal's output, a daemon."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

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


@contextlib.contextmanager
def virtual_screen(numbers: range, size: str = "1280x800x24", window_manager: bool = False) -> Iterator[str]:
    """A virtual screen (Xvfb) on the first display number of ``numbers`` that is free, and with openbox as its
    window manager when asked for and installed: its ``DISPLAY``, while the block runs (each caller its own range,
    so that tests on other cores never pick the same number)."""
    number = next(n for n in numbers if not Path(f"/tmp/.X11-unix/X{n}").exists())
    procs = [subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", size, "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if time.monotonic() > deadline:
                raise RuntimeError("Xvfb did not start")
            time.sleep(0.05)
        _until_open(f":{number}", deadline)
        if window_manager and shutil.which("openbox"):
            procs.append(subprocess.Popen(["openbox"], env={**os.environ, "DISPLAY": f":{number}"},
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        yield f":{number}"
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(15)


def _until_open(display: str, deadline: float) -> None:
    """Wait until a client can open ``display``: the socket exists before the server answers, and a client that
    comes too early (xclip taking the selection, under load) fails instead of waiting."""
    probe = next((cmd for cmd in (["xdpyinfo"], ["xprop", "-root"]) if shutil.which(cmd[0])), None)
    if probe is None:
        return
    env = {**os.environ, "DISPLAY": display}
    while subprocess.run(probe, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"Xvfb on {display} does not answer")
        time.sleep(0.05)


def start_engine_server(log: Path, key: str, threads: int = 1) -> tuple[subprocess.Popen, str]:
    """The embedded engine's own OpenAI-compatible server (llama.cpp, SmolLM2) on a free loopback port: (process,
    base URL ending in /v1)."""
    proc = subprocess.Popen([sys.executable, "-m", "assistant.models.engine_server", "--threads", str(threads),
                             "--api-key", key], stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    lines = [proc.stdout.readline().strip() for _ in range(2)]  # type: ignore[union-attr]
    if not all("=" in line for line in lines):
        proc.kill()
        raise RuntimeError(f"the engine server did not start: {log.read_text()[-2000:]}")
    return proc, lines[0].split("=", 1)[1]


def stop_process(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def litellm_command() -> str | None:
    """LiteLLM's proxy, installed apart from the project (.ci/run puts it in its own environment): the path in
    ASSISTANT_TEST_LITELLM, or ``litellm`` on PATH."""
    return os.environ.get("ASSISTANT_TEST_LITELLM") or shutil.which("litellm")


class LiteLLMProxy:
    """LiteLLM's proxy over ``upstreams`` (OpenAI-compatible base URLs serving ``model``), on a free loopback
    port, offline (its cost map from its own package, no telemetry): ``url`` is its OpenAI-compatible base URL."""

    def __init__(self, command: str, upstreams: list[str], model: str, upstream_key: str, folder: Path,
                 master_key: str = "sk-gateway") -> None:
        import json
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.master_key = master_key
        config = {  # JSON is YAML: LiteLLM reads it as its config file
            "model_list": [{"model_name": model, "litellm_params": {"model": f"openai/{model}", "api_base": u,
                                                                     "api_key": upstream_key}} for u in upstreams],
            "router_settings": {"routing_strategy": "simple-shuffle", "num_retries": 3, "allowed_fails": 1,
                                "cooldown_time": 60, "retry_after": 0},
            "litellm_settings": {"drop_params": True, "request_timeout": 120},
            "general_settings": {"master_key": master_key},
        }
        self.config = folder / "litellm.yaml"
        self.config.write_text(json.dumps(config, indent=2))
        self.log = folder / "litellm.log"
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
               "NO_PROXY": "127.0.0.1,localhost"}
        self.proc = subprocess.Popen([command, "--config", str(self.config), "--host", "127.0.0.1", "--port",
                                      str(self.port)], stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=env)
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def wait(self, timeout: float = 90) -> "LiteLLMProxy":
        import urllib.request

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"LiteLLM's proxy exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health/liveliness", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"LiteLLM's proxy did not come up: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        stop_process(self.proc)


def as_at_a_terminal() -> None:
    """``preexec_fn`` for a process a test sends Ctrl-C (SIGINT): the default action restored, as a shell gives a
    command run at a terminal (a test run started in the background inherits SIGINT ignored, and Python then never
    raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
