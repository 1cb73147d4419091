"""The weather tool: what it is, what it may reach, and its parts (reading the question, Open-Meteo, the answer)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from tools.base import LocalText, Permissions, Tool
from tools.gazetteer import Gazetteer, gazetteer
from tools.weather.answer import Answering
from tools.weather.config import WeatherArgs, WeatherConfig
from tools.weather.question import Reading
from tools.weather.service import OpenMeteo, _Cache


class Weather(Reading, Answering, OpenMeteo, Tool):
    """The tool as the registry sees it; its hooks come from its parts."""

    name = "weather"
    description = ("Weather for a named place: now (temperature, feels-like, humidity, wind, conditions), or the forecast "
                   "for a day, part of a day or span of days up to 16 days ahead (set 'when'). Use once per place; "
                   "copy each place name and the day exactly as the user wrote them.")
    Args = WeatherArgs
    Config = WeatherConfig
    title = LocalText(zh="天气查询", en="weather lookup")

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
