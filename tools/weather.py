"""Weather now, or for a day or a span of days (a forecast), from Open-Meteo (no key; CC BY 4.0), for places
resolved by the offline gazetteer first and Open-Meteo's geocoder second. Days are resolved by
:mod:`tools.when` in the place's own timezone. Reports and forecast days are cached on disk; without a
network the cached ones are returned with their age."""

from __future__ import annotations

import asyncio
import functools
import json
import re
import sqlite3
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from tools.base import Grounding, KeyFact, LocalText, Permissions, PreviousTurn, Tool, ToolResult, Verdict, language_of
from tools.gazetteer import Gazetteer, Place, gazetteer
from tools.weather_text import (
    EN_STRONG, EN_WEAK, ZH_STRONG, ZH_WEAK, asks_any_place, asks_weather, names_something, place_phrase,
    explains, split_excluded, states_temperature, unknown_place, weather_related, weather_sense,
)
from tools.when import Period, current_time, day_name, find_when, out_of_range, resolve
from tools.wmo import condition_words, describe

ATTRIBUTION = "Weather data by Open-Meteo.com (CC BY 4.0)"
CURRENT = "temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,weather_code"
DAILY = ("temperature_2m_max,temperature_2m_min,precipitation_probability_max,precipitation_sum,weather_code,"
         "wind_speed_10m_max")
HOURLY = "temperature_2m,precipitation_probability,weather_code,wind_speed_10m"

# Capitalised words that are never place names here (sentence starts, question words, weather words).
_NOT_PLACES = {w.casefold() for w in (
    "what", "what's", "whats", "how", "how's", "is", "it", "will", "does", "do", "the", "a", "in", "at", "and",
    "or", "tell", "me", "today", "tomorrow", "now", "please", "which", "who", "where", "when", "should", "i", "can",
    "compare", "any", "anywhere", "random", "except", "but", "not", "sunset", "sunrise", "dawn", "dusk", "noon",
    "midnight", "morning", "afternoon", "evening", "night", "tonight", "weekend", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december", "here", "there", "nearby", "area", "city", "town",
    "state", "country", "celsius", "fahrenheit", "kelvin", "english", "chinese", "french", "german", "spanish",
    "japanese", "christmas", "easter", "summer", "winter", "spring", "autumn", "fall", "mr", "mrs", "ms", "dr",
    "my", "our", "your", "his", "her", "their", "jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec", "on", "am", "pm",
    *EN_STRONG, *EN_WEAK,
)} | {*ZH_STRONG, *ZH_WEAK, "今天", "明天", "现在", "哪个", "怎么样"}


