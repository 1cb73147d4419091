"""The learned reader (tools/reading/reader.py): what a request is about, heard in the words real people use, with
no model call. Requests worded as people word them get the time, the date, the reminders listed, what the
assistant is and the honest out-of-reach line; a rule's tool route that the reader is all but sure was not asked
for is left to the model; a request it cannot account for word by word is not answered on its reading; and no
text makes it raise."""

from __future__ import annotations

import json
import random
import re
from datetime import datetime
from pathlib import Path

import pytest

from assistant.pipeline import router
from conftest import by_rule
from fake_ollama import Script
from tools.reading import reader
from tools.reading.request import read
from tools.reading.when import resolve

DATA = Path(__file__).resolve().parents[1] / "data" / "utterances"


def _decision(tmp_path: Path, question: str, **settings: str) -> router.RouteDecision | None:
    return by_rule(tmp_path, question, clock="2026-11-27T10:00:00+00:00", **settings)


@pytest.mark.parametrize("question", ["would you mind telling me the time", "i would like to know the time",
                                      "do you have the time", "what is the exact time"])
async def test_the_time_asked_in_other_words_is_the_clock_with_no_model_call(fake, make_app, question):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and fake.requests == [] and result.route == "clock"
    assert re.search(r"\b\d{1,2}:\d{2}\b", result.answer)


@pytest.mark.parametrize("question, said", [
    ("what time is it in the central timezone", "It is 04:00 Central Time"), ("what time is it in pst", "02:00 Pacific"),
    ("what is the time right now in the hst timezone", "00:00 Hawaii Time"),
])
async def test_the_time_in_a_time_zone_named_is_that_zone_s(fake, make_app, question, said):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and result.route == "clock" and said in result.answer


@pytest.mark.parametrize("question, said", [
    ("could you tell me what timezone reno is in", "Reno is on America/Los_Angeles time: UTC-8 now"),
    ("which timezone is france in", "France is on Europe/Paris time: UTC+1 now"),
    ("what's the time zone in miami", "Miami is on America/New_York time: UTC-5"),
    ("what timezone is russia in", "Russia keeps 11 UTC offsets now, from UTC+2 to UTC+12; its capital, Moscow, is on "
                                   "Europe/Moscow time"),
])
async def test_the_time_zone_of_a_place_or_a_country(fake, make_app, question, said):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and result.route == "clock" and said in result.answer, result.answer


@pytest.mark.parametrize("question", ["what's today's date", "what is today's date please",
                                      "what's the date today please"])
async def test_the_date_asked_in_other_words_is_today(fake, make_app, question):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and result.route == "clock" and "27" in result.answer and "November" in result.answer


@pytest.mark.parametrize("question, said", [
    ("what is tomorrow's date", "28 November 2026"), ("i'd like to know the date tomorrow", "28 November 2026"),
    ("what will the date be in 10 days", "7 December 2026"), ("tell me the date 650 days from now", "7 September 2028"),
    ("what will be the date in a hundred days from now", "7 March 2027"),
])
async def test_the_date_of_a_day_said_in_other_words(fake, make_app, question, said):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and result.route == "clock" and said in result.answer, result.answer


@pytest.mark.parametrize("question, said", [
    # held as the reader heard them, their words the ask's or values read: a day in ordinals, a place qualified
    ("is the twenty third of april a saturday", "23 April 2027 is a Friday."),
    ("what day does april sixteenth fall on", "16 April 2027 is a Friday."),
    ("give me the time in london", "In London it is 10:00"), ("can i have today's date", "Friday 27 November 2026"),
    ("what's the current time in orlando fl", "In Orlando, FL it is 05:00"),
    ("hey olly what time is it in brooklyn new york", "In Brooklyn, New York it is 05:00"),
    ("what's the closest holiday after today in japan", "The next public holiday in Japan is New Year's Day"),
])
async def test_a_clock_question_in_the_words_people_use(fake, make_app, question, said):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and result.route == "clock" and said in result.answer, result.answer


