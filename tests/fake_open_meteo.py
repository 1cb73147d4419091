"""A fake Open-Meteo (forecast and geocoding APIs) on loopback, with the real response shapes:
``/v1/forecast`` with ``current_units`` and ``current``; ``/v1/search`` with ``results`` (or without
the key when nothing matched); errors as HTTP 400 ``{"error": true, "reason": ...}``."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from loopback import LoopbackServer

REQUIRED = {"temperature_2m", "apparent_temperature", "relative_humidity_2m", "wind_speed_10m", "weather_code"}


class FakeOpenMeteo(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        self.forecast_requests: list[dict[str, str]] = []
        self.search_requests: list[dict[str, str]] = []
        self.places: dict[str, list[dict[str, Any]]] = {}  # geocoder: name -> results
        self.conditions: dict[tuple[float, float], dict[str, Any]] = {}  # (lat, lon) rounded to 1 -> current
        self.error: str | None = None  # answer every forecast with this 400 reason
        self.delay = 0.0
        self.in_flight = 0
        self.max_in_flight = 0

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/v1/forecast", self._forecast)
        app.router.add_get("/v1/search", self._search)

    def set_weather(self, lat: float, lon: float, temperature: float, code: int = 0, **more: Any) -> None:
        self.conditions[(round(lat, 1), round(lon, 1))] = {"temperature_2m": temperature, "weather_code": code, **more}

    async def _forecast(self, request: web.Request) -> web.Response:
        q = dict(request.query)
        self.forecast_requests.append(q)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        if self.error:
            return web.json_response({"error": True, "reason": self.error}, status=400)
        try:
            lat, lon = float(q["latitude"]), float(q["longitude"])
        except (KeyError, ValueError):
            return web.json_response({"error": True, "reason": "Parameter 'latitude' and 'longitude' must be numbers"}, status=400)
        fields = set(q.get("current", "").split(","))
        if not REQUIRED <= fields:
            return web.json_response({"error": True, "reason": f"missing current fields {sorted(REQUIRED - fields)}"}, status=400)
        fahrenheit = q.get("temperature_unit") == "fahrenheit"
        mph = q.get("wind_speed_unit") == "mph"
        cur = {"temperature_2m": round(20 - abs(lat) / 3, 1), "apparent_temperature": None, "relative_humidity_2m": 60,
               "wind_speed_10m": 10.0, "weather_code": 3}
        cur.update(self.conditions.get((round(lat, 1), round(lon, 1)), {}))
        if cur["apparent_temperature"] is None:
            cur["apparent_temperature"] = round(cur["temperature_2m"] - 2, 1)
        if fahrenheit:
            cur["temperature_2m"] = round(cur["temperature_2m"] * 9 / 5 + 32, 1)
            cur["apparent_temperature"] = round(cur["apparent_temperature"] * 9 / 5 + 32, 1)
        if mph:
            cur["wind_speed_10m"] = round(cur["wind_speed_10m"] / 1.609, 1)
        return web.json_response({
            "latitude": round(lat, 4), "longitude": round(lon, 4), "generationtime_ms": 0.03,
            "utc_offset_seconds": 28800, "timezone": "Asia/Shanghai", "timezone_abbreviation": "GMT+8", "elevation": 44.0,
            "current_units": {"time": "iso8601", "interval": "seconds", "temperature_2m": "°F" if fahrenheit else "°C",
                              "apparent_temperature": "°F" if fahrenheit else "°C", "relative_humidity_2m": "%",
                              "wind_speed_10m": "mp/h" if mph else "km/h", "weather_code": "wmo code"},
            "current": {"time": "2026-11-22T19:00", "interval": 900, **cur},
        })

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