# What a message may hold besides places and still only continue the previous weather turn ("那北京呢?",
# "and in Paris?", "What about Cairo?"): with its own verb or topic ("明天去徐州的航班") it is a new request.
_CONTINUATION = re.compile(
    r"what's|how's|那么|那|呢|还有|换成|换|再查|再看|的|天气|情况|怎么样|如何|咋样|那边|那里|现在|今天|目前|也"
    r"|\b(?:and|what|about|how|in|at|on|for|the|there|then|now|today|weather|please)\b"
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
    clock: str | None = None  # "now" as ISO 8601 (tests, reproducible runs); None: the real time


class WeatherArgs(BaseModel):
    place: str = Field(..., min_length=1, max_length=100,
                       description="the place exactly as the user wrote it, e.g. '上海', 'Paris' or 'Paris, France'")
    when: str | None = Field(None, max_length=40, description=(
        "the day or time asked about, exactly as the user wrote it, e.g. '明天', '周五下午', 'this weekend', "
        "'next 3 days'; leave it out for the weather now"))
    language: Literal["zh", "en"] | None = Field(None, description="language of the user's question")


def is_weather_question(question: str) -> bool:
    """A weather word in the weather sense (see :mod:`tools.weather_text`)."""
    return weather_sense(question)


def _number(text: Any) -> float | None:
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", str(text))
    return float(m.group(1)) if m else None


def _unit(text: Any) -> str:
    """``2.0°C`` → ``°C``."""
    return re.sub(r"^\s*-?\d+(?:\.\d+)?\s*", "", str(text))


def _shown(text: Any) -> str:
    """``2.0°C`` as ``2°C``: the figure as a person writes it."""
    return re.sub(r"^(-?\d+)\.0(?=\D|$)", r"\1", str(text))


_NOW = {"now", "right now", "currently", "current", "at the moment", "现在", "目前", "当前", "此刻", "这会儿"}


def _local(now: datetime, zone: str) -> datetime | None:
    """``now`` in the IANA ``zone``; ``None`` when the zone is unknown here."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not zone:
        return None
    try:
        return now.astimezone(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _aged(data: dict[str, Any], age: float, offline: bool, language: str, zh: str, en: str) -> dict[str, Any]:
    """``data`` with the age of a cached result, and, offline, a note saying it is cached (``zh``: what it is;
    ``en``: the English phrase, ``{}`` standing for the minutes)."""
    if age >= 60:
        data["report_age_minutes"] = round(age / 60)
    if offline:
        minutes = round(age / 60)
        data["note"] = f"没有网络:这是 {minutes} 分钟前缓存的{zh}。" if language == "zh" else f"No network: this is {en.format(minutes)}."
    return data


def _is_today(period: Period, local: datetime) -> bool:
    return period.start == period.end == local.date()


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


_ASKS_ON = re.compile(r"\?|\b(?:and|what\s+about|how\s+about|what\s+of|same\s+for|then)\b", re.IGNORECASE)


class Weather(Tool):
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
            if args.when and args.when.strip().casefold() not in _NOW:
                return await self._forecast_result(http, args, place, language)
            key = self._report_key(place)
            cached = self.cache.get(key)
            if cached and cached[1] < self.cfg.cache_minutes * 60:
                return self._result(args.place, place, cached[0], language, age=cached[1])
            try:
                report = await self._forecast(http, place)
            except _Offline:
                if cached:
                    return self._result(args.place, place, cached[0], language, age=cached[1], offline=True)
                return self._offline(args.place, language)
            except _ApiError as e:
                return self._refused(place, e)
            self.cache.put(key, report)
            return self._result(args.place, place, report, language, age=0)

    def _units(self) -> str:
        return f"{self.cfg.temperature_unit}/{self.cfg.wind_speed_unit}"

    def _unit_params(self) -> dict[str, str]:
        """The units asked of Open-Meteo, where they differ from its defaults (°C, km/h)."""
        params = {}
        if self.cfg.temperature_unit != "celsius":
            params["temperature_unit"] = self.cfg.temperature_unit
        if self.cfg.wind_speed_unit != "kmh":
            params["wind_speed_unit"] = self.cfg.wind_speed_unit
        return params

    def _report_key(self, place: Place) -> str:
        return f"report:{place.latitude:.3f},{place.longitude:.3f}:{self._units()}"

    def _day_key(self, place: Place, day: date) -> str:
        return f"day:{place.latitude:.3f},{place.longitude:.3f}:{self._units()}:{day.isoformat()}"

    def _offline(self, place: str, language: str) -> ToolResult:
        return ToolResult(ok=False, error=self._offline_message(place, language), fixable=False,
                          message=LocalText(zh=self._offline_message(place, "zh"), en=self._offline_message(place, "en")))

    @staticmethod
    def _refused(place: Place, e: Exception) -> ToolResult:
        return ToolResult(ok=False, error=f"Open-Meteo rejected the request for {place.label}: {e}", fixable=False,
                          message=LocalText(zh="天气服务拒绝了这次查询,请稍后再试。",
                                            en="the weather service refused the request; try again later."))

    def now(self) -> datetime:
        """The current time (UTC), or the configured clock."""
        return current_time(self.cfg.clock)

    # forecasts

    async def _forecast_result(self, http: Any, args: WeatherArgs, place: Place, language: str) -> ToolResult:
        when = args.when or ""
        local = _local(self.now(), place.timezone)
        prefetched: dict[str, Any] | None = None
        if local is None:  # a place without a known timezone: the API's reply says what its local time is
            try:
                prefetched = await self._fetch_days(http, place, None, None)
            except _Offline:
                return self._offline(args.place, language)
            except _ApiError as e:
                return self._refused(place, e)
            local = self.now() + timedelta(seconds=prefetched["utc_offset_seconds"])
        local = local.replace(tzinfo=None)
        period = resolve(when, local)
        if period is None:
            return ToolResult.failure(
                f"Cannot read when='{when}' as a day or time. Copy the day exactly as the user wrote it "
                "(e.g. '明天', '周五', 'this weekend', 'next 3 days'), or leave 'when' out for the weather now.",
                LocalText(zh=f"无法理解时间“{when}”。", en=f"I could not read '{when}' as a day."))
        far = out_of_range(period, local.date())
        if far:
            zh = ("我只能查询今天起 16 天内的天气预报," if far == "ahead" else "我只能查询最近 7 天以内的天气,") + f"“{when}”超出了范围。"
            en = ("I can only forecast up to 16 days ahead" if far == "ahead" else "I only have the weather of the last 7 days") \
                + f"; '{when}' is beyond that."
            return ToolResult(ok=False, error=en, fixable=False, message=LocalText(zh=zh, en=en))
        wanted = period.dates()
        stored = [self.cache.get(self._day_key(place, d)) for d in wanted]
        current = self.cache.get(self._report_key(place)) if _is_today(period, local) else None
        have = all(stored) and (current is not None or not _is_today(period, local))
        ages = [hit[1] for hit in stored if hit] + ([current[1]] if current else [])
        if have and max(ages) < self.cfg.cache_minutes * 60:
            return self._days_result(args, place, period, local, [h[0] for h in stored if h], current, language, max(ages))
        try:
            fetched = prefetched if prefetched and not _is_today(period, local) else \
                await self._fetch_days(http, place, period, local)
        except _Offline:
            if have:
                return self._days_result(args, place, period, local, [h[0] for h in stored if h], current, language,
                                         max(ages), offline=True)
            return self._offline(args.place, language)
        except _ApiError as e:
            return self._refused(place, e)
        for day in fetched["days"]:
            self.cache.put(self._day_key(place, date.fromisoformat(day["date"])), day)
        if fetched.get("current"):
            self.cache.put(self._report_key(place), fetched["current"])
        days = [d for d in fetched["days"] if d["date"] in {w.isoformat() for w in wanted}]
        if len(days) != len(wanted):
            return self._refused(place, _ApiError(f"the reply lacks days of {wanted[0]}..{wanted[-1]}"))
        now_report = (fetched["current"], 0.0) if fetched.get("current") else None
        return self._days_result(args, place, period, local, days, now_report, language, 0.0)

    async def _fetch_days(self, http: Any, place: Place, period: Period | None, local: datetime | None) -> dict[str, Any]:
        """Daily and hourly forecast for ``period`` (all 16 days when ``None``), split into days for the cache;
        with the current conditions when the period is today."""
        params: dict[str, Any] = {"latitude": place.latitude, "longitude": place.longitude, "daily": DAILY,
                                  "hourly": HOURLY, "timezone": place.timezone or "auto"}
        if period is None:
            params["forecast_days"] = 16
        else:
            params["start_date"], params["end_date"] = period.start.isoformat(), period.end.isoformat()
            if local is not None and _is_today(period, local):
                params["current"] = CURRENT
        params.update(self._unit_params())
        body = await self._get(http, self.cfg.forecast_url.rstrip("/") + "/v1/forecast", params)
        try:
            daily, hourly = body["daily"], body["hourly"]
            units = {**body.get("hourly_units", {}), **{f"day_{k}": v for k, v in body.get("daily_units", {}).items()}}
            days = []
            for i, day in enumerate(daily["time"]):
                hours = [j for j, t in enumerate(hourly["time"]) if t.startswith(day)]
                days.append({
                    "date": day, "timezone": body.get("timezone", ""), "units": units,
                    "daily": {k: v[i] for k, v in daily.items() if k != "time"},
                    "hourly": {k: [v[j] for j in hours] for k, v in hourly.items()},
                })
        except (KeyError, IndexError, TypeError, AttributeError) as e:
            raise _ApiError(f"the reply has no daily forecast ({e})") from None
        current = None
        if "current" in body:
            current = {"current": body["current"], "units": body.get("current_units", {}), "timezone": body.get("timezone", "")}
        return {"days": days, "current": current, "utc_offset_seconds": body.get("utc_offset_seconds", 0)}

    def _days_result(self, args: WeatherArgs, place: Place, period: Period, local: datetime, days: list[dict[str, Any]],
                     current: tuple[dict[str, Any], float] | None, language: str, age: float,
                     offline: bool = False) -> ToolResult:
        today = local.date()
        data: dict[str, Any] = {
            "place": args.place, "resolved": place.label, "geonameid": place.geonameid, "when": args.when,
            "local_time": local.strftime("%Y-%m-%dT%H:%M"), "timezone": days[0].get("timezone", "") if days else "",
            "dates": [d["date"] for d in days], "days": [],
        }
        for d in days:
            u, v = d.get("units", {}), d.get("daily", {})
            day = date.fromisoformat(d["date"])
            data["days"].append({
                "date": d["date"], "day": day_name(day, today, language),
                "high": f"{v.get('temperature_2m_max')}{u.get('day_temperature_2m_max', '°C')}",
                "low": f"{v.get('temperature_2m_min')}{u.get('day_temperature_2m_min', '°C')}",
                "conditions": describe(v.get("weather_code"), language),
                "precipitation_chance": f"{v.get('precipitation_probability_max')}%",
                "precipitation": f"{v.get('precipitation_sum')} {u.get('day_precipitation_sum', 'mm')}",
                "wind_max": f"{v.get('wind_speed_10m_max')} {u.get('day_wind_speed_10m_max', 'km/h')}",
            })
        if period.hours and days:
            h0, h1 = period.hours
            hourly, u = days[0].get("hourly", {}), days[0].get("units", {})
            picked = [i for i, t in enumerate(hourly.get("time", [])) if h0 <= int(t[11:13]) < h1]
            temps = [hourly["temperature_2m"][i] for i in picked if hourly["temperature_2m"][i] is not None]
            chances = [hourly["precipitation_probability"][i] for i in picked if hourly["precipitation_probability"][i] is not None]
            codes = [hourly["weather_code"][i] for i in picked if hourly["weather_code"][i] is not None]
            if temps:
                unit = u.get("temperature_2m", "°C")
                data["hours"] = {
                    "from": f"{h0:02d}:00", "to": f"{h1 % 24:02d}:00" if h1 < 24 else "24:00",
                    "temperature_low": f"{min(temps)}{unit}", "temperature_high": f"{max(temps)}{unit}",
                    "precipitation_chance": f"{max(chances)}%" if chances else None,
                    "conditions": describe(max(codes), language) if codes else None,
                }
        if current and not period.hours:
            cur, units = current[0]["current"], current[0].get("units", {})
            data["now"] = {"temperature": f"{cur.get('temperature_2m')}{units.get('temperature_2m', '°C')}",
                           "conditions": describe(cur.get("weather_code"), language)}
        data["source"] = ATTRIBUTION
        return ToolResult.success(**_aged(data, age, offline, language, zh="预报", en="the forecast cached {} minutes ago"))

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
        params.update(self._unit_params())
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
        return ToolResult.success(**_aged(data, age, offline, language, zh="天气", en="the cached report from {} minutes ago"))

    def _offline_message(self, place: str, language: str) -> str:
        host = urlsplit(self.cfg.forecast_url).hostname
        if language == "zh":
            return f"没有网络:无法连接 {host} 获取{place}的天气,也没有缓存的天气。请检查网络后再试。"
        return f"No network: cannot reach {host} for the weather in {place}, and there is no cached report. Check the connection and try again."

    # deterministic hooks

    def when_in(self, question: str) -> str | None:
        """The time phrase of ``question``, read around the places it names (昆明天气 holds 明天 but asks about now)."""
        blanked = question
        for written, _ in sorted(self._found(question), key=lambda f: -len(f[0])):
            blanked = blanked.replace(written, " " * len(written))
        return find_when(blanked)

    @functools.lru_cache(maxsize=64)
    def _found(self, question: str) -> tuple[tuple[str, Place], ...]:
        """Every place ``question`` names, as written: read once per question, though the route, the follow-up,
        the time phrase and the checks all ask."""
        return tuple(self.gazetteer.find(question, _NOT_PLACES))

    def places_in(self, question: str) -> list[tuple[str, Place]]:
        """The places ``question`` names and does not exclude, as written."""
        return self.named_and_excluded(question)[0]

    def named_and_excluded(self, question: str) -> tuple[list[tuple[str, Place]], list[tuple[str, Place]]]:
        found = list(self._found(question))
        if asks_any_place(question):  # "随便一个中国城市", "any city in France": the country is the scope, not the place
            found = [(w, p) for w, p in found if self.gazetteer.country(w) is None]
        return split_excluded(question, found)  # type: ignore[return-value]

    def _args(self, question: str, places: list[tuple[str, Place]], when: str | None = None) -> list[BaseModel]:
        language = language_of(question)
        when = when or self.when_in(question)
        seen: set[int] = set()
        args: list[BaseModel] = []
        for written, place in places:
            if place.geonameid not in seen:
                seen.add(place.geonameid)
                args.append(WeatherArgs(place=written, when=when, language=language))
        return args

    def route(self, question: str) -> list[BaseModel] | None:
        if not weather_sense(question):
            return None
        named, excluded = self.named_and_excluded(question)
        if named:
            return self._args(question, named)
        if excluded or asks_any_place(question) or explains(question):
            return None  # "any city but …": the model picks; "why does it rain?": knowledge, not a report
        unknown = unknown_place(question, _NOT_PLACES)
        if unknown and "," not in unknown:  # "Hebbronville Venezuela": a country or state closing the name qualifies it
            words = unknown.split()
            for k in (3, 2, 1):
                if len(words) > k and self.gazetteer.qualifier(" ".join(words[-k:])):
                    unknown = f"{' '.join(words[:-k]).rstrip('.')}, {' '.join(words[-k:])}"
                    break
        if unknown:
            # looked up online by the tool
            return [WeatherArgs(place=unknown, when=self.when_in(question), language=language_of(question))]
        if self.cfg.home_city and not _MENTIONS_ELSEWHERE.search(question) and not place_phrase(question):
            return [WeatherArgs(place=self.cfg.home_city, when=self.when_in(question), language=language_of(question))]
        return None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """After a weather turn: the same question about another place ("那北京呢?", "and in Paris?"), another day
        ("那明天呢?", "and on Sunday?"), or both; or a weather question naming no place ("明天会下雨吗?"), which
        is about the previous places."""
        if previous.route != self.name or len(question) > 40:
            return None
        places = self.places_in(question)
        when = self.when_in(question)
        before = [a for a, _ in previous.calls if a.get("place")]
        if not places and not when:
            return None
        rest = question
        for written, _ in places:
            rest = rest.replace(written, " ")
        if when:
            rest = rest.replace(when, " ")
        continues = not _CONTINUATION.sub("", rest)
        if not continues and not (when and not places and weather_sense(question) and not place_phrase(question)
                                  and not unknown_place(question, _NOT_PLACES)):
            return None  # it says more than "and there?" / "and tomorrow?": the model reads it, with the previous turn
        if not places and language_of(question) == "en" and not _ASKS_ON.search(question) and not weather_sense(question):
            return None  # a bare "Monday" or "December 25" may answer anything: "and Monday?" asks about the weather
        if places:
            kept = None if when else next((a.get("when") for a in before if a.get("when")), None)
            return self._args(question, places, when=kept)
        if not before:
            return None
        language = language_of(question)
        return [WeatherArgs(place=p, when=when, language=language) for p in dict.fromkeys(a["place"] for a in before)]

    def missing(self, question: str) -> str | None:
        if self.cfg.home_city or not asks_weather(question) or states_temperature(question) or explains(question):
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
        if explains(question) and not named:
            return "ungrounded"  # how the world works: knowledge, whatever words are left over
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
            return super().check(question, args, result)
        got = (result.data or {}).get("geonameid")
        ruled_out = self._excluded(question, got)
        if ruled_out:
            return ruled_out
        wrong_day = self._wrong_day(question, args, result.data or {})
        if wrong_day:
            return wrong_day
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

    def _wrong_day(self, question: str, args: WeatherArgs, data: dict[str, Any]) -> Verdict | None:
        """The day fetched is the day asked: the question's own time phrase, resolved at the place's local time
        the tool reported, must give the dates (and hours) of the result."""
        phrase = self.when_in(question)
        if phrase is None:
            if args.when and data.get("dates") and weather_sense(question) and self.places_in(question):
                return Verdict(verdict="FAIL", reason=(
                    f"the user asked about the weather now, not '{args.when}'; call weather without 'when'"),
                    message=LocalText(zh="模型查询的不是您问的时间。", en="the model looked up another day than the one you asked about."))
            return None
        local = data.get("local_time")
        if not local:  # the weather now: right for "今天" (today's report), wrong for any other day
            now = self.now()
            today = resolve(phrase, now.replace(tzinfo=None))
            if today is not None and today.days == 1 and today.hours is None and today.start == now.date():
                return None
            got = "the weather now"
        else:
            expected = resolve(phrase, datetime.fromisoformat(local))
            if expected is None:
                return None
            hours = data.get("hours")
            got_period = (data.get("dates", [None])[0], data.get("dates", [None])[-1],
                          (int(hours["from"][:2]), int(hours["to"][:2]) or 24) if hours else None)
            if got_period == (expected.start.isoformat(), expected.end.isoformat(), expected.hours):
                return None
            got = f"{got_period[0]}..{got_period[1]}"
        return Verdict(verdict="FAIL", reason=(
            f"the user asked about '{phrase}', but the result is for {got}; call weather with when='{phrase}' "
            "exactly as the user wrote it"),
            message=LocalText(zh=f"模型查询的不是您问的时间({phrase})。", en=f"the model looked up another day than '{phrase}'."))

    def key_facts(self, args: WeatherArgs, result: ToolResult) -> list[KeyFact]:  # type: ignore[override]
        data = result.data or {}
        place = args.place.split(",")[0].strip()
        facts = [KeyFact(label=f"the place ({place})", words=[place, str(data.get("resolved", "")).split(",")[0]])]
        if "days" in data and "now" not in data:
            return facts + self._forecast_facts(place, data)
        temperature = _number(data.get("temperature") or data.get("now", {}).get("temperature"))
        if temperature is not None:
            shown = data.get("temperature") or data["now"]["temperature"]
            facts.append(KeyFact(label=f"the temperature in {place} ({_shown(shown)})",
                                 number=temperature, tolerance=0.5, unit=_unit(shown)))
        conditions = data.get("conditions") or data.get("now", {}).get("conditions")
        if conditions:
            facts.append(KeyFact(label=f"the conditions in {place} ({conditions})",
                                 words=[conditions, *condition_words(conditions)]))
        return facts

    @staticmethod
    def _forecast_facts(place: str, data: dict[str, Any]) -> list[KeyFact]:
        """A forecast answer carries the temperatures of the period asked (a day's low and high, the range of a part
        of a day, the extremes of a span) and, for one day, its conditions."""
        facts: list[KeyFact] = []
        hours, days = data.get("hours"), data["days"]
        if hours:
            pairs = [("lowest", hours["temperature_low"]), ("highest", hours["temperature_high"])]
            conditions = hours.get("conditions")
        else:
            lows = [(n, d["low"]) for d in days if (n := _number(d["low"])) is not None]
            highs = [(n, d["high"]) for d in days if (n := _number(d["high"])) is not None]
            pairs = ([("low", min(lows)[1])] if lows else []) + ([("high", max(highs)[1])] if highs else [])
            conditions = days[0]["conditions"] if len(days) == 1 else None
        for label, text in pairs:
            n = _number(text)
            if n is not None:
                facts.append(KeyFact(label=f"the {label} temperature in {place} ({_shown(text)})", number=n, tolerance=0.5,
                                     unit=_unit(text)))
        if conditions:
            facts.append(KeyFact(label=f"the conditions in {place} ({conditions})", words=[conditions, *condition_words(conditions)]))
        return facts

    def render(self, question: str, args: WeatherArgs, result: ToolResult) -> str | None:  # type: ignore[override]
        if not result.ok or not result.data:
            return None
        d = result.data
        zh = language_of(question) == "zh"
        if "days" in d:
            text = self._render_days(args.place, d, zh)
        elif zh:
            text = (f"{args.place}现在 {_shown(d['temperature'])},{d['conditions']},体感 {_shown(d['feels_like'])},"
                    f"湿度 {d['humidity']},风速 {_shown(d['wind_speed'])}。")
        else:
            text = (f"{args.place}: {_shown(d['temperature'])} now, {d['conditions']}, feels like {_shown(d['feels_like'])}, "
                    f"humidity {d['humidity']}, wind {_shown(d['wind_speed'])}.")
        return f"{text} {d['note']}" if d.get("note") else text

    @staticmethod
    def _render_days(place: str, d: dict[str, Any], zh: bool) -> str:
        hours = d.get("hours")
        if hours:
            day = d["days"][0]["day"]
            chance = hours.get("precipitation_chance")
            low, high = _shown(hours["temperature_low"]), _shown(hours["temperature_high"])
            if zh:
                span = low if low == high else f"{low}至 {high}"
                return (f"{place}{day} {hours['from']}至{hours['to']}:{hours['conditions']},气温 {span}"
                        + (f",降水概率{'' if low == high else '最高 '}{chance}" if chance else "") + "。")
            span = low if low == high else f"{low} to {high}"
            return (f"{place}, {day} {hours['from']} to {hours['to']}: {hours['conditions']}, {span}"
                    + (f", {chance} chance of precipitation" if chance else "") + ".")
        lines = []
        for day in d["days"]:
            if zh:
                lines.append(f"{day['day']}:{day['conditions']},最低 {_shown(day['low'])},最高 {_shown(day['high'])},"
                             f"降水概率 {day['precipitation_chance']},最大风速 {_shown(day['wind_max'])}。")
            else:
                lines.append(f"{day['day']}: {day['conditions']}, low {_shown(day['low'])}, high {_shown(day['high'])}, "
                             f"{day['precipitation_chance']} chance of precipitation, wind up to {_shown(day['wind_max'])}.")
        now = d.get("now")
        if now:
            lines.insert(0, f"现在 {_shown(now['temperature'])},{now['conditions']}。" if zh
                         else f"now {_shown(now['temperature'])}, {now['conditions']};")
        if len(d["days"]) == 1:
            return f"{place}" + ("" if zh else ", ") + " ".join(lines)
        return f"{place}:\n" + "\n".join(lines)

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