@pytest.mark.parametrize("question, said", [("tell me the current time in ottawa", "In Ottawa it is 05:00"),
                                            ("what is the date of next saturday", "2026")])
async def test_a_time_or_date_query_is_read_as_its_words_say(fake, make_app, question, said):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask(question)
    assert result.model_calls == 0 and result.route == "clock" and said in result.answer, result.answer


async def test_a_place_left_over_is_the_place_asked_about(fake, make_app):
    result = await make_app(clock="2026-11-27T10:00:00+00:00").ask("what is the exact time in istanbul")
    assert result.model_calls == 0 and "Istanbul" in result.answer and "13:00" in result.answer  # UTC+3


@pytest.mark.parametrize("question", ["what time is it tomorrow", "what's the time in tx",
                                      "what time is it currently in the place my sister lives",
                                      "what time is it in california's capital"])
def test_words_it_cannot_account_for_are_never_answered_as_here_and_now(tmp_path, question):
    decision = _decision(tmp_path, question)
    here_and_now = [(a.ask, a.place) for a in (decision.args or [])] == [("now", "")] if decision else False
    assert not here_and_now


@pytest.mark.parametrize("question", ["go through my reminders for me", "could you read me my reminders"])
async def test_the_reminders_listed_asked_in_other_words(fake, make_app, question):
    app = make_app()
    await app.ask("remind me in 10 minutes to check the oven")
    result = await app.ask(question)
    assert result.model_calls == 0 and result.route == "reminders" and "check the oven" in result.answer


@pytest.mark.parametrize("question", ["who built you", "who do you work for", "are you a human or a computer",
                                      "what should I call you"])
async def test_questions_about_the_assistant_in_other_words_are_ours_to_answer(fake, make_app, question):
    result = await make_app().ask(question)
    assert result.model_calls == 0 and fake.requests == [] and "assistant" in result.answer.lower()


@pytest.mark.parametrize("question, said", [
    ("text my sister that I'm running late", "send e-mails or messages"),
    ("get me an uber to the airport", "book, reserve or order things"),
    ("pay my electricity bill", "move money or pay bills"),
    ("post this on facebook", "post to social media"),
    ("play some jazz", "play or control music"),
])
async def test_actions_out_of_reach_in_other_words(fake, make_app, question, said):
    # the rule's line (a capable model then offers a draft or the steps where words help: test_reach.py)
    result = await make_app(model_trust="untrusted").ask(question)
    assert result.model_calls == 0 and fake.requests == [] and said in result.answer


@pytest.mark.parametrize("question", ["how do I send an email in Python?", "call of duty tips",
                                      "why is music so relaxing", "explain how bank transfers work",
                                      "what is the history of the telephone"])
