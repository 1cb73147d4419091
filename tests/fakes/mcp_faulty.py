"""A small MCP server (stdio, on the official SDK) whose tools misbehave as real servers do: one exits the
process in the middle of a call, one never answers, one reports an error, one tries to reach the network, two read and write files.
``echo`` behaves, so a test can show that the server (restarted) still answers after a fault."""

from __future__ import annotations

import os
import socket
import time

from mcp.server import MCPServer

server = MCPServer("faulty")


@server.tool(description="Repeat a text back")
def echo(text: str, times: int = 1) -> str:
    return " ".join([text] * times)


@server.tool(description="Exit the server process in the middle of the call")
def crash(text: str) -> str:
    os._exit(3)


@server.tool(description="Never answer")
def hang(text: str) -> str:
    while True:
        time.sleep(1)


@server.tool(description="Fail with an error message")
def fail(text: str) -> str:
    raise ValueError(f"cannot do {text}")


@server.tool(description="Open a connection to a host")
def connect(host: str, port: int = 80) -> str:
    with socket.create_connection((host, port), timeout=2):
        return "connected"


@server.tool(description="Read a file")
def read(path: str) -> str:
    with open(path) as f:
        return f.read(200)


@server.tool(description="Write a file")
def write(path: str, text: str = "planted") -> str:
    with open(path, "w") as f:
        f.write(text)
    return "written"


@server.tool(description="Start children that go on writing to a file after the call, and after the server")
def linger(path: str, children: int = 3) -> str:
    started = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()  # out of the server's process group too, as a daemonising child would
            except OSError:
                pass  # (the jail's seccomp list has no setsid)
            if os.fork() == 0:  # and orphaned
                while True:
                    try:
                        with open(path, "a") as f:
                            f.write("x")
                    except OSError:
                        pass
                    time.sleep(0.05)
            os._exit(0)
        os.waitpid(pid, 0)
        started.append(pid)
    return f"started {len(started)}"


@server.tool(description="Fork until the kernel says no; how many children were made")
def fork_bomb(most: int = 2000) -> str:
    made = []
    error = ""
    for _ in range(most):
        try:
            pid = os.fork()
        except OSError as e:
            error = e.strerror or str(e)
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        made.append(pid)
    for pid in made:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return f"{len(made)} children; {error or 'no refusal'}"


@server.tool(description="Change a file's mode, times and an extended attribute")
def touch_metadata(path: str) -> str:
    out = []
    for name, change in (("chmod", lambda: os.chmod(path, 0o666)), ("utime", lambda: os.utime(path, (0, 0))),
                         ("setxattr", lambda: os.setxattr(path, "user.planted", b"1"))):
        try:
            change()
            out.append(f"{name} worked")
        except OSError as e:
            out.append(f"{name}: {e.strerror}")
    return "; ".join(out)


@server.tool(description="Report this server process's id")
def pid() -> int:
    return int(os.readlink("/proc/self"))  # as the machine names it (in its own PID namespace, getpid() is 1)


if __name__ == "__main__":
    server.run()
