"""MCP servers: a real one from PyPI (``mcp-server-time``) listed in a config and called end to end, and a
server on the official SDK whose tools crash, hang, fail and reach for the network (``tests/mcp_faulty.py``).
Each costs a tool error, never the turn; the server answers again afterwards."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import paths_under
from fake_ollama import Script, tool_call

from assistant.app import build_registry
from assistant.config import Settings
from assistant.config_load import load_settings
from assistant.config_file import render_settings
from tools.mcp_servers import McpServerConfig, tool_name
from tools.schema_args import args_model
from tools.jail.runner import SandboxRunner

pytest.importorskip("mcp", reason="the MCP SDK is an optional extra: pip install '.[mcp]'")
pytest.importorskip("mcp_server_time", reason="mcp-server-time (from PyPI) comes with the test extra")

FAULTY = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_faulty.py")
TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "Asia/Shanghai"]}
PASS = {"verdict": "PASS", "reason": "it is the asked conversion"}


def faulty(**extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [FAULTY], "timeout": 2, **extra}


def tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """The tool result the responder was given."""
    content = request["messages"][-1]["content"]
    return json.loads(content[content.index("Tool results:") + len("Tool results:"):])[-1]["result"]


@pytest.mark.slow  # starts MCP server processes
def test_the_servers_tools_join_the_registry_with_their_schemas_and_are_cached(tmp_path):
    paths = paths_under(tmp_path)
    settings = Settings(mcp_servers={"time": TIME})
    registry = build_registry(settings, paths)
    assert registry.skipped == []
    tool = registry.get("time_convert_time")
    assert tool is not None and registry.get("time_get_current_time") is not None
    assert tool.source == "MCP server time" and tool.external
    schema = tool.args_schema()
    assert schema["required"] == ["source_timezone", "time", "target_timezone"]
    assert "24-hour" in schema["properties"]["time"]["description"]
    assert tool.permissions.network == []  # not granted
    # The next run reads the list from the cache: no server is started to build the registry.
    again = build_registry(settings, paths)
    assert again.get("time_convert_time").server.starts == 0  # type: ignore[union-attr]
    assert json.loads((paths.cache_dir / "mcp" / "time.json").read_text())["tools"][0]["name"] == "get_current_time"


def test_a_config_file_with_servers_loads_and_config_show_writes_it_back(tmp_path, monkeypatch):
    paths = paths_under(tmp_path)
    paths.config_file.parent.mkdir(parents=True)
    paths.config_file.write_text('[mcp_servers.time]\ncommand = "uvx"\nargs = ["mcp-server-time"]\nnetwork = true\n')
    settings = load_settings(paths, env={})
    assert settings.mcp_servers["time"].args == ["mcp-server-time"] and settings.mcp_servers["time"].network
    shown = render_settings(settings)
    paths.config_file.write_text(shown)  # `assistant config show > config.toml` must load again
    assert load_settings(paths, env={}) == settings
    assert "deterministic = true" in shown


@pytest.mark.slow  # starts MCP server processes
async def test_a_question_routed_to_an_mcp_tool_is_answered_end_to_end(fake, make_app):
    def answer(request: dict[str, Any]) -> str:
        target = tool_result(request)["target"]["datetime"]  # what the real server computed
        return f"09:30 in Tokyo is {target[11:16]} in Paris."

    fake.handler = Script(router={"route": "time_convert_time"},
                          executor=tool_call("time_convert_time", source_timezone="Asia/Tokyo", time="09:30",
                                             target_timezone="Europe/Paris"),
                          validator=PASS, responder=answer)
    app = make_app(sandboxed=True, mcp_servers={"time": TIME})
    result = await app.ask("Tokyo standup is at 09:30. Ask the time server what that is for the Paris office.")
    assert result.ok, result.answer
    assert fake.kinds() == ["decide", "validator", "responder"]  # its call came with the route, in one call
    decide = fake.requests[0]
    offered = {t["function"]["name"]: t["function"] for t in decide["tools"]}
    assert offered["time_convert_time"]["parameters"]["required"] == ["source_timezone", "time", "target_timezone"]
    call = result.tool_calls[0]
    assert call.ok and call.result["source"]["datetime"].endswith("T09:30:00+09:00")
    paris = datetime.fromisoformat(call.result["target"]["datetime"])
    assert paris.strftime("%H:%M") in ("01:30", "02:30")  # CET in winter, CEST in summer
    assert paris.strftime("%H:%M") in result.answer


@pytest.mark.slow  # starts MCP server processes
async def test_a_server_that_crashes_mid_call_costs_a_tool_error_and_is_restarted(fake, make_app):
    fake.handler = Script(router=[{"route": "faulty_crash"}, {"route": "faulty_echo"}],
                          executor=[tool_call("faulty_crash", text="x"), tool_call("faulty_echo", text="hello", times=2)],
                          validator=PASS, responder="It says hello hello.")
    app = make_app(mcp_servers={"faulty": faulty()})
    crashed = await app.ask("crash the faulty server")
    assert not crashed.ok and "faulty" in crashed.answer  # an honest sentence, not an exception
    assert crashed.tool_calls[0].ok is False and "stopped during the call" in crashed.tool_calls[0].error
    assert fake.kinds() == ["decide"]  # no retries spent on a server that crashed
    server = app.registry.get("faulty_echo").server  # type: ignore[union-attr]
    starts = server.starts
    echoed = await app.ask("echo hello twice with the faulty server")
    assert echoed.ok and echoed.tool_calls[0].result == {"result": "hello hello"}
    assert server.starts == starts + 1  # started again for this call


@pytest.mark.slow  # starts MCP server processes
async def test_a_server_that_hangs_is_stopped_at_its_timeout(fake, make_app):
    fake.handler = Script(router=[{"route": "faulty_hang"}, {"route": "faulty_pid"}],
                          executor=[tool_call("faulty_hang", text="x"), tool_call("faulty_pid")],
                          validator=PASS, responder=lambda r: f"Its process id is {tool_result(r)['result']}.")
    app = make_app(mcp_servers={"faulty": faulty(timeout=1)})
    hung = await app.ask("make the faulty server hang")
    assert not hung.ok and "did not answer hang within 1 s" in hung.tool_calls[0].error
    after = await app.ask("what is the faulty server's pid?")
    assert after.ok and str(after.tool_calls[0].result["result"]) in after.answer


@pytest.mark.slow  # starts MCP server processes
async def test_an_error_result_goes_back_to_the_executor_as_feedback(fake, make_app):
    fake.handler = Script(router={"route": "faulty_fail"}, executor=[tool_call("faulty_fail", text="x"),
                                                                     tool_call("faulty_fail", text="y")],
                          validator=PASS, responder="It failed.")
    app = make_app(mcp_servers={"faulty": faulty()}, max_retries=1)
    result = await app.ask("make the faulty server fail")
    assert not result.ok and result.attempts == 2
    feedback = fake.requests[1]["messages"][-1]["content"]  # after the deciding call's own call failed
    assert "Error executing tool fail" in feedback
    assert "the faulty server's fail was tried 2 times" in result.answer  # the server's words reach the user
    assert result.answer.endswith("fail said: Error executing tool fail")


@pytest.mark.slow  # starts MCP server processes
async def test_arguments_that_break_the_tools_schema_never_reach_the_server(fake, make_app):
    fake.handler = Script(router={"route": "faulty_echo"},
                          executor=[tool_call("faulty_echo", text=5), tool_call("faulty_echo", text="hi")],
                          validator=PASS, responder="It says hi.")
    app = make_app(mcp_servers={"faulty": faulty()})
    result = await app.ask("echo hi with the faulty server")
    assert result.ok and result.attempts == 2
    assert [c.args for c in result.tool_calls] == [{"text": "hi", "times": 1}]  # only the valid call ran
    assert "text" in fake.requests[2]["messages"][-1]["content"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the network filter is seccomp, on Linux")
@pytest.mark.slow  # starts MCP server processes
async def test_a_server_has_no_network_unless_granted(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    host, port = listener.getsockname()
    results = {}
    for granted in (False, True):
        settings = Settings(mcp_servers={"faulty": faulty(network=granted)})
        registry = build_registry(settings, paths_under(tmp_path / str(granted)))
        tool = registry.get("faulty_connect")
        runner = SandboxRunner()
        results[granted] = await runner.run(tool, tool.Args.model_validate({"host": host, "port": port}))
        await registry.aclose()
    listener.close()
    assert not results[False].ok and "Error executing tool connect" in results[False].error
    assert results[True].ok and results[True].data == {"result": "connected"}
    log = (tmp_path / "False" / "log" / "mcp-faulty.log").read_text()
    assert "Operation not permitted" in log  # the seccomp filter, not a connection that failed


@pytest.mark.slow  # starts MCP server processes
async def test_a_server_reads_and_writes_only_its_granted_folders(tmp_path):
    from tools.jail import landlock

    if landlock.abi() < 1:
        pytest.skip("Landlock is not available on this kernel")
    secret, granted = tmp_path / "private" / "notes.txt", tmp_path / "granted"
    secret.parent.mkdir()
    secret.write_text("my private notes")
    registry = build_registry(Settings(mcp_servers={"faulty": faulty(folders=[str(granted)])}), paths_under(tmp_path / "s"))
    runner = SandboxRunner()
    read, write = registry.get("faulty_read"), registry.get("faulty_write")
    stolen = await runner.run(read, read.Args.model_validate({"path": str(secret)}))
    planted = await runner.run(write, write.Args.model_validate({"path": str(tmp_path / "planted.txt")}))
    kept = await runner.run(write, write.Args.model_validate({"path": str(granted / "ok.txt"), "text": "mine"}))
    back = await runner.run(read, read.Args.model_validate({"path": str(granted / "ok.txt")}))
    await registry.aclose()
    assert not stolen.ok and stolen.data is None and "Error executing tool read" in stolen.error
    assert "Permission denied" in (tmp_path / "s" / "log" / "mcp-faulty.log").read_text()  # the kernel said no
    assert not planted.ok and not (tmp_path / "planted.txt").exists()
    assert kept.ok and back.ok and back.data == {"result": "mine"}
    assert registry.get("faulty_read") is not None and (await _listed(tmp_path)) == [str(granted)]


async def _listed(tmp_path) -> list[str]:
    registry = build_registry(Settings(mcp_servers={"faulty": faulty(folders=[str(tmp_path / "granted")])}),
                              paths_under(tmp_path / "s"))
    try:
        return registry.get("faulty_read").permissions.files  # type: ignore[union-attr]  (what `assistant tools` shows)
    finally:
        await registry.aclose()


@pytest.mark.slow  # starts MCP server processes
def test_a_server_that_does_not_start_is_skipped_with_what_it_said(tmp_path):
    settings = Settings(mcp_servers={"broken": {"command": "no-such-mcp-server-here"}, "time": TIME})
    registry = build_registry(settings, paths_under(tmp_path))
    assert registry.get("time_get_current_time") is not None  # the other server's tools are there
    [line] = registry.skipped
    assert line.startswith("mcp server 'broken'") and "no-such-mcp-server-here: No such file or directory" in line
    # Kept for a while, so that the next questions do not wait for it again; `doctor` lists it afresh.
    again = build_registry(settings, paths_under(tmp_path))
    assert again.skipped == [line]


def test_argument_models_follow_the_json_schema():
    schema = {"type": "object", "required": ["from", "count"], "additionalProperties": False, "properties": {
        "from": {"type": "string"}, "count": {"type": "integer"}, "unit": {"enum": ["km", "mi"]},
        "tags": {"type": "array", "items": {"type": "string"}}, "ratio": {"type": ["number", "null"]}}}
    Args = args_model("demo", schema)
    ok = Args.model_validate({"from": "a", "count": 2, "unit": "km", "tags": ["x"]})
    assert ok.model_dump(exclude_unset=True) == {"from": "a", "count": 2, "unit": "km", "tags": ["x"]}
    for bad in ({"count": 2}, {"from": "a", "count": "many"}, {"from": "a", "count": 1, "unit": "ft"},
                {"from": "a", "count": 1, "other": 1}):
        with pytest.raises(ValueError):
            Args.model_validate(bad)
    assert tool_name("My Server", "get-Thing") == "my_server_get_thing"
    assert tool_name("1st", "x") == "mcp_1st_x"


def test_server_settings_refuse_unknown_keys():
    with pytest.raises(ValueError):
        McpServerConfig.model_validate({"command": "x", "argv": []})


@pytest.mark.slow  # starts MCP server processes
def test_assistant_tools_lists_every_tools_source(home, capsys):
    from assistant.frontends.cli import main

    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f"[mcp_servers.time]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps(TIME['args'])}\n")
    assert main(["tools"]) == 0
    out = capsys.readouterr().out
    assert "calculator: Evaluate" in out and "  source: built-in" in out
    assert "time_get_current_time: Get current time" in out and "  source: MCP server time" in out


def test_without_the_sdk_a_server_is_skipped_with_the_install_hint(tmp_path, monkeypatch):
    import tools.mcp_servers as mcp_servers

    monkeypatch.setattr(mcp_servers, "sdk_missing", lambda: True)
    registry = build_registry(Settings(mcp_servers={"time": TIME}), paths_under(tmp_path))
    assert registry.get("time_get_current_time") is None
    assert registry.skipped == ["mcp server 'time': skipped, the MCP SDK is not installed (pip install 'assistant[mcp]')"]




@pytest.mark.slow  # starts MCP server processes
async def test_a_server_that_died_while_idle_is_restarted_without_costing_the_call(tmp_path, monkeypatch):
    import os
    import signal

    import tools.mcp_servers as mcp_servers

    registry = build_registry(Settings(mcp_servers={"faulty": faulty()}), paths_under(tmp_path))
    runner = SandboxRunner()
    pid_tool, echo = registry.get("faulty_pid"), registry.get("faulty_echo")
    first = await runner.run(pid_tool, pid_tool.Args.model_validate({}))
    assert first.ok
    os.kill(first.data["result"], signal.SIGKILL)  # the server process itself (the launcher exec'd it)
    monkeypatch.setattr(mcp_servers, "IDLE_PING_AFTER", 0.0)  # as if it had been idle for a while
    starts = echo.server.starts
    result = await runner.run(echo, echo.Args.model_validate({"text": "still here"}))
    assert result.ok and result.data == {"result": "still here"}
    assert echo.server.starts == starts + 1
    await registry.aclose()


@pytest.mark.slow  # starts a process
def test_a_server_that_never_answers_its_start_is_skipped_quietly(tmp_path, monkeypatch, caplog):
    import gc

    import tools.mcp_servers as mcp_servers

    monkeypatch.setattr(mcp_servers, "STARTUP_TIMEOUT", 1.0)
    registry = build_registry(Settings(mcp_servers={"mute": {"command": "sleep", "args": ["30"]}}), paths_under(tmp_path))
    assert registry.skipped == ["mcp server 'mute' (sleep): skipped, it did not start: it did not answer within 1 s of starting"]
    gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]  # no stray asyncio report on stderr


def _alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ", 1)[1][0] != "Z":
                    out.append(pid)
        except OSError:
            pass
    return out


def _writers_of(path: Path) -> list[int]:
    """Processes with ``path`` open (the lingering children keep reopening it: any that write it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if any(os.readlink(fd) == str(path) for fd in (entry / "fd").iterdir()):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow  # starts MCP server processes
async def test_a_servers_whole_tree_dies_with_it(tmp_path):
    """Children a server forks (daemonised: their own session, orphaned) die when the server is closed, as when the
    assistant exits: the server is the first process of its own PID namespace."""
    from tools.jail import namespaces

    if not namespaces.available():
        pytest.skip("no unprivileged user namespaces here")
    granted = tmp_path / "granted"
    registry = build_registry(Settings(mcp_servers={"faulty": faulty(folders=[str(granted)], timeout=10)}),
                              paths_under(tmp_path / "s"))
    linger = registry.get("faulty_linger")
    result = await SandboxRunner().run(linger, linger.Args.model_validate({"path": str(granted / "out.txt")}))
    assert result.ok, result.error
    await asyncio.sleep(0.5)
    size = (granted / "out.txt").stat().st_size
    assert size > 0  # the children were writing
    await registry.aclose()
    await asyncio.sleep(1.0)
    before = (granted / "out.txt").stat().st_size
    await asyncio.sleep(1.0)
    assert (granted / "out.txt").stat().st_size == before  # nobody writes any more


FORK_BOMB = """
import os, time
made, error = 0, "no refusal"
for _ in range(500):
    try:
        pid = os.fork()
    except OSError as e:
        error = e.strerror
        break
    if pid == 0:
        time.sleep(20)
        os._exit(0)
    made += 1
print(made, error)
"""


def test_a_servers_processes_are_capped(tmp_path):
    """The launcher's process cap (RLIMIT_NPROC set inside the server's own user namespace). The kernel exempts the
    real root user from it, so where the tests run as root the launcher runs as nobody, with the system's Python."""
    import shutil
    import subprocess

    from tools.jail import namespaces

    if not namespaces.available():
        pytest.skip("no unprivileged user namespaces here")
    jail = str(Path(__file__).resolve().parents[2] / "tools" / "jail" / "mcp_launch.py")
    command = [sys.executable, "-I", jail, json.dumps({"processes": 20}), sys.executable, "-c", FORK_BOMB]
    if os.getuid() == 0:
        if not (shutil.which("setpriv") and os.path.exists("/usr/bin/python3")):
            pytest.skip("as root, the cap is tried as nobody: setpriv and /usr/bin/python3 are needed")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-I", jail,
                   json.dumps({"processes": 20}), "/usr/bin/python3", "-c", FORK_BOMB]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd="/")
    made, _, error = done.stdout.strip().partition(" ")
    assert int(made) < 20 and error == "Resource temporarily unavailable", done.stdout + done.stderr


