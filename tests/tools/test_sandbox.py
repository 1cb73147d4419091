"""Tools run in worker processes: a misbehaving tool costs one tool error, never the turn or the process."""

from __future__ import annotations

import asyncio
import platform
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_tools import Arg, Crasher, Garbler, Hog, Printer, Sleeper, Socketeer, Spawner, Unwarmed, Warmed, Writer

from tools.calculator import Calculator, CalculatorArgs
from tools.jail.runner import SandboxRunner


@pytest.fixture
async def runner(tmp_path):
    r = SandboxRunner(timeout=3, log=tmp_path / "tools.log")
    yield r
    await r.aclose()


async def test_calculator_runs_in_a_worker_with_seccomp(runner):
    result = await runner.run(Calculator(), CalculatorArgs(expression="π * 12^2 * 2 / 3"))
    assert result.ok and result.data["value"] == "301.592894745"
    assert runner.seccomp["calculator"] is True


async def test_a_hung_tool_is_killed_and_replaced(runner):
    result = await runner.run(Sleeper(), Arg())
    assert not result.ok and "longer than 3 s" in result.error
    assert (await runner.run(Printer(), Arg(value="after"))).data == {"echo": "after"}


async def test_a_crashing_worker_is_one_tool_error(runner):
    result = await runner.run(Crasher(), Arg())
    assert not result.ok and "signal" in result.error
    result = await runner.run(Crasher(), Arg())  # a new worker took its place
    assert not result.ok and "signal" in result.error


async def test_garbage_on_the_protocol_is_one_tool_error(runner):
    result = await runner.run(Garbler(), Arg())
    assert not result.ok and "unreadable reply" in result.error


async def test_prints_do_not_corrupt_the_protocol(runner, tmp_path):
    result = await runner.run(Printer(), Arg(value="x"))
    assert result.ok and result.data == {"echo": "x"}
    assert "chatty tool output" in (tmp_path / "tools.log").read_text()


async def test_a_socket_the_tool_did_not_declare_is_refused_and_recorded(runner):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    server.setblocking(False)
    try:
        result = await runner.run(Socketeer(), Arg(value=f"127.0.0.1:{port}"))
        assert not result.ok and "not allowed" in result.error
        assert result.refusals and "network socket" in result.refusals[0]
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing got through
    finally:
        server.close()


async def test_writing_outside_the_cache_and_starting_processes_are_refused(runner, tmp_path):
    target = tmp_path / "escape.txt"
    result = await runner.run(Writer(), Arg(value=str(target)))
    assert not result.ok and result.refusals and not target.exists()
    result = await runner.run(Spawner(), Arg())
    assert not result.ok and "subprocess" in result.refusals[0]


async def test_memory_is_limited(runner):
    result = await runner.run(Hog(), Arg())
    assert not result.ok and "memory" in result.error


async def test_concurrent_calls_use_several_workers(runner):
    results = await asyncio.gather(*(runner.run(Calculator(), CalculatorArgs(expression=f"{i}*2")) for i in range(8)))
    assert [r.data["value"] for r in results] == [str(i * 2) for i in range(8)]
    assert sum(len(p.idle) for p in runner._pools.values()) > 1


def test_seccomp_filter_blocks_network_sockets_and_exec():
    code = (
        "import socket, subprocess\n"
        "from tools.jail import seccomp\n"
        "assert seccomp.install(deny_network=True)\n"
        "socket.socketpair()\n"  # local pipes still work
        "for make in (lambda: socket.socket(), lambda: subprocess.run(['true'])):\n"
        "    try:\n"
        "        make(); print('ALLOWED')\n"
        "    except PermissionError:\n"
        "        print('EPERM')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert p.stdout.split() == ["EPERM", "EPERM"], p.stderr


@pytest.mark.parametrize("expression", ["4000000**4000000", "().__class__.__bases__[0].__subclasses__()",
                                        "__import__('os').system('true')", "factorial(100000)"])
async def test_calculator_escapes_are_refused_inside_the_sandbox(runner, expression):
    result = await runner.run(Calculator(), CalculatorArgs(expression=expression))
    assert not result.ok and "Cannot evaluate" in result.error


async def test_refusals_are_recorded_in_the_turns_trace(fake, tmp_path):
    from conftest import paths_under
    from fake_ollama import Script, tool_call

    from assistant.config import Settings
    from assistant.models.ollama import OllamaBackend
    from assistant.pipeline.turn import Assistant
    from assistant.store import Store
    from tools import Registry

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    target = f"127.0.0.1:{server.getsockname()[1]}"
    fake.handler = Script(router={"route": "socketeer"}, executor=tool_call("socketeer", value=target))
    settings = Settings(ollama_host=fake.url, transport_backoff=0.01, max_retries=0)
    app = Assistant(settings, OllamaBackend(fake.url, 30), Registry([Socketeer()]), SandboxRunner(timeout=5),
                    Store(paths_under(tmp_path).database))
    try:
        result = await app.ask("phone home")
        calls = app.store.turn(result.turn_id)["tool_calls"]
        assert not result.ok and "network socket" in calls[0]["refusals"]
    finally:
        server.close()
        await app.aclose()


FOREIGN_ABI = r'''
import ctypes, mmap, os, sys
sys.path.insert(0, sys.argv[2])
code = bytes.fromhex(sys.argv[1])  # mov eax, NR; int 0x80 | syscall; ret
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
call = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
if sys.argv[3] == "filtered":
    from tools.jail import seccomp
    assert seccomp.install(deny_network=True)
print("returned", call(), flush=True)
'''


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.machine() == "x86_64"), reason="x86-64 Linux ABIs")
@pytest.mark.parametrize("abi, code", [
    ("i386 int 0x80, getpid", "b814000000cd80c3"),  # mov eax, 20; int 0x80; ret
    ("x32 syscall, getpid", "b827000040" "0f05" "c3"),  # mov eax, 0x40000027; syscall; ret
])
def test_a_syscall_through_another_abi_kills_the_filtered_process(abi, code):
    root = str(Path(__file__).resolve().parents[2])
    plain = subprocess.run([sys.executable, "-c", FOREIGN_ABI, code, root, "plain"], capture_output=True, text=True, timeout=30)
    filtered = subprocess.run([sys.executable, "-c", FOREIGN_ABI, code, root, "filtered"], capture_output=True, text=True,
                              timeout=30)
    # Unfiltered, the kernel answers (a pid, or -ENOSYS where the ABI is off) or faults; filtered, seccomp kills
    # the process before the kernel looks at the call.
    assert plain.returncode == 0 or plain.returncode == -signal.SIGSEGV, plain.stderr
    assert filtered.returncode == -signal.SIGSYS, (filtered.returncode, filtered.stdout, filtered.stderr)
    assert "returned" not in filtered.stdout


async def test_a_worker_loads_what_its_tool_names_before_the_first_call(runner):
    """What a tool's run imports (``warm_imports``: the weather's HTTP client) is loaded as its worker starts, so a
    chat or a daemon that warms its workers has it ready for the first question."""
    assert (await runner.run(Warmed(), Arg())).data == {"loaded": True}
    assert (await runner.run(Unwarmed(), Arg())).data == {"loaded": False}  # the same tool naming nothing
