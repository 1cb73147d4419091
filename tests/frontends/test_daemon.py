"""The daemon as users and their scripts meet it: a real `assistant daemon run` process, its API, the thin
client, restarts, and a desktop test of the hotkey and popup under Xvfb."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from conftest import cli_env
from assistant.frontends.server import MAX_BODY
from fake_ollama import FakeOllama, Script

from assistant.frontends.client import Client, _UnixConnection
from processes import Daemon, virtual_screen

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def daemon_env(home, fake, gazetteer_index):
    return cli_env(home, fake, ASSISTANT_GAZETTEER_INDEX=gazetteer_index)


@pytest.fixture
def daemon(home, daemon_env):
    d = Daemon(home, daemon_env).start()
    yield d
    d.stop()


def raw(client: Client, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    conn = _UnixConnection(client.endpoint["path"], 10)
    conn.request(method, path, body=body, headers=headers or {})
    resp = conn.getresponse()
    return resp.status, resp.read()


def test_health_and_socket_permissions(daemon):
    health = daemon.client.get("/v1/health")
    assert health["ok"] and health["transport"] == "unix" and health["backend"] in ("auto", "ollama")
    path = daemon.client.endpoint["path"]
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(daemon.run_dir / "daemon.token").st_mode & 0o777) == "0o600"


def test_the_api_refuses_what_it_must(daemon):
    c = daemon.client
    auth = {"Authorization": f"Bearer {c.token}", "Host": "localhost"}
    good = json.dumps({"question": "1+1"}).encode()
    assert raw(c, "POST", "/v1/ask", good, {"Host": "localhost"})[0] == 401
    assert raw(c, "POST", "/v1/ask", good, {**auth, "Authorization": "Bearer wrong"})[0] == 401
    assert raw(c, "POST", "/v1/ask", good, {**auth, "Host": "evil.example:80"})[0] == 403  # DNS rebinding
    assert raw(c, "POST", "/v1/ask", good, {**auth, "Origin": "http://evil.example"})[0] == 403  # a web page
    assert raw(c, "POST", "/v1/ask", b"x" * (MAX_BODY + 1), auth)[0] == 413
    assert raw(c, "POST", "/v1/ask", b"{not json", auth)[0] == 400
    for body in ([], {"question": ""}, {"question": 5}, {"question": "hi", "extra": 1}, {"question": "hi", "max_retries": 99}):
        status, text = raw(c, "POST", "/v1/ask", json.dumps(body).encode(), auth)
        assert status == 400 and b"invalid request" in text
    assert raw(c, "POST", "/v1/ask", json.dumps({"question": "hi", "session_id": "nope"}).encode(), auth)[0] == 404
    assert raw(c, "GET", "/v1/nothing", None, auth)[0] == 404
    statuses = {raw(c, m, p, b, auth)[0] for m, p, b in [("GET", "/v1/ask", None), ("POST", "/v1/health", b"{}"),
                                                        ("POST", "/v1/ask", b"\xff\xfe"), ("POST", "/v1/ask", b"null")]}
    assert 500 not in statuses and all(s < 500 or s == 503 for s in statuses)
    status, text = raw(c, "POST", "/v1/ask", json.dumps({"question": "2^10"}).encode(), auth)
    lines = [json.loads(x) for x in text.splitlines()]
    assert status == 200 and lines[-1]["type"] == "turn_done" and lines[-1]["answer"] == "2^10 = 1024"


def _send_raw(client: Client, head: bytes, body: bytes) -> bytes:
    """Headers and a (possibly short) body on a bare socket; what the daemon answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(client.endpoint["path"])
    try:
        sock.sendall(head + body)
        return sock.recv(65536)
    finally:
        sock.close()


