"""The weather tool: what it is, what it may reach, and its parts (reading the question, Open-Meteo, the answer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tools.base import Finding, LocalText, Permissions, Tool
from tools.gazetteer import Gazetteer, gazetteer, index_path
from tools.weather.answer import Answering
from tools.weather.config import WeatherArgs, WeatherConfig
from tools.weather.question import Reading
from tools.net import plain_error
from tools.weather.service import OpenMeteo, _Cache


class Weather(Reading, Answering, OpenMeteo, Tool[WeatherArgs]):
    """The tool as the registry sees it; its hooks come from its parts."""

    name = "weather"
    description = ("Weather for a named place: now (temperature, feels-like, humidity, wind, conditions), or the forecast "
                   "for a day, part of a day or span of days up to 16 days ahead (set 'when'). Use once per place; "
                   "copy each place name and the day exactly as the user wrote them.")
    Args = WeatherArgs
    Config = WeatherConfig
    internal_fields = frozenset({"geonameid"})  # the gazetteer's id of the place: no answer's figure
    continues_by_substitution = False  # its follow-ups (a place, a day) are its own; a place-swapped question is not
    title = LocalText(zh="天气查询", en="weather lookup")

    @classmethod
    def from_settings(cls, settings: Any, paths: Any) -> Weather:
        return cls(WeatherConfig(
            forecast_url=settings.weather_forecast_url, geocoding_url=settings.weather_geocoding_url,
            cache_dir=str(paths.cache_dir / "weather"), gazetteer_index=index_path(settings, paths),
            cache_minutes=settings.weather_cache_minutes, temperature_unit=settings.temperature_unit,
            wind_speed_unit=settings.wind_speed_unit, home_city=settings.home_city, clock=settings.clock))

    async def doctor(self) -> list[Finding]:
        """Open-Meteo answers (offline, answers come from the cache)."""
        import aiohttp

        url = self.cfg.forecast_url.rstrip("/") + "/v1/forecast?latitude=0&longitude=0&current=temperature_2m"
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=4)) as http:
                async with http.get(url) as resp:
                    status = resp.status
        except Exception as e:
            return [Finding(name="weather service", level="warn", detail=f"{self.cfg.forecast_url} unreachable "
                            f"({plain_error(e)})", fix="offline: weather answers come from the cache until the network is back")]
        return [Finding(name="weather service", level="ok" if status < 500 else "warn",
                        detail=f"{self.cfg.forecast_url} answers (HTTP {status})")]

    def __init__(self, config: WeatherConfig) -> None:  # type: ignore[override]
        super().__init__(config)
        self.cfg = config
        self._cache: _Cache | None = None

    @property
    def permissions(self) -> Permissions:
        urls = [urlsplit(u) for u in (self.cfg.forecast_url, self.cfg.geocoding_url)]
        hosts = sorted({u.hostname or "" for u in urls})
        ports = sorted({u.port or (443 if u.scheme == "https" else 80) for u in urls})
        dirs = sorted({self.cfg.cache_dir, str(Path(self.cfg.gazetteer_index).parent)})
        return Permissions(network=hosts, ports=ports, files=dirs)

    @property
    def gazetteer(self) -> Gazetteer:
        return gazetteer(Path(self.cfg.gazetteer_index))
