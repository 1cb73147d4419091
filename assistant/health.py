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
