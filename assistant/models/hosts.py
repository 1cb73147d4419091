"""Several model servers of one kind (``hosts``: Ollama hosts, or OpenAI-compatible replicas with no load balancer
in front) behind the one backend interface.

Each call goes to the healthy host with the fewest calls in flight (ties: the first listed, so one question at a
time, as ``ask`` and the daemon send them, goes to the first healthy host), at most ``per_host`` at once on each.
A call that fails in transit (refused, 5xx, a broken stream before any text) is sent to another host at once;
a host that refuses connections is out of rotation for ``cooldown`` seconds. A call is answered once: only a
call that failed is sent again, and never one whose text was already streamed."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from assistant.errors import AssistantError, ServerUnreachable
from assistant.models.base import Capabilities, ChatReply, ChatRequest, DeltaSink, ModelBackend, deliver
from assistant.models.transport import MAX_BACKOFF


@dataclass(eq=False)
class Host:
    url: str
    backend: ModelBackend
    in_flight: int = 0
    down_until: float = 0.0


class HostPool:
    def __init__(self, hosts: list[tuple[str, ModelBackend]], per_host: int = 4, cooldown: float = 30.0,
                 retries: int = 3, backoff: float = 0.5) -> None:
        self.hosts = [Host(url, backend) for url, backend in hosts]
        self.per_host = per_host
        self.cooldown = cooldown
        self.retries = retries
        self.backoff = backoff
        self._changed = asyncio.Condition()

    @property
    def name(self) -> str:
        return self.hosts[0].backend.name

    @property
    def model_label(self) -> str:
        return f"{self.name} on {len(self.hosts)} hosts"

    async def _acquire(self, tried: list[Host]) -> Host:
        """A slot on the least busy healthy host not yet tried for this call (when every host is down, the one
        back soonest: it may be up again)."""
        async with self._changed:
            while True:
                now = time.monotonic()
                untried = [h for h in self.hosts if h not in tried]
                healthy = [h for h in untried if h.down_until <= now] or sorted(untried, key=lambda h: h.down_until)[:1]
                free = [h for h in healthy if h.in_flight < self.per_host]
                if free:
                    host = min(free, key=lambda h: (h.in_flight, self.hosts.index(h)))
                    host.in_flight += 1
                    return host
                await self._changed.wait()

    async def _release(self, host: Host) -> None:
        async with self._changed:
            host.in_flight -= 1
            self._changed.notify_all()

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        tried: list[Host] = []
        failures = 0
        emitted = False

        async def delta(text: str) -> None:
            nonlocal emitted
            emitted = True
            await deliver(on_delta, text)

        while True:
            host = await self._acquire(tried)
            try:
                reply = await host.backend.chat(request, delta if on_delta is not None else None, on_thinking)
            except AssistantError as e:
                if isinstance(e, ServerUnreachable):
                    host.down_until = time.monotonic() + self.cooldown
                failures += 1
                if not e.retryable or emitted or failures > max(self.retries, len(self.hosts) - 1):
                    raise
                tried.append(host)
                if len(tried) == len(self.hosts):  # every host failed this call once: wait, then go round again
                    tried.clear()
                    await asyncio.sleep(min(MAX_BACKOFF, self.backoff * 2 ** (failures // len(self.hosts) - 1)))
                continue
            finally:
                await self._release(host)
            host.down_until = 0.0
            reply.transport_retries += failures
            if len(self.hosts) > 1:
                reply.notes.append(f"answered by {host.url}" + (f" after {failures} failed" if failures else ""))
            return reply

    async def capabilities(self, model: str) -> Capabilities:
        """What the model can do, asked of the first host that answers (one that does not is put aside as a call's
        would be)."""
        now = time.monotonic()
        healthy = [h for h in self.hosts if h.down_until <= now] or self.hosts
        for host in healthy[:-1]:
            try:
                return await host.backend.capabilities(model)
            except ServerUnreachable:
                host.down_until = time.monotonic() + self.cooldown
        return await healthy[-1].backend.capabilities(model)

    async def warm(self, models: list[str]) -> None:
        for host in self.hosts:
            warm = getattr(host.backend, "warm", None)
            if warm is not None:
                try:
                    await warm(models)
                except AssistantError:
                    host.down_until = time.monotonic() + self.cooldown

    async def aclose(self) -> None:
        for host in self.hosts:
            await host.backend.aclose()
