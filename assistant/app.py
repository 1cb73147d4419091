"""Wiring: the pipeline with its real dependencies, from settings."""

from __future__ import annotations

from assistant.config import Settings
from assistant.models.ollama import OllamaBackend
from assistant.paths import Paths
from assistant.pipeline import Assistant
from assistant.store import Store
from tools import InProcessRunner, default_registry


def build_assistant(settings: Settings, paths: Paths) -> Assistant:
    paths.ensure()
    backend = OllamaBackend(
        host=settings.ollama_host, timeout=settings.request_timeout, keep_alive=settings.keep_alive,
        transport_retries=settings.transport_retries, backoff=settings.transport_backoff,
    )
    return Assistant(settings, backend, default_registry(), InProcessRunner(settings.tool_timeout), Store(paths.database))
