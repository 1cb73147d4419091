"""Current weather from Open-Meteo (no key; CC BY 4.0), for places resolved by the offline gazetteer
first and Open-Meteo's geocoder second. Reports are cached on disk; without a network the cached
report is returned with its age."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from tools.base import Permissions, PreviousTurn, Tool, ToolResult, Verdict
from tools.gazetteer import Gazetteer, Place, gazetteer
from tools.wmo import describe

ATTRIBUTION = "Weather data by Open-Meteo.com (CC BY 4.0)"
CURRENT = "temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,weather_code"

ZH_WEATHER_WORDS = ("天气", "气温", "温度", "多少度", "几度", "冷", "热", "凉", "暖和", "下雨", "下雪", "雨", "雪",
                    "晴", "阴天", "刮风", "风大", "湿度", "预报", "带伞", "雾霾")
EN_WEATHER_WORDS = ("weather", "forecast", "temperature", "temperatures", "rain", "raining", "rainy", "snow",
                    "snowing", "snowy", "cold", "hot", "warm", "chilly", "freezing", "sunny", "windy", "humid",
                    "humidity", "degrees", "umbrella", "cloudy", "storm", "stormy")
_EN_WEATHER = re.compile(r"\b(?:" + "|".join(EN_WEATHER_WORDS) + r")\b", re.IGNORECASE)
# "weather" used as a verb or in an idiom is not a question about the weather.
_NOT_WEATHER = re.compile(r"\bweather(?:ed|ing)?\s+(?:the|a|this|that|it|out)\b|\bunder the weather\b|mean\b|\bmeaning\b|\bdefin",
                          re.IGNORECASE)
# Capitalised words that are never place names here (sentence starts, question words, weather words).
_NOT_PLACES = {w.casefold() for w in (
    "what", "what's", "whats", "how", "how's", "is", "it", "will", "does", "do", "the", "a", "in", "at", "and", "or",
    "tell", "me", "today", "tomorrow", "now", "please", "which", "who", "where", "when", "should", "i", "can",
    "compare", "weather", "forecast", "hot", "cold", "warm", "rain", "snow", "sunny", "windy", "temperature",
)} | {*ZH_WEATHER_WORDS, "今天", "明天", "现在", "哪个", "怎么样"}


_FOLLOW_UP = re.compile(r"(呢|怎么样|如何|那边|那里)[?？]?$|^(那|还有|换成)|^(?i:and|what about|how about)\b"
                        r"|^[^\s]{1,12}[?？]?$|^(?:[A-Z][\w'’.-]*,?\s*){1,4}\?$")
_ASKS_WEATHER = re.compile(r"[?？吗呢]|怎么样|如何|多少|几度|\b(?i:what|how|is it|will it|tell me|forecast)\b")
_A_QUESTION = re.compile(r"[吗么谁哪]|为什么|怎么|\b(?i:why|what|how|who|where|when)\b")
_MENTIONS_ELSEWHERE = re.compile(r"\b(?i:in|at|for)\s+[A-Z]|在[\u3400-\u9fff]")


class WeatherConfig(BaseModel):
    forecast_url: str = "https://api.open-meteo.com"
    geocoding_url: str = "https://geocoding-api.open-meteo.com"
    cache_dir: str
    gazetteer_index: str
    cache_minutes: float = 15.0
    temperature_unit: Literal["celsius", "fahrenheit"] = "celsius"
    wind_speed_unit: Literal["kmh", "mph"] = "kmh"
    request_timeout: float = 8.0
    home_city: str | None = None  # the place meant when a weather question names none


class WeatherArgs(BaseModel):
    place: str = Field(..., min_length=1, max_length=100,
                       description="the place exactly as the user wrote it, e.g. '上海', 'Paris' or 'Paris, France'")
    language: Literal["zh", "en"] | None = Field(None, description="language of the user's question")


def _is_zh(text: str) -> bool:
    return bool(re.search(r"[\u3400-\u9fff]", text))


def is_weather_question(question: str) -> bool:
    if any(w in question for w in ZH_WEATHER_WORDS):
        return True
    return bool(_EN_WEATHER.search(question)) and not _NOT_WEATHER.search(question)


class _Offline(Exception):
    """The API could not be reached."""


class _ApiError(Exception):
    """The API answered with an error."""


class _Cache:
    """Reports and geocoder answers, in the tool's own cache directory."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(directory / "weather.sqlite", timeout=10, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored REAL NOT NULL)")

    def get(self, key: str) -> tuple[Any, float] | None:
        row = self.db.execute("SELECT value, stored FROM entries WHERE key = ?", (key,)).fetchone()
        return (json.loads(row[0]), time.time() - row[1]) if row else None

    def put(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)", (key, json.dumps(value, ensure_ascii=False), time.time()))