def test_the_api_refuses_hostile_bodies(daemon):
    c = daemon.client
    auth = {"Authorization": f"Bearer {c.token}", "Host": "localhost"}
    deep_models = '{"question": "hi", "settings": ' + '{"a": ' * 5000 + "1" + "}" * 5001
    for body, fragment in [
        (b"[" * 32000, b"nests deeper"),
        (deep_models.encode(), b"nests deeper"),
        (b'{"question": "hi", "question": "again"}', b"'question' appears twice"),
        (json.dumps({"question": "hi", "max_retries": True}).encode(), b"max_retries"),
        (json.dumps({"question": "hi", "model": "qwen/../../etc"}).encode(), b"model"),
        (json.dumps({"question": "hi", "model": "qwen2.5:3b\nX"}).encode(), b"model"),
        (json.dumps({"question": "hi", "settings": {"executor_model": "a/../b"}}).encode(), b"not a model name"),
        (json.dumps({"question": "hi", "settings": {"hotkey": "ctrl+q"}}).encode(), b"not a setting a question can choose"),
        (json.dumps({"question": "hi", "settings": {"max_retries": 99}}).encode(), b"--max-retries 99: must be at most 10."),
        (json.dumps({"question": "a\u0000b"}).encode(), b"control character"),
    ]:
        status, text = raw(c, "POST", "/v1/ask", body, auth)
        assert status == 400 and fragment in text, (body[:60], status, text)
    head = (f"POST /v1/ask HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {c.token}\r\n"
            "Content-Type: application/json\r\nContent-Length: {n}\r\n\r\n")
    announced = _send_raw(c, head.replace("{n}", str(10 * 2**30)).encode(), b"x" * 1024)
    assert announced.startswith(b"HTTP/1.1 413")  # refused on the announced length, before reading
    slow = _send_raw(c, head.replace("{n}", "1024").encode(), b'{"question": ')
    assert slow.startswith(b"HTTP/1.1 408") and b"did not arrive" in slow


async def test_fifty_concurrent_asks(daemon, fake):
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "fine")
    c = daemon.client

    async def one(session: aiohttp.ClientSession, i: int) -> dict:
        async with session.post("http://localhost/v1/ask", json={"question": f"question {i}"},
                                headers={"Authorization": f"Bearer {c.token}"}) as resp:
            assert resp.status == 200
            events = [json.loads(line) async for line in resp.content if line.strip()]
            return events[-1]

    connector = aiohttp.UnixConnector(path=c.endpoint["path"], limit=60)
    async with aiohttp.ClientSession(connector=connector) as session:
        done = await asyncio.gather(*(one(session, i) for i in range(50)))
    assert all(d["type"] == "turn_done" and d["ok"] and d["answer"] == "fine" for d in done)
    assert "locked" not in daemon.log() and "Traceback" not in daemon.log()
    assert len(c.get("/v1/sessions")["sessions"]) == 50


def test_a_daemon_killed_while_answering_is_one_clear_line(home, daemon_env, fake):
    """Killed mid-answer: one line saying so and what to do (no internal error). Not running when asked (its files
    left behind, its socket dead): the question is answered in the asking process, said once."""
    from fake_ollama import Reply

    slow = Reply(content="The moon is round because gravity pulls it.", chunk_size=4, chunk_delay=0.3)
    fake.handler = Script().always("router", {"route": "chat"}).always("decide", slow).always("responder", slow)
    d = Daemon(home, daemon_env).start()
    asking = subprocess.Popen([sys.executable, "-m", "assistant", "ask", "Why is the moon round?"], env=daemon_env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not fake.requests:
        assert time.monotonic() < deadline, "the daemon never began to answer"
        time.sleep(0.05)
    time.sleep(0.5)
    d.stop(signal.SIGKILL)
    out, err = asking.communicate(timeout=60)
    assert asking.returncode == 1 and err.count("\n") == 1, err
    assert "the daemon ended the answer early" in err and "internal error" not in err and "Ask again" in err
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "Gravity.")
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "Why is the moon round?"], env=daemon_env,
                       capture_output=True, text=True, timeout=60)  # the files of the killed daemon are still there
    assert p.returncode == 0 and p.stdout.strip() == "Gravity." and "internal error" not in p.stderr, p.stderr


