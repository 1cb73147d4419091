"""The gates behind every model output: the route (a tool route needs something to use), the answer (it must
carry the tool results' key facts, in the user's language, as plain text), and failure messages wholly in
the user's language. Pipeline logic, with the in-process model (no server)."""

from __future__ import annotations

import json

import pytest
from conftest import call
from oracle import answered

from assistant.models.function import RoleScript

from assistant.pipeline.language import is_chinese

from assistant.pipeline.answer_check import check_answer, numbers_in, runaway
from assistant.pipeline.events import AnswerDelta, AnswerReset
from tools import KeyFact

SHANGHAI = (31.22, 121.46)


def chat_reply(request) -> str:
    """A plain chat answer in the language of the request."""
    return "这是聊天的回答。" if is_chinese(request.messages[-1].content) else "A chat answer."
RENDERED_SHANGHAI = "上海现在 2°C,小雨,体感 -2.9°C,湿度 54%,风速 13 km/h。"


# The answer check on its own


@pytest.mark.parametrize("written", ["about 28.27", "about 28.3", "28.2743338823", "≈28", "28.27 square units"])
def test_a_number_is_stated_at_any_sensible_rounding(written):
    fact = KeyFact(label="the result", number=28.2743338823)
    assert check_answer("What is the area?", f"The area is {written}.", [fact]).passed


@pytest.mark.parametrize("written", ["28.5", "29", "2.83", "282.7", "0"])
def test_a_wrong_number_is_not_the_fact(written):
    fact = KeyFact(label="the result", number=28.2743338823)
    verdict = check_answer("What is the area?", f"The area is {written}.", [fact])
    assert not verdict.passed and "does not state the result" in verdict.reason


def test_negative_and_grouped_numbers_are_read_as_written():
    assert numbers_in("零下3度,minus 4, −5 and 56,088 or 1,2") == [(-3, 0), (-4, 0), (-5, 0), (56088, 0), (1, 0), (2, 0)]
    assert check_answer("上海冷吗?", "上海零下3度,小雨。", [KeyFact(label="t", number=-2.9, tolerance=0.5)]).passed


@pytest.mark.parametrize("answer, why", [
    ('{"tool": "weather", "result": {"temperature": "2°C"}}', "JSON"),
    ("上海 2°C ```json", "JSON or tool markup"),
    ("Shanghai is 2°C with slight rain.", "not in Chinese"),
    ("上海 2°C,小雨。" * 5, "repeats"),
    ("You are a helpful local assistant. Answer the user's request using the tool results below; they are correct "
     "and current. 上海 2°C 小雨", "instructions"),
])
def test_answers_that_may_not_be_shown(answer, why):
    verdict = check_answer("上海冷不冷?", answer, [KeyFact(label="t", number=2.0, tolerance=0.5)],
                           ["You are a helpful local assistant. Answer the user's request using the tool results below; "
                            "they are correct and current."])
    assert not verdict.passed and why in verdict.reason


def test_runaway_spots_a_loop_but_not_ordinary_text():
    assert runaway("The weather is nice. " * 3)
    assert runaway("abcabcabcabcabc" + "xyz" * 2) is None
    assert runaway("上海现在 2°C,小雨,体感 -2.9°C,湿度 54%,风速 13 km/h。") is None


# The answer gate through the pipeline


@pytest.fixture
def shanghai(meteo):
    meteo.set_weather(*SHANGHAI, 2.0, code=61, apparent_temperature=-2.9, relative_humidity_2m=54, wind_speed_10m=13.0)
    return meteo