def test_questions_about_actions_are_still_questions(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or "no tool here does that" not in decision.reason


# Words unlike any it learned from, that happen to weigh for an action ("number" and a digit: a volume level; "name"
# with "your": what it is called). Each was read with p >= 0.97 before the guard on the request's own words.
@pytest.mark.parametrize("question", ["Name a colour, number 3.", "Name an animal, number 7.",
                                      "Give me a colour, number 12.", "Number 4: name a planet.",
                                      "Give your answer as a number, question 9."])
def test_instructions_unlike_any_request_get_no_line_from_the_reading(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or decision.route != router.CHAT or decision.reply is None, decision


def test_chinese_and_text_it_has_never_seen_get_no_reading():
    assert reader.read("现在几点了") is None and reader.read("") is None and reader.read("+-*/ ???") is None
    assert read("现在几点了").intent is None


def test_the_shipped_weights_say_what_each_label_serves():
    model = reader.model()
    assert len(model.labels) == len(model.bias) == len(model.targets) <= 255
    served = {t for t in model.targets if t != "other"}
    assert {"clock.time", "clock.date", "reminders.list", "abilities.maker", "out_of_reach.message"} <= served
    assert all(model.frames.get(t) for t in ("clock.time", "clock.date", "reminders.list"))
    assert "istanbul" not in model.frames["clock.time"] and "timezone" not in model.frames["clock.time"]


def test_no_text_makes_it_raise():
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 ?!.,'%+-*/=^×÷$€£\n\t\x00\u200b\u202eé中文😀"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(500)]
    texts += ["a" * 5000, "what " * 900, "0" * 2000, "\x00" * 10, "’" * 50]
    texts += [json.loads(line)["text"] for line in (DATA / "sample.jsonl").read_text(encoding="utf-8").splitlines()]
    for text in texts:
        got = reader.read(text)
        assert got is None or (0.0 <= got.p <= 1.0 and abs(sum(p for _, p in got.ranked) - 1.0) < 1e-6)
        if got is not None:
            reader.unexplained(text, got.target)


@pytest.mark.parametrize("question, place", [
    ("what are the conditions like in orlando", "Orlando"), ("what's the climate like in chicago", "Chicago"),
    ("costa mesa weather", "Costa Mesa"), ("tell me the weather for this week in denver", "Denver"),
    ("what does the weather look like in boston", "Boston"),
])
async def test_the_weather_asked_in_other_words_is_the_forecast_with_no_model_call(fake, weather_app, question, place):
    result = await weather_app(rendered_answers=True).ask(question)
    assert result.model_calls == 0 and fake.requests == [] and result.route == "weather"
    assert place in result.answer and result.tool_calls[0].args["place"].lower() == place.lower()


async def test_the_weather_in_other_words_with_no_place_is_the_home_city_or_asked_back(fake, weather_app):
    home = await weather_app(home_city="Chicago", rendered_answers=True).ask("how is it outside")
    assert home.model_calls == 0 and home.route == "weather" and "Chicago" in home.answer
    app = weather_app(rendered_answers=True)
    asked = await app.ask("what does the weather look like")
    assert asked.model_calls == 0 and "Which place" in asked.answer
    told = await app.ask("Boston", session_id=asked.session_id)
    assert told.route == "weather" and told.model_calls == 0 and "Boston" in told.answer


@pytest.mark.parametrize("reply", ["and tomorrow?", "明天呢", "what about the weekend"])
async def test_a_day_said_to_the_question_for_the_place_is_not_taken_for_a_place(fake, weather_app, reply):
    """"Which place?" answered with a day is no place: it had been looked up ("'and tomorrow' is not in the offline
    place list")."""
    fake.handler = Script(router={"route": "chat"}).always("responder", "Which city?").always("decide", "Which city?")
    app = weather_app(rendered_answers=True)
    asked = await app.ask("what does the weather look like")
    told = await app.ask(reply, session_id=asked.session_id)
    assert not any(c.args.get("place") for c in told.tool_calls) and "place list" not in told.answer, told.answer


@pytest.mark.parametrize("question, place", [
    ("will it freeze tonight", "Chicago"), ("are there any tornadoes coming soon", "Chicago"),
    ("do i need to take an umbrella with me this afternoon", "Chicago"), ("what's the uv index tomorrow", "Chicago"),
    ("will there be fog in my current position", "Chicago"), ("whats it doing outside right now", "Chicago"),
    ("i need meteorological data for tallahassee", "Tallahassee"), ("can you give me info on miami weather", "Miami"),
    ("what are the atmospheric conditions in sparks", "Sparks"), ("will it get over 90 degrees today", "Chicago"),
    ("is it nice in nice today", "Nice"), ("will it rain at all this week", "Chicago"),
    ("will there be fog after sunset", "Chicago"), ("which day will be rainy in this week", "Chicago"),
    ("should i wear layers sometime today", "Chicago"),
    # the sun of a forecast (not the sun's heat), a meal as the time, details asked for
    ("will the sun come out today in houston", "Houston"), ("how much sun will there be tomorrow", "Chicago"),
    ("is it going to be warm here for brunch", "Chicago"), ("what is the forecast for denver at dinner", "Denver"),
    ("can you give me weather details for my current spot", "Chicago"),
])
async def test_the_weather_in_the_words_it_is_asked_with_is_read_whatever_the_reader_makes_of_it(
        fake, weather_app, question, place):
    """The weather's own words, a day and a place, and nothing else: read by the words alone (the reader may never
    have heard "freeze" or "meteorological")."""
    result = await weather_app(home_city="Chicago", rendered_answers=True).ask(question)
    assert result.model_calls == 0 and fake.requests == [] and result.route == "weather"
    assert place in result.answer and result.tool_calls[0].args["place"].lower() == place.lower()


@pytest.mark.parametrize("question", ["what's 100 fahrenheit in celsius", "30 celsius in fahrenheit",
                                      "convert 30 degrees celsius to fahrenheit", "how many fahrenheit is 20 celsius"])
def test_a_temperature_in_another_scale_is_converted_where_a_home_city_is_set(tmp_path, question):
    """The scales are the weather's words too: with a home city, a conversion was the home's weather as well as the
    units' answer, and neither was certain (the model answered)."""
    for home in ({}, {"home_city": "London"}):
        decision = _decision(tmp_path, question, **home)
        assert decision is not None and decision.route == "units", (question, home)


@pytest.mark.parametrize("question", ["will it freeze tonight", "will it rain at all this week",
                                      "will there be fog after sunset", "is umbrella necessary for my outing"])
def test_the_weather_in_its_words_with_no_place_and_no_home_city_is_asked_back(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is not None and decision.route == router.CLARIFY and "Which place" in (decision.reply or "")


@pytest.mark.parametrize("question", [
    "is the oven hot", "where do you hail from", "please set the temperature to 70", "set temperature to 75",
    "what is a hurricane", "what's humidity", "what's a rain check?", "the weather is sunny today", "it's raining", "what are you doing outside",
    "what should i wear to the wedding", "is it cold in here", "what time does the sun set", "how hot is the sun",
    "what happens after sunset", "which city is the coldest", "which is the best day to visit",
    "what is the temperature of the sun", "how far away is the sun", "what should i make for dinner", "• The Sun",
])
def test_words_that_only_sound_like_the_weather_are_not_its_request(tmp_path, question):
    for home in ({}, {"home_city": "Chicago"}):
        decision = _decision(tmp_path, question, **home)
        assert decision is None or decision.route not in ("weather", router.CLARIFY), (question, home)


@pytest.mark.parametrize("question", ["what is a weather front", "what is the difference between weather and climate",
                                      "how does snow form", "did it rain a lot last year",
                                      "what is the weather like in june in paris usually"])
def test_weather_words_it_cannot_account_for_are_left_to_the_model(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or decision.route != "weather"


@pytest.mark.parametrize("question, said", [
    ("how many ounces are in a cup", "1 cup = 8 fl oz"), ("what would four inches be in centimeters", "4 inches = 10.16 centimeters"),
    ("how do you convert pounds to grams", "1 pound = 453.59 grams"), ("how many teaspoons are in a half a cup", "0.5 cup = 24 teaspoons"),
    ("i need to know how many cups are in a two gallons", "2 gallons = 32 cups"),
    ("what's 10 inches in centimeters and millimeters", "10 inches = 254 millimeters"),
])
async def test_a_conversion_in_other_words_is_read_with_its_amount_and_units(fake, make_app, question, said):
    result = await make_app().ask(question)
    assert result.model_calls == 0 and fake.requests == [] and result.route == "units" and said in result.answer, result.answer


@pytest.mark.parametrize("question", ["how many calories in a cup of rice", "how many cups of coffee a day is too much",
                                      "convert my 3 pounds of flour recipe to grams", "how many weeks are in 3 months",
                                      "is a pound heavier than a kilogram"])
def test_unit_words_it_cannot_account_for_are_left_to_the_model(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or decision.route != "units", decision


@pytest.mark.parametrize("question, weather", [
    ("will there be any snow next week", True), ("is today a sunny day", True), ("what is tomorrows weather predictions", True),
    ("Play Rain by Subliminal on Groove Shark", False), ("Add tune to my hot 50", False), ("the weather is sunny today", False),
    ("我要听张雨生的歌。", False), ("朗读咏雪", False), ("最近最热的电视剧", False), ("今天冷吗", True),
    ("晚上冷不冷", True), ("早上冷吗", True), ("晚上吃什么", False), ("下午开会冷不冷", False),  # a part of today said alone
])
def test_with_a_home_city_only_a_weather_request_is_its_weather(tmp_path, question, weather):
    decision = _decision(tmp_path, question, home_city="Chicago")
    assert (decision is not None and decision.route == "weather") == weather, decision


@pytest.mark.parametrize("question, places", [
    ("weather in paris and london", ["paris", "london"]),  # was paris alone: london dropped, in lower case
    ("what's the weather in tokyo and osaka tomorrow", ["tokyo", "osaka"]),
    ("weather in paris, london and berlin", ["paris", "london", "berlin"]),
    ("is it raining in tokyo or osaka", ["tokyo", "osaka"]),
    ("weather in paris, texas", ["paris, texas"]),  # a place and its state: one place
    ("weather in portland, maine and boston", ["portland, maine", "boston"]),
    ("The weather tool against a fake Open-Meteo, run in the sandbox", None),  # no place after "in": no list of them
])
def test_places_said_in_a_list_are_each_asked_about(tmp_path, question, places):
    decision = _decision(tmp_path, question)
    asked = [a.place for a in decision.args] if decision is not None and decision.route == "weather" else None
    assert asked == places, decision


@pytest.mark.parametrize("question, when", [
    ("can i wear shorts out while shopping today", "today"), ("will it be nice at the beach on friday", "friday"),
    ("will i be able to get away with shorts today", "today"), ("i need jacket after ten am or not", "10 am"),
    ("what is status of current weather", None), ("will it be too cold for a walk tomorrow", "tomorrow"),
    ("how is it outside", None), ("weather in home town", None), ("what is home town weather", None),
])
def test_the_weather_asked_of_what_people_do_outdoors(tmp_path, question, when):
    """What to wear, whether the beach will be nice: the weather's words with an outing's, at the home city."""
    decision = _decision(tmp_path, question, home_city="Chicago")
    assert decision is not None and decision.route == "weather", decision
    assert decision.args[0].place == "Chicago" and decision.args[0].when == when


@pytest.mark.parametrize("question", ["Nice work!", "should i go shopping today", "is the game on tonight",
                                      "please tell me to take my umbrella because it will be very hot today",
                                      "how is it going out there",
                                      "is it hot at work", "is it a good day for a picnic"])
def test_an_outing_without_the_weather_s_words_is_not_the_weather(tmp_path, question):
    decision = _decision(tmp_path, question, home_city="Chicago")
    assert decision is None or decision.route != "weather", decision


@pytest.mark.parametrize("question, place", [
    ("Will it storm in Cocoa Beach", "Cocoa Beach"), ("What will the rainfall be at Roy Lake State Park", "Roy Lake State Park"),
    ("What will be the temperate in Tyresta National Park", "Tyresta National Park"),
])
def test_a_name_ending_in_an_outing_s_word_is_read_whole(tmp_path, question, place):
    """"Beach", "Park" end names as often as they are outings: a name in capitals goes on over them, never cut short
    to a town of its first words (Cocoa, Florida, for Cocoa Beach)."""
    decision = _decision(tmp_path, question)
    assert decision is not None and decision.route == "weather" and decision.args[0].place == place, decision


@pytest.mark.parametrize("question", ["can i have the ten day forecast for me area", "what is the weather in the area"])
def test_a_word_for_a_place_in_general_is_no_place(tmp_path, question):
    decision = _decision(tmp_path, question)  # "area" is another name of Mundelein, Illinois: never read so
    assert decision is None or decision.route != "weather" or decision.args[0].place.lower() != "area", decision


@pytest.mark.parametrize("question, start, end", [
    ("What will the weather be in Paris on 12/14/2027", "2027-12-14", "2027-12-14"),
    ("weather in Paris in july", "2027-07-01", "2027-07-31"), ("will it snow in Paris next year", "2027-01-01", "2027-12-31"),
    ("what will the weather be in Paris this winter", "2026-12-01", "2027-02-28"),
    ("what was the weather in Paris last october", "2026-10-01", "2026-10-31"),
    ("is it going to rain in Paris on the 2nd", "2026-12-02", "2026-12-02"),
    ("will it be sunny in Paris in 3 weeks", "2026-12-18", "2026-12-18"),
    ("Will it rain in Paris 17 weeks from now?", "2027-03-26", "2027-03-26"),
    ("Weather for Paris 3 years and a half from now", "2030-05-27", "2030-05-27"),
    ("Will it snowstorm in Paris on feb. the second?", "2027-02-02", "2027-02-02"),
    ("Is it going to be sunny on Oct. twenty-seventh, 2031 in Paris", "2031-10-27", "2031-10-27"),
    ("What will the weather be next apr. in Paris?", "2027-04-01", "2027-04-30"),
    ("Will it be freezing on 4/20/2038 in Paris", "2038-04-20", "2038-04-20"),
    ("What was the weather like two days ago in Paris", "2026-11-25", "2026-11-25"),
    ("Will it be warm in Paris this tuesday", "2026-12-01", "2026-12-01"),  # the coming one, said on a Friday
    ("I need to know the weather for Jan. the 3rd in Paris", "2027-01-03", "2027-01-03"),
    # a forecast said by its length, a day's possessive without its apostrophe
    ("whats the weeks forecast in Paris", "2026-11-27", "2026-12-03"),
    ("show me one week weather of Paris", "2026-11-27", "2026-12-03"),
    ("the 10-day forecast for Paris", "2026-11-27", "2026-12-06"),
    ("Paris weekly forecast", "2026-11-27", "2026-12-03"),
    ("what is tomorrows weather predictions in Paris", "2026-11-28", "2026-11-28"),
    ("will it snow in Paris in the next two weeks", "2026-11-27", "2026-12-10"),
])
def test_a_day_in_other_words_is_read_as_that_day(tmp_path, question, start, end):
    """Months, seasons, years, weeks or years ahead, spelt ordinals, dates in figures, the past: read as the days
    they name (the tool then forecasts them, or says they are beyond its 16 days), never as today."""
    for home in ({}, {"home_city": "Chicago"}):
        decision = _decision(tmp_path, question, **home)
        assert decision is not None and decision.route == "weather", (question, home, decision)
        period = resolve(decision.args[0].when, datetime(2026, 11, 27, 10))
        assert period is not None and (period.start.isoformat(), period.end.isoformat()) == (start, end), period


@pytest.mark.parametrize("question", [
    "will it rain in Paris on 12/5/2032",  # 5 December or 12 May?
    "Will it be hot on orthodox good friday in Paris", "Will there be a storm in Paris on Robert E Lee's Birthday",
    "weather in Paris december", "will it be cold in Paris at christmas", "what was the weather in Paris two years back",
    "明年春天北京会下雪吗", "下个月上海冷吗", "北京3月的天气", "去年冬天北京冷吗", "今年夏天上海热不热",  # a year, a season, a month
])
def test_a_day_the_reader_cannot_read_is_never_answered_with_todays_forecast(tmp_path, question):
    """A date in figures that could be either, a holiday, a month said alone: today's forecast would answer another
    question, so no rule is certain (the model answers, or says it cannot)."""
    for home in ({}, {"home_city": "Chicago"}):
        decision = _decision(tmp_path, question, **home)
        assert decision is None or decision.route not in ("weather", router.CLARIFY), (question, home, decision)


@pytest.mark.parametrize("question, when", [("weather in Paris on December 2", "December 2"),
                                            ("What will the weather be like in Paris on dec. 8, 2027", "dec. 8, 2027"),
                                            ("weather in Paris this week", "this week"),
                                            ("what is the forecast for Paris for the next 7 days", "the next 7 days"),
                                            ("what's the weather forecast for here", None)])
def test_a_day_the_reader_reads_is_the_forecasts(tmp_path, question, when):
    decision = _decision(tmp_path, question, home_city="Chicago")
    assert decision is not None and decision.route == "weather" and decision.args[0].when == when


@pytest.mark.parametrize("question, place", [
    ("Will it storm in Fort Sumner", "Fort Sumner"), ("What is the weather forecast in Country Club Heights",
                                                      "Country Club Heights"),
    ("Will there be cloud coverage in Verdery", "Verdery"),
])
def test_a_place_written_as_a_name_is_looked_up_when_the_gazetteer_lacks_it(tmp_path, question, place):
    """The weather's words and a name written capitalised after "in": the tool looks it up online (and says so
    when it cannot); a word in lower case, or one that only opens the sentence, is no such name."""
    decision = _decision(tmp_path, question)
    assert decision is not None and decision.route == "weather" and decision.args[0].place == place


@pytest.mark.parametrize("question", ["will it storm in gonbad", "Why does it rain?", "Rain makes me sad"])
def test_a_word_not_written_as_a_name_is_no_place_to_look_up(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or decision.route != "weather" or decision.args[0].place not in ("Gonbad", "gonbad", "Why")


@pytest.mark.parametrize("question, route, place", [
    ("what timezone is sacromento in", "clock", "Sacramento"), ("whats the timezone for san fransico", "clock", "San Francisco"),
    ("what time is it in chicgo", "clock", "Chicago"), ("what's the weather in pheonix", "weather", "Phoenix"),
    ("what time is it in chairs", None, None), ("what is the weather like in getting", None, None),
])
def test_a_big_citys_name_misspelt_is_read_as_that_city(tmp_path, question, route, place):
    """Where the request's words leave room for a place and nothing else, a big city's name one slip away is that
    city (two letters begin both, and no other city is as close); an English word is no misspelt city."""
    decision = _decision(tmp_path, question)
    if route is None:
        assert decision is None or decision.route not in ("clock", "weather"), decision
    else:
        assert decision is not None and decision.route == route and decision.args[0].place == place, decision


@pytest.mark.parametrize("question", ["what were those things i was trying to remember",
                                      "i wanted to remember some things, what were they",
                                      "what did i ask you to remember"])
def test_what_was_to_be_remembered_is_the_reminders_listed(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is not None and decision.route == "reminders" and decision.args[0].action == "list", decision


@pytest.mark.parametrize("question", ["do you remember my name", "remember that i parked on level 3",
                                      "what should i remember about python"])
def test_remember_said_otherwise_is_no_request_for_the_reminders(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or decision.route != "reminders", decision


@pytest.mark.parametrize("words, p, leads", [
    (("what", "name", "do", "you", "prefer"), 0.7, True),  # every word one such questions are made of
    (("what", "name", "do", "you", "prefer"), 0.4, False),  # the reading too unsure
    (("what", "name", "do", "you", "give", "your", "goldfish"), 0.7, False),  # a word of its own: not about us
])
def test_a_reading_less_than_certain_leads_only_in_its_frame_s_words(words, p, leads):
    reading = reader.Reading((("abilities.name", p), ("other", 1 - p)), words)
    assert reading.leads("abilities") == leads


@pytest.mark.parametrize("question", ["what is your favorite color", "can you help me with my homework",
                                      "do you have a name for this song", "what is my name", "can i give you a new name"])
def test_words_said_to_the_assistant_about_something_else_are_no_question_about_it(tmp_path, question):
    decision = _decision(tmp_path, question)
    assert decision is None or not decision.abilities, decision
