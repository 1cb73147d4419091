"""A fake Open-Meteo (forecast and geocoding APIs) on loopback, with the real response shapes:
``/v1/forecast`` with ``current_units``/``current``, ``daily_units``/``daily`` and ``hourly_units``/``hourly``
(parallel arrays under ``time``), honouring ``timezone`` (an IANA name or ``auto``), ``start_date``/``end_date``
(local dates, within the allowed range), ``forecast_days`` (0–16) and ``past_days``; ``/v1/search`` with
``results`` (or without the key when nothing matched); errors as HTTP 400 ``{"error": true, "reason": ...}``.

Its clock (``now``, UTC) decides what "today" is at each place, so tests are exact."""

from __future__ import annotations

import asyncio
import threading
from datetime import date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web
from loopback import LoopbackServer

REQUIRED = {"temperature_2m", "apparent_temperature", "relative_humidity_2m", "wind_speed_10m", "weather_code"}
DAILY = {"temperature_2m_max", "temperature_2m_min", "precipitation_probability_max", "precipitation_sum", "weather_code",
         "wind_speed_10m_max"}
HOURLY = {"temperature_2m", "precipitation_probability", "weather_code", "wind_speed_10m", "apparent_temperature",
          "relative_humidity_2m"}
PAST_LIMIT, AHEAD_LIMIT = 92, 15  # days before today the API serves, and days after it


