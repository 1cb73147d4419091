"""What ``assistant doctor`` reports: one finding per check, with what to do. Backends and tools write their
own checks in these terms (``doctor`` in each backend's module); :mod:`assistant.frontends.doctor` runs
and prints them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

Level = Literal["ok", "warn", "fail"]


class Check(BaseModel):
    name: str
    level: Level
    detail: str
    fix: str = ""
    blocking: bool = False  # a failure that stops the assistant from answering


async def get_json(url: str, timeout: float, method: str = "GET", body: Any = None,
                   headers: dict[str, str] | None = None) -> tuple[int, Any]:
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
        async with http.request(method, url, json=body, headers=headers) as resp:
            try:
                data = await resp.json(content_type=None)
            except ValueError:
                data = None
            return resp.status, data


def plain_error(e: BaseException) -> str:
    """Why a connection failed, in words a person reads (not an exception's class name)."""
    import asyncio

    if isinstance(e, (asyncio.TimeoutError, TimeoutError)):
        return "no answer in time"
    names = {k.__name__ for k in type(e).__mro__}
    if "ClientConnectorDNSError" in names or "gaierror" in names:
        return "the name does not resolve: offline, or a wrong host name"
    if names & {"ClientConnectorError", "ConnectionRefusedError", "ConnectError"}:
        return "connection refused: nothing listens there"
    if names & {"ServerDisconnectedError", "ClientPayloadError", "RemoteProtocolError"}:
        return "the server closed the connection"
    if names & {"InvalidURL", "InvalidUrlClientError"}:
        return "not a valid URL"
    text = " ".join(str(e).split())
    return text[:120] or "the connection failed"
