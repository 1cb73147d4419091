"""Reading a weather question: its places and day, the route and follow-ups by rule, what is missing, the
route gate and the arguments the user excluded."""

from __future__ import annotations

import functools
import re
from typing import Callable, Literal

from pydantic import BaseModel

from tools.base import CJK, Grounding, LocalText, PreviousTurn, Verdict, language_of
from tools.gazetteer import Gazetteer, Place
from tools.weather import words as weather_words
from tools.weather.config import WeatherArgs, WeatherConfig
from tools.weather.text import (
    EN_STRONG, EN_WEAK, ZH_STRONG, ZH_WEAK, about_a_thing, asks_any_place, dresses_for_the_day, asks_weather, asks_weather_here, names_something, place_phrase,
    explains, split_excluded, states_temperature, unknown_place, weather_related, weather_sense, zh_unknown_place,
)
from tools.reading.reader import leftover, read as read_intent, unexplained
from tools.reading.when import find_when, unread
from tools.lazy_re import lazy_compile
from tools.reading.forms import Phrases


# Capitalised words that are never place names here (sentence starts, question words, weather words).


_NOT_PLACES = {w.casefold() for w in (
    "what", "what's", "whats", "how", "how's", "is", "it", "will", "does", "do", "the", "a", "in", "at", "and",
    "same", "check", "try", "instead", "also",
    "or", "tell", "me", "today", "tomorrow", "now", "please", "which", "who", "where", "when", "should", "i", "can",
    "compare", "any", "anywhere", "random", "except", "but", "not", "sunset", "sunrise", "dawn", "dusk", "noon",
    "midnight", "morning", "afternoon", "evening", "night", "tonight", "weekend", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december", "here", "there", "nearby", "area", "city", "town",
    "state", "country", "celsius", "fahrenheit", "kelvin", "english", "chinese", "french", "german", "spanish",
    "japanese", "christmas", "easter", "summer", "winter", "spring", "autumn", "fall", "mr", "mrs", "ms", "dr",
    "my", "our", "your", "his", "her", "their", "jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec", "on", "am", "pm",
    # words of the time said after a place written in lower case ("in phoenix right now", "in boston currently"):
    # never part of its name
    "right", "currently", "presently", "later", "soon", "this", "next", "these", "coming", "upcoming", "moment",
    "yesterday", "like", "be", "going", "gonna",
    *EN_STRONG, *EN_WEAK,
)} | {*ZH_STRONG, *ZH_WEAK, "今天", "明天", "现在", "哪个", "怎么样"}


# What a message may hold besides places and still only continue the previous weather turn ("那北京呢?",
# "and in Paris?", "What about Cairo?"): with its own verb or topic ("明天去徐州的航班") it is a new request.
_ZH_CONTINUATION = (
    "那么", "那", "呢", "还有", "换成", "换到", "改成", "换个城市", "换个地方", "换", "再查", "再看看", "再看", "查查",
    "查一下", "看看", "帮我", "请问", "我想知道", "想知道", "如果是", "要是", "如果", "是", "又", "的", "天气",
    "情况", "怎么样", "怎样", "怎么说", "如何", "咋样", "那边", "那里", "这边", "现在", "今天", "目前", "也", "呀",
    "啊", "吧", "同样", "一样", "城市", "在")
_CONTINUATION = lazy_compile(
    r"what's|how's|" + "|".join(sorted(_ZH_CONTINUATION, key=len, reverse=True))
    + r"|\b(?:and|what|about|how|in|at|on|for|the|there|then|now|today|weather|please|same|instead|check|try|also)\b"
    r"|[\s?？!！.。,，、~～:：]", re.IGNORECASE)


# A place alone, said as a statement: no word that continues a question, ending in a full stop or "!".
_REMARK = lazy_compile(r"^\s*[^\s?？,，]+(?:\s+[^\s?？,，]+)?\s*[.。!！]+\s*$")
_A_QUESTION = Phrases(("吗", "么", "谁", "哪", "为什么", "怎么", "why", "what", "how", "who", "where", "when"), re.IGNORECASE)
_AUXILIARY = Phrases(("will", "is", "are", "does", "do"), re.IGNORECASE)