@pytest.mark.slow  # starts MCP server processes
async def test_a_server_changes_no_files_metadata_outside_or_inside(tmp_path):
    """chmod, utime and setxattr: Landlock has no right for them; seccomp refuses them (modes and times unchanged)."""
    from tools.jail import seccomp

    if not seccomp.allowlist_available():
        pytest.skip("the seccomp allow-list (libseccomp) is not available here")
    victim = tmp_path / "id_key"
    victim.write_text("private key")
    victim.chmod(0o600)
    os.utime(victim, (1_700_000_000, 1_700_000_000))
    granted = tmp_path / "granted"
    registry = build_registry(Settings(mcp_servers={"faulty": faulty(folders=[str(granted)])}), paths_under(tmp_path / "s"))
    touch = registry.get("faulty_touch_metadata")
    try:
        result = await SandboxRunner().run(touch, touch.Args.model_validate({"path": str(victim)}))
    finally:
        await registry.aclose()
    assert result.ok and "worked" not in result.data["result"], result.data
    st = victim.stat()
    assert st.st_mode & 0o777 == 0o600 and st.st_mtime == 1_700_000_000


def test_a_server_granted_a_protected_folder_never_starts(tmp_path):
    paths = paths_under(tmp_path / "s")
    secrets = Path.home() / ".ssh"
    for folders in ([str(paths.config_dir)], [str(secrets)], [str(Path.home())], [str(paths.data_dir / "x")]):
        registry = build_registry(Settings(mcp_servers={"planted": faulty(folders=folders)}), paths)
        assert registry.get("planted_read") is None
        assert len(registry.skipped) == 1 and "can never be granted" in registry.skipped[0], registry.skipped
