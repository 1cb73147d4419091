"""WMO weather interpretation codes (as used by Open-Meteo) in English and Chinese."""

from __future__ import annotations

import re
from tools.lazy_re import lazy_compile

CODES: dict[int, tuple[str, str]] = {
    0: ("clear sky", "晴"),
    1: ("mainly clear", "晴间多云"),
    2: ("partly cloudy", "多云"),
    3: ("overcast", "阴"),
    45: ("fog", "雾"),
    48: ("depositing rime fog", "冻雾"),
    51: ("light drizzle", "小毛毛雨"),
    53: ("moderate drizzle", "毛毛雨"),
    55: ("dense drizzle", "大毛毛雨"),
    56: ("light freezing drizzle", "小冻毛毛雨"),
    57: ("dense freezing drizzle", "冻毛毛雨"),
    61: ("slight rain", "小雨"),
    63: ("moderate rain", "中雨"),
    65: ("heavy rain", "大雨"),
    66: ("light freezing rain", "小冻雨"),
    67: ("heavy freezing rain", "冻雨"),
    71: ("slight snow", "小雪"),
    73: ("moderate snow", "中雪"),
    75: ("heavy snow", "大雪"),
    77: ("snow grains", "米雪"),
    80: ("slight rain showers", "小阵雨"),
    81: ("moderate rain showers", "阵雨"),
    82: ("violent rain showers", "强阵雨"),
    85: ("slight snow showers", "小阵雪"),
    86: ("heavy snow showers", "大阵雪"),
    95: ("thunderstorm", "雷阵雨"),
    96: ("thunderstorm with slight hail", "雷阵雨伴有小冰雹"),
    99: ("thunderstorm with heavy hail", "雷阵雨伴有大冰雹"),
}


def describe(code: int | None, language: str) -> str:
    en, zh = CODES.get(int(code) if code is not None else -1, (f"weather code {code}", f"天气代码 {code}"))
    return zh if language == "zh" else en


# The words that state a condition, for checking an answer: "cloudy" states overcast, "雨" states 小雨.
_ROOTS = (
    ((0, 1), ("clear", "sunny", "fair"), ("晴",)),
    ((2,), ("partly cloudy", "cloud"), ("多云", "云")),
    ((3,), ("overcast", "cloud"), ("阴",)),
    ((45, 48), ("fog",), ("雾",)),
    ((51, 53, 55, 56, 57), ("drizzle",), ("毛毛雨", "雨")),
    ((61, 63, 65, 66, 67, 80, 81, 82), ("rain", "shower"), ("雨",)),
    ((71, 73, 75, 77, 85, 86), ("snow",), ("雪",)),
    ((95, 96, 99), ("thunder",), ("雷",)),
)


def condition_words(description: str) -> list[str]:
    """Other words that state the condition ``description`` (as :func:`describe` wrote it, in either language)."""
    for code, (en, zh) in CODES.items():
        if description in (en, zh):
            for codes, en_words, zh_words in _ROOTS:
                if code in codes:
                    return list(en_words if description == en else zh_words)
    return []


# What a sentence asserts about the sky, and the codes that make it true: "rain" is false of a clear sky, "sunny"
# of rain; cloud is false only of a clear sky (any rain comes from clouds).
_RAIN = {51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 80, 81, 82, 95, 96, 99}
_ASSERTED = (
    (_RAIN, lazy_compile(r"\b(?:rain(?:s|y|ing|ed|fall)?|drizzl(?:e|es|ing|y)|showers?|downpours?)\b|(?<![防避])雨(?![伞衣靴具])", re.IGNORECASE)),
    ({71, 73, 75, 77, 85, 86}, lazy_compile(r"\b(?:snow(?:s|y|ing|ed|fall)?|sleet|blizzards?)\b|(?<!滑)雪(?!糕)", re.IGNORECASE)),
    ({95, 96, 99}, lazy_compile(r"\b(?:thunder(?:storms?|y)?|lightning)\b|雷", re.IGNORECASE)),
    ({45, 48}, lazy_compile(r"\b(?:fog(?:gy|s)?|mist(?:y|s)?)\b|雾", re.IGNORECASE)),
    ({0, 1, 2}, lazy_compile(r"\b(?:sunny|sunshine|cloudless|clear\s+sk(?:y|ies))\b|晴|阳光|艳阳", re.IGNORECASE)),
    (set(CODES) - {0}, lazy_compile(r"\b(?:cloudy|overcast|clouds?)\b|多云|阴天|阴沉|乌云", re.IGNORECASE)),
)
# A sentence that hedges, negates or speaks of another time asserts nothing about this report.
_HEDGE = lazy_compile(r"\b(?:no|not|never|without|unlikely|chance|possib\w*|might|may|could|would|in case|if|unless|"
                    r"later|tomorrow|tonight|yesterday|earlier|usually|often|typically|forecast|expected|bring|take)\b"
                    r"|n't\b|不|没|无|别|可能|也许|如果|万一|以防|预计|预报|明天|今晚|稍后|晚些|昨天|通常|带", re.IGNORECASE)


def code_of(description: str) -> int | None:
    """The WMO code :func:`describe` wrote ``description`` for (either language), or ``None``."""
    return next((code for code, names in CODES.items() if description in names), None)


def contradicted(descriptions: list[str], sentence: str) -> str | None:
    """The words of ``sentence`` that state a sky none of ``descriptions`` (a report's conditions) is, or ``None``.
    Silent where it cannot be sure: a condition it does not know, a hedged, negated or other-time sentence."""
    codes = {code_of(d) for d in descriptions}
    if not codes or None in codes or _HEDGE.search(sentence):
        return None
    for true_of, words in _ASSERTED:
        m = words.search(sentence)
        if m and not codes & true_of:
            return m.group(0)
    return None
