"""The weather tool against a fake Open-Meteo, run in the sandbox, and weather turns through the pipeline."""

from __future__ import annotations

import pytest
from conftest import closed_port
from fake_ollama import Script, kind_of, tool_call
from oracle import grounded

from tools.jail.runner import SandboxRunner
from tools import InProcessRunner
from tools.weather import Weather, WeatherArgs, WeatherConfig, is_weather_question


@pytest.fixture
async def runner(tmp_path):
    r = SandboxRunner(timeout=10, log=tmp_path / "tools.log")
    yield r
    await r.aclose()


def weather(tmp_path, gazetteer_index, url: str, **more) -> Weather:
    return Weather(WeatherConfig(forecast_url=url, geocoding_url=url, cache_dir=str(tmp_path / "weather"),
                                 gazetteer_index=gazetteer_index, **more))


@pytest.mark.parametrize("place, resolved, lat", [
    ("兰州", "Lanzhou, CN", 36.06),
    ("上海", "Shanghai, CN", 31.22),
    ("北京", "Beijing, CN", 39.91),
    ("乌鲁木齐", "Ürümqi, CN", 43.80),
    ("Paris", "Paris, FR", 48.85),
    ("Paris, France", "Paris, FR", 48.85),
    ("Springfield, US", "Springfield, US", 37.2),
])
async def test_places_resolve_offline_through_the_gazetteer(tmp_path, gazetteer_index, meteo, place, resolved, lat):
    # in-process: the place index is under test here; the sandboxed path has the tests below
    result = await InProcessRunner().run(weather(tmp_path, gazetteer_index, meteo.url), WeatherArgs(place=place))
    assert result.ok, result.error
    assert result.data["place"] == place and result.data["resolved"] == resolved
    assert abs(float(meteo.forecast_requests[0]["latitude"]) - lat) < 0.2
    assert meteo.search_requests == []  # no online geocoding for a known place
    assert meteo.forecast_requests[0]["timezone"] == "auto"
    assert result.data["source"].startswith("Weather data by Open-Meteo")
    assert result.refusals == []


@pytest.mark.parametrize("question, places", [
    ("明天福州天气怎么样", ["福州"]),  # not 天福 across 明天|福州
    ("昆明天气如何?", ["昆明"]),  # a name may end inside a common word (昆明|明天)
    ("明天昆明天气", ["昆明"]),
    ("后天天津冷吗", ["天津"]),
    ("距离春节还有多久", []),  # 多久 is a Japanese town's alternate name, never a place in a sentence
    ("今天上海多少度", ["上海"]),
    # a place in lower case, the time said after it: never part of its name (was no place, and no route)
    ("how hot is it in phoenix right now", ["phoenix"]), ("how cold is it in boston currently", ["boston"]),
    ("is it cold in denver this week", ["denver"]), ("how is the weather in paris these days", ["paris"]),
])
def test_a_place_is_read_as_a_word_not_across_time_words(tmp_path, gazetteer_index, question, places):
    tool = weather(tmp_path, gazetteer_index, "http://127.0.0.1:9")
    assert [written for written, _ in tool.places_in(question)] == places


async def test_conditions_in_the_users_language_and_units(tmp_path, gazetteer_index, meteo, runner):
    meteo.set_weather(31.22, 121.46, 2.0, code=61)
    tool = weather(tmp_path, gazetteer_index, meteo.url)
    zh = await runner.run(tool, WeatherArgs(place="上海"))
    assert zh.data["conditions"] == "小雨" and zh.data["temperature"] == "2.0°C" and zh.data["wind_speed"] == "10.0 km/h"
    en = await runner.run(weather(tmp_path / "2", gazetteer_index, meteo.url), WeatherArgs(place="Shanghai"))
    assert en.ok, en.error
    assert en.data["conditions"] == "slight rain"
    us = weather(tmp_path / "3", gazetteer_index, meteo.url, temperature_unit="fahrenheit", wind_speed_unit="mph")
    f = await runner.run(us, WeatherArgs(place="上海"))
    assert f.data["temperature"] == "35.6°F" and f.data["wind_speed"].endswith("mp/h")
    assert meteo.forecast_requests[-1]["temperature_unit"] == "fahrenheit"


