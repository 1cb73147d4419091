"""Weather on any day: the day resolved without a model in the place's own timezone, the forecast fetched for
exactly that day from the fake Open-Meteo, checked, cached, followed up and answered."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from conftest import closed_port
from fake_ollama import Script, tool_call
from oracle import grounded

from tools import InProcessRunner
from tools.jail.runner import SandboxRunner
from tools.weather import Weather, WeatherArgs, WeatherConfig
from tools.reading.when import find_when, resolve

SUNDAY_EVENING = datetime(2026, 11, 22, 19, 0)  # the fake's clock, in Beijing


@pytest.mark.parametrize("question, phrase, start, end, hours", [
    ("明天北京会下雨吗?", "明天", "2026-11-23", "2026-11-23", None),
    ("后天上海多少度", "后天", "2026-11-24", "2026-11-24", None),
    ("大后天呢", "大后天", "2026-11-25", "2026-11-25", None),
    ("周五天气怎么样", "周五", "2026-11-27", "2026-11-27", None),
    ("下周三会下雪吗", "下周三", "2026-11-25", "2026-11-25", None),
    ("这周末冷不冷", "这周末", "2026-11-22", "2026-11-22", None),  # a Sunday: what is left of the weekend
    ("下周末", "下周末", "2026-11-28", "2026-11-29", None),
    # the week before 天气, never its Sunday ("这个星期天气": this week's weather, not Sunday's "气")
    ("北京这个星期天气", "这个星期", "2026-11-22", "2026-11-22", None), ("下个星期天气怎么样", "下个星期", "2026-11-23", "2026-11-29", None),
    ("星期天天气", "星期天", "2026-11-22", "2026-11-22", None),
    ("未来3天", "未来3天", "2026-11-22", "2026-11-24", None),
    ("未来一周的天气", "未来一周", "2026-11-22", "2026-11-28", None),
    ("北京今晚冷吗", "今晚", "2026-11-22", "2026-11-22", (18, 24)),
    ("明天下午5点会下雨吗", "明天下午5点", "2026-11-23", "2026-11-23", (17, 18)),
    ("11月28日天气", "11月28日", "2026-11-28", "2026-11-28", None),
    ("What about the day after tomorrow?", "the day after tomorrow", "2026-11-24", "2026-11-24", None),
    ("Will it rain on Friday?", "Friday", "2026-11-27", "2026-11-27", None),
    ("next Monday in Paris", "next Monday", "2026-11-23", "2026-11-23", None),
    ("this weekend", "this weekend", "2026-11-22", "2026-11-22", None),
    ("the next 3 days", "the next 3 days", "2026-11-22", "2026-11-24", None),
    ("tomorrow morning", "tomorrow morning", "2026-11-23", "2026-11-23", (6, 12)),
    ("at 8 pm", "at 8 pm", "2026-11-22", "2026-11-22", (20, 21)),
    ("at 5 pm", "at 5 pm", "2026-11-23", "2026-11-23", (17, 18)),  # 17:00 has passed: tomorrow's
    ("in 3 days", "in 3 days", "2026-11-25", "2026-11-25", None),
    ("on Nov 30th", "Nov 30th", "2026-11-30", "2026-11-30", None),
    ("in 8 hours", "in 8 hours", "2026-11-23", "2026-11-23", (3, 4)),
    ("seven o'clock this evening", "seven o'clock this evening", "2026-11-22", "2026-11-22", (19, 20)),
    ("two days ago", "two days ago", "2026-11-20", "2026-11-20", None),
    ("for the rest of this month", "this month", "2026-11-22", "2026-11-30", None),
    # "the rest of the week" is a time, not a place named Rest (another name of Rasht, Iran)
    ("what is the weather looking like for the rest of the week", "the rest of the week", "2026-11-22", "2026-11-22",
     None),
    ("will it rain for the rest of the day", "the rest of the day", "2026-11-22", "2026-11-22", None),
    ("weather for the rest of the weekend", "the rest of the weekend", "2026-11-22", "2026-11-22", None),
    ("I need the weather for Jan. the 3rd", "Jan. the 3rd", "2027-01-03", "2027-01-03", None),
    ("in a couple of days", "in a couple of days", "2026-11-24", "2026-11-24", None),
    ("what's the weather next week", "next week", "2026-11-23", "2026-11-29", None),  # the calendar week after this
    ("for the next week", "the next week", "2026-11-22", "2026-11-28", None),  # seven days from today
    ("北京两周后天气", "两周后", "2026-12-06", "2026-12-06", None),  # not 后天 (the day after tomorrow)
    ("三个月后呢", "三个月后", "2027-02-22", "2027-02-22", None),
    # a day of a month said with its month: that day (was all of next month, or the next 1st, "of next month" dropped)
    ("weather on the 1st of next month in paris", "on the 1st of next month", "2026-12-01", "2026-12-01", None),
    ("will it rain on the first of next month", "on the first of next month", "2026-12-01", "2026-12-01", None),
    ("the 30th of this month", "the 30th of this month", "2026-11-30", "2026-11-30", None),
    ("下个月1号北京天气", "下个月1号", "2026-12-01", "2026-12-01", None),
    ("本月三十号会下雨吗", "本月三十号", "2026-11-30", "2026-11-30", None),
])
def test_days_are_resolved_without_a_model(question, phrase, start, end, hours):
    assert find_when(question) == phrase
    period = resolve(phrase, SUNDAY_EVENING)
    assert (period.start.isoformat(), period.end.isoformat(), period.hours) == (start, end, hours)


@pytest.mark.parametrize("question", ["北京天气怎么样?", "What's the weather in Paris?", "上海现在冷不冷?",
                                      "Who won the 2022 World Cup?"])
def test_a_question_without_a_day_asks_about_now(question):
    assert find_when(question) is None


# The tool (the first test in the sandbox, as the application runs it; the rest in-process, for speed)


@pytest.fixture
async def sandbox(tmp_path):
    r = SandboxRunner(timeout=10, log=tmp_path / "tools.log")
    yield r
    await r.aclose()


@pytest.fixture
def runner():
    return InProcessRunner(timeout=10)


def weather(tmp_path, gazetteer_index, url: str, clock: datetime, **more) -> Weather:
    return Weather(WeatherConfig(forecast_url=url, geocoding_url=url, cache_dir=str(tmp_path / "weather"),
                                 gazetteer_index=gazetteer_index, clock=clock.isoformat(), **more))


async def test_a_day_is_fetched_with_its_local_dates(tmp_path, gazetteer_index, meteo, sandbox):
    runner = sandbox
    meteo.set_day(39.91, 116.40, "2026-11-23", high=9.5, low=-1.0, code=71, rain_chance=70, rain=2.5)
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="北京", when="明天"))
    assert result.ok and result.data["dates"] == ["2026-11-23"]
    day = result.data["days"][0]
    assert (day["high"], day["low"], day["conditions"], day["precipitation_chance"]) == ("9.5°C", "-1.0°C", "小雪", "70%")
    request = meteo.forecast_requests[-1]
    assert (request["start_date"], request["end_date"], request["timezone"]) == ("2026-11-23", "2026-11-23", "Asia/Shanghai")
    assert "temperature_2m_max" in request["daily"] and "current" not in request


@pytest.mark.parametrize("utc, place, tomorrow", [
    (datetime(2026, 11, 22, 15, 30, tzinfo=timezone.utc), "北京", "2026-11-23"),   # 23:30 in Beijing
    (datetime(2026, 11, 22, 16, 30, tzinfo=timezone.utc), "北京", "2026-11-24"),   # 00:30 Monday in Beijing
    (datetime(2026, 11, 22, 16, 30, tzinfo=timezone.utc), "New York", "2026-11-23"),  # still Sunday there
    (datetime(2026, 11, 22, 11, 0, tzinfo=timezone.utc), "Auckland", "2026-11-24"),  # already Monday there
])
async def test_tomorrow_is_the_places_tomorrow(tmp_path, gazetteer_index, meteo, runner, utc, place, tomorrow):
    meteo.now = utc
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, utc), WeatherArgs(place=place, when="tomorrow"))
    assert result.ok and result.data["dates"] == [tomorrow]
    assert meteo.forecast_requests[-1]["start_date"] == tomorrow


async def test_today_carries_the_conditions_now_and_the_days_range(tmp_path, gazetteer_index, meteo, runner):
    meteo.set_weather(48.8534, 2.3488, 7.0, code=3)
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="Paris", when="today"))
    assert result.ok and result.data["dates"] == ["2026-11-22"] and result.data["now"]["temperature"] == "7.0°C"
    assert result.data["timezone"] == "Europe/Paris" and result.data["local_time"] == "2026-11-22T12:00"


async def test_a_part_of_a_day_reads_the_hours(tmp_path, gazetteer_index, meteo, runner):
    meteo.set_day(31.22, 121.46, "2026-11-22", high=12.0, low=4.0, code=61, rain_chance=80)
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="上海", when="今晚"))
    hours = result.data["hours"]
    assert (hours["from"], hours["to"], hours["precipitation_chance"], hours["conditions"]) == ("18:00", "24:00", "80%", "小雨")
    assert float(hours["temperature_high"][:-2]) <= 12.0


@pytest.mark.parametrize("when, words", [("20天后", "16 天"), ("in 30 days", "16 days")])
async def test_beyond_sixteen_days_is_a_clear_refusal(tmp_path, gazetteer_index, meteo, runner, when, words):
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="北京", when=when))
    assert not result.ok and not result.fixable
    assert words in result.message.get("zh" if "天" in when else "en")
    assert meteo.forecast_requests == []  # known before asking the API


async def test_a_when_that_is_no_day_is_feedback_for_the_model(tmp_path, gazetteer_index, meteo, runner):
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="北京", when="soon-ish"))
    assert not result.ok and result.fixable and "Cannot read when='soon-ish'" in result.error


async def test_forecast_days_are_cached_and_served_offline(tmp_path, gazetteer_index, meteo, runner):
    await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="Paris", when="next 3 days"))
    asked = len(meteo.forecast_requests)
    again = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now), WeatherArgs(place="Paris", when="tomorrow"))
    assert again.ok and len(meteo.forecast_requests) == asked  # tomorrow was among the three cached days
    dead = f"http://127.0.0.1:{closed_port()}"
    offline = await runner.run(weather(tmp_path, gazetteer_index, dead, meteo.now, cache_minutes=0),
                               WeatherArgs(place="Paris", when="the day after tomorrow"))
    assert offline.ok and offline.data["dates"] == ["2026-11-24"]
    assert offline.data["note"].startswith("No network: this is the forecast cached 0 minutes ago")
    missing = await runner.run(weather(tmp_path, gazetteer_index, dead, meteo.now, cache_minutes=0),
                               WeatherArgs(place="Paris", when="Friday"))
    assert not missing.ok and "No network" in missing.error


# Through the pipeline


@pytest.mark.parametrize("question, place, dates", [
    ("明天北京会下雨吗?", "北京", ["2026-11-23"]),
    ("后天上海多少度", "上海", ["2026-11-24"]),
    ("What's the weather like in Paris this weekend?", "Paris", ["2026-11-22"]),
    ("周五东京天气怎么样?", "东京", ["2026-11-27"]),
    ("下周一上海冷吗?", "上海", ["2026-11-23"]),
    ("What's the forecast for London for the next 3 days?", "London", ["2026-11-22", "2026-11-23", "2026-11-24"]),
    ("北京今晚冷吗?", "北京", ["2026-11-22"]),
    ("Will it rain in New York tomorrow?", "New York", ["2026-11-23"]),
])
async def test_a_known_place_and_day_costs_one_model_call(fake, meteo, weather_app, question, place, dates):
    fake.handler = Script(responder=grounded)
    result = await weather_app().ask(question)
    assert result.ok and result.route_by == "rule" and result.model_calls == 1 and result.replaced is None
    assert fake.kinds() == ["responder"]
    [call] = result.tool_calls
    assert call.args["place"] == place and call.result["dates"] == dates


async def test_a_wrong_forecast_figure_is_never_shown(fake, meteo, weather_app):
    meteo.set_day(39.91, 116.40, "2026-11-23", high=9.5, low=-1.0, code=71)
    fake.handler = Script().always("responder", "北京明天最高 15°C,最低 3°C,小雪。")  # not tomorrow's figures
    result = await weather_app().ask("明天北京冷吗?")
    assert result.replaced and "figures the results do not have: 3" in result.replaced  # the low, invented
    assert "最低 3°C" not in result.answer and result.answer.startswith("北京明天(11月23日 周一):小雪,最低 -1°C,最高 9.5°C")


async def test_rendered_answers_need_no_model_at_all(fake, meteo, weather_app):
    result = await weather_app(rendered_answers=True).ask("What's the weather in Paris tomorrow?")
    assert result.ok and result.model_calls == 0
    assert result.answer.startswith("Paris, tomorrow (Mon 23 Nov): ")


async def test_forecast_follow_ups_change_the_day_or_the_place(fake, meteo, weather_app):
    fake.handler = Script().always("responder", grounded)
    app = weather_app()
    first = await app.ask("明天北京会下雨吗?")
    other_day = await app.ask("那后天呢?", session_id=first.session_id)
    other_place = await app.ask("那上海呢?", session_id=first.session_id)
    assert [r.route_by for r in (first, other_day, other_place)] == ["rule", "rule", "rule"]
    assert fake.kinds() == ["responder"] * 3
    assert (other_day.tool_calls[0].args["place"], other_day.tool_calls[0].result["dates"]) == ("北京", ["2026-11-24"])
    assert (other_place.tool_calls[0].args["place"], other_place.tool_calls[0].result["dates"]) == ("上海", ["2026-11-24"])


async def test_an_english_follow_up_on_another_day(fake, meteo, weather_app):
    fake.handler = Script().always("responder", grounded)
    app = weather_app()
    first = await app.ask("What's the weather in Paris tomorrow?")
    sunday = await app.ask("and on Sunday?", session_id=first.session_id)
    assert sunday.route_by == "rule" and sunday.tool_calls[0].result["dates"] == ["2026-11-22"]
    again = await app.ask("Will it rain tomorrow?", session_id=first.session_id)  # no place: the previous one
    assert again.route_by == "rule" and again.tool_calls[0].args["place"] == "Paris"


async def test_beyond_sixteen_days_through_the_pipeline(fake, meteo, weather_app):
    result = await weather_app().ask("20天后北京天气怎么样?")
    assert not result.ok and result.model_calls == 0 and result.attempts == 1
    assert "16 天" in result.answer and meteo.forecast_requests == []


@pytest.mark.parametrize("question, said", [
    ("What will the weather be like in Paris on dec. 8, 2027", "2027"), ("will it rain in Paris on 8 December 2027", "2027"),
    ("Will it be cloudy in Paris next year", "next year"), ("Can you tell me if it'll be freezing in Paris in seven years?",
                                                            "7 years"),
    ("What will the weather be like feb. the twentieth in Paris", "feb. the twentieth"),
    ("Will it rain 17 weeks from now in Paris?", "17 weeks from now"), ("what is the Poland forecast for next January",
                                                                         "next January"),
    ("What will the weather be in Paris this winter", "this winter"),
])
async def test_a_day_past_sixteen_days_is_said_so(fake, meteo, weather_app, question, said):
    """The day read whole (a year had been dropped, and this year's 8 December forecast; a month, a season, weeks
    or years ahead were today's): the tool says, with no model call, that it reaches 16 days."""
    result = await weather_app().ask(question)
    assert not result.ok and result.model_calls == 0 and "16 days" in result.answer and said in result.answer
    assert meteo.forecast_requests == [] and fake.requests == []


async def test_a_chinese_span_of_months_past_sixteen_days_is_said_so(fake, meteo, weather_app):
    result = await weather_app().ask("北京三个月后会下雨吗")
    assert not result.ok and result.model_calls == 0 and "16 天" in result.answer and "三个月后" in result.answer
    assert meteo.forecast_requests == []


async def test_a_day_long_past_is_said_so(fake, meteo, weather_app):
    result = await weather_app().ask("What was the weather like last may in Paris")
    assert not result.ok and result.model_calls == 0 and "last 7 days" in result.answer and "last may" in result.answer
    assert meteo.forecast_requests == []


async def test_a_few_hours_ahead_is_that_hours_forecast(tmp_path, gazetteer_index, meteo, runner):
    """"four hours from now" at 12:00 in Paris: 16:00 to 17:00 that day."""
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url, meteo.now),
                              WeatherArgs(place="Paris", when="4 hours from now"))
    assert result.ok and result.data["dates"] == ["2026-11-22"]
    assert (result.data["hours"]["from"], result.data["hours"]["to"]) == ("16:00", "17:00")