def test_killed_and_restarted_loses_nothing(home, daemon_env, fake):
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "kept")
    d = Daemon(home, daemon_env).start()
    sessions = []
    for q in ("one", "two", "three"):
        events = list(d.client.ask(q))
        sessions.append(events[0]["session_id"])
    d.stop(signal.SIGKILL)
    d = Daemon(home, daemon_env).start()
    try:
        listed = {s["id"] for s in d.client.get("/v1/sessions")["sessions"]}
        assert set(sessions) <= listed
        follow = list(d.client.ask("four", session_id=sessions[0]))
        assert follow[-1]["ok"] and len(fake.requests[-1]["messages"]) == 4  # it saw the earlier turn
    finally:
        d.stop()


def test_a_killed_daemon_s_worker_folders_go_with_the_next_start(home, daemon_env, tmp_path):
    """Killed, the daemon cannot remove its tools' private folders; the next start does (and a clean stop leaves
    none)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**daemon_env, "TMPDIR": str(tmp)}

    def homes() -> set[Path]:
        return set(tmp.glob("assistant-*/tool-*"))

    d = Daemon(home, env).start()
    assert list(d.client.ask("what is 2+3"))[-1]["ok"]
    first = homes()
    assert first and all(f"tool-{d.proc.pid}-" in p.name for p in first)
    d.stop(signal.SIGKILL)
    assert homes() == first
    d = Daemon(home, env).start()
    try:
        assert list(d.client.ask("what is 2+3"))[-1]["ok"]
        assert homes() and not homes() & first
    finally:
        d.stop()
    assert not homes()


def test_a_decline_through_the_daemon_is_no_answer_to_a_script(daemon, daemon_env):
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", "--debug", "play some music"],
                       env=daemon_env, capture_output=True, text=True, timeout=60)
    out = json.loads(p.stdout)
    assert p.returncode == 1 and not out["ok"] and out["declined"] == "out_of_reach" and out["exit_code"] == 1
    assert "answered by the daemon" in p.stderr


def test_ask_uses_the_running_daemon(daemon, daemon_env, fake):
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "from the daemon")
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", "--debug", "hello"], env=daemon_env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["answer"] == "from the daemon"
    assert p.stderr.count("answered by the daemon") == 1  # said once, with --debug
    # the thin path, question from stdin included, imports no settings, model or pipeline code
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "assistant", "ask", "-"], env=daemon_env, input="hello",
                       capture_output=True, text=True, timeout=60)
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert p.returncode == 0 and "assistant.frontends.client" in imported
    assert not imported & {"assistant.config", "pydantic", "ollama", "assistant.pipeline.turn", "tools.base"}
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--no-daemon", "hello"], env=daemon_env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "answered by the daemon" not in p.stderr
    # piped text, the words, -s and -o travel to the daemon as they would in-process; the turn joins the ask session
    fake.requests.clear()
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "assistant", "ask", "-s", "Be brief.", "-o",
                        "temperature", "0.3", "what is this?"], env=daemon_env, input="A log line.\n",
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "from the daemon\n", p.stderr
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert not imported & {"assistant.config", "pydantic", "ollama", "assistant.pipeline.turn", "tools.base"}
    (answer,) = fake.requests  # through the daemon too, one call decided and answered
    assert answer["messages"][-1]["content"] == "A log line.\n\nwhat is this?" and len(answer["messages"]) == 2
    assert answer["messages"][0]["content"].endswith("Be brief.") and answer["options"]["temperature"] == 0.3


@pytest.mark.parametrize("flags, said", [(["--max-retries", "99"], "--max-retries 99: must be at most 10."),
                                          (["-o", "temperature", "9"], "-o temperature 9: must be at most 2.0."),
                                          (["-o", "seed", "x"], "-o seed x: must be a whole number.")])
def test_a_flags_value_the_setting_refuses_is_the_same_line_and_exit_code_through_the_daemon(daemon, daemon_env,
                                                                                             fake, flags, said):
    """The daemon checks a question's settings by their rules, and says a refusal as this process would."""
    for where in ([], ["--no-daemon"]):
        p = subprocess.run([sys.executable, "-m", "assistant", "ask", *where, *flags, "hello"], env=daemon_env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and p.stderr.startswith(f"assistant: {said} "), (where, p.stderr)
    assert not fake.requests  # nothing was asked


def test_a_client_with_other_settings_is_answered_with_its_own(daemon, daemon_env, fake):
    fake.models = {"qwen2.5:3b": ["completion", "tools"], "llama3.2:1b": ["completion", "tools"]}
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "from the daemon's Ollama")
    with FakeOllama(Script().always("router", {"route": "chat"}).always("responder", "from my Ollama")) as mine:
        p = subprocess.run([sys.executable, "-m", "assistant", "ask", "hello"], env={**daemon_env, "OLLAMA_HOST": mine.url},
                           capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "from my Ollama"  # not silently the daemon's server
    assert "the daemon runs with other settings (ollama_host); answering here instead" in p.stderr
    # a setting a turn can take on (the model) is applied by the daemon to that turn
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", "--debug", "hello"],
                       env={**daemon_env, "ASSISTANT_MODEL": "llama3.2:1b"}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "answered by the daemon" in p.stderr, p.stderr
    assert fake.requests[-1]["model"] == "llama3.2:1b"


def test_chat_with_other_settings_is_answered_with_its_own_and_a_broken_setting_is_said_once(daemon, home, daemon_env,
                                                                                             fake):
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "from the daemon's Ollama")
    with FakeOllama(Script().always("router", {"route": "chat"}).always("responder", "from my Ollama")) as mine:
        p = subprocess.run([sys.executable, "-m", "assistant", "chat", "hello"], env={**daemon_env, "OLLAMA_HOST": mine.url},
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    assert "from my Ollama" in p.stdout and "from the daemon's Ollama" not in p.stdout  # the shell's server, as ask
    assert p.stderr.count("answering in this process instead") == 1
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "hello"], env={**daemon_env, "ASSISTANT_MAX_RETRIES": "99"},
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("ASSISTANT_MAX_RETRIES=99") == 1, p.stderr  # once, with its own fix
    assert "daemon restart" not in p.stderr