def _heard_as_weather(question: str) -> bool:
    """The learned reader is certain the request asks the weather ("will there be any snow next week", "is today a
    sunny day"), where the rule's own test of a question does not say so; a song called *Rain* it hears as music."""
    reading = read_intent(question)
    return reading is not None and reading.is_("weather")


_WHICH_PLACE = {"zh": "请问您想查询哪个城市的天气?", "en": "Which place would you like the weather for?"}
_MENTIONS_ELSEWHERE = lazy_compile(r"\b(?i:in|at|for)\s+[A-Z]|在[\u3400-\u9fff]")


_NOW = {"now", "right now", "currently", "current", "at the moment", "现在", "目前", "当前", "此刻", "这会儿"}


_ASKS_ON = Phrases(("?", "and", "what about", "how about", "what of", "same for", "then"), re.IGNORECASE)


def is_weather_question(question: str) -> bool:
    """A weather word in the weather sense (see :mod:`tools.weather.text`)."""
    return weather_sense(question)


class WeatherQuestions:
    """Reads a weather question by rule (its places, its day, a follow-up, what is missing); a part of
    :class:`tools.weather.tool.Weather`, given its settings, the places it may name (the gazetteer, opened when first
    needed) and the route name its follow-ups continue."""

    def __init__(self, cfg: WeatherConfig, places: Callable[[], Gazetteer], route: str = "weather") -> None:
        self.cfg = cfg
        self.places = places
        self.route_name = route


    def when_in(self, question: str) -> str | None:
        """The time phrase of ``question``, read around the places it names (昆明天气 holds 明天 but asks about now)."""
        phrase = find_when(self._places_set_aside(question))
        return phrase.replace("\x00", " ") if phrase else phrase

    def _places_set_aside(self, question: str) -> str:
        """``question`` with each place it names written over by as many NULs: no word, and no space, so that what
        stands either side of a place is not read as one time ("in Paris december", "Winter Park")."""
        blanked = question
        for written, _ in sorted(self._found(question), key=lambda f: -len(f[0])):
            blanked = blanked.replace(written, "\x00" * len(written))
        return blanked

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one tool object lives as long as its worker; 64 questions kept
    def _found(self, question: str) -> tuple[tuple[str, Place], ...]:
        """Every place ``question`` names, as written: read once per question, though the route, the follow-up,
        the time phrase and the checks all ask."""
        return tuple(self.places().find(question, _NOT_PLACES))

    def places_in(self, question: str) -> list[tuple[str, Place]]:
        """The places ``question`` names and does not exclude, as written."""
        return self.named_and_excluded(question)[0]

    def named_and_excluded(self, question: str) -> tuple[list[tuple[str, Place]], list[tuple[str, Place]]]:
        found = list(self._found(question))
        if asks_any_place(question):  # "随便一个中国城市", "any city in France": the country is the scope, not the place
            found = [(w, p) for w, p in found if self.places().country(w) is None]
        return split_excluded(question, found)

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

    def time_unread(self, question: str) -> bool:
        """A time said that the day reader does not read ("on 12/14/2027", "next year", "in july"), the places
        named set aside ("Winter Park"): no forecast is certain, since today's would answer another question."""
        if not unread(question):
            return False  # the most of questions: no place looked up (a sum never opens the place index)
        return unread(self._places_set_aside(question))

    def route(self, question: str) -> list[BaseModel] | None:
        if self.time_unread(question) or self.other_scale(question):
            return None
        args = self._by_rule(question)
        if args is None and isinstance(heard := self.by_words(question), list):
            return heard  # "will it freeze tonight": no weather word the rule's own test knows in this sense
        return args

    def other_scale(self, question: str) -> bool:
        """The temperature asked in the scale the reports are not in ("weather in london in fahrenheit" with
        Celsius set): the rule's report would answer in the other, so the model answers (and may convert)."""
        said = question.casefold()
        other = ("fahrenheit", "°f", "℉", "华氏") if self.cfg.temperature_unit == "celsius" else ("celsius", "°c", "℃", "摄氏")
        return any(word in said for word in other)

    def _by_rule(self, question: str) -> list[BaseModel] | None:
        if not weather_sense(question) and not dresses_for_the_day(question):
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
                if len(words) > k and self.places().qualifier(" ".join(words[-k:])):
                    unknown = f"{' '.join(words[:-k]).rstrip('.')}, {' '.join(words[-k:])}"
                    break
        unknown = unknown or zh_unknown_place(question)
        if unknown:
            # looked up online by the tool
            return [WeatherArgs(place=unknown, when=self.when_in(question), language=language_of(question))]
        if isinstance(heard := self.by_words(question), list):
            return heard  # "info on miami weather": a place the capitals did not show, before the home city
        if self.cfg.home_city and (asks_weather_here(question) or _heard_as_weather(question)) \
                and not _MENTIONS_ELSEWHERE.search(question) and not place_phrase(question) \
                and not about_a_thing(question) and not weather_words.not_a_request(question):
            return self._at_home(question, self.when_in(question))
        return None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """After a weather turn: the same question about another place ("那北京呢?", "and in Paris?"), another day
        ("那明天呢?", "and on Sunday?"), or both; or a weather question naming no place ("明天会下雨吗?"), which
        is about the previous places."""
        if previous.route != self.route_name or len(question) > 40 or self.time_unread(question):
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
        if places and not when and _REMARK.match(question):
            return None  # "Nice." / "Reading." / "Paris.": a word said with a full stop is a remark, not "and there?"
        asks = question.rstrip()[-1:] in ("?", "？", "呢") or bool(_A_QUESTION.search(question) or _AUXILIARY.search(question))
        # a question, not a remark ("会议气氛很冷")
        if not continues and not (when and not places and asks and weather_sense(question) and not place_phrase(question)
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
        if self.cfg.home_city or weather_words.not_a_request(question) or self.time_unread(question):
            return None  # "it's raining", "what's humidity": nothing to ask back for; "next year": not for now
        heard = self.by_words(question)  # "will it freeze tonight": the weather's words alone, and no place said
        if isinstance(heard, str):
            return heard
        if not asks_weather(question) or states_temperature(question) or explains(question) or about_a_thing(question):
            return None
        named, excluded = self.named_and_excluded(question)
        if named or excluded or asks_any_place(question) or (names_something(question) and not dresses_for_the_day(question)):
            return None
        return _WHICH_PLACE[language_of(question)]

    def from_reading(self, question: str) -> list[BaseModel] | str | None:
        """The weather as the learned reader heard it asked in any words ("what are the conditions like in
        orlando", "do I need a jacket today"): the places named and the day said, when every other word of the
        request is one that weather requests are made of (or the words left over are one place's name); the home
        city when none is named, else the question back for the place."""
        if about_a_thing(question) or states_temperature(question) or asks_any_place(question) \
                or weather_words.not_a_request(question) or self.time_unread(question):
            return None  # a thing's temperature, a figure said, "any city": the model reads it (how the world works,
            # "why", "what is a front", is not in weather requests' words: left over, it goes to the model below)
        return self._heard(question, lambda said: True if not unexplained(question, "weather", said)
                           else leftover(question, "weather", said))

    def by_words(self, question: str) -> list[BaseModel] | str | None:
        """The weather asked in the words such requests are made of (:mod:`tools.weather.words`: "will it freeze
        tonight", "do i need an umbrella this afternoon", "what are the atmospheric conditions in sparks"), with the
        day said and the places named, whatever the learned reader makes of it: the places' forecast, the home
        city's when none is named, else the question back for the place. Read once per question (the route, the
        home city's test and the question back all ask)."""
        heard = self._by_words(question)
        return [a.model_copy() for a in heard] if isinstance(heard, tuple) else heard

    @functools.lru_cache(maxsize=64)  # noqa: B019 - as _found: one tool object lives as long as its worker
    def _by_words(self, question: str) -> tuple[BaseModel, ...] | str | None:
        if not weather_words.may_be(question) or CJK.search(question) or about_a_thing(question) \
                or asks_any_place(question):
            return None  # ("why does it rain", how the world works, is in no such request's words)
        heard = self._heard(question, lambda said: weather_words.read(question, said))
        return tuple(heard) if isinstance(heard, list) else heard

    def _heard(self, question: str, left_of: Callable[[str], tuple[list[str], int, int] | Literal[True] | None]
               ) -> list[BaseModel] | str | None:
        """A weather request heard with the places it names and the day it says, and ``left_of(said)`` the words no
        weather request is made of once those are set aside (``True``: none; ``None``: too many, or spread about):
        the forecast of the places, with the one the words left name; the home city's when none is; else the
        question back for the place."""
        named, excluded = self.named_and_excluded(question)
        if excluded:
            return None
        when = self.when_in(question)
        left = left_of(" ".join([written for written, _ in named] + [when or ""]))
        if left is None:
            return None
        if left is not True:
            found = self.places().named_around(*left)
            if found is None:
                words, start, end = left
                placed = start > 0 and words[start - 1] in ("in", "at", "for", "near", "around", "of")  # "in Fort Sumner"
                written = _written_run(question, words, start, end) if placed else None
                if written is None:
                    return None  # a word no weather request is made of, and no place's name: the model reads it
                # a name written as one ("Will it storm in Fort Sumner"): looked up online by the tool
                return [WeatherArgs(place=written, when=when, language=language_of(question))]
            named = [*named, found]
        if named:
            return self._args(question, named, when)
        if self.cfg.home_city:
            return self._at_home(question, when)
        return _WHICH_PLACE[language_of(question)]

    def _at_home(self, question: str, when: str | None) -> list[BaseModel]:
        """The weather asked of no place, at the home city (``home_city``)."""
        return [WeatherArgs(place=self.cfg.home_city or "", when=when, language=language_of(question))]

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        places = self.places_in(reply)
        if places:
            return self._args(question, places)
        text = reply.strip().strip("?？。.!！,，")
        short = len(text) <= 10 if language_of(text) == "zh" else len(text.split()) <= 4
        if self.when_in(text) or _ASKS_ON.match(text):
            return None  # "and tomorrow?", "明天呢": a day or another question, not the place asked for
        if text and short and not _A_QUESTION.search(text) and not is_weather_question(text):
            return [WeatherArgs(place=text, language=language_of(question))]  # the tool will resolve it
        return None

    def grounding(self, question: str) -> Grounding:
        """A model's weather route stands only on a weather question that names a place (or lets the model pick
        one, or has a home city); a weather question without a place is asked back; anything else is chat."""
        if not weather_related(question):
            return "ungrounded"
        named, excluded = self.named_and_excluded(question)
        if (explains(question) or about_a_thing(question)) and not named:
            return "ungrounded"  # how the world works, or a thing's temperature: knowledge, not a report
        if named or self.cfg.home_city or asks_any_place(question) or names_something(question):
            return "grounded"
        return "ask" if asks_weather(question) else "ungrounded"

    def excluded(self, question: str, geonameid: int | None) -> Verdict | None:
        """FAIL when ``geonameid`` is a place the question rules out (\"not Paris\")."""
        _, excluded = self.named_and_excluded(question)
        ruled_out = [w for w, p in excluded if p.geonameid == geonameid]
        if not ruled_out:
            return None
        others = ", ".join(w for w, _ in excluded)
        return Verdict(verdict="FAIL", reason=f"the user excluded {ruled_out[0]}; choose a place that is not one of: {others}",
                       message=LocalText(zh=f"模型选了您排除的地方({ruled_out[0]})。",
                                         en=f"the model chose a place you ruled out ({ruled_out[0]})."))

    def vet(self, question: str, args: WeatherArgs) -> Verdict | None:
        place = self.places().resolve(args.place)
        return self.excluded(question, place.geonameid) if place else None


def _written_run(question: str, words: list[str], start: int, end: int) -> str | None:
    """The name ``words[start:end]`` begins, as :func:`_as_written` writes it, taking in the capitalised words after
    it that are words of the weather's requests too ("Roy Lake State Park", "Cocoa Beach": the name goes on)."""
    for stop in range(min(len(words), end + 3), end - 1, -1):
        if (written := _as_written(question, words[start:stop])) is not None:
            return written
    return None


def _as_written(question: str, run: list[str]) -> str | None:
    """The words ``run`` as ``question`` writes them when each is capitalised, as a place's name is ("Fort Sumner",
    "Country Club Heights"); ``None`` for words in lower case, which name a place only when the gazetteer knows it."""
    said = [w.strip(",.?!;:'\"()") for w in question.split()]
    low = [w.lower() for w in said]
    for i in range(len(low) - len(run) + 1):
        if run and low[i:i + len(run)] == run:
            written = said[i:i + len(run)]
            return " ".join(written) if all(w[:1].isupper() for w in written) else None
    return None
