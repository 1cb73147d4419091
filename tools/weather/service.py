"""Open-Meteo: the forecast and geocoding API, the disk cache, and the results the tool returns (with
their age when the network is down)."""

from __future__ import annotations

import asyncio
import os
import json
import re
import sqlite3
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from tools.base import LocalText, ToolResult, language_of
from tools.cache_file import CacheUnusable, damaged, one_builder, set_aside
from tools.gazetteer import Gazetteer, Place
from tools.weather.config import WeatherArgs, WeatherConfig
from tools.weather.question import _NOW
from tools.weather.wmo import describe
from tools.reading.when import MAX_DAYS_AHEAD, MAX_DAYS_BACK, Period, current_time, day_name, out_of_range, resolve


ATTRIBUTION = "Weather data by Open-Meteo.com (CC BY 4.0)"


CURRENT = "temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,weather_code"


DAILY = ("temperature_2m_max,temperature_2m_min,precipitation_probability_max,precipitation_sum,weather_code,"
         "wind_speed_10m_max")


HOURLY = "temperature_2m,precipitation_probability,weather_code,wind_speed_10m"


def _number(text: Any) -> float | None:
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", str(text))
    return float(m.group(1)) if m else None


def _unit(text: Any) -> str:
    """``2.0°C`` → ``°C``."""
    return re.sub(r"^\s*-?\d+(?:\.\d+)?\s*", "", str(text))


def _shown(text: Any) -> str:
    """``2.0°C`` as ``2°C``: the figure as a person writes it."""
    return re.sub(r"^(-?\d+)\.0(?=\D|$)", r"\1", str(text))


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
    """Reports and geocoder answers, in the tool's own cache directory. A cache is a convenience: one that does not
    read is set aside and made anew (:mod:`tools.cache_file`), and one that cannot be made is done without."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "weather.sqlite"
        self.db: sqlite3.Connection | None = None
        self.seen: os.stat_result | None = None  # the file opened, to tell it from a new one another process made
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self.db = self._open()
        except (sqlite3.Error, OSError) as e:
            self._failed(e)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            self.seen = os.stat(self.path)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored REAL NOT NULL)")
            db.execute("SELECT value, stored FROM entries LIMIT 1").fetchall()
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _failed(self, e: BaseException) -> None:
        """A damaged cache is set aside and made anew; one that cannot be used (read-only, full) is done without:
        every report is fetched."""
        if self.db is not None:
            self.db.close()
            self.db = None
        if not damaged(e):
            return
        try:
            with one_builder(self.path, wait=5):  # one process sets it aside and makes it anew; the others reopen
                set_aside(self.path, e, self.seen)
                self.db = self._open()
        except (sqlite3.Error, OSError, CacheUnusable):
            self.db = None

    def get(self, key: str) -> tuple[Any, float] | None:
        if self.db is None:
            return None
        try:
            row = self.db.execute("SELECT value, stored FROM entries WHERE key = ?", (key,)).fetchone()
            return (json.loads(row[0]), time.time() - float(row[1])) if row else None
        except sqlite3.DatabaseError as e:
            if damaged(e):
                self._failed(e)
        except (ValueError, TypeError):
            pass  # an entry that is not JSON: fetched again, and replaced
        return None

    def put(self, key: str, value: Any) -> None:
        if self.db is None:
            return
        try:
            self.db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)",
                            (key, json.dumps(value, ensure_ascii=False), time.time()))
        except sqlite3.DatabaseError as e:
            if damaged(e):
                self._failed(e)  # else a full or read-only cache folder: the report is shown, not kept


class OpenMeteo:
    """The weather service: Open-Meteo's forecast and geocoding APIs, with a cache for offline answers; a part of
    :class:`tools.weather.tool.Weather`, given its settings and the places it knows without asking the API."""

    def __init__(self, cfg: WeatherConfig, places: Callable[[], Gazetteer]) -> None:
        self.cfg = cfg
        self.places = places
        self._cache: _Cache | None = None


    @property
    def cache(self) -> _Cache:
        if self._cache is None:
            self._cache = _Cache(Path(self.cfg.cache_dir))
        return self._cache

    async def run(self, args: WeatherArgs) -> ToolResult:
        import aiohttp

        language = args.language or language_of(args.place)
        if args.when and (far := self._far_anywhere(args.when)):
            return far  # "in seven years": beyond the forecast wherever the place is, so no place is looked up
        timeout = aiohttp.ClientTimeout(total=self.cfg.request_timeout)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            try:
                place = self.places().resolve(args.place) or await self._geocode(http, args.place, language)
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
        params: dict[str, str] = {}
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

    def _far_anywhere(self, when: str) -> ToolResult | None:
        """The refusal for a day past the forecast's reach in every time zone (a day either side of UTC's date)."""
        today = self.now().replace(tzinfo=None)
        period = resolve(when, today)
        if period is None:
            return None
        if period.end > today.date() + timedelta(days=MAX_DAYS_AHEAD + 1):
            return self._beyond(when, "ahead")
        if period.start < today.date() - timedelta(days=MAX_DAYS_BACK + 1):
            return self._beyond(when, "past")
        return None

    @staticmethod
    def _beyond(when: str, far: str) -> ToolResult:
        zh = ("我只能查询今天起 16 天内的天气预报," if far == "ahead" else "我只能查询最近 7 天以内的天气,") + f"“{when}”超出了范围。"
        en = ("I can only forecast up to 16 days ahead" if far == "ahead" else "I only have the weather of the last 7 days") \
            + f"; '{when}' is beyond that."
        return ToolResult(ok=False, error=en, fixable=False, message=LocalText(zh=zh, en=en))

    def now(self) -> datetime:
        """The current time (UTC), or the configured clock."""
        return current_time(self.cfg.clock)

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
            return self._beyond(when, far)
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
            qualifier = self.places().qualifier(tail.strip())
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
