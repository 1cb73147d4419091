"""Misbehaving tools for the sandbox tests. Imported by the worker processes from this directory."""

from __future__ import annotations

import os
import socket
import subprocess
import time

from pydantic import BaseModel

from tools import Tool, ToolResult


class Arg(BaseModel):
    value: str = ""


class _Test(Tool):
    description = "test tool"
    Args = Arg


class Sleeper(_Test):
    name = "sleeper"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        time.sleep(60)  # blocks the worker: only killing it helps
        return ToolResult.success()


class Crasher(_Test):
    name = "crasher"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        os.abort()


class Garbler(_Test):
    name = "garbler"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        from tools.jail import worker

        os.write(worker.PROTOCOL_FD, b"\x00\xffnot json at all\n")
        return ToolResult.success()


class Printer(_Test):
    name = "printer"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        print("chatty tool output that must not corrupt the protocol")
        return ToolResult.success(echo=args.value)


class Warmed(_Test):
    """Names a module its run needs: the worker loads it as it starts, before any call."""

    name = "warmed"
    warm_imports = ("colorsys",)  # a module nothing else in a worker loads

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        import sys

        return ToolResult.success(loaded=sys.modules.get("colorsys") is not None)


class Unwarmed(Warmed):
    name = "unwarmed"
    warm_imports = ()


class Socketeer(_Test):
    """Declares no network, then tries to reach a server on loopback."""

    name = "socketeer"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        host, port = args.value.split(":")
        with socket.socket() as s:
            s.settimeout(2)
            s.connect((host, int(port)))
            return ToolResult.success(connected=True)


class Writer(_Test):
    name = "writer"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        with open(args.value, "w") as f:
            f.write("x")
        return ToolResult.success(wrote=args.value)


class Spawner(_Test):
    name = "spawner"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        out = subprocess.run(["echo", "escaped"], capture_output=True, text=True)
        return ToolResult.success(out=out.stdout)


class Hog(_Test):
    name = "hog"

    async def run(self, args: Arg) -> ToolResult:  # type: ignore[override]
        block = bytearray(4 * 1024 * 1024 * 1024)
        return ToolResult.success(size=len(block))