def test_doctor_says_whether_the_daemon_answers_with_this_shells_settings(daemon, daemon_env):
    def daemon_check(env: dict[str, str]) -> dict:
        p = subprocess.run([sys.executable, "-m", "assistant", "doctor", "--json"], env=env, capture_output=True,
                           text=True, timeout=60)
        return next(c for c in json.loads(p.stdout)["checks"] if c["name"] == "daemon")

    same = daemon_check(daemon_env)
    assert same["level"] == "ok" and "running (pid" in same["detail"] and "this shell's settings" in same["detail"]
    other = daemon_check({**daemon_env, "ASSISTANT_TEMPERATURE_UNIT": "fahrenheit"})
    assert other["level"] == "warn" and "temperature_unit" in other["detail"] and "daemon restart" in other["fix"]
    daemon.stop()
    gone = daemon_check(daemon_env)
    assert gone["level"] == "ok" and "not running" in gone["detail"]


def test_the_daemon_rereads_config_toml_when_it_changes(daemon, home, daemon_env, fake):
    fake.models = {"qwen2.5:3b": ["completion", "tools"], "llama3.2:1b": ["completion", "tools"]}
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "from the daemon's Ollama")
    config = Path(subprocess.run([sys.executable, "-m", "assistant", "config", "path"], env=daemon_env,
                                 capture_output=True, text=True, check=True).stdout.strip())
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('model = "llama3.2:1b"\n')
    p = subprocess.run([sys.executable, "-m", "assistant", "ask", "--debug", "hello"], env=daemon_env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "answered by the daemon" in p.stderr, p.stderr  # reloaded, not bypassed
    assert fake.requests[-1]["model"] == "llama3.2:1b"
    health = daemon.client.get("/v1/health")
    assert health["pid"] == daemon.proc.pid and set(health["models"].values()) == {"llama3.2:1b"}  # same process
    assert "settings reloaded (config.toml changed)" in daemon.log()
    config.write_text('model = "qwen2.5:3b"\n')
    daemon.proc.send_signal(signal.SIGHUP)  # without waiting for a question
    deadline = time.monotonic() + 20
    while set(daemon.client.get("/v1/health")["models"].values()) != {"qwen2.5:3b"}:
        assert time.monotonic() < deadline, daemon.log()
        time.sleep(0.1)
    assert "settings reloaded (SIGHUP)" in daemon.log()
    daemon.proc.send_signal(signal.SIGHUP)  # nothing changed: said too, so a user who sent it knows it was heard
    deadline = time.monotonic() + 20
    while "settings unchanged (SIGHUP): nothing to reload" not in daemon.log():
        assert time.monotonic() < deadline, daemon.log()
        time.sleep(0.1)
    assert "listening on {" not in daemon.log()  # an address, not a Python dict
    assert re.search(r"turn [0-9a-f]{12}: chat, ok, \d+\.\d s", daemon.log()) and "hello" not in daemon.log()


def test_a_long_question_gets_the_same_answer_through_the_daemon_and_without(daemon, daemon_env, fake):
    question = "为什么" * 3000  # 9,000 characters: over the daemon's old 8,000-character limit, and over num_ctx's room
    results = [subprocess.run([sys.executable, "-m", "assistant", "ask", *flags, "-"], env=daemon_env, input=question,
                              capture_output=True, text=True, timeout=60) for flags in ([], ["--no-daemon"])]
    assert [p.returncode for p in results] == [2, 2]
    assert results[0].stderr == results[1].stderr == (
        "assistant: 问题太长:约 9000 个词元,而模型的上下文(num_ctx 8192)只留给问题 6144 个。请缩短问题,或调大 num_ctx"
        "(或 max_question_tokens)。\n")
    assert fake.requests == []  # no model was asked


def test_tcp_transport_on_loopback_with_a_token(home, daemon_env):
    d = Daemon(home, {**daemon_env, "ASSISTANT_DAEMON_TRANSPORT": "tcp"}).start()
    try:
        port = d.client.endpoint["port"]
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            assert b" 401 " in s.recv(4096).split(b"\r\n")[0] + b" "
        assert d.client.get("/v1/health")["transport"] == "tcp"
        listening = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True).stdout if shutil.which("ss") else ""
        assert f"0.0.0.0:{port}" not in listening and f"*:{port}" not in listening
    finally:
        d.stop()


