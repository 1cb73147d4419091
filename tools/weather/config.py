"""The weather tool's settings and its arguments."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


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