class FakeOpenMeteo(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        self.forecast_requests: list[dict[str, str]] = []
        self.search_requests: list[dict[str, str]] = []
        self.places: dict[str, list[dict[str, Any]]] = {}  # geocoder: name -> results
        self.conditions: dict[tuple[float, float], dict[str, Any]] = {}  # (lat, lon) rounded to 1 -> current
        self.error: str | None = None  # answer every forecast with this 400 reason
        self.delay = 0.0
        # hold each forecast until this many are in flight together (at most ``delay`` seconds): a test of calls
        # that overlap asserts the overlap, not how fast a loaded machine starts the second one
        self.meet = 0
        self._met: asyncio.Event | None = None
        # hold each forecast until the test sets this (at most ``delay`` seconds): a test that another step runs
        # while the forecast is awaited sets it when that step starts, not after a guess of how long that takes
        self.hold: threading.Event | None = None
        self.now = datetime(2026, 11, 22, 11, 0, tzinfo=timezone.utc)  # 19:00 in Beijing, a Sunday
        self.zones: dict[tuple[float, float], str] = {}  # (lat, lon) rounded to 1 -> IANA zone for timezone=auto
        self.days: dict[tuple[float, float, str], dict[str, Any]] = {}  # (lat, lon, local date) -> daily values
        self.in_flight = 0
        self.max_in_flight = 0

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/v1/forecast", self._forecast)
        app.router.add_get("/v1/search", self._search)

    def set_weather(self, lat: float, lon: float, temperature: float, code: int = 0, **more: Any) -> None:
        self.conditions[(round(lat, 1), round(lon, 1))] = {"temperature_2m": temperature, "weather_code": code, **more}

    def set_day(self, lat: float, lon: float, day: str, high: float, low: float, code: int = 3, rain_chance: int = 10,
                rain: float = 0.0, wind: float = 15.0) -> None:
        """The forecast for one local date at a place (other dates get a plain pattern)."""
        self.days[(round(lat, 1), round(lon, 1), day)] = {
            "temperature_2m_max": high, "temperature_2m_min": low, "weather_code": code,
            "precipitation_probability_max": rain_chance, "precipitation_sum": rain, "wind_speed_10m_max": wind}

    def zone_for(self, lat: float, lon: float, asked: str) -> ZoneInfo | timezone:
        if asked and asked not in ("auto", "GMT", "UTC"):
            return ZoneInfo(asked)
        if asked in ("GMT", "UTC"):
            return timezone.utc
        named = self.zones.get((round(lat, 1), round(lon, 1)))
        if named:
            return ZoneInfo(named)
        return ZoneInfo("Asia/Shanghai") if 73 <= lon <= 135 and lat > 15 else timezone(timedelta(hours=round(lon / 15)))

    def day_values(self, lat: float, lon: float, day: date) -> dict[str, Any]:
        set_ = self.days.get((round(lat, 1), round(lon, 1), day.isoformat()))
        if set_:
            return set_
        base = round(20 - abs(lat) / 3, 1)
        k = day.toordinal() % 4
        return {"temperature_2m_max": round(base + 4 + k, 1), "temperature_2m_min": round(base - 4 - k, 1),
                "weather_code": (3, 61, 0, 2)[k], "precipitation_probability_max": (20, 80, 0, 10)[k],
                "precipitation_sum": (0.0, 6.5, 0.0, 0.0)[k], "wind_speed_10m_max": 12.0 + k}

    async def _forecast(self, request: web.Request) -> web.Response:
        q = dict(request.query)
        self.forecast_requests.append(q)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.meet:
                self._met = self._met or asyncio.Event()
                if self.in_flight >= self.meet:
                    self._met.set()
                try:
                    await asyncio.wait_for(self._met.wait(), self.delay)
                except TimeoutError:
                    pass  # they never met: max_in_flight says so
            elif self.hold is not None:
                await asyncio.get_running_loop().run_in_executor(None, self.hold.wait, self.delay)
            else:
                await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        if self.error:
            return web.json_response({"error": True, "reason": self.error}, status=400)
        try:
            lat, lon = float(q["latitude"]), float(q["longitude"])
        except (KeyError, ValueError):
            return web.json_response({"error": True, "reason": "Parameter 'latitude' and 'longitude' must be numbers"}, status=400)
        fahrenheit = q.get("temperature_unit") == "fahrenheit"
        mph = q.get("wind_speed_unit") == "mph"
        try:
            zone = self.zone_for(lat, lon, q.get("timezone", "GMT"))
        except Exception:
            return web.json_response({"error": True, "reason": f"Invalid timezone '{q.get('timezone')}'"}, status=400)
        local = self.now.astimezone(zone)
        offset = int(local.utcoffset().total_seconds())  # type: ignore[union-attr]
        name = getattr(zone, "key", "GMT")
        body: dict[str, Any] = {
            "latitude": round(lat, 4), "longitude": round(lon, 4), "generationtime_ms": 0.03,
            "utc_offset_seconds": offset, "timezone": name, "timezone_abbreviation": local.tzname() or "GMT",
            "elevation": 44.0,
        }
        temp = (lambda c: round(c * 9 / 5 + 32, 1)) if fahrenheit else (lambda c: c)
        speed = (lambda k: round(k / 1.609, 1)) if mph else (lambda k: k)
        t_unit, w_unit = ("°F" if fahrenheit else "°C"), ("mp/h" if mph else "km/h")
        if "current" in q:
            fields = set(q["current"].split(","))
            if not REQUIRED <= fields:
                return web.json_response({"error": True, "reason": f"missing current fields {sorted(REQUIRED - fields)}"}, status=400)
            cur = {"temperature_2m": round(20 - abs(lat) / 3, 1), "apparent_temperature": None, "relative_humidity_2m": 60,
                   "wind_speed_10m": 10.0, "weather_code": 3}
            cur.update(self.conditions.get((round(lat, 1), round(lon, 1)), {}))
            if cur["apparent_temperature"] is None:
                cur["apparent_temperature"] = round(cur["temperature_2m"] - 2, 1)
            for k in ("temperature_2m", "apparent_temperature"):
                cur[k] = temp(cur[k])
            cur["wind_speed_10m"] = speed(cur["wind_speed_10m"])
            stamp = local.replace(minute=local.minute - local.minute % 15, second=0, microsecond=0)
            body["current_units"] = {"time": "iso8601", "interval": "seconds", "temperature_2m": t_unit,
                                     "apparent_temperature": t_unit, "relative_humidity_2m": "%",
                                     "wind_speed_10m": w_unit, "weather_code": "wmo code"}
            body["current"] = {"time": stamp.strftime("%Y-%m-%dT%H:%M"), "interval": 900, **cur}
        if "daily" in q or "hourly" in q:
            days, error = self._dates(q, local.date())
            if error:
                return web.json_response({"error": True, "reason": error}, status=400)
            values = {d: self.day_values(lat, lon, d) for d in days}
            if "daily" in q:
                fields = q["daily"].split(",")
                unknown = [f for f in fields if f not in DAILY]
                if unknown:
                    return web.json_response({"error": True, "reason": f"Cannot initialize WeatherVariable from invalid String value {unknown[0]} for key daily"}, status=400)
                units = {"temperature_2m_max": t_unit, "temperature_2m_min": t_unit, "precipitation_probability_max": "%",
                         "precipitation_sum": "mm", "weather_code": "wmo code", "wind_speed_10m_max": w_unit}
                body["daily_units"] = {"time": "iso8601", **{f: units[f] for f in fields}}
                convert = {"temperature_2m_max": temp, "temperature_2m_min": temp, "wind_speed_10m_max": speed}
                body["daily"] = {"time": [d.isoformat() for d in days],
                                 **{f: [convert.get(f, lambda v: v)(values[d][f]) for d in days] for f in fields}}
            if "hourly" in q:
                fields = q["hourly"].split(",")
                unknown = [f for f in fields if f not in HOURLY]
                if unknown:
                    return web.json_response({"error": True, "reason": f"Cannot initialize WeatherVariable from invalid String value {unknown[0]} for key hourly"}, status=400)
                units = {"temperature_2m": t_unit, "precipitation_probability": "%", "weather_code": "wmo code",
                         "wind_speed_10m": w_unit, "apparent_temperature": t_unit, "relative_humidity_2m": "%"}
                body["hourly_units"] = {"time": "iso8601", **{f: units[f] for f in fields}}
                times, rows = [], {f: [] for f in fields}
                for d in days:
                    v = values[d]
                    lo, hi = v["temperature_2m_min"], v["temperature_2m_max"]
                    for h in range(24):
                        times.append(f"{d.isoformat()}T{h:02d}:00")
                        # coldest at 05:00, warmest at 14:00
                        share = max(0.0, 1 - abs(h - 14) / 9) if h >= 5 else 0.0
                        hour = {"temperature_2m": temp(round(lo + (hi - lo) * share, 1)),
                                "precipitation_probability": v["precipitation_probability_max"] if 12 <= h < 20 else
                                v["precipitation_probability_max"] // 2,
                                "weather_code": v["weather_code"] if 12 <= h < 20 else min(v["weather_code"], 3),
                                "wind_speed_10m": speed(v["wind_speed_10m_max"] - 5),
                                "apparent_temperature": temp(round(lo + (hi - lo) * share - 2, 1)),
                                "relative_humidity_2m": 60}
                        for f in fields:
                            rows[f].append(hour[f])
                body["hourly"] = {"time": times, **rows}
        if not {"current", "daily", "hourly"} & set(q):
            return web.json_response({"error": True, "reason": "No data is available for this location"}, status=400)
        return web.json_response(body)

    @staticmethod
    def _dates(q: dict[str, str], today: date) -> tuple[list[date], str | None]:
        """The local dates a forecast request covers, or the API's error for a bad range."""
        first, last = today - timedelta(days=PAST_LIMIT), today + timedelta(days=AHEAD_LIMIT)
        if "start_date" in q or "end_date" in q:
            if "forecast_days" in q or "past_days" in q:
                return [], "Parameter 'start_date' and 'end_date' are mutually exclusive with 'forecast_days' and 'past_days'"
            try:
                start, end = date.fromisoformat(q["start_date"]), date.fromisoformat(q["end_date"])
            except (KeyError, ValueError):
                return [], "Parameter 'start_date' and 'end_date' must both be set as YYYY-MM-DD"
            for name, d in (("start_date", start), ("end_date", end)):
                if not first <= d <= last:
                    return [], f"Parameter '{name}' is out of allowed range from {first} to {last}"
            if end < start:
                return [], "End-date must be larger or equals than start-date"
        else:
            try:
                days, past = int(q.get("forecast_days", 7)), int(q.get("past_days", 0))
            except ValueError:
                return [], "Parameter 'forecast_days' must be an integer"
            if not 0 <= days <= 16:
                return [], "Forecast days is invalid. Allowed range 0 to 16."
            start, end = today - timedelta(days=past), today + timedelta(days=days - 1)
        return [start + timedelta(days=i) for i in range((end - start).days + 1)], None

    async def _search(self, request: web.Request) -> web.Response:
        q = dict(request.query)
        self.search_requests.append(q)
        if not q.get("name"):
            return web.json_response({"error": True, "reason": "Parameter 'name' is required"}, status=400)
        results = self.places.get(q["name"])
        body: dict[str, Any] = {"generationtime_ms": 0.4}
        if results:
            body["results"] = results
        return web.json_response(body)
