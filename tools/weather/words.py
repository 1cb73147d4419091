"""A weather request read by its words alone: made of the words people ask the weather with ("will it freeze
tonight", "do i need an umbrella this afternoon", "what's the uv index tomorrow", "is there any rain in the next 3
days"), a day said and at most one place, and nothing else. The words are sets, not patterns: one word outside them
("is the oven hot", "what should i wear to the interview", "did it rain yesterday") leaves the request to the other
readers and the model."""

from __future__ import annotations

from typing import Literal

from tools.reading.reader import tokens

# What the sky does or is: a request with one of these and nothing but the words below asks for the weather.
SKY = frozenset("""
weather forecast forcast forecasts forecasted temperature temperatures temp temps humidity humid rain raining rainy rains
snow snowing snowy snows snowfall freezing freeze frost frosty sunny sunshine windy wind winds cloudy clouds cloud
overcast storm storms stormy snowstorm blizzard fog foggy hail hailing sleet drizzle drizzling showers shower thunder
thunderstorm thunderstorms lightning icy heatwave tornado tornadoes tornados hurricane hurricanes typhoon precipitation
uv smog breezy muggy rainfall downpour rained snowed degrees celsius fahrenheit meteorological atmospheric sun temperate hottest
coldest warmest
""".split())
# Words of the weather that ask it only with a day said or the outdoors named ("how cold will it be tomorrow", "is
# it hot outside", "do i need a jacket today"); alone they may be of anything ("is it hot", "i need a jacket").
FELT = frozenset("""
hot hotter cold colder warm warmer chilly cool cooler nice high low highs lows jacket coat raincoat sweater shorts
layers sunscreen sunblock gloves scarf boots umbrella conditions wet dry sky skies nicer feel dress
""".split())
OUTDOORS = frozenset({"outside", "outdoors", "out", "outing"})
# The words any such request is asked with. Not here, on purpose: the past ("did", "was", "last", "yesterday": the
# tool forecasts), "why" (how the world works), "here" (read() takes it for the user's area, never "in here": indoors),
# "any city".
SAID_WITH = frozenset("""
what what's whats how how's hows is isn't it it's its will would be being going gonna to there there's any the a an of
for in on at me tell please can could you i need should do does get gets getting expect expected like look looks
looking chance chances much many inches bring take wear with my our area out right now current currently this next
rest later kind sort type predicted prediction predictions supposed suppose report update updates info information
details detail
give check and or we us day days week weekend 0 over under above below than more less let know want wanna find show
say about so as may might again when am up today today's tomorrow tomorrow's tonight weekly daily hourly
extended local outlook see if whether yet still also just already probability percent % ? going doing index
expecting forecasting predict predicting level levels alert alerts warning warnings around near nearby
are s have has coming soon data likely gonna two three four five seven ten fourteen fifteen all hour hours times
rundown highest lowest coverage which after before during sunset sunrise dawn dusk sometime anytime necessary
come comes close neighboring neighbouring far faraway away within same vicinity status able not while
""".split())
# What people do outdoors, said with the weather's words ("will it be nice at the beach on friday", "can i wear shorts
# while shopping today"): words such a request may hold, never what makes it one; only after a word that makes them
# an outing ("at the beach", "for a walk", "while shopping"), never as the end of a name ("Cocoa Beach", "June Park").
OUTINGS = frozenset("""
beach park picnic hike hiking walk walking run running jog jogging golf golfing shopping bike biking cycling swim
swimming fishing camping barbecue bbq garden gardening commute
""".split())
# The meals of a day, said as the time a forecast is for ("is it going to be warm here for brunch", "what is the
# forecast for montana at dinner"): words such a request may hold after a word that makes them a time.
MEALS = frozenset("""
breakfast brunch lunch lunchtime dinner dinnertime supper suppertime teatime elevenses mealtime meal
""".split())
_BEFORE_A_MEAL = frozenset({"for", "at", "around", "during", "by", "before", "after", "until", "till", "of"})
_HERE = ("around here", "out here", "where i am", "where i'm at", "where i am at", "near me", "my area", "my location",
         "my city", "my town", "my current position", "my current location", "my current spot", "my current place",
         "the current position", "the current location", "the current spot", "the current place", "this current position",
         "current position", "current location", "current spot", "current place", "my hometown", "my home town",
         "hometown", "home town")


def may_be(question: str) -> bool:
    """A word of the weather's in ``question``: without one, no reading by words (and no place looked up)."""
    return any(w in SKY or w in FELT or w in OUTDOORS for w in tokens(question))


