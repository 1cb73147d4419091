"""Wiring: the pipeline with its real dependencies, from settings."""

from __future__ import annotations

from assistant.config import Settings
from assistant.models.ollama import OllamaBackend
from assistant.paths import Paths
from assistant.pipeline import Assistant
from assistant.store import Store
from tools import default_registry
from tools.sandbox import SandboxRunner


def build_assistant(settings: Settings, paths: Paths) -> Assistant:
    paths.ensure()
    backend = OllamaBackend(
        host=settings.ollama_host, timeout=settings.request_timeout, keep_alive=settings.keep_alive,
        transport_retries=settings.transport_retries, backoff=settings.transport_backoff,
    )
    runner = SandboxRunner(timeout=settings.tool_timeout, memory_mb=settings.tool_memory_mb,
                           cpu_seconds=settings.tool_cpu_seconds, log=paths.log_dir / "tools.log")
    return Assistant(settings, backend, default_registry(), runner, Store(paths.database))
