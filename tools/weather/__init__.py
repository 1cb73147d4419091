"""Weather now, or for a day or a span of days (a forecast), from Open-Meteo (no key; CC BY 4.0), for places
resolved by the offline gazetteer first and Open-Meteo's geocoder second. Days are resolved by
:mod:`tools.reading.when` in the place's own timezone. Reports and forecast days are cached on disk; without a
network the cached ones are returned with their age.

The tool (:mod:`.tool`) is put together from its parts: reading the question (:mod:`.question`, with the words of
:mod:`.text`), Open-Meteo (:mod:`.service`, with the WMO codes of :mod:`.wmo`) and the answer (:mod:`.answer`)."""

from tools.weather.config import WeatherArgs, WeatherConfig
from tools.weather.question import is_weather_question
from tools.weather.tool import Weather


__all__ = ["Weather", "WeatherArgs", "WeatherConfig", "is_weather_question"]
