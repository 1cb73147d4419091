"""Routes and follow-ups, precise in both directions: calculations a rule can read are routed by rule (formulas
with their numbers, operator expressions of any size), questions about how the world works are not weather, an
order number is not a calculation, and a follow-up is one only when it asks on. The pipeline, in-process."""

from __future__ import annotations

import pytest
from conftest import call

from assistant.models.function import RoleScript


def chat_reply(request) -> str:
    return "这是聊天的回答。" if any("\u4e00" <= c <= "\u9fff" for c in request.messages[-1].content) else "A chat answer."


@pytest.mark.parametrize("question, expression, value", [
    ("半径为5的圆的面积是多少?", "pi*5^2", "78.5398163397"),
    ("What's the area of a circle with radius 4?", "pi*4^2", "50.2654824574"),
    ("A circle has a diameter of 10 cm. What is its area?", "pi*(10/2)^2", "78.5398163397"),
    ("计算半径3厘米的圆的周长", "2*pi*3", "18.8495559215"),
    ("一个三角形的底是10厘米,高是5厘米,面积是多少?", "10*5/2", "25"),
    ("圆柱体积,半径3高5", "pi*3^2*5", "141.371669412"),
    ("What is the volume of a sphere with radius 3?", "4/3*pi*3^3", "113.097335529"),
    ("a rectangle 3 by 5, what's its area?", "3*5", "15"),
    ("正方体棱长3,体积是多少?", "3^3", "27"),
    ("2的100次方是多少", "2的100次方", "1267650600228229401496703205376"),
    ("2 to the power of 10", "2 to the power of 10", "1024"),
    ("1<<64", "1<<64", "18446744073709551616"),
])
async def test_a_calculation_a_rule_can_read_needs_no_model(model, scripted_app, question, expression, value):
    result = await scripted_app(rendered_answers=True).ask(question)
    assert result.ok and result.route == "calculator" and result.route_by == "rule" and result.model_calls == 0
    assert result.tool_calls[0].args["expression"] == expression and result.tool_calls[0].result["value"] == value
    assert result.answer.endswith(f"= {value}") and model.requests == []


@pytest.mark.parametrize("question, why", [("9^99999", "too large"), ("1<<99999", "too large"), ("1/0", "division by zero")])
async def test_an_expression_too_large_is_routed_by_rule_and_refused_by_the_calculator(model, scripted_app, question, why):
    result = await scripted_app().ask(question)
    assert result.route == "calculator" and result.route_by == "rule" and not result.ok
    assert why in (result.error or "") and model.requests == []  # no model asked, the calculator says why


@pytest.mark.parametrize("question", [
    "为什么会下雨?", "雪是怎么形成的?", "How does snow form?", "What is wind chill?", "什么是热力学第二定律?",
    "热传导和热辐射有什么区别?", "What causes thunder?", "Why is the sky blue?",
])
async def test_a_question_about_how_the_world_works_is_not_a_weather_report(model, meteo, scripted_app, question):
    model.fn = RoleScript(router={"route": "weather"}, responder=chat_reply)
    result = await scripted_app().ask(question)
    # no rule takes it to weather or asks back for a place; a model that routes it there is overruled by the gate
    assert result.route == "chat" and result.route_by in ("check", "model") and result.ok
    assert result.tool_calls == [] and meteo.forecast_requests == [] and "哪个城市" not in result.answer


@pytest.mark.parametrize("question", ["为什么今天这么冷?", "Why is it so cold in Beijing today?"])
async def test_a_why_about_a_day_or_a_place_is_still_weather(model, meteo, scripted_app, question):
    model.fn = RoleScript(router={"route": "weather"}, executor=call("weather", place="北京"),
                          validator={"verdict": "PASS", "reason": "ok"}, responder=chat_reply)
    result = await scripted_app(home_city="北京").ask(question)
    assert result.route == "weather"


@pytest.mark.parametrize("question", ["我的订单 20231105 到哪了?", "订单号 12345 什么时候发货?", "Order #4521 hasn't arrived yet",
                                      "My phone number is 138 0013 8000, can you remember it?"])
