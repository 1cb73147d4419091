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

from tools.base import Grounding, KeyFact, LocalText, Permissions, PreviousTurn, Tool, ToolResult, Verdict, language_of
from tools.gazetteer import Gazetteer, Place, gazetteer
from tools.weather_text import (
    ZH_STRONG, ZH_WEAK, asks_any_place, asks_weather, names_something, place_phrase, split_excluded, weather_related,
    unknown_place, weather_sense,
)
from tools.wmo import condition_words, describe

ATTRIBUTION = "Weather data by Open-Meteo.com (CC BY 4.0)"
CURRENT = "temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,weather_code"

# Capitalised words that are never place names here (sentence starts, question words, weather words).
_NOT_PLACES = {w.casefold() for w in (
    "what", "what's", "whats", "how", "how's", "is", "it", "will", "does", "do", "the", "a", "in", "at", "and", "or",
    "tell", "me", "today", "tomorrow", "now", "please", "which", "who", "where", "when", "should", "i", "can",
    "compare", "weather", "forecast", "hot", "cold", "warm", "rain", "snow", "sunny", "windy", "temperature",
    "any", "anywhere", "random", "except", "but", "not", "sunset", "sunrise", "dawn", "dusk", "noon", "midnight",
    "morning", "afternoon", "evening", "night", "tonight", "weekend", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "here", "there", "nearby", "area", "city", "town", "state",
    "country", "forecast", "freezing", "chilly", "humid", "foggy", "cloudy", "stormy", "celsius", "fahrenheit",
    "kelvin", "english", "chinese", "french", "german", "spanish", "japanese", "christmas", "easter", "summer",
    "winter", "spring", "autumn", "fall", "mr", "mrs", "ms", "dr", "my", "our", "your", "his", "her", "their",
)} | {*ZH_STRONG, *ZH_WEAK, "今天", "明天", "现在", "哪个", "怎么样"}


# What a message may hold besides places and still only continue the previous weather turn ("那北京呢?",
# "and in Paris?", "What about Cairo?"): with its own verb or topic ("明天去徐州的航班") it is a new request.
_CONTINUATION = re.compile(
    r"what's|how's|那么|那|呢|还有|换成|换|再查|再看|的|天气|情况|怎么样|如何|咋样|那边|那里|现在|今天|目前|也"
    r"|\b(?:and|what|about|how|in|at|for|the|there|then|now|today|weather|please)\b"
    r"|[\s?？!！.。,，、~～]", re.IGNORECASE)
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


def is_weather_question(question: str) -> bool:
    """A weather word in the weather sense (see :mod:`tools.weather_text`)."""
    return weather_sense(question)


def _number(text: Any) -> float | None:
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", str(text))
    return float(m.group(1)) if m else None


