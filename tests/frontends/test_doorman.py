"""The daemon's door under a flood: silent and half-sent connections are answered 408 and cannot keep the
token's owner out; when every place is serving a request a newcomer is answered 503; a stranger's refused
request does not keep its connection. The real API and the real listener on a Unix socket, in this process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from assistant.frontends.doorman import listen
from assistant.frontends.server import DaemonState, build_api

TOKEN = "t0ken"


@pytest.fixture
async def door(make_app, tmp_path: Path):
    runner = web.AppRunner(build_api(make_app(), TOKEN, DaemonState()), handler_cancellation=False)
    await runner.setup()
    served: list[asyncio.Server] = []

    async def open_door(**limits) -> Path:
        sock = tmp_path / f"d{len(served)}.sock"
        server, endpoint = await listen(runner, unix_path=sock, **limits)
        served.append(server)
        assert endpoint == {"transport": "unix", "path": str(sock)} and oct(sock.stat().st_mode & 0o777) == "0o600"
        return sock

    yield open_door
    for server in served:
        server.close()
    await runner.cleanup()


async def health(sock: Path) -> tuple[int, dict]:
    async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(sock))) as s:
        async with s.get("http://localhost/v1/health", headers={"Authorization": f"Bearer {TOKEN}"},
                         timeout=aiohttp.ClientTimeout(total=10)) as r:
            return r.status, await r.json()


async def until_closed(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(), 20)


async def test_silent_and_half_sent_connections_get_408_and_the_owner_still_gets_in(door):
    sock = await door(max_connections=8, head_seconds=1.0)
    silent = [await asyncio.open_unix_connection(str(sock)) for _ in range(40)]
    half = []
    for _ in range(4):
        reader, writer = await asyncio.open_unix_connection(str(sock))
        writer.write(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")  # and never the rest
        await writer.drain()
        half.append((reader, writer))
    status, body = await health(sock)  # 44 connections against 8 places: the waiting ones made room
    assert status == 200 and body["version"]
    for reader, writer in [*silent, *half]:
        head = await until_closed(reader)
        assert head.startswith(b"HTTP/1.1 408 "), head[:80]
        assert b'"error"' in head
        writer.close()
    status, _ = await health(sock)
    assert status == 200


async def test_a_full_house_of_requests_under_way_answers_503_until_one_ends(door, monkeypatch):
    monkeypatch.setattr("assistant.frontends.server.BODY_SECONDS", 1.0)
    sock = await door(max_connections=3, head_seconds=30.0)
    busy = []
    for _ in range(3):  # the token's owner, each sending a body that does not come (its deadline, here 1 s)
        reader, writer = await asyncio.open_unix_connection(str(sock))
        writer.write(f"POST /v1/ask HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode())
        await writer.drain()
        busy.append((reader, writer))
    await asyncio.sleep(0.2)
    reader, writer = await asyncio.open_unix_connection(str(sock))
    refused = await until_closed(reader)
    assert refused.startswith(b"HTTP/1.1 503 ") and b"try again" in refused
    writer.close()
    for reader, writer in busy:  # each ends with its own answer (408 for the body), not cut off by the door
        head = await asyncio.wait_for(reader.readline(), 20)
        assert head.startswith(b"HTTP/1.1 408 ")
        writer.close()
    status, _ = await health(sock)
    assert status == 200


async def test_a_stranger_is_answered_and_its_connection_closed(door):
    sock = await door()
    reader, writer = await asyncio.open_unix_connection(str(sock))
    writer.write(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer wrong\r\n\r\n")
    await writer.drain()
    answer = await until_closed(reader)  # read() returns only because the daemon closed the connection
    assert answer.startswith(b"HTTP/1.1 401 ") and b"token" in answer
    writer.close()