async def test_a_typo_that_does_not_resolve_is_a_tool_error_naming_it(tmp_path, gazetteer_index, meteo, runner):
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url), WeatherArgs(place="Lanzhuo"))
    assert not result.ok and "Unknown place 'Lanzhuo'" in result.error and result.fixable
    assert meteo.search_requests[0]["name"] == "Lanzhuo"  # the geocoder was the fallback
    assert meteo.forecast_requests == []


async def test_the_online_geocoder_is_the_fallback(tmp_path, gazetteer_index, meteo, runner):
    meteo.places["Hallstatt"] = [{"id": 2776253, "name": "Hallstatt", "latitude": 47.56, "longitude": 13.65,
                                  "country_code": "AT", "population": 780, "timezone": "Europe/Vienna"}]
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url), WeatherArgs(place="Hallstatt"))
    assert result.ok and result.data["resolved"] == "Hallstatt, AT"


async def test_reports_are_cached(tmp_path, gazetteer_index, meteo, runner):
    tool = weather(tmp_path, gazetteer_index, meteo.url)
    await runner.run(tool, WeatherArgs(place="北京"))
    again = await runner.run(tool, WeatherArgs(place="Beijing"))
    assert again.ok and len(meteo.forecast_requests) == 1


async def test_network_down_without_a_cache(tmp_path, gazetteer_index, runner):
    dead = f"http://127.0.0.1:{closed_port()}"
    result = await runner.run(weather(tmp_path, gazetteer_index, dead), WeatherArgs(place="上海"))
    assert not result.ok and not result.fixable
    assert "没有网络" in result.error and "没有缓存" in result.error


async def test_an_unknown_place_while_offline_is_a_fixable_error(tmp_path, gazetteer_index, runner):
    dead = f"http://127.0.0.1:{closed_port()}"
    result = await runner.run(weather(tmp_path, gazetteer_index, dead), WeatherArgs(place="The moon is round"))
    assert not result.ok and result.fixable
    assert "Unknown place 'The moon is round'" in result.error and "no network" in result.error


async def test_network_down_with_a_cache_returns_it_with_its_age(tmp_path, gazetteer_index, meteo, runner):
    await runner.run(weather(tmp_path, gazetteer_index, meteo.url, cache_minutes=0), WeatherArgs(place="Paris"))
    dead = f"http://127.0.0.1:{closed_port()}"
    result = await runner.run(weather(tmp_path, gazetteer_index, dead, cache_minutes=0), WeatherArgs(place="Paris"))
    assert result.ok and result.data["note"].startswith("No network: this is the cached report from 0 minutes ago")


async def test_an_api_error_body_is_reported(tmp_path, gazetteer_index, meteo, runner):
    meteo.error = "Latitude must be in range of -90 to 90°. Given: 91.0."
    result = await runner.run(weather(tmp_path, gazetteer_index, meteo.url), WeatherArgs(place="上海"))
    assert not result.ok and "Latitude must be in range" in result.error


@pytest.mark.parametrize("question, expected", [
    ("上海现在冷不冷?", True), ("兰州的天气热吗?", True), ("Is it raining in Paris?", True),
    ('What does "weather the storm" mean?', False), ("Who is the mayor of London?", False),
])
def test_weather_words(question, expected):
    assert is_weather_question(question) is expected


# Through the pipeline (these two with the tool in the sandbox, as the application runs it)


async def test_a_known_place_costs_exactly_one_model_call(fake, meteo, weather_app):
    meteo.set_weather(31.22, 121.46, 2.0, code=61)
    fake.handler = Script(responder="上海现在 2°C,小雨,挺冷的。")
    result = await weather_app(sandboxed=True).ask("上海现在冷不冷?")
    assert result.ok and result.route == "weather" and result.model_calls == 1
    assert fake.kinds() == ["responder"]
    assert "小雨" in fake.requests[0]["messages"][-1]["content"]  # grounded in the tool result
    assert [t.args["place"] for t in result.tool_calls] == ["上海"]