def _shown(text: Any) -> str:
    """``2.0°C`` as ``2°C``: the figure as a person writes it."""
    return re.sub(r"^(-?\d+)\.0(?=\D|$)", r"\1", str(text))


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
    title = LocalText(zh="天气查询", en="weather lookup")

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

        language = args.language or language_of(args.place)
        timeout = aiohttp.ClientTimeout(total=self.cfg.request_timeout)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            try:
                place = self.gazetteer.resolve(args.place) or await self._geocode(http, args.place, language)
            except _Offline:
                # Not a known place, and no network to look further: another name may still resolve offline.
                return ToolResult.failure(
                    f"Unknown place '{args.place}': the offline gazetteer does not know it and the online geocoder "
                    "cannot be reached (no network). Use the city name exactly as the user wrote it.",
                    LocalText(zh=f"离线地名库里没有“{args.place}”,而且没有网络,无法在线查找。",
                              en=f"'{args.place}' is not in the offline place list, and there is no network to look it up."))
            if place is None:
                return ToolResult.failure(
                    f"Unknown place '{args.place}': neither the gazetteer nor the geocoder knows it. "
                    "Use the place name exactly as the user wrote it.",
                    LocalText(zh=f"找不到名为“{args.place}”的地方。", en=f"I could not find a place called '{args.place}'."))
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
                return ToolResult(ok=False, error=self._offline_message(args.place, language), fixable=False,
                                  message=LocalText(zh=self._offline_message(args.place, "zh"),
                                                    en=self._offline_message(args.place, "en")))
            except _ApiError as e:
                return ToolResult(ok=False, error=f"Open-Meteo rejected the request for {place.label}: {e}", fixable=False,
                                  message=LocalText(zh="天气服务拒绝了这次查询,请稍后再试。",
                                                    en="the weather service refused the request; try again later."))
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
        search, country, region = name, None, None
        if "," in name:  # "Wells, Indiana": the search takes a name only; the qualifier picks among the results
            head, _, tail = name.rpartition(",")
            qualifier = self.gazetteer.qualifier(tail.strip())
            if qualifier:
                search, country, region = head.strip(), qualifier[0], tail.strip().casefold()
        try:
            body = await self._get(http, self.cfg.geocoding_url.rstrip("/") + "/v1/search",
                                   {"name": search, "count": 10, "language": language, "format": "json"})
        except _ApiError:
            return None
        results = [r for r in body.get("results", []) if "latitude" in r and "longitude" in r]
        if country:
            results = [r for r in results if r.get("country_code") == country]
            in_region = [r for r in results if str(r.get("admin1", "")).casefold() == region]
            results = in_region or results
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
        """The places ``question`` names and does not exclude, as written."""
        return self.named_and_excluded(question)[0]

    def named_and_excluded(self, question: str) -> tuple[list[tuple[str, Place]], list[tuple[str, Place]]]:
        found = self.gazetteer.find(question, _NOT_PLACES)
        if asks_any_place(question):  # "随便一个中国城市", "any city in France": the country is the scope, not the place
            found = [(w, p) for w, p in found if self.gazetteer.country(w) is None]
        return split_excluded(question, found)  # type: ignore[return-value]

    def _args(self, question: str, places: list[tuple[str, Place]]) -> list[BaseModel]:
        language = language_of(question)
        seen: set[int] = set()
        args: list[BaseModel] = []
        for written, place in places:
            if place.geonameid not in seen:
                seen.add(place.geonameid)
                args.append(WeatherArgs(place=written, language=language))
        return args

    def route(self, question: str) -> list[BaseModel] | None:
        if not weather_sense(question):
            return None
        named, excluded = self.named_and_excluded(question)
        if named:
            return self._args(question, named)
        if excluded or asks_any_place(question):
            return None  # "any city but …": the model picks, the check holds it to the exclusions
        unknown = unknown_place(question, _NOT_PLACES)
        if unknown and "," not in unknown:  # "Hebbronville Venezuela": a country or state closing the name qualifies it
            words = unknown.split()
            for k in (3, 2, 1):
                if len(words) > k and self.gazetteer.qualifier(" ".join(words[-k:])):
                    unknown = f"{' '.join(words[:-k])}, {' '.join(words[-k:])}"
                    break
        if unknown:
            return [WeatherArgs(place=unknown, language=language_of(question))]  # looked up online by the tool
        if self.cfg.home_city and not _MENTIONS_ELSEWHERE.search(question) and not place_phrase(question):
            return [WeatherArgs(place=self.cfg.home_city, language=language_of(question))]
        return None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """"那北京呢?" / "and in Paris?" after a weather turn: the same question about another place."""
        if previous.route != self.name or len(question) > 40:
            return None
        places = self.places_in(question)
        if not places:
            return None
        rest = question
        for written, _ in places:
            rest = rest.replace(written, " ")
        if _CONTINUATION.sub("", rest):
            return None  # it says more than "and there?": the model reads it, with the previous turn before it
        return self._args(question, places)

    def missing(self, question: str) -> str | None:
        if self.cfg.home_city or not asks_weather(question):
            return None
        named, excluded = self.named_and_excluded(question)
        if named or excluded or asks_any_place(question) or names_something(question):
            return None
        if language_of(question) == "zh":
            return "请问您想查询哪个城市的天气?"
        return "Which place would you like the weather for?"

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        places = self.places_in(reply)
        if places:
            return self._args(question, places)
        text = reply.strip().strip("?？。.!！,，")
        short = len(text) <= 10 if language_of(text) == "zh" else len(text.split()) <= 4
        if text and short and not _A_QUESTION.search(text) and not is_weather_question(text):
            return [WeatherArgs(place=text, language=language_of(question))]  # the tool will resolve it
        return None

    def grounding(self, question: str) -> Grounding:
        """A model's weather route stands only on a weather question that names a place (or lets the model pick
        one, or has a home city); a weather question without a place is asked back; anything else is chat."""
        if not weather_related(question):
            return "ungrounded"
        named, excluded = self.named_and_excluded(question)
        if named or self.cfg.home_city or asks_any_place(question) or names_something(question):
            return "grounded"
        return "ask" if asks_weather(question) else "ungrounded"

    def _excluded(self, question: str, geonameid: int | None) -> Verdict | None:
        _, excluded = self.named_and_excluded(question)
        ruled_out = [w for w, p in excluded if p.geonameid == geonameid]
        if not ruled_out:
            return None
        others = ", ".join(w for w, _ in excluded)
        return Verdict(verdict="FAIL", reason=f"the user excluded {ruled_out[0]}; choose a place that is not one of: {others}",
                       message=LocalText(zh=f"模型选了您排除的地方({ruled_out[0]})。",
                                         en=f"the model chose a place you ruled out ({ruled_out[0]})."))

    def vet(self, question: str, args: WeatherArgs) -> Verdict | None:  # type: ignore[override]
        place = self.gazetteer.resolve(args.place)
        return self._excluded(question, place.geonameid) if place else None

    def check(self, question: str, args: WeatherArgs, result: ToolResult) -> Verdict | None:  # type: ignore[override]
        if not result.ok:
            return Verdict(verdict="FAIL", reason=result.error or "the weather tool failed", message=result.message)
        got = (result.data or {}).get("geonameid")
        ruled_out = self._excluded(question, got)
        if ruled_out:
            return ruled_out
        named = self.places_in(question)
        if not named:
            return None  # the question names no place we know: let the model judge
        if any(p.geonameid == got for _, p in named):
            return Verdict(verdict="PASS", reason="the place is the one the user named")
        wanted = " / ".join(w for w, _ in named)
        return Verdict(verdict="FAIL", reason=(
            f"the user asked about {wanted}, not {args.place}; call weather with place='{named[0][0]}' "
            "exactly as the user wrote it"),
            message=LocalText(zh=f"模型查询的地点不是您说的{wanted}。", en=f"the model looked up another place than {wanted}."))

    # the answer

    def key_facts(self, args: WeatherArgs, result: ToolResult) -> list[KeyFact]:  # type: ignore[override]
        data = result.data or {}
        place = args.place.split(",")[0].strip()
        facts = [KeyFact(label=f"the place ({place})", words=[place, str(data.get("resolved", "")).split(",")[0]])]
        temperature = _number(data.get("temperature"))
        if temperature is not None:
            facts.append(KeyFact(label=f"the temperature in {place} ({_shown(data['temperature'])})",
                                 number=temperature, tolerance=0.5))
        conditions = data.get("conditions")
        if conditions:
            facts.append(KeyFact(label=f"the conditions in {place} ({conditions})",
                                 words=[conditions, *condition_words(conditions)]))
        return facts

    def render(self, question: str, args: WeatherArgs, result: ToolResult) -> str | None:  # type: ignore[override]
        if not result.ok or not result.data:
            return None
        d = result.data
        if language_of(question) == "zh":
            text = (f"{args.place}现在 {_shown(d['temperature'])},{d['conditions']},体感 {_shown(d['feels_like'])},"
                    f"湿度 {d['humidity']},风速 {_shown(d['wind_speed'])}。")
        else:
            text = (f"{args.place}: {_shown(d['temperature'])} now, {d['conditions']}, feels like {_shown(d['feels_like'])}, "
                    f"humidity {d['humidity']}, wind {_shown(d['wind_speed'])}.")
        return f"{text} {d['note']}" if d.get("note") else text

    def render_all(self, question: str, executed: list[tuple[BaseModel, ToolResult]]) -> str:
        text = super().render_all(question, executed)
        temps = [(_number((r.data or {}).get("temperature")), a.place) for a, r in executed if r.ok]  # type: ignore[attr-defined]
        temps = [(t, p) for t, p in temps if t is not None]
        if len(temps) < 2:
            return text
        (low, coldest), (high, warmest) = min(temps), max(temps)
        zh = language_of(question) == "zh"
        if low == high:
            return text + ("\n几个地方温度一样。" if zh else "\nThey are equally warm.")
        if len(temps) == 2:
            return text + (f"\n{coldest}比{warmest}冷。" if zh else f"\n{coldest} is colder than {warmest}.")
        return text + (f"\n最冷的是{coldest},最暖和的是{warmest}。" if zh
                       else f"\nThe coldest is {coldest}, the warmest {warmest}.")