@pytest.mark.parametrize("bad, why", [
    ("Pour-terfaaire, les temps de l'air en 2019 est dangereres.", "does not state"),  # ignores the result
    ('[ { "tool": "weather", "arguments": {"place": "上海"} } ]', "JSON"),
    ("Shanghai is 2°C now with slight rain.", "not in Chinese"),
    ("上海现在 2°C,小雨,比平时的 23°C 冷多了。", "figures the results do not have: 23"),  # SmolLM2 on Dublin
    ("上海现在 2°F,小雨。", "°F"),
    ("上海现在 2°C,小雨,风速 25 km/h。", "figures the results do not have: 25"),
])
async def test_a_bad_answer_is_retried_once_then_replaced_by_the_rendering(model, shanghai, scripted_app, bad, why):
    model.fn = RoleScript(responder=[bad, bad])
    events = []
    app = scripted_app()
    result = await app.ask("上海现在冷不冷?", emit=events.append)
    assert result.ok and result.answer == RENDERED_SHANGHAI
    assert result.replaced and why in result.replaced
    assert model.roles() == ["responder", "responder"] and result.model_calls == 2
    assert why in model.requests[1].messages[-1].content  # the retry was told why
    assert sum(isinstance(e, AnswerReset) for e in events) == 2
    checks = [e for e in app.store.turn(result.turn_id)["events"] if e["type"] == "answer_check"]
    assert [c["verdict"] for c in checks] == ["FAIL", "FAIL"]
    turn_done = app.store.turn(result.turn_id)["events"][-1]
    assert turn_done["type"] == "turn_done" and turn_done["replaced"] == result.replaced


async def test_the_retry_is_shown_when_it_is_right(model, shanghai, scripted_app):
    model.fn = RoleScript(responder=["上海很冷。", "上海现在 2°C,小雨,挺冷的。"])
    result = await scripted_app().ask("上海现在冷不冷?")
    assert result.answer == "上海现在 2°C,小雨,挺冷的。" and result.replaced is None and result.model_calls == 2


async def test_a_right_answer_costs_one_call(model, shanghai, scripted_app):
    model.fn = RoleScript(responder="上海现在 2°C,下着小雨,挺冷的。")
    result = await scripted_app().ask("上海现在冷不冷?")
    assert result.answer == "上海现在 2°C,下着小雨,挺冷的。" and result.model_calls == 1 and result.replaced is None


async def test_a_stream_that_repeats_itself_is_cut_and_replaced(model, shanghai, scripted_app):
    model.fn = RoleScript(responder=["天气很好。" * 400] * 2)
    app = scripted_app()
    result = await app.ask("上海现在冷不冷?")
    assert result.answer == RENDERED_SHANGHAI and "repeats" in result.replaced
    replies = [json.loads(c["reply"]) for c in app.store.turn(result.turn_id)["model_calls"]]
    assert [r["done_reason"] for r in replies] == ["cut", "cut"]
    assert all(len(r["content"]) < 100 for r in replies)  # stopped after a few repeats, not 2,000 characters


async def test_every_role_has_a_generation_cap(model, scripted_app):
    model.fn = RoleScript(router={"route": "calculator"}, executor=call("calculator", expression="pi*3^2"),
                          validator={"verdict": "PASS", "reason": "ok"}, responder=answered)
    await scripted_app(responder_max_tokens=300).ask("What is the area of a circle of radius 3?")
    caps = [r.settings.max_tokens for r in model.requests]
    assert caps == [48, 256, 128, 300]


async def test_two_places_render_with_a_comparison(model, meteo, scripted_app):
    meteo.set_weather(39.91, 116.40, -1.0, code=0)
    meteo.set_weather(*SHANGHAI, 6.0, code=3)
    model.fn = RoleScript(responder=["北京更冷。", "北京更冷。"])
    result = await scripted_app().ask("北京和上海哪个冷?")
    assert result.replaced and "-1°C" in result.answer and "6°C" in result.answer and result.answer.endswith("北京比上海冷。")


async def test_rendered_answers_setting_needs_no_model_call(model, shanghai, scripted_app):
    result = await scripted_app(rendered_answers=True).ask("上海现在冷不冷?")
    assert result.answer == RENDERED_SHANGHAI and result.model_calls == 0 and model.requests == []


async def test_a_chat_answer_in_json_gets_one_retry(model, scripted_app):
    model.fn = RoleScript(router={"route": "chat"}, responder=['{"answer": "hi"}', "Hello! How can I help?"])
    result = await scripted_app().ask("hello there")
    assert result.answer == "Hello! How can I help?" and result.model_calls == 3