def read(question: str, said: str) -> tuple[list[str], int, int] | Literal[True] | None:
    """How ``question`` is made, once ``said`` (the day and the places read as written) is set aside: ``True``
    when it is only the weather's words, the words left over as ``(words, start, end)`` when they are one run of
    at most four words (a place's name the gazetteer may know), ``None`` when it is not a weather request by its
    words."""
    text = question.lower()
    if converts(tokens(text)):
        return None
    for phrase in _HERE:
        text = text.replace(phrase, " my area ")
    words = tokens(text)
    if not words:
        return None
    # "here" is where the user is ("the forecast for here", "is there a storm here"), but "in here" is indoors
    words = ["area" if w == "here" and (i == 0 or words[i - 1] != "in") else w for i, w in enumerate(words)]
    taken = set(tokens(said))
    if all(w in taken or w == "?" for w in words):
        return None  # "Nice.", "Paris?": a place alone (after a weather turn, its follow-up reads it)
    sky = any(w in SKY for w in words)
    felt = any(w in FELT for w in words)
    outdoors = bool(OUTDOORS.intersection(words))
    if not sky and not (felt and (taken or outdoors or "area" in words)) \
            and not (outdoors and "it" in words and "you" not in words
                     and ({"like", "doing"}.intersection(words) or _how_outside(words))):
        return None  # no word of the sky, and not "what's it like outside", "how is it outside" (not "what are you
        # doing outside")
    known = SKY | FELT | OUTDOORS | SAID_WITH | taken
    rest = [i for i, w in enumerate(words) if w not in known and w.removesuffix("'s") not in taken
            and not (w in OUTINGS and i > 0 and words[i - 1] in _BEFORE_AN_OUTING)
            and not (w in MEALS and i > 0 and words[i - 1] in _BEFORE_A_MEAL)
            and not (w == "time" and i > 1 and words[i - 1] in MEALS and words[i - 2] in _BEFORE_A_MEAL)]
    if _says(question, words):
        return None
    if not rest:
        return None if _defines(words, taken) else True
    start, end = rest[0], rest[-1] + 1
    if len(rest) > 4 or rest != list(range(start, end)):
        return None
    # A place's name stands after a word that places it ("in", "for") or before the weather's ("miami weather");
    # "please set the temperature to 70" and "where do you hail from" name none.
    if words[start] in _WORKS_A_DEVICE or not ((start > 0 and words[start - 1] in _BEFORE_A_PLACE)
                                              or (end < len(words) and words[end] in SKY)):
        return None
    return words, start, end


def _how_outside(words: list[str]) -> bool:
    """"how is it outside", "how's it outdoors": the weather out there (not "how is it going out there", a greeting)."""
    return (words[:3] == ["how", "is", "it"] or words[:2] == ["how's", "it"]) and "going" not in words \
        and bool({"outside", "outdoors"}.intersection(words))


# "set temperature to 75": a thermostat, not a place called Set.
_WORKS_A_DEVICE = frozenset({"set", "turn", "change", "raise", "lower", "adjust", "make", "put", "increase", "decrease",
                             "reduce", "bump", "crank", "drop"})
_BEFORE_AN_OUTING = frozenset({"the", "a", "for", "to", "go", "going", "while", "my", "our", "of", "out", "some"})
_BEFORE_A_PLACE = frozenset({"in", "for", "at", "near", "around", "of", "on", "over"})
_WHAT_IS = frozenset({"what", "what's", "whats", "is", "are", "s", "a", "an", "?"})


def not_a_request(question: str) -> bool:
    """Weather words that ask for no report, whatever else reads them: a statement ("it's raining"), what a word
    means ("what's humidity"), a thermostat ("set temperature to 75"), a reminder ("remind me to take an umbrella"),
    a temperature converted to another scale ("what's 100 fahrenheit in celsius")."""
    words = tokens(question)
    return not words or words[0] in _WORKS_A_DEVICE or _says(question, words) or _defines(words, set()) \
        or words[1:3] == ["me", "to"] and words[0] in ("tell", "remind") \
        or converts(words)  # "tell me to take my umbrella": a reminder


_SCALES = frozenset({"fahrenheit", "celsius", "centigrade", "kelvin", "f", "c", "°f", "°c", "℉", "℃"})


def converts(words: list[str]) -> bool:
    """A temperature said in one scale and asked in another ("what's 100 fahrenheit in celsius", "convert 30 degrees
    celsius to fahrenheit", "how many fahrenheit is 20 celsius"): the units' question, not the weather's."""
    scales = [i for i, w in enumerate(words) if w in _SCALES]
    return len(scales) >= 2 and any(w.replace(".", "", 1).lstrip("-").isdigit() for w in words) and \
        len({words[i].lstrip("°").replace("℉", "f").replace("℃", "c")[:1] for i in scales}) >= 2


def _says(question: str, words: list[str]) -> bool:
    """A statement, not a request: "the weather is sunny today", "it's raining", "it will snow" (without "?")."""
    return "?" not in question and words[0] in ("the", "it", "it's", "its", "we") and (
        words[0] in ("it's", "its") or bool({"is", "are", "was", "will", "s"}.intersection(words[1:])))


def _defines(words: list[str], taken: set[str]) -> bool:
    """"what is a hurricane", "what's a rain check", "what's humidity": what a word means, not a report (that says
    "the": "what is the humidity")."""
    if taken or words[0] not in ("what", "what's", "whats"):
        return False
    said = words[1:] if words[0] != "what" or len(words) < 2 or words[1] not in ("is", "are", "s") else words[2:]
    return bool(said) and said[0] in ("a", "an") or all(w in _WHAT_IS or w in SKY for w in words)
