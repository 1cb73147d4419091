"""The background daemon: the pipeline kept warm behind a local API, a global hotkey that opens the
popup, and the commands that start, stop, inspect and install it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Protocol

from aiohttp import web

from assistant.envnames import setting_env, setting_var
from assistant.frontends.client import ENDPOINT_FILE, TOKEN_FILE, connect
from assistant.config import ROLES, Settings
from assistant.config_load import load_settings
from assistant.errors import AssistantError
from assistant.models.select import SelectedBackend
from assistant.paths import HOME_ENV, Paths
from assistant.frontends.doorman import KEEPALIVE_SECONDS, listen
from assistant.frontends.server import DaemonState, PopupUnavailable, build_api

PID_FILE = "daemon.pid"
log = logging.getLogger("assistant.daemon")


def socket_path(paths: Paths) -> Path:
    path = paths.run_dir / "daemon.sock"
    if len(str(path)) > 100:  # AF_UNIX paths are limited to ~107 bytes
        digest = hashlib.sha256(str(paths.data_dir).encode()).hexdigest()[:10]
        path = Path(tempfile.gettempdir()) / f"assistant-{os.getuid()}-{digest}.sock"
    return path


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def pynput_spec(combo: str) -> str:
    """``ctrl+alt+space`` → ``<ctrl>+<alt>+<space>`` (pynput's notation)."""
    return "+".join(k if len(k) == 1 else f"<{k}>" for k in combo.lower().replace(" ", "").split("+"))


class Listener(Protocol):
    """A global hotkey's listener (pynput's)."""

    def stop(self) -> None: ...


def start_hotkey(combo: str, on_press: Callable[[], object]) -> tuple[Listener | None, str]:
    """Grab the global hotkey where the platform allows; the status says why not otherwise."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        where = "Wayland session" if os.environ.get("WAYLAND_DISPLAY") else "no graphical session"
        return None, f"inactive: no X11 display to grab keys on ({where}); bind a desktop shortcut to `assistant popup`"
    try:
        from pynput import keyboard
    except ImportError:
        return None, "inactive: pynput is not installed: pip install 'assistant[hotkey]' (in a checkout: pip install '.[hotkey]')"
    try:
        listener = keyboard.GlobalHotKeys({pynput_spec(combo): on_press})
        listener.start()
    except Exception as e:  # a bad combination, no X server access, …
        return None, f"inactive: {type(e).__name__}: {e}"
    return listener, f"active ({combo})"


POPUP_SESSION_FILE = "popup-session"  # in the data folder: the popup's session, across daemon restarts


def _said_since(log_file: Path, start: int) -> list[str]:
    """The lines the popup wrote to its log since ``start`` (an offset): "ready" once its window is up, or why it
    could not start."""
    try:
        with open(log_file, "rb") as f:
            f.seek(start)
            return [line.strip() for line in f.read().decode(errors="replace").splitlines() if line.strip()]
    except OSError:
        return []


async def _until_said(proc: subprocess.Popen, log_file: Path, start: int, line: str, tries: int) -> None:
    """Wait, ``tries`` times 20 ms at most, until the popup ``proc`` has written ``line`` to its log since ``start``,
    or has ended."""
    for _ in range(tries):
        if proc.poll() is not None or line in _said_since(log_file, start):
            return
        await asyncio.sleep(0.02)


def display_problem() -> str | None:
    """Why no window can appear for this daemon, or None (macOS and Windows always have their desktop)."""
    if sys.platform.startswith(("darwin", "win")) or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("no desktop to show it on: the daemon has neither DISPLAY nor WAYLAND_DISPLAY (start it from your "
            "desktop session, or give its service those variables)")


class Serving:
    """What ``assistant daemon run`` keeps while it serves: the pipeline that answers (built again when config.toml
    changes or a model is pulled; the old one finishes its turns), how a client's settings are read, the popup's
    process, and the warm-up. The API (:mod:`assistant.frontends.server`) reaches these through ``state``."""

    def __init__(self, settings: Settings, paths: Paths) -> None:
        from assistant.app import build_assistant

        self.settings, self.paths = settings, paths
        self.state = DaemonState()
        self.state.assistant = build_assistant(settings, paths, notify=self.state.note, prepare_places=True)
        self.own_env = dict(os.environ)
        self.stamp = _config_stamp(paths)
        self.popup: subprocess.Popen | None = None
        self.readying: tuple[Path, int] | None = None  # the popup started hidden, until it said it is ready
        self.state.settings_for, self.state.refresh, self.state.open_popup = \
            self.settings_for, self.refresh, self.open_popup

    def settings_for(self, env: dict[str, str]) -> Settings:
        """A client's settings: config.toml as it is now, with the client's OLLAMA_HOST and ASSISTANT_* variables."""
        return load_settings(self.paths, env={**{k: v for k, v in self.own_env.items() if not setting_var(k)}, **env})

    async def reload(self, reason: str) -> None:
        """Take config.toml as it is now: a new pipeline answers from here on; the old one closes after its turns."""
        from assistant.app import build_assistant

        self.stamp = _config_stamp(self.paths)
        try:
            fresh = load_settings(self.paths, env=self.own_env)
        except AssistantError as e:
            log.error("settings not reloaded (%s): %s", reason, e.one_line())
            return
        old = self.state.assistant
        if old is None or fresh == old.settings and reason != "a model was pulled":
            log.info("settings unchanged (%s): nothing to reload", reason)
            return
        self.state.assistant = build_assistant(fresh, self.paths, notify=self.state.note)
        self.state.answering = None
        log.info("settings reloaded (%s)", reason)
        await self.state.retire(old)
        self.state.answering = await self.state.assistant.answering_model()

    async def refresh(self) -> None:
        """Before a question: config.toml or the pulled models changed since the pipeline was built, then reload."""
        now = _config_stamp(self.paths)
        if now != self.stamp:
            await self.reload("config.toml changed" if now[0] != self.stamp[0] else "a model was pulled")

    def popup_session(self) -> str:
        """The popup's conversation: kept in the data folder, so it outlives a daemon restart."""
        assert self.state.assistant is not None
        store = self.state.assistant.store
        kept = self.paths.data_dir / POPUP_SESSION_FILE
        if self.state.popup_session is None and kept.exists():
            self.state.popup_session = kept.read_text().strip() or None
        if self.state.popup_session is None or not store.session_exists(self.state.popup_session):
            self.state.popup_session = store.create_session()  # titled by its first question, as a chat is
            _write_private(kept, self.state.popup_session)
        return self.state.popup_session

    async def open_popup(self, wait: bool = False) -> str:
        """Show the popup (raise it if open). ``wait``: for the one who asked (``assistant popup``), a popup that
        cannot start is an error in one line, not "opened"."""
        problem = display_problem()
        if problem is not None:
            raise PopupUnavailable(problem)
        if self.readying is not None and self.popup is not None:
            # made ready a moment ago: signalled once it listens (a SIGUSR1 before its handler would end it)
            await _until_said(self.popup, *self.readying, "ready (hidden)", tries=250)
        self.readying = None
        if self.popup is not None and self.popup.poll() is None:
            self.popup.send_signal(signal.SIGUSR1)  # the popup (open, hidden by Esc, or made ready) comes to the front
            return "raised"
        proc, log_file, start = self._start_popup()
        if wait:  # a window that cannot open fails within its first moments (no display server, no Tk)
            await _until_said(proc, log_file, start, "ready", tries=100)
            if proc.poll() not in (None, 0):
                said = _said_since(log_file, start)
                raise PopupUnavailable("the popup could not start" + (f": {said[-1]}" if said else "") +
                                       f" (see {log_file})")
        log.info("popup opened (session %s)", self.popup_session())
        return "opened"

    def _start_popup(self, hidden: bool = False) -> tuple[subprocess.Popen, Path, int]:
        """The popup's process (shown, or ``hidden``: made ready for the hotkey), with its log and where this start's
        lines begin in it."""
        session = self.popup_session()
        log_file = self.paths.log_dir / "popup.log"
        start = log_file.stat().st_size if log_file.exists() else 0
        with open(log_file, "ab") as out:
            proc = self.popup = subprocess.Popen([sys.executable, "-m", "assistant.frontends.popup", "--session", session,
                                                  *(["--hidden"] if hidden else [])],
                                                 stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        return proc, log_file, start

    def ready_popup(self) -> None:
        """With the hotkey on a desktop, the popup is started hidden once the daemon is warm: its first show after
        `daemon start` is a signal to a window that is there (as every later one is), not a process, Tk and a
        window to start while the first keys typed go nowhere."""
        if self.popup is None and self.state.hotkey.startswith("active") and display_problem() is None:
            try:
                _, log_file, start = self._start_popup(hidden=True)
                self.readying = (log_file, start)
                log.info("popup made ready (hidden)")
            except OSError as e:
                log.warning("popup not made ready: %s", e)

    def hotkey(self, loop: asyncio.AbstractEventLoop) -> Listener | None:
        """The global hotkey's listener (None: off, or it could not start; ``state.hotkey`` says which)."""
        async def from_hotkey() -> None:
            try:
                await self.open_popup()
            except PopupUnavailable as e:  # nobody to tell but the log
                log.warning("hotkey: %s", e)

        listener = None
        if self.settings.hotkey:
            listener, self.state.hotkey = start_hotkey(self.settings.hotkey, lambda: loop.call_soon_threadsafe(
                lambda: asyncio.ensure_future(from_hotkey())))
        else:
            self.state.hotkey = "inactive: disabled in the settings (hotkey = \"\")"
        log.info("hotkey %s", self.state.hotkey)
        return listener

    def reminded(self, reminder: object) -> None:
        """A reminder fired: the popup, when it is open, shows it too (it reads the fired ones on this signal)."""
        if self.popup is not None and self.popup.poll() is None:
            self.popup.send_signal(signal.SIGUSR2)

    async def warm(self) -> None:
        """The pipeline the daemon started with, its models loaded before the first question."""
        app = self.state.assistant
        assert app is not None
        try:
            await app.warm()
            backend = await app.backend.pick() if isinstance(app.backend, SelectedBackend) else app.backend
            self.state.answering = await app.answering_model()
            if hasattr(backend, "warm"):
                await backend.warm(sorted({self.settings.model_for(r) for r in ROLES}))
            if hasattr(backend, "load"):  # the embedded model: loaded once, here, not by the first question
                await backend.load()
            self.state.warm = f"warm ({backend.name})"
        except AssistantError as e:
            self.state.warm = f"not warmed: {e.one_line()}"
        except Exception as e:
            self.state.warm = f"not warmed: {type(e).__name__}: {e}"
        log.info("%s", self.state.warm)
        self.ready_popup()

    async def close(self) -> None:
        """A hidden popup goes with its daemon; every pipeline closes (the first is one of these, or closed on
        retiring)."""
        if self.popup is not None and self.popup.poll() is None:
            self.popup.terminate()
        for pipeline in (self.state.assistant, *self.state.retired):
            if pipeline is not None:
                await pipeline.aclose()


async def serve(settings: Settings, paths: Paths, ready: asyncio.Event | None = None) -> None:
    """``assistant daemon run``: serve until SIGTERM or SIGINT."""
    paths.ensure()
    paths.run_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(paths.run_dir, 0o700)
    held = _one_daemon(paths)  # kept open while this daemon lives: the lock goes with the process, however it ends
    daemon = Serving(settings, paths)
    token = secrets.token_urlsafe(32)
    _write_private(paths.run_dir / TOKEN_FILE, token)
    assert daemon.state.assistant is not None
    runner = web.AppRunner(build_api(daemon.state.assistant, token, daemon.state), access_log=None,
                           handler_cancellation=False, keepalive_timeout=KEEPALIVE_SECONDS)
    await runner.setup()
    unix = settings.daemon_transport != "tcp" and hasattr(socket, "AF_UNIX")
    listening, endpoint = await listen(runner, unix_path=socket_path(paths) if unix else None, port=settings.daemon_port)
    daemon.state.transport = endpoint["transport"]
    _write_private(paths.run_dir / ENDPOINT_FILE, json.dumps(endpoint))
    _write_private(paths.run_dir / PID_FILE, str(os.getpid()))
    log.info("listening on %s", endpoint.get("path") or f"http://127.0.0.1:{endpoint.get('port')}")
    loop = asyncio.get_running_loop()
    listener = daemon.hotkey(loop)
    warming = asyncio.ensure_future(daemon.warm())
    stop = asyncio.Event()
    from assistant.reminders import Firer

    try:  # the reminders' table is the store's: open (and migrate) it before the first look
        daemon.state.assistant.store.schema_version  # noqa: B018
    except AssistantError as e:
        log.error("reminders cannot fire: %s", e.one_line())
    firer = Firer(paths.database, shown=daemon.reminded, data_dir=paths.data_dir, retry=settings.notify_retry)
    firer.hold()  # before the first question: a reminder set now is told it will fire
    firing = asyncio.ensure_future(firer.run(stop))
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, lambda: asyncio.ensure_future(daemon.reload("SIGHUP")))
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
    finally:
        log.info("stopping")
        warming.cancel()
        firing.cancel()
        if listener is not None:
            listener.stop()
        listening.close()
        await runner.cleanup()
        await daemon.close()
        for name in (ENDPOINT_FILE, TOKEN_FILE, PID_FILE):
            (paths.run_dir / name).unlink(missing_ok=True)
        if endpoint["transport"] == "unix":
            Path(endpoint["path"]).unlink(missing_ok=True)
        if held is not None:
            os.close(held)  # the next daemon may start


def _config_stamp(paths: Paths) -> tuple[object, ...]:
    """What the daemon's pipeline was built from: config.toml as it is, and the models pulled for the embedded
    engine (a pull of the model `model` names changes what answers without a word of config)."""
    from assistant.models.registry import pulled_dir

    try:
        st = paths.config_file.stat()
        config: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
    except OSError:
        config = None
    try:
        pulled = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in pulled_dir().glob("*.json")))
    except OSError:
        pulled = ()
    return config, pulled


