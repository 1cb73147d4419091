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


@server.tool(description="Report this server process's id")
def pid() -> int:
    return os.getpid()


if __name__ == "__main__":
    server.run()