async def test_an_order_or_phone_number_is_not_a_calculation(model, scripted_app, question):
    model.fn = RoleScript(router={"route": "calculator"}, responder=chat_reply)
    result = await scripted_app().ask(question)
    assert result.route == "chat" and result.route_by == "check" and result.tool_calls == []
    assert [r.role for r in model.requests] == ["router", "responder"]


@pytest.mark.parametrize("reply, place, when", [("明天上海", "上海", "明天"), ("上海明天呢?", "上海", "明天"), ("周六杭州呢", "杭州", "周六")])
async def test_a_short_chinese_reply_with_a_day_and_a_place_is_a_follow_up(model, meteo, scripted_app, reply, place, when):
    model.fn = RoleScript()
    app = scripted_app(rendered_answers=True)
    first = await app.ask("北京天气怎么样?")
    result = await app.ask(reply, session_id=first.session_id)
    assert result.route == "weather" and result.route_by == "rule" and result.model_calls == 0
    assert [(c.args["place"], c.args["when"]) for c in result.tool_calls] == [(place, when)]


@pytest.mark.parametrize("fragment", ["hi", "thanks", "good morning", "Monday", "December 25", "2026-12-01"])
async def test_a_short_english_fragment_after_a_weather_turn_is_not_a_follow_up(model, meteo, scripted_app, fragment):
    model.fn = RoleScript(router={"route": "chat"}, responder=chat_reply)
    app = scripted_app(rendered_answers=True)
    first = await app.ask("What's the weather in Paris?")
    result = await app.ask(fragment, session_id=first.session_id)
    assert result.route_by != "rule" or result.route != "weather"
    assert result.tool_calls == []


@pytest.mark.parametrize("follow", ["and London?", "what about tomorrow?", "Sunday?", "London tomorrow"])
async def test_an_english_follow_up_that_asks_on_is_one(model, meteo, scripted_app, follow):
    app = scripted_app(rendered_answers=True)
    first = await app.ask("What's the weather in Paris?")
    result = await app.ask(follow, session_id=first.session_id)
    assert result.route == "weather" and result.route_by == "rule" and result.model_calls == 0


@pytest.mark.parametrize("question, reason, said", [
    ("三盒苹果每盒四个,一共多少个?", "3*5 is not three boxes of four; use 3*4", "检查没有通过:“3*5 is not three boxes of four; use 3*4”"),
    ("Three boxes of four apples: how many?", "3*5 is not three boxes of four; use 3*4", "3*5 is not three boxes of four"),
    ("Three boxes of four apples: how many?", "\x1b]52;c;eA==\x07quoted wrongly", "quoted wrongly"),
])
async def test_a_failed_calculation_says_the_concrete_reason(scripted_app, model, question, reason, said):
    model.fn = (RoleScript(router={"route": "calculator"})
                .always("executor", {"tool_calls": [{"name": "calculator", "arguments": {"expression": "3*5"}}]})
                .always("validator", {"verdict": "FAIL", "reason": reason}))
    result = await scripted_app(max_retries=1).ask(question)
    assert not result.ok and said in result.answer and "\x1b" not in result.answer
    assert "did not pass the checks" not in result.answer and "没有通过检查。" not in result.answer


async def test_an_unreadable_verdict_says_what_could_not_be_confirmed(scripted_app, model):
    model.fn = (RoleScript(router={"route": "calculator"})
                .always("executor", {"tool_calls": [{"name": "calculator", "arguments": {"expression": "3*5"}}]})
                .always("validator", "no idea"))
    result = await scripted_app(max_retries=0).ask("Three boxes of four apples: how many?")
    assert not result.ok and "could not confirm that the arguments fit your question" in result.answer


@pytest.mark.parametrize("question, said", [
    ("Summarise this:\n" + "今天的会议讨论了很多事情。" * 700 + "\nin three bullet points", "The question is too long"),
    ("总结一下:\n" + "The meeting covered many things. " * 800 + "\n用三句话", "问题太长"),
])
async def test_a_long_question_is_refused_in_the_language_of_the_request_not_of_the_attachment(scripted_app, question, said):
    from assistant.errors import QuestionTooLong

    with pytest.raises(QuestionTooLong) as refused:
        await scripted_app().ask(question)
    assert said in refused.value.message