def test_start_status_stop_and_install(home, daemon_env, tmp_path):
    run = lambda *a, **kw: subprocess.run([sys.executable, "-m", "assistant", "daemon", *a], env={**daemon_env, **kw},  # noqa: E731
                                          capture_output=True, text=True, timeout=60)
    assert run("status").returncode == 1
    p = run("start")
    assert p.returncode == 0 and "daemon started" in p.stdout
    # what the hotkey came to, and the way to the popup without it (no display here)
    assert "hotkey inactive" in p.stdout and "assistant popup" in p.stdout and p.stdout.count("assistant popup") == 1
    p = run("status")
    assert p.returncode == 0 and "running: pid" in p.stdout and "hotkey: inactive" in p.stdout
    assert "already running" in run("start").stdout
    pid = run("status").stdout.split("pid ")[1].split(",")[0]
    p = run("restart")
    assert p.returncode == 0 and f"daemon stopped (pid {pid})" in p.stdout and "daemon started" in p.stdout
    assert f"pid {pid}," not in run("status").stdout  # a new process
    assert "daemon stopped" in run("stop").stdout
    assert run("status").returncode == 1
    p = run("install", XDG_CONFIG_HOME=str(tmp_path / "xdg"), ASSISTANT_MODEL="llama3.2:1b")
    unit = (tmp_path / "xdg" / "systemd" / "user" / "assistant.service").read_text()
    assert "ExecStart=" in unit and "daemon run" in unit and "systemctl --user enable --now assistant" in p.stdout
    # the environment that decides how it answers goes with it
    assert f'Environment="OLLAMA_HOST={daemon_env["OLLAMA_HOST"]}"' in unit
    assert 'Environment="ASSISTANT_MODEL=llama3.2:1b"' in unit
    p = run("uninstall", XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    assert p.returncode == 0 and not (tmp_path / "xdg" / "systemd" / "user" / "assistant.service").exists()
    assert "systemctl --user disable --now assistant" in p.stdout
    assert "nothing to uninstall" in run("uninstall", XDG_CONFIG_HOME=str(tmp_path / "xdg")).stdout


DESKTOP = all(shutil.which(t) for t in ("Xvfb", "xdotool"))


def test_the_popup_without_a_desktop_is_one_line(home, daemon_env):
    """No window can appear (no DISPLAY, no WAYLAND_DISPLAY): `assistant popup` says so, not "opened"."""
    env = {k: v for k, v in daemon_env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    d = Daemon(home, env).start()
    try:
        p = subprocess.run([sys.executable, "-m", "assistant", "popup"], env=env, capture_output=True, text=True,
                           timeout=30)
        assert p.returncode == 1 and "opened" not in p.stdout
        assert p.stderr.count("\n") == 1 and "no desktop to show it on" in p.stderr and "DISPLAY" in p.stderr
    finally:
        d.stop()
    broken = {**env, "DISPLAY": ":999"}  # a display that is not there: the window fails, and that is said
    d = Daemon(home, broken).start()
    try:
        p = subprocess.run([sys.executable, "-m", "assistant", "popup"], env=broken, capture_output=True, text=True,
                           timeout=30)
        assert p.returncode == 1 and "the popup could not start" in p.stderr and "popup.log" in p.stderr, p.stderr
    finally:
        d.stop()


@pytest.mark.skipif(not DESKTOP, reason="Xvfb and xdotool are not installed (apt-get install xvfb xdotool)")
def test_hotkey_opens_the_popup_which_answers(home, daemon_env, fake):
    pytest.importorskip("tkinter")
    if subprocess.run([sys.executable, "-c", "import pynput"], capture_output=True,
                      env={**os.environ, "DISPLAY": ":0"}).returncode not in (0, 1):
        pytest.skip("pynput is not installed (pip install '.[hotkey]')")
    fake.handler = Script(router={"route": "chat"}, responder="The moon is round because gravity pulls it together.")
    screen = contextlib.ExitStack()  # with a real window manager when there is one: decorations, focus, stacking
    display = screen.enter_context(virtual_screen(range(90, 140), "1024x768x24", window_manager=True))
    wm = shutil.which("openbox")
    env = {**daemon_env, "DISPLAY": display}
    d = None
    try:
        d = Daemon(home, env).start()
        hotkey = d.client.get("/v1/health")["hotkey"]
        if "pynput" in hotkey:
            pytest.skip("pynput is not installed (pip install '.[hotkey]')")
        assert hotkey == "active (ctrl+alt+space)"
        popup_log = home / "log" / "popup.log"
        deadline = time.monotonic() + 60
        while "ready (hidden)" not in (popup_log.read_text() if popup_log.exists() else ""):
            # made ready once the daemon is warm: the first show is a signal to a window that is there
            assert time.monotonic() < deadline, "the popup was not made ready: " + d.log()
            time.sleep(0.1)
        xdo = lambda *a: subprocess.run(["xdotool", *a], env=env, capture_output=True, text=True, timeout=20)  # noqa: E731
        assert not xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.strip()  # ready, not shown
        found = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the listener grabs the key in its own thread, shortly after start
            xdo("key", "ctrl+alt+space")
            time.sleep(0.5)
            found = xdo("search", "--onlyvisible", "--name", "^assistant$")
            if found.stdout.strip():
                break
        assert found is not None and found.stdout.strip(), "the popup window did not appear: " + (
            popup_log.read_text() if popup_log.exists() else d.log())
        assert popup_log.read_text().count("ready") == 1  # the hotkey showed the one made ready: no second process
        window = found.stdout.split()[0]
        artifacts = Path(os.environ.get("ASSISTANT_TEST_ARTIFACTS", ROOT / "test-artifacts"))
        artifacts.mkdir(parents=True, exist_ok=True)

        def screenshot(name: str) -> None:
            if shutil.which("import"):
                time.sleep(0.3)
                subprocess.run(["import", "-window", "root", str(artifacts / name)], env=env, timeout=20)

        def geometry() -> tuple[int, int, int, int]:
            said = xdo("getwindowgeometry", window).stdout
            x, y = (int(v) for v in said.split("Position: ")[1].split()[0].split(","))
            w, h = (int(v) for v in said.split("Geometry: ")[1].split()[0].split("x"))
            return x, y, w, h

        settle = time.monotonic() + 5  # the manager may place it once more as the undecorated hint takes effect
        while abs(geometry()[0] - 172) > 4 and time.monotonic() < settle:
            time.sleep(0.1)
        x, y, w, h = geometry()
        assert abs(x - 172) <= 4 and w == 680 and h < 150, (x, y, w, h)  # centred on 1024x768; the input line alone
        deadline = time.monotonic() + 10
        while xdo("getwindowfocus").stdout.strip() != window:  # it takes the keyboard itself
            assert time.monotonic() < deadline, "the popup did not get the keyboard"
            time.sleep(0.1)
        time.sleep(0.3)
        xdo("type", "--delay", "15", "Why is the moon round?")
        xdo("key", "Return")
        log = home / "log" / "popup.log"
        deadline = time.monotonic() + 20
        while "answer: The moon is round" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < deadline, "no answer in the popup"
            time.sleep(0.1)
        assert fake.requests[-1]["messages"][-1]["content"] == "Why is the moon round?"
        deadline = time.monotonic() + 5
        while geometry()[3] <= h:  # it grew with the answer, its top edge where it was
            assert time.monotonic() < deadline, "the popup did not grow with its answer"
            time.sleep(0.1)
        assert geometry()[:3] == (x, y, w)
        screenshot("popup.png")
        if wm is not None:
            # another window takes the keyboard; the hotkey brings the open popup back to the front with it
            other = subprocess.Popen([sys.executable, "-c", "import tkinter as t; r = t.Tk(); r.title('other'); "
                                      "r.geometry('1000x700+0+0'); r.mainloop()"], env=env)
            try:
                found = xdo("search", "--sync", "--onlyvisible", "--name", "^other$").stdout.split()
                xdo("windowactivate", "--sync", found[0])
                assert xdo("getactivewindow").stdout.strip() == found[0]
                xdo("key", "ctrl+alt+space")
                deadline = time.monotonic() + 10
                while xdo("getactivewindow").stdout.strip() != window:
                    assert time.monotonic() < deadline, "the hotkey did not bring the popup back"
                    time.sleep(0.1)
                screenshot("popup-raised.png")
            finally:
                other.terminate()
        xdo("key", "Escape")
        deadline = time.monotonic() + 10
        while xdo("search", "--onlyvisible", "--name", "^assistant$").stdout.strip():
            assert time.monotonic() < deadline, "Esc did not close the popup"
            time.sleep(0.1)
        xdo("key", "ctrl+alt+space")  # reopened: the same session, its last exchange on show
        deadline = time.monotonic() + 20
        while "shown again, with the last exchange: Why is the moon round?" not in log.read_text():
            assert time.monotonic() < deadline, "the reopened popup did not show the last exchange: " + log.read_text()
            time.sleep(0.1)
        screenshot("popup-reopened.png")
        titles = subprocess.run([sys.executable, "-m", "assistant", "sessions", "list"], env=env, capture_output=True,
                                text=True).stdout
        assert "Why is the moon round?" in titles and " popup" not in titles  # titled by its question, as a chat is
    finally:
        if d is not None:
            d.stop()
        screen.close()


@pytest.mark.slow  # a daemon under load for 12 seconds
def test_a_short_soak_loses_nothing(tmp_path):
    """scripts/soak.py in its short mode (8 s): mixed asks from four clients with model errors, dropped clients and a
    SIGHUP; 0 lost turns, 0 internal errors, the daemon alive at the end."""
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "soak.json"
    p = subprocess.run([sys.executable, str(root / "scripts" / "soak.py"), "--seconds", "8", "--json", str(out)],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    figures = json.loads(out.read_text())
    # enough answers that every fault met turns in flight; not a throughput figure (an idle 2-core machine answers
    # ~450 in the 8 s, a loaded one under 100: soak.py prints the rate)
    assert figures["lost"] == 0 and figures["alive"] and figures["counts"].get("answered", 0) >= 20
    assert "internal error" not in figures["counts"] and "no end event" not in figures["counts"]
    assert not any("damaged" in kind for kind in figures["counts"])  # a full disk (where a tmpfs is allowed) is full