async def test_the_flawed_model_fetching_the_wrong_day_is_corrected(fake, meteo, weather_app):
    fake.handler = Script(
        router={"route": "weather"},
        executor=[tool_call("weather", place="上海"), tool_call("weather", place="上海", when="明天")],
        responder=grounded,
    )
    result = await weather_app().ask("明天上海要穿羽绒服吗?")
    assert result.ok and result.attempts == 2
    # one call decided (its call fetched today), the check failed it, the executor fixed it; no model validator
    assert fake.kinds() == ["decide", "executor", "responder"]
    feedback = fake.requests[1]["messages"][-1]["content"]
    assert "明天" in feedback and "when=" in feedback
    assert result.tool_calls[-1].result["dates"] == ["2026-11-23"]


@pytest.mark.parametrize("question, phrase", [("昆明天气如何?", None), ("明天昆明天气如何?", "明天"), ("昆明明天冷吗", "明天")])
def test_a_day_inside_a_place_name_is_not_a_day(tmp_path, gazetteer_index, question, phrase):
    tool = weather(tmp_path, gazetteer_index, "http://127.0.0.1:9", SUNDAY_EVENING)
    assert tool.when_in(question) == phrase


@pytest.mark.parametrize("question, place", [("what's the weather in pheonix", "Phoenix"),
                                             ("what is the weather like in melbourn", "Melbourne")])
