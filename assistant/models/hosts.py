"""Several model servers of one kind (``hosts``: Ollama hosts, or OpenAI-compatible replicas with no load balancer
in front) behind the one backend interface.

How many calls a host takes at once follows what the server says, not a constant: its parallel slots where it
says (llama.cpp's ``/props``), halved when it answers busy (Ollama's 503 past OLLAMA_MAX_QUEUE, a 429), grown back
by one for each round of calls it answers (additive increase, multiplicative decrease, as TCP does). Unbounded
otherwise, so a listed host takes what it would take unlisted; ``per_host`` (``host_max_in_flight``) caps it.

Each call goes to the healthy host where it should finish first: calls in flight times the host's recent time
per call (an untried host counts as the fastest, so it is tried). With nothing in flight anywhere, the first
listed healthy host, so one question at a time, as ``ask`` and the daemon send them, stays on one host and its
prefix cache. A call that fails in transit (refused, 5xx, a broken stream before any text) is sent to another
host at once; a host that refuses connections is out of rotation for ``cooldown`` seconds. A call is answered
once: only a call that failed is sent again, and never one whose text was already streamed."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from assistant.errors import AssistantError, ServerUnreachable
from assistant.models.base import ChatReply, ModelProfile, ChatRequest, DeltaSink, ModelBackend, deliver
from assistant.models.transport import MAX_BACKOFF


UNBOUNDED = 1024  # no limit of ours: as many as the callers send (batch -j)
SMOOTHING = 0.2  # weight of the newest call in a host's time per call


@dataclass(eq=False)
class Host:
    url: str
    backend: ModelBackend
    limit: float = UNBOUNDED
    ceiling: int = UNBOUNDED
    in_flight: int = 0
    down_until: float = 0.0
    seconds: float | None = None  # recent time per answered call
    asked: bool = False  # its slots were asked


class HostPool:
    def __init__(self, hosts: list[tuple[str, ModelBackend]], per_host: int | None = None, cooldown: float = 30.0,
                 retries: int = 3, backoff: float = 0.5) -> None:
        self.hosts = [Host(url, backend, limit=per_host or UNBOUNDED, ceiling=per_host or UNBOUNDED)
                      for url, backend in hosts]
        self.per_host = per_host
        self._learning: asyncio.Future[None] | None = None
        self.cooldown = cooldown
        self.retries = retries
        self.backoff = backoff
        self._changed = asyncio.Condition()

    @property
    def name(self) -> str:
        return self.hosts[0].backend.name

    async def _learn(self) -> None:
        """Each host's parallel slots, asked once, where its server says (a limit of ours, ``per_host``, wins)."""
        hosts = [h for h in self.hosts if not h.asked]
        if self.per_host is None:
            await asyncio.gather(*(self._ask_slots(h) for h in hosts), return_exceptions=True)
        for h in hosts:
            h.asked = True

    @staticmethod
    async def _ask_slots(h: Host) -> None:
        slots = getattr(h.backend, "slots", None)
        found = await slots() if slots is not None else None
        if found:
            h.limit = h.ceiling = found

    def _finishes_first(self, free: list[Host]) -> Host:
        if all(h.in_flight == 0 for h in self.hosts):
            return free[0]  # one question at a time stays on one host (and its prefix cache)
        known = [h.seconds for h in self.hosts if h.seconds is not None]
        fastest = min(known, default=1.0)
        return min(free, key=lambda h: ((h.in_flight + 1) * (h.seconds if h.seconds is not None else fastest),
                                        self.hosts.index(h)))

    async def _acquire(self, tried: list[Host]) -> Host:
        """A slot on the healthy host not yet tried for this call where it should finish first (when every host is
        down, the one back soonest: it may be up again)."""
        if any(not h.asked for h in self.hosts):
            self._learning = self._learning or asyncio.ensure_future(self._learn())
            await asyncio.shield(self._learning)
        async with self._changed:
            while True:
                now = time.monotonic()
                untried = [h for h in self.hosts if h not in tried]
                healthy = [h for h in untried if h.down_until <= now] or sorted(untried, key=lambda h: h.down_until)[:1]
                free = [h for h in healthy if h.in_flight < max(1, int(h.limit))]
                if free:
                    host = self._finishes_first(free)
                    host.in_flight += 1
                    return host
                await self._changed.wait()

    @staticmethod
    def _answered(host: Host, seconds: float) -> None:
        host.limit = min(host.ceiling, host.limit + 1 / max(1.0, host.limit))
        host.seconds = seconds if host.seconds is None else (1 - SMOOTHING) * host.seconds + SMOOTHING * seconds

    @staticmethod
    def _busy(host: Host) -> None:
        """The server said it is overloaded: it gets half the calls it had in flight (at least one)."""
        host.limit = max(1.0, min(host.limit, host.in_flight) / 2)

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
            started = time.monotonic()
            try:
                reply = await host.backend.chat(request, delta if on_delta is not None else None, on_thinking)
            except AssistantError as e:
                if isinstance(e, ServerUnreachable):
                    host.down_until = time.monotonic() + self.cooldown
                if e.busy:
                    self._busy(host)
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
            self._answered(host, time.monotonic() - started)
            reply.transport_retries += failures
            if len(self.hosts) > 1:
                reply.notes.append(f"answered by {host.url}" + (f" after {failures} failed" if failures else ""))
            return reply

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        """The model's profile, asked of the first host that answers (one that does not is put aside as a call's
        would be)."""
        now = time.monotonic()
        healthy = [h for h in self.hosts if h.down_until <= now] or self.hosts
        for host in healthy[:-1]:
            try:
                return await host.backend.profile(model, ask)
            except ServerUnreachable:
                host.down_until = time.monotonic() + self.cooldown
        return await healthy[-1].backend.profile(model, ask)

    async def count_tokens(self, text: str) -> int | None:
        return await self.hosts[0].backend.count_tokens(text)

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
