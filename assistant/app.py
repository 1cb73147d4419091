"""Wiring: the pipeline with its real dependencies, from settings."""

from __future__ import annotations

from typing import Callable

from assistant.config import Settings
from assistant.models.select import SelectedBackend
from assistant.paths import Paths
from assistant.pipeline.turn import Assistant
from assistant.store import Store
from tools import Registry, Tool, ToolRunner
from tools.calculator import Calculator
from tools.gazetteer import INDEX_VERSION
from tools.sandbox import SandboxRunner
from tools.weather import Weather, WeatherConfig

# The built-in tools, each with how it is built from the settings: the one place a tool is wired in.
TOOLS: list[Callable[[Settings, Paths], Tool]] = [
    lambda settings, paths: Calculator(),
    lambda settings, paths: Weather(weather_config(settings, paths)),
]


def build_assistant(settings: Settings, paths: Paths, notify: Callable[[str], None] | None = None,
                    runner: ToolRunner | None = None) -> Assistant:
    """``notify`` hears, once, which backend answers when the choice was a fallback. Tools run in the
    sandbox unless another ``runner`` is given (tests of the pipeline's logic run them in-process)."""
    paths.ensure()
    backend = SelectedBackend(settings, notify)
    registry = build_registry(settings, paths)
    runner = runner or SandboxRunner(timeout=settings.tool_timeout, memory_mb=settings.tool_memory_mb,
                                     cpu_seconds=settings.tool_cpu_seconds, log=paths.log_dir / "tools.log")
    return Assistant(settings, backend, registry, runner, Store(paths.database))


def build_registry(settings: Settings, paths: Paths) -> Registry:
    """Every tool, configured from ``settings``."""
    return Registry([make(settings, paths) for make in TOOLS])


def weather_config(settings: Settings, paths: Paths) -> WeatherConfig:
    return WeatherConfig(
        forecast_url=settings.weather_forecast_url, geocoding_url=settings.weather_geocoding_url,
        cache_dir=str(paths.cache_dir / "weather"),
        gazetteer_index=settings.gazetteer_index or str(paths.cache_dir / "gazetteer" / f"places-v{INDEX_VERSION}.sqlite"),
        cache_minutes=settings.weather_cache_minutes, temperature_unit=settings.temperature_unit,
        wind_speed_unit=settings.wind_speed_unit, home_city=settings.home_city, clock=settings.clock,
    )