def setup_logging(paths: Paths) -> None:
    paths.log_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(paths.log_dir / "daemon.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger("assistant")
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _one_daemon(paths: Paths) -> int | None:
    """One daemon per home: an exclusive lock on ``daemon.lock`` in the run folder, held for the daemon's life (its
    descriptor returned, to keep). A second ``daemon run`` is refused in one line, naming the one that runs, so no
    process is left that ``daemon stop`` would not end. Where the system has no ``flock`` (Windows), not held."""
    try:
        import fcntl
    except ImportError:
        return None
    fd = os.open(paths.run_dir / "daemon.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        running = read_pid(paths)
        raise AssistantError(f"a daemon is already running for this home{f' (pid {running})' if running else ''}.",
                             "assistant daemon status shows it; assistant daemon restart starts it anew.") from None
    return fd


def read_pid(paths: Paths) -> int | None:
    try:
        pid = int((paths.run_dir / PID_FILE).read_text())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended: no such process, or one that has exited and waits for its parent to collect it
    (a zombie holds no socket, lock or file of ours)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def start(paths: Paths, wait: float = 60.0) -> str:
    if connect(paths.run_dir) is not None:
        return "the daemon is already running"
    paths.ensure()
    log_file = open(paths.log_dir / "daemon.log", "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "daemon", "run"], stdout=log_file, stderr=log_file,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    log_file.close()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if (client := connect(paths.run_dir)) is not None:
            return f"daemon started (pid {proc.pid}); log: {paths.log_dir / 'daemon.log'}\n" + _hotkey_said(client)
        if proc.poll() is not None:
            tail = (paths.log_dir / "daemon.log").read_text(errors="replace").strip().splitlines()[-3:]
            raise AssistantError("the daemon exited at start: " + " | ".join(tail), "See the daemon log.")
        time.sleep(0.1)
    raise AssistantError("the daemon did not come up in time.", f"See {paths.log_dir / 'daemon.log'}.")


def _hotkey_said(client: Any, wait: float = 3.0) -> str:
    """What the daemon says of its global hotkey once it has tried to grab it: active, or why not and the way to
    open the popup instead (a desktop shortcut to ``assistant popup``)."""
    deadline = time.monotonic() + wait
    state = "inactive: not started"
    while time.monotonic() < deadline:
        try:
            state = str(client.get("/v1/health").get("hotkey") or state)
        except Exception:  # noqa: BLE001 - said as not known; the daemon runs all the same
            break
        if state != "inactive: not started":
            break
        time.sleep(0.1)
    if state.startswith("inactive") and "assistant popup" not in state:
        return f"hotkey {state}; bind a desktop shortcut to `assistant popup` instead (docs/daemon.md)"
    return f"hotkey {state}"


def stop(paths: Paths) -> str:
    pid = read_pid(paths)
    if pid is None:
        return "the daemon is not running"
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _gone(pid):
            return f"daemon stopped (pid {pid})"
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return f"daemon killed (pid {pid}) after it ignored SIGTERM for 10 s"


def restart(paths: Paths) -> str:
    stopped = stop(paths)
    return f"{stopped}\n{start(paths)}"


def install(paths: Paths) -> str:
    """Write a systemd user unit (Linux) or a launchd agent (macOS) and say how to enable it."""
    # The environment that matters (where state lives, the server, ASSISTANT_* settings) goes into the unit, so the
    # daemon answers as `assistant ask` in this shell would.
    recorded = {**({HOME_ENV: os.environ[HOME_ENV]} if os.environ.get(HOME_ENV) else {}), **setting_env()}
    env_line = "".join(f"Environment={_systemd_quote(f'{k}={v}')}\n" for k, v in sorted(recorded.items()))
    plist_env = "".join(f"<key>{_xml(k)}</key><string>{_xml(v)}</string>" for k, v in sorted(recorded.items()))
    if sys.platform == "darwin":
        target = service_file()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
  <key>Label</key><string>dev.assistant.frontends.daemon</string>
  <key>ProgramArguments</key><array><string>{sys.executable}</string><string>-m</string><string>assistant</string><string>daemon</string><string>run</string></array>
  <key>EnvironmentVariables</key><dict>{plist_env}</dict>
  <key>RunAtLoad</key><true/><key>KeepAlive</key><true/>
  <key>StandardErrorPath</key><string>{paths.log_dir / 'daemon.log'}</string>
</dict></plist>
""")
        return f"wrote {target}\nenable it with: launchctl load -w {target}"
    target = service_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"""[Unit]
Description=assistant: local assistant daemon (hotkey, warm models)
After=graphical-session.target

[Service]
ExecStart={sys.executable} -m assistant daemon run
{env_line}Restart=on-failure

[Install]
WantedBy=default.target
""")
    return (f"wrote {target}\nenable it with: systemctl --user daemon-reload && systemctl --user enable --now assistant\n"
            "(for the hotkey the unit needs your DISPLAY: systemctl --user import-environment DISPLAY)")


def service_file() -> Path:
    """Where ``install`` writes the service: a launchd agent (macOS) or a systemd user unit."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "LaunchAgents" / "dev.assistant.frontends.daemon.plist"
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "systemd" / "user" / "assistant.service"


def uninstall(paths: Paths) -> str:
    """Remove what ``install`` wrote, saying first how to stop the service that runs from it."""
    target = service_file()
    if not target.exists():
        return f"nothing to uninstall: {target} does not exist"
    if sys.platform == "darwin":
        before = f"launchctl unload -w {target}"
    else:
        before = "systemctl --user disable --now assistant"
    target.unlink()
    return (f"removed {target}\nif the service was enabled, stop it too: {before}"
            + ("" if sys.platform == "darwin" else " && systemctl --user daemon-reload"))


def _systemd_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