class Weather(Tool):
    name = "weather"
    description = ("Current weather (temperature, feels-like, humidity, wind, conditions) for a named place. "
                   "Use once per place; copy each place name exactly as the user wrote it.")
    Args = WeatherArgs
    Config = WeatherConfig

    def __init__(self, config: WeatherConfig) -> None:  # type: ignore[override]
        super().__init__(config)
        self.cfg = config
        self._cache: _Cache | None = None

    @property
    def permissions(self) -> Permissions:
        hosts = sorted({urlsplit(u).hostname or "" for u in (self.cfg.forecast_url, self.cfg.geocoding_url)})
        dirs = sorted({self.cfg.cache_dir, str(Path(self.cfg.gazetteer_index).parent)})
        return Permissions(network=hosts, files=dirs)

    @property
    def gazetteer(self) -> Gazetteer:
        return gazetteer(Path(self.cfg.gazetteer_index))

    @property
    def cache(self) -> _Cache:
        if self._cache is None:
            self._cache = _Cache(Path(self.cfg.cache_dir))
        return self._cache

    # run

    async def run(self, args: WeatherArgs) -> ToolResult:  # type: ignore[override]
        import aiohttp

        language = args.language or ("zh" if _is_zh(args.place) else "en")
        timeout = aiohttp.ClientTimeout(total=self.cfg.request_timeout)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            try:
                place = self.gazetteer.resolve(args.place) or await self._geocode(http, args.place, language)
            except _Offline:
                # Not a known place, and no network to look further: another name may still resolve offline.
                return ToolResult.failure(
                    f"Unknown place '{args.place}': the offline gazetteer does not know it and the online geocoder "
                    "cannot be reached (no network). Use the city name exactly as the user wrote it.")
            if place is None:
                return ToolResult.failure(
                    f"Unknown place '{args.place}': neither the gazetteer nor the geocoder knows it. "
                    "Use the place name exactly as the user wrote it."
                )
            units = f"{self.cfg.temperature_unit}/{self.cfg.wind_speed_unit}"
            key = f"report:{place.latitude:.3f},{place.longitude:.3f}:{units}"
            cached = self.cache.get(key)
            if cached and cached[1] < self.cfg.cache_minutes * 60:
                return self._result(args.place, place, cached[0], language, age=cached[1])
            try:
                report = await self._forecast(http, place)
            except _Offline:
                if cached:
                    return self._result(args.place, place, cached[0], language, age=cached[1], offline=True)
                return ToolResult(ok=False, error=self._offline_message(args.place, language), fixable=False)
            except _ApiError as e:
                return ToolResult(ok=False, error=f"Open-Meteo rejected the request for {place.label}: {e}", fixable=False)
            self.cache.put(key, report)
            return self._result(args.place, place, report, language, age=0)

    async def _get(self, http: Any, url: str, params: dict[str, Any]) -> Any:
        import aiohttp

        try:
            async with http.get(url, params=params) as resp:
                body = await resp.json(content_type=None)
                if resp.status >= 400 or (isinstance(body, dict) and body.get("error")):
                    reason = body.get("reason", f"HTTP {resp.status}") if isinstance(body, dict) else f"HTTP {resp.status}"
                    raise _ApiError(reason)
                return body
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError, OSError) as e:
            raise _Offline(str(e)) from None
        except (aiohttp.ContentTypeError, ValueError) as e:
            raise _ApiError(f"unreadable reply ({e})") from None

    async def _geocode(self, http: Any, name: str, language: str) -> Place | None:
        key = f"geo:{language}:{name}"
        hit = self.cache.get(key)
        if hit is not None:
            return Place.model_validate(hit[0]) if hit[0] else None
        try:
            body = await self._get(http, self.cfg.geocoding_url.rstrip("/") + "/v1/search",
                                   {"name": name, "count": 5, "language": language, "format": "json"})
        except _ApiError:
            return None
        results = [r for r in body.get("results", []) if "latitude" in r and "longitude" in r]
        place = None
        if results:
            best = max(results, key=lambda r: r.get("population") or 0)
            place = Place(geonameid=best.get("id", 0), name=best.get("name", name), country=best.get("country_code", ""),
                          latitude=best["latitude"], longitude=best["longitude"], population=best.get("population") or 0,
                          timezone=best.get("timezone", ""))
        self.cache.put(key, place.model_dump() if place else None)
        return place

    async def _forecast(self, http: Any, place: Place) -> dict[str, Any]:
        params = {"latitude": place.latitude, "longitude": place.longitude, "current": CURRENT, "timezone": "auto"}
        if self.cfg.temperature_unit != "celsius":
            params["temperature_unit"] = self.cfg.temperature_unit
        if self.cfg.wind_speed_unit != "kmh":
            params["wind_speed_unit"] = self.cfg.wind_speed_unit
        body = await self._get(http, self.cfg.forecast_url.rstrip("/") + "/v1/forecast", params)
        if not isinstance(body, dict) or "current" not in body:
            raise _ApiError("the reply has no current conditions")
        return {"current": body["current"], "units": body.get("current_units", {}), "timezone": body.get("timezone", "")}

    def _result(self, asked: str, place: Place, report: dict[str, Any], language: str, age: float,
                offline: bool = False) -> ToolResult:
        cur, units = report["current"], report.get("units", {})
        data: dict[str, Any] = {
            "place": asked,
            "resolved": place.label,
            "geonameid": place.geonameid,
            "observed_at": cur.get("time"),
            "timezone": report.get("timezone", ""),
            "temperature": f"{cur.get('temperature_2m')}{units.get('temperature_2m', '°C')}",
            "feels_like": f"{cur.get('apparent_temperature')}{units.get('apparent_temperature', '°C')}",
            "humidity": f"{cur.get('relative_humidity_2m')}%",
            "wind_speed": f"{cur.get('wind_speed_10m')} {units.get('wind_speed_10m', 'km/h')}",
            "conditions": describe(cur.get("weather_code"), language),
            "source": ATTRIBUTION,
        }
        if age >= 60:
            data["report_age_minutes"] = round(age / 60)
        if offline:
            minutes = round(age / 60)
            data["note"] = (f"没有网络:这是 {minutes} 分钟前缓存的天气。" if language == "zh"
                            else f"No network: this is the cached report from {minutes} minutes ago.")
        return ToolResult.success(**data)

    def _offline_message(self, place: str, language: str) -> str:
        host = urlsplit(self.cfg.forecast_url).hostname
        if language == "zh":
            return f"没有网络:无法连接 {host} 获取{place}的天气,也没有缓存的天气。请检查网络后再试。"
        return f"No network: cannot reach {host} for the weather in {place}, and there is no cached report. Check the connection and try again."

    # deterministic hooks

    def places_in(self, question: str) -> list[tuple[str, Place]]:
        return self.gazetteer.find(question, _NOT_PLACES)

    def _args(self, question: str, places: list[tuple[str, Place]]) -> list[BaseModel]:
        language: Literal["zh", "en"] = "zh" if _is_zh(question) else "en"
        seen: set[int] = set()
        args: list[BaseModel] = []
        for written, place in places:
            if place.geonameid not in seen:
                seen.add(place.geonameid)
                args.append(WeatherArgs(place=written, language=language))
        return args

    def route(self, question: str) -> list[BaseModel] | None:
        if not is_weather_question(question):
            return None
        places = self.places_in(question)
        if places:
            return self._args(question, places)
        if self.cfg.home_city and not _MENTIONS_ELSEWHERE.search(question):
            return [WeatherArgs(place=self.cfg.home_city, language="zh" if _is_zh(question) else "en")]
        return None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """"那北京呢?" / "and in Paris?" after a weather turn: the same question about another place."""
        if previous.route != self.name or len(question) > 40:
            return None
        places = self.places_in(question)
        if not places or not _FOLLOW_UP.search(question.strip()):
            return None
        return self._args(question, places)

    def missing(self, question: str) -> str | None:
        if not is_weather_question(question) or self.cfg.home_city or self.places_in(question):
            return None
        if not _ASKS_WEATHER.search(question):
            return None  # "I love rainy days" mentions rain but asks nothing
        if _is_zh(question):
            return "请问您想查询哪个城市的天气?"
        return "Which place would you like the weather for?"

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        places = self.places_in(reply)
        if places:
            return self._args(question, places)
        text = reply.strip().strip("?？。.!！,，")
        short = len(text) <= 10 if _is_zh(text) else len(text.split()) <= 4
        if text and short and not _A_QUESTION.search(text) and not is_weather_question(text):
            return [WeatherArgs(place=text, language="zh" if _is_zh(question) else "en")]  # the tool will resolve it
        return None

    def check(self, question: str, args: WeatherArgs, result: ToolResult) -> Verdict | None:  # type: ignore[override]
        if not result.ok:
            return Verdict(verdict="FAIL", reason=result.error or "the weather tool failed")
        named = self.places_in(question)
        if not named:
            return None  # the question names no place we know: let the model judge
        got = (result.data or {}).get("geonameid")
        if any(p.geonameid == got for _, p in named):
            return Verdict(verdict="PASS", reason="the place is the one the user named")
        wanted = " / ".join(w for w, _ in named)
        return Verdict(verdict="FAIL", reason=(
            f"the user asked about {wanted}, not {args.place}; call weather with place='{named[0][0]}' "
            "exactly as the user wrote it"))
