"""The answer from a weather result: the deterministic check, the key facts an answer must state, and the
tool's own sentence."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from pydantic import BaseModel

from tools.base import KeyFact, LocalText, ToolResult, Verdict, language_of
from tools.weather.config import WeatherArgs
from tools.weather.question import WeatherQuestions
from tools.weather.service import _number, _shown, _unit
from tools.weather.text import weather_sense
from tools.weather.wmo import condition_words, contradicted
from tools.reading.when import resolve


class WeatherAnswers:
    """The answer from weather results (the check of a successful call, its key facts, contradictions, the tool's
    own sentences); a part of :class:`tools.weather.tool.Weather`, given the reader of questions it checks calls
    against and the clock."""

    def __init__(self, questions: WeatherQuestions, now: Callable[[], datetime]) -> None:
        self.questions = questions
        self.now = now


    def check(self, question: str, args: WeatherArgs, result: ToolResult) -> Verdict | None:
        """A successful call fetched the place and the day the user asked for."""
        got = (result.data or {}).get("geonameid")
        ruled_out = self.questions.excluded(question, got)
        if ruled_out:
            return ruled_out
        wrong_day = self._wrong_day(question, args, result.data or {})
        if wrong_day:
            return wrong_day
        named = self.questions.places_in(question)
        if not named:
            return None  # the question names no place we know: let the model judge
        if any(p.geonameid == got for _, p in named):
            return Verdict(verdict="PASS", reason="the place is the one the user named")
        wanted = " / ".join(w for w, _ in named)
        return Verdict(verdict="FAIL", reason=(
            f"the user asked about {wanted}, not {args.place}; call weather with place='{named[0][0]}' "
            "exactly as the user wrote it"),
            message=LocalText(zh=f"模型查询的地点不是您说的{wanted}。", en=f"the model looked up another place than {wanted}."))

    def _wrong_day(self, question: str, args: WeatherArgs, data: dict[str, Any]) -> Verdict | None:
        """The day fetched is the day asked: the question's own time phrase, resolved at the place's local time
        the tool reported, must give the dates (and hours) of the result."""
        phrase = self.questions.when_in(question)
        if phrase is None:
            if args.when and data.get("dates") and weather_sense(question) and self.questions.places_in(question):
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

    def contradiction(self, executed: list[tuple[BaseModel, ToolResult]], sentence: str) -> str | None:
        """A sky the reports are not: rain said of a clear day, sun of a snowy one (every place and day asked)."""
        conditions = []
        for _, result in executed:
            data = result.data or {}
            conditions += [c for c in (data.get("conditions"), (data.get("now") or {}).get("conditions"),
                                       (data.get("hours") or {}).get("conditions")) if c]
            conditions += [d["conditions"] for d in data.get("days", []) if d.get("conditions")]
        said = contradicted(conditions, sentence)
        return f"it says '{said}'; the report says {', '.join(dict.fromkeys(conditions))}" if said else None

    def key_facts(self, args: WeatherArgs, result: ToolResult) -> list[KeyFact]:
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

    def render(self, question: str, args: WeatherArgs, result: ToolResult) -> str | None:
        if not result.ok or not result.data:
            return None
        d = result.data
        zh = language_of(question) == "zh"
        if "days" in d:
            text = self._render_days(_shown_place(args, d), d, zh)
        elif zh:
            text = (f"{_shown_place(args, d)}现在 {_shown(d['temperature'])},{d['conditions']},体感 {_shown(d['feels_like'])},"
                    f"湿度 {d['humidity']},风速 {_shown(d['wind_speed'])}。")
        else:
            text = (f"{_shown_place(args, d)}: {_shown(d['temperature'])} now, {d['conditions']}, feels like {_shown(d['feels_like'])}, "
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

    def compared(self, question: str, executed: list[tuple[WeatherArgs, ToolResult]], text: str) -> str:
        """``text`` (each place's sentence) with the places compared: the colder of two, the coldest of more."""
        temps = [(_number((r.data or {}).get("temperature")), _shown_place(a, r.data or {})) for a, r in executed if r.ok]
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


def _shown_place(args: WeatherArgs, data: dict[str, Any]) -> str:
    """The place as the user wrote it ("北京", "Paris, TX"), or by the name of the place found when written all in
    lower case ("boston" is shown "Boston", "nyc" "New York City": which place was taken is plain to see)."""
    resolved = str(data.get("resolved") or "").split(",")[0].strip()
    return resolved if resolved and args.place.islower() else args.place