async def test_two_places_two_concurrent_calls_one_answer(fake, meteo, weather_app):
    fake.handler = Script(responder=grounded)
    meteo.meet, meteo.delay = 2, 30  # each forecast waits for the other: they overlap, however slow the machine
    result = await weather_app(sandboxed=True).ask("北京和上海哪个冷?")
    assert result.ok and result.model_calls == 1
    assert sorted(t.args["place"] for t in result.tool_calls) == ["上海", "北京"]
    assert meteo.max_in_flight == 2  # the two calls overlapped
    prompt = fake.requests[0]["messages"][-1]["content"]
    assert "Beijing" in prompt and "Shanghai" in prompt


async def test_the_flawed_model_naming_another_city_is_corrected(fake, meteo, weather_app):
    fake.handler = Script(
        router={"route": "weather"},
        executor=[tool_call("weather", place="北京"), tool_call("weather", place="上海")],
        responder=grounded,
    )
    result = await weather_app().ask("上海现在要穿羽绒服吗?")
    assert result.ok and result.attempts == 2
    assert fake.kinds() == ["decide", "executor", "responder"]  # the check decided; no model validator
    feedback = fake.requests[1]["messages"][-1]["content"]
    assert "上海" in feedback and "北京" in feedback


async def test_an_unknown_place_becomes_feedback(fake, meteo, weather_app):
    fake.handler = Script(
        router={"route": "weather"},
        executor=[tool_call("weather", place="勗安"), tool_call("weather", place="兰州")],
        validator={"verdict": "PASS", "reason": "兰州 is the capital of Gansu"},  # no place named: the model judges
        responder=grounded,
    )
    result = await weather_app().ask("甘肃省会要穿羽绒服吗?")
    assert result.ok and result.attempts == 2
    assert "勗安" in fake.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("question", ['What does "weather the storm" mean?', "Who is the mayor of London?",
                                      # the report is in Celsius: asked in Fahrenheit, the rule's answer would not say it
                                      "weather in london in fahrenheit", "北京的天气用华氏度"])
async def test_traps_are_not_routed_to_weather_by_rule(fake, meteo, weather_app, question):
    fake.handler = Script(router={"route": "chat"}, responder="…")
    result = await weather_app().ask(question)
    assert result.route_by == "model" and kind_of(fake.requests[0]) == "decide"  # the model, not a rule
    assert meteo.forecast_requests == []


async def test_network_down_gives_a_clear_answer_without_retries(fake, make_app):
    dead = f"http://127.0.0.1:{closed_port()}"
    result = await make_app(weather_forecast_url=dead, weather_geocoding_url=dead).ask("What's the weather in Paris?")
    assert not result.ok and result.model_calls == 0 and result.attempts == 1
    assert result.answer.startswith("Sorry: No network")


@pytest.mark.parametrize("question", [
    "what temperature should the oven be for bread", "what is a normal body temperature", "what temperature is a fever",
    "how hot is the surface of the sun", "what's the temperature inside the earth's core",
    "what temperature should my fridge be", "how hot should the bath be for a baby", "what temperature should I cook chicken to",
    "how hot does a CPU get under load", "烤箱温度多少合适", "人体正常体温是多少", "宝宝洗澡水温多少度合适",
])
async def test_the_temperature_of_a_thing_is_no_weather_question(fake, make_app, question):
    """An oven, a body, the sun: a model that routes it to the weather is overruled (conversation), and no rule asks
    which place."""
    from fake_ollama import Script, tool_call

    fake.handler = Script(decide=tool_call("weather", city="Paris"), router={"route": "weather"}) \
        .always("responder", "About 220 °C." if "oven" in question else "It depends.")
    result = await make_app().ask(question)
    assert result.route == "chat" and not result.tool_calls, (result.route, result.answer)
    assert "which place" not in result.answer.lower() and "哪个城市" not in result.answer