async def test_a_big_citys_name_misspelt_is_that_city(fake, meteo, weather_app, question, place):
    result = await weather_app(rendered_answers=True).ask(question)
    assert result.ok and result.model_calls == 0 and place in result.answer, result.answer
    assert result.tool_calls[0].args["place"] == place


@pytest.mark.parametrize("phrase, day", [
    ("tomorrow today", None), ("monday friday", None), ("明天今天", None), ("tomorrow sunday", None),
    ("friday december 5", None),  # 5 December 2026 is a Saturday: which did they mean?
    ("on friday, december 4", date(2026, 12, 4)), ("december 4, friday", date(2026, 12, 4)),
    ("tomorrow monday", date(2026, 11, 23)), ("monday next week", date(2026, 11, 23)),  # said on a Sunday
])
def test_two_days_said_in_one_phrase_are_one_day_or_none(phrase, day):
    """Two day words in one phrase name one day when they agree (a weekday with its date, a day in a week);
    otherwise none: the last one said had been taken ("tomorrow today" was today)."""
    period = resolve(phrase, SUNDAY_EVENING)
    assert (period.start if period and period.days == 1 else period) == day


@pytest.mark.parametrize("phrase, day", [("下下周一", date(2026, 11, 30)), ("下下周五", date(2026, 12, 4)),
                                         ("下周一", date(2026, 11, 23)), ("上上周三", date(2026, 11, 4))])
def test_the_week_after_next_is_two_weeks_on(phrase, day):
    """下下周一: Monday of the week after next (it had been read as 下周一, with a 下 left over)."""
    assert resolve(phrase, SUNDAY_EVENING).start == day
