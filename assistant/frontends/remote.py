"""The REPL's view of a running daemon: the same ``ask`` as :class:`assistant.pipeline.Assistant`, answered
by the daemon (warm models), with the store read directly (the same database file) for the commands."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from assistant.frontends.client import Client
from assistant.config import ROLES, Settings
from assistant.pipeline.context import Emit
from assistant.errors import AssistantError, from_failure
from assistant.pipeline.events import EventAdapter
from assistant.store import Store


class RemoteAssistant:
    def __init__(self, client: Client, settings: Settings, store: Store) -> None:
        self.client = client
        self.settings = settings
        self.store = store

    def _overrides(self) -> dict[str, Any]:
        return {"max_retries": self.settings.max_retries,
                "models": {r: self.settings.model_for(r) for r in ROLES}}

    async def ask(self, question: str, session_id: str | None = None, emit: Emit | None = None) -> None:
        endpoint = self.client.endpoint
        if endpoint["transport"] == "unix":
            connector: aiohttp.BaseConnector = aiohttp.UnixConnector(path=endpoint["path"])
            url = "http://localhost/v1/ask"
        else:
            connector = aiohttp.TCPConnector()
            url = f"http://localhost:{endpoint['port']}/v1/ask"
        body = {"question": question, "session_id": session_id, **self._overrides()}
        headers = {"Authorization": f"Bearer {self.client.token}"}
        try:
            async with aiohttp.ClientSession(connector=connector) as http, http.post(url, json=body, headers=headers) as resp:
                if resp.status >= 400:
                    data = await resp.json(content_type=None)
                    raise AssistantError(f"the daemon refused the question: {data.get('error', resp.status)}.")
                async for line in resp.content:
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    if event.get("type") == "turn_failed":
                        raise from_failure(event)
                    if emit is not None:
                        r = emit(EventAdapter.validate_python(event))
                        if r is not None:
                            await r
        except aiohttp.ClientError as e:
            raise AssistantError(f"lost the daemon ({e}).", "Check `assistant daemon status`, or use --no-daemon.") from None

    async def warm(self) -> None:
        pass  # the daemon keeps its tools warm

    async def aclose(self) -> None:
        self.store.close()