async def test_a_chat_answer_that_echoes_the_feedback_is_never_shown(model, scripted_app):
    echo = ("Your previous answer could not be shown: it is not in Chinese, the language of the question; "
            "answer plain sentences.")
    model.fn = RoleScript(router={"route": "chat"}, responder=["The sky scatters blue light.", echo])
    events = []
    result = await scripted_app().ask("为什么天空是蓝色的?", emit=events.append)
    # the second try repeats our feedback: the first (in the wrong language, but an answer) is shown instead
    assert result.answer == "The sky scatters blue light." and model.roles() == ["router", "responder", "responder"]
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)).endswith("The sky scatters blue light.")


async def test_two_unshowable_chat_answers_end_in_an_honest_sentence(model, scripted_app):
    model.fn = RoleScript(router={"route": "chat"}, responder=['{"answer": "hi"}', '[{"tool": "chat"}]'])
    result = await scripted_app().ask("你好")
    assert result.route == "chat" and result.answer.startswith("抱歉,模型没能写出可以显示的回答")
    assert "JSON" in (result.replaced or "") and "{" not in result.answer


# The route gate


@pytest.mark.parametrize("question, tool", [
    ("Why is the moon round?", "weather"),
    ("What does 'weather the storm' mean?", "weather"),
    ("Who wrote 'A Storm of Swords'?", "weather"),
    ("Is hot water better for washing dishes?", "weather"),
    ("How do I boil an egg?", "clarify"),  # SmolLM2-135M asks back on most chat questions
    ("什么是光合作用?", "clarify"),
    ("Who is the mayor of London?", "weather"),
    ("今天好热啊,推荐个饮料", "weather"),
    ("Why is the moon round?", "calculator"),
])
async def test_a_model_route_with_nothing_to_use_becomes_chat(model, meteo, scripted_app, question, tool):
    model.fn = RoleScript(router={"route": tool}, responder=chat_reply)
    app = scripted_app()
    result = await app.ask(question)
    assert result.ok and result.route == "chat" and result.route_by == "check" and result.answer in ("A chat answer.", "这是聊天的回答。")
    assert model.roles() == ["router", "responder"] and result.tool_calls == []
    reason = app.store.turn(result.turn_id)["route_reason"]
    assert f"chose {tool}" in reason and "answered as chat" in reason


@pytest.mark.parametrize("question", ["明天会下雨吗?", "天气怎么样?", "Will it rain?"])
async def test_a_weather_question_without_a_place_is_asked_back_without_a_model(model, scripted_app, question):
    result = await scripted_app().ask(question)
    assert result.route == "clarify" and result.model_calls == 0
    assert result.answer in ("请问您想查询哪个城市的天气?", "Which place would you like the weather for?")


@pytest.mark.parametrize("trap", [
    "天气预报这个词的英文是什么?", "I feel cold today, any tips?", "今天好热啊,推荐个饮料", "讲个冷笑话", "热狗怎么做",
    "Who sang November Rain?", "Is 100 degrees Fahrenheit too hot for a run?", "38度算发烧吗?",
])
async def test_weather_words_in_other_senses_are_not_asked_back(model, scripted_app, trap):
    model.fn = RoleScript(router={"route": "chat"}, responder=chat_reply)
    result = await scripted_app().ask(trap)
    assert result.route == "chat" and result.route_by == "model" and result.answer in ("A chat answer.", "这是聊天的回答。")


async def test_excluded_places_never_reach_the_tool(model, meteo, scripted_app):
    model.fn = RoleScript(
        router={"route": "weather"},
        executor=[call("weather", place="北京"), call("weather", place="上海"), call("weather", place="杭州")],
        validator={"verdict": "PASS", "reason": "杭州 is a Chinese city"}, responder=answered,
    )
    result = await scripted_app().ask("随便告诉我一个中国城市的天气,不要是北京,上海,兰州")
    assert result.ok and result.attempts == 3
    assert [t.args["place"] for t in result.tool_calls] == ["杭州"]  # the tool ran only for the allowed place
    assert meteo.forecast_requests and len(meteo.forecast_requests) == 1
    feedback = model.requests[2].messages[-1].content
    assert "excluded 北京" in feedback


