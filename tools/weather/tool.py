"""The weather tool: what it is, what it may reach, and its parts (reading the question, Open-Meteo, the answer)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

from tools.base import Finding, Grounding, KeyFact, LocalText, Permissions, PreviousTurn, Tool, ToolResult, Verdict
from tools.gazetteer import Gazetteer, Place, gazetteer, index_path
from tools.net import plain_error
from tools.weather.answer import WeatherAnswers
from tools.weather.config import WeatherArgs, WeatherConfig
from tools.weather.question import WeatherQuestions
from tools.weather.service import OpenMeteo


class Weather(Tool[WeatherArgs]):
    """The tool as the registry sees it, put together from its parts: what reads the question, the service and
    what writes the answer are objects it holds (each given what it needs), not mixins sharing its attributes."""

    name = "weather"
    description = ("Weather for a named place: now (temperature, feels-like, humidity, wind, conditions), or the forecast "
                   "for a day, part of a day or span of days up to 16 days ahead (set 'when'). Use once per place; "
                   "copy each place name and the day exactly as the user wrote them.")
    Args = WeatherArgs
    Config = WeatherConfig
    warm_imports = ("aiohttp",)  # its HTTP client: a quarter of a second, paid as its worker starts
    reads = (
        ("what's the weather in Paris", {"place": "Paris"}), ("北京天气怎么样", {"place": "北京"}), ("good evening, weather in Paris please", {"place": "Paris"}),
        ("do you know if it will rain in London tomorrow?", {"place": "London"}),
        ("帮我查一下北京天气", {"place": "北京"}), ("你好，上海今天天气如何？谢谢", {"place": "上海"}),
    )
    near_misses = ("Nice.", "Reading.", "Paris.", "Nice work!", "I love Paris", "the clouds in this picture are beautiful",
                   "that was a stormy meeting", "she has a sunny personality", "I'm under the weather today",
                   "这张图片里的云真好看", "今天的会议气氛很冷", "北京是个好地方", "System: weather in Paris",
                   "that meeting was stormy", "it was sunny")
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
        """The place index is there (unpacked now when it is not), and Open-Meteo answers (offline, answers come from
        the cache)."""
        import asyncio

        import aiohttp

        index = Path(self.cfg.gazetteer_index)
        built = not index.exists()
        try:
            await asyncio.to_thread(self.gazetteer._conn)
            places = Finding(name="place index", level="ok", detail=f"{index}" + (" (unpacked now: it was missing)"
                                                                                  if built else ""))
        except Exception as e:  # noqa: BLE001
            places = Finding(name="place index", level="warn", detail=f"{index} cannot be unpacked ({plain_error(e)})",
                             fix="make its folder writable; it is unpacked again on the next question about a place")

        url = self.cfg.forecast_url.rstrip("/") + "/v1/forecast?latitude=0&longitude=0&current=temperature_2m"
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=4)) as http:
                async with http.get(url) as resp:
                    status = resp.status
        except Exception as e:
            return [places, Finding(name="weather service", level="warn", detail=f"{self.cfg.forecast_url} unreachable "
                            f"({plain_error(e)})", fix="offline: weather answers come from the cache until the network is back")]
        return [places, Finding(name="weather service", level="ok" if status < 500 else "warn",
                                detail=f"{self.cfg.forecast_url} answers (HTTP {status})")]

    def __init__(self, config: WeatherConfig) -> None:
        super().__init__(config)
        self.cfg = config
        self.service = OpenMeteo(config, places=lambda: self.gazetteer)
        self.questions = WeatherQuestions(config, places=lambda: self.gazetteer, route=self.name)
        self.answers = WeatherAnswers(self.questions, now=self.service.now)

    # the hooks, each the part's that knows

    async def run(self, args: WeatherArgs) -> ToolResult:
        return await self.service.run(args)

    def now(self) -> datetime:
        return self.service.now()

    def places_in(self, question: str) -> list[tuple[str, Place]]:
        """The places the question names, as written."""
        return self.questions.places_in(question)

    def when_in(self, question: str) -> str | None:
        """The question's time phrase ("明天", "on Sunday"), as written."""
        return self.questions.when_in(question)

    def route(self, question: str) -> list[BaseModel] | None:
        return self.questions.route(question)

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        return self.questions.follow_up(question, previous)

    def from_reading(self, target: str, question: str) -> list[BaseModel] | str | None:
        return self.questions.from_reading(question) if target == "weather" else None

    def missing(self, question: str) -> str | None:
        return self.questions.missing(question)

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        return self.questions.complete(question, reply)

    def grounding(self, question: str) -> Grounding:
        return self.questions.grounding(question)

    def vet(self, question: str, args: WeatherArgs) -> Verdict | None:
        return self.questions.vet(question, args)

    def check(self, question: str, args: WeatherArgs, result: ToolResult) -> Verdict | None:
        return super().check(question, args, result) if not result.ok else self.answers.check(question, args, result)

    def contradiction(self, executed: list[tuple[BaseModel, ToolResult]], sentence: str) -> str | None:
        return self.answers.contradiction(executed, sentence)

    def key_facts(self, args: WeatherArgs, result: ToolResult) -> list[KeyFact]:
        return self.answers.key_facts(args, result)

    def render(self, question: str, args: WeatherArgs, result: ToolResult) -> str | None:
        return self.answers.render(question, args, result)

    def render_all(self, question: str, executed: list[tuple[WeatherArgs, ToolResult]]) -> str:
        return self.answers.compared(question, executed, super().render_all(question, executed))

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
