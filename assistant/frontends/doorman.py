"""Who gets a connection to the daemon: a bounded number of them, and a deadline for saying what they want.

aiohttp serves the requests; in front of it, every accepted connection must finish its first request's head
within ``HEAD_SECONDS`` or is answered 408 and closed, and at most ``MAX_CONNECTIONS`` are open at once. When
all places are taken, the connection that has waited longest without a complete head makes room (408): a
flood of idle or half-sent connections cannot keep a client that speaks promptly out. Only when every place is
held by a request under way is the newcomer answered 503. Requests without the token are answered and their
connection closed (``server.build_api``), so only the token's owner can hold a place longer than the deadline.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
from pathlib import Path
from typing import Any, Callable, cast

from aiohttp import web

MAX_CONNECTIONS = 64
HEAD_SECONDS = 10.0  # from the connection's opening to the end of its first request's head
KEEPALIVE_SECONDS = 30.0  # an idle kept-alive connection (the token's owner's) is closed after this
log = logging.getLogger("assistant.daemon")


def _refusal(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


class _Full(asyncio.Protocol):
    """Every place is held by a request under way: 503, and the connection is closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        cast(asyncio.WriteTransport, transport).write(_refusal(503, "Service Unavailable",
                                 "the daemon is serving as many connections as it accepts; try again in a moment"))
        transport.close()


class _Watched(asyncio.Protocol):
    """aiohttp's protocol for one connection, with the head deadline in front of it."""

    def __init__(self, door: Doorman, inner: asyncio.Protocol) -> None:
        self.door, self.inner = door, inner
        self.transport: asyncio.Transport | None = None
        self.tail = b""  # the last bytes seen, for a head's end cut across two reads
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # a TCP or Unix socket's: it reads and writes
        self.door.opened(self)
        self.inner.connection_made(transport)
        self.timer = asyncio.get_running_loop().call_later(self.door.head_seconds, self.refuse,
                                                           f"the request did not arrive within {self.door.head_seconds:g} s")

    def data_received(self, data: bytes) -> None:
        if self.timer is not None:
            seen = self.tail + data
            if b"\r\n\r\n" in seen or b"\n\n" in seen:
                self.headed()
            else:
                self.tail = seen[-3:]
        self.inner.data_received(data)

    def headed(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
            self.door.headed(self)

    def refuse(self, message: str) -> None:
        """408 to a connection still without a complete head (its deadline passed, or its place is needed)."""
        self.headed()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_refusal(408, "Request Timeout", message))
            self.transport.close()

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.headed()
        self.door.closed(self)
        self.inner.connection_lost(exc)


class Doorman:
    """The protocol factory handed to the event loop's server: aiohttp's ``runner.server`` behind the limits."""

    def __init__(self, make: Callable[[], asyncio.Protocol], *, max_connections: int = MAX_CONNECTIONS,
                 head_seconds: float = HEAD_SECONDS) -> None:
        self.make, self.max_connections, self.head_seconds = make, max_connections, head_seconds
        self.open: set[_Watched] = set()
        self.waiting: dict[_Watched, None] = {}  # without a complete head yet, oldest first
        self.refused = 0

    def __call__(self) -> asyncio.Protocol:
        if len(self.open) >= self.max_connections:
            if not self.waiting:
                self.refused += 1
                if self.refused in (1, 10, 100) or self.refused % 1000 == 0:
                    log.warning("%d connection(s) refused: all %d places are serving requests", self.refused, self.max_connections)
                return _Full()
            next(iter(self.waiting)).refuse("the daemon needed this connection's place for one that spoke in time")
        return _Watched(self, self.make())

    def opened(self, conn: _Watched) -> None:
        self.open.add(conn)
        self.waiting[conn] = None

    def headed(self, conn: _Watched) -> None:
        self.waiting.pop(conn, None)

    def closed(self, conn: _Watched) -> None:
        self.open.discard(conn)
        self.waiting.pop(conn, None)


async def listen(runner: web.BaseRunner, *, unix_path: Path | None = None, port: int = 0,
                 **limits: Any) -> tuple[asyncio.Server, dict[str, Any]]:
    """Serve ``runner`` (set up) on a Unix socket only its owner may open, or on loopback TCP: the event loop's
    server and the endpoint a client reads to find it."""
    assert runner.server is not None, "the runner is not set up"
    door = Doorman(runner.server, **limits)
    loop = asyncio.get_running_loop()
    if unix_path is not None:
        unix_path.unlink(missing_ok=True)
        old = os.umask(0o177)
        try:
            server = await loop.create_unix_server(door, str(unix_path), backlog=128)
        finally:
            os.umask(old)
        os.chmod(unix_path, 0o600)
        return server, {"transport": "unix", "path": str(unix_path)}
    server = await loop.create_server(door, "127.0.0.1", port, backlog=128, family=socket.AF_INET,
                                      reuse_address=True)  # never anything but loopback
    return server, {"transport": "tcp", "port": server.sockets[0].getsockname()[1]}