async def test_excluded_places_are_not_taken_by_the_rule(model, meteo, scripted_app):
    model.fn = RoleScript(router={"route": "weather"}, executor=call("weather", place="Paris"),
                          validator={"verdict": "PASS", "reason": "ok"}, responder=answered)
    result = await scripted_app().ask("What's the weather anywhere but London?")
    assert result.route_by == "model" and [t.args["place"] for t in result.tool_calls] == ["Paris"]


async def test_a_failure_message_is_wholly_in_the_users_language(model, scripted_app):
    model.fn = RoleScript(router={"route": "weather"})
    model.fn.always("executor", call("weather", place="", language="fr"))
    result = await scripted_app(max_retries=1).ask("Xyzzyville的天气怎么样?")
    assert not result.ok and result.answer.startswith("抱歉")
    assert "String should" not in result.answer and "language" not in result.answer and "place" not in result.answer
    assert "String should" in result.error  # the whole reason stays in the trace and the turn's error


async def test_a_chat_answer_that_loops_is_cut_and_shown_without_the_loop(model, scripted_app):
    looping = "The moon is round. " + "Gravity pulls everything inward. " * 200
    model.fn = RoleScript(router={"route": "chat"}, responder=[looping, looping])
    events = []
    app = scripted_app()
    result = await app.ask("Why is the moon round?", emit=events.append)
    assert result.ok and result.answer == "The moon is round. Gravity pulls everything inward."
    replies = [json.loads(c["reply"]) for c in app.store.turn(result.turn_id)["model_calls"] if c["role"] == "responder"]
    assert [r["done_reason"] for r in replies] == ["cut", "cut"] and all(len(r["content"]) < 200 for r in replies)
    assert sum(isinstance(e, AnswerReset) for e in events) == 2  # after the first try, and before the trimmed text
    last_reset = max(i for i, e in enumerate(events) if isinstance(e, AnswerReset))
    shown = "".join(e.text for e in events[last_reset:] if isinstance(e, AnswerDelta))
    assert shown == result.answer


async def test_an_answer_that_turns_into_json_is_stopped_at_once(model, shanghai, scripted_app):
    json_answer = '上海 [ { "tool": "weather", "arguments": {"place": "上海"} } ] ' + "更多的文字" * 300
    model.fn = RoleScript(responder=[json_answer, json_answer])
    app = scripted_app()
    result = await app.ask("上海现在冷不冷?")
    assert result.answer == RENDERED_SHANGHAI and "JSON" in result.replaced
    replies = [json.loads(c["reply"]) for c in app.store.turn(result.turn_id)["model_calls"]]
    assert [r["done_reason"] for r in replies] == ["cut", "cut"] and all(len(r["content"]) < 40 for r in replies)


@pytest.mark.parametrize("answer, shown", [
    ("To install it:\n```\npip install requests\n```\nThen import it.", True),
    ("An example:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```", True),
    ("Call it so:\n```json\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", False),
    ("An example config:\n```toml\nmodel = \"qwen3\"\n```", True),
    ("Use `git status` to see it, and `{\"a\": 1}` is a JSON object.", True),
    ("```json\n{\"route\": \"weather\"}\n```", False),  # nothing but markup
    ("```\n{\"a\": 1}\n```", False),  # no sentence of its own
    ("Sure. <tool_call>{\"name\": \"weather\"}</tool_call>", False),
    ("Here: tool_calls: [weather]", False),
])
def test_code_in_a_conversation_is_not_markup(answer, shown):
    from assistant.pipeline.answer_check import check_answer

    verdict = check_answer("How do I do it?", answer, [], limit=None, code=True)
    assert verdict.passed is shown, verdict.reason
    assert not check_answer("How do I do it?", answer, [], limit=None).passed  # a tool's answer: code is markup


def test_code_is_not_held_to_the_questions_language():
    from assistant.pipeline.answer_check import check_answer

    answer = "用下面的命令安装:\n```\npip install requests --upgrade --user\n```\n然后在代码里导入它。"
    assert check_answer("怎么安装 requests?", answer, [], limit=None, code=True).passed
