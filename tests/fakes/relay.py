"""A counting relay in front of a real server: every request is passed through as it is (streams included) and
the chat completions are counted, so a test can see how a gateway or ``hosts`` spread the work. Stopping the
relay is that server disappearing from the network (connections refused)."""

from __future__ import annotations

import aiohttp
from aiohttp import web
from loopback import LoopbackServer

HOP = {"host", "content-length", "transfer-encoding", "connection", "keep-alive"}


class CountingRelay(LoopbackServer):
    def __init__(self, target: str) -> None:
        """``target``: the server's root URL (``http://127.0.0.1:PORT``); this relay's own ``url`` stands for it."""
        super().__init__()
        self.target = target.rstrip("/")
        self.chats = 0

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/{tail:.*}", self._relay)

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        if request.path.endswith("/chat/completions"):
            self.chats += 1
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as http:
            try:
                upstream = await http.request(request.method, self.target + request.path_qs, data=body, headers=headers)
            except aiohttp.ClientError as e:
                return web.Response(status=502, text=f"relay: {e}")
            async with upstream:
                resp = web.StreamResponse(status=upstream.status, headers={
                    k: v for k, v in upstream.headers.items() if k.lower() not in HOP})
                await resp.prepare(request)
                try:
                    async for chunk in upstream.content.iter_any():
                        await resp.write(chunk)
                    await resp.write_eof()
                except (ConnectionError, aiohttp.ClientError):  # the client stopped reading (a cut stream)
                    pass
                return resp
