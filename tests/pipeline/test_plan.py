"""Several requests in one question: a plan of steps, split without a model where every clause is certain,
independent steps concurrently, dependent ones on the earlier result, one budget, one checked answer."""

from __future__ import annotations

import pytest
from oracle import answered

from assistant.models.function import RoleScript

from assistant.pipeline.events import AnswerDelta, StageStarted, StepDone, ToolResultEvent
from assistant.pipeline.plan import clauses


def call(name: str, **arguments: str) -> dict:
    """A tool call as the in-process model replies it."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.mark.parametrize("question, parts", [
    ("北京天气怎么样?顺便算一下 23*47", ["北京天气怎么样?", "算一下 23*47"]),
    ("上海现在多少度?换算成华氏度是多少", ["上海现在多少度?", "换算成华氏度是多少"]),
    ("What is the weather in Paris? Also, what is 12*12?", ["What is the weather in Paris?", "what is 12*12?"]),
    ("What's the weather in Paris and what is 23*47?", ["What's the weather in Paris", "what is 23*47?"]),
    ("距离春节还有多久", ["距离春节还有多久"]),  # "还有" inside a request joins nothing
    ("北京天气怎么样?谢谢", ["北京天气怎么样?"]),  # thanks ask for nothing
    ("a rectangle 3 by 5, what's its area?", ["a rectangle 3 by 5, what's its area?"]),  # a comma may join one request
    ("convert 1 hour and 45 minutes to hours", ["convert 1 hour and 45 minutes to hours"]),  # so may an "and"
])
def test_questions_are_cut_where_a_request_begins(question, parts):
    assert clauses(question) == parts


async def test_weather_and_a_calculation_in_one_question(model, meteo, scripted_app):
    import threading

    meteo.hold, meteo.delay = threading.Event(), 10.0  # the forecast waits until the calculation's step starts
    model.fn = RoleScript(responder=answered)
    events: list = []

    def seen(e: object) -> None:
        events.append(e)
        if isinstance(e, StageStarted) and e.stage == "tool" and e.step == 2:
            meteo.hold.set()  # type: ignore[union-attr]

    result = await scripted_app().ask("北京天气怎么样?顺便算一下 23*47", emit=seen)
    assert result.ok and result.route == "weather+calculator" and result.route_by == "rule"
    assert model.roles() == ["responder"]  # no router call, no executor: one answer for both
    assert [(s.route, s.ok) for s in result.steps] == [("weather", True), ("calculator", True)]
    assert [t.args for t in result.steps[1].tool_calls] == [{"expression": "23*47"}]
    assert "1081" in result.answer and "北京" in result.answer
    # the two steps ran side by side: both tools started before the slow weather call came back
    order = [(type(e).__name__, e.step) for e in events if isinstance(e, (StageStarted, ToolResultEvent))
             and (not isinstance(e, StageStarted) or e.stage == "tool")]
    assert order.index(("StageStarted", 2)) < order.index(("ToolResultEvent", 1))
    assert {e.step for e in events if isinstance(e, StepDone)} == {1, 2}


async def test_a_dependent_conversion_uses_the_earlier_result(model, meteo, scripted_app):
    meteo.set_weather(31.22, 121.46, 2.0, code=61)
    model.fn = RoleScript(responder=answered)
    result = await scripted_app().ask("上海现在多少度?换算成华氏度是多少")
    assert result.ok and model.roles() == ["responder"]
    calc = result.steps[1].tool_calls[0]
    assert calc.args == {"expression": "2 * 9 / 5 + 32"} and calc.result["value"] == "35.6"
    assert "35.6" in result.answer


async def test_the_difference_of_two_places(model, meteo, scripted_app):
    meteo.set_weather(39.91, 116.40, -3.0, code=0)
    meteo.set_weather(31.22, 121.46, 8.5, code=3)
    model.fn = RoleScript(responder=answered)
    result = await scripted_app().ask("北京和上海现在多少度?两地温差是多少")
    assert result.ok and model.roles() == ["responder"]
    assert result.steps[1].tool_calls[0].result["value"] == "11.5"


async def test_a_chained_calculation_needs_no_model(model, meteo, scripted_app):
    result = await scripted_app().ask("What is 5*6 and multiply that by 2")
    assert result.ok and result.model_calls == 0
    assert [s.tool_calls[0].result["value"] for s in result.steps] == ["30", "60"]
    assert "60" in result.answer


@pytest.mark.parametrize("question, route, said", [
    ("100公里是多少英里，10公斤是多少磅？", "units+units", ["100公里 = 62.14英里", "10公斤 = 22.05磅"]),  # cut at the comma
    ("convert 10 kg to lbs and 5 km to miles", "units+units", ["10 kg = 22.05 lbs", "5 km = 3.11 miles"]),
    ("what's 5 km in miles, 10 kg in lbs?", "units+units", ["5 km = 3.11 miles", "10 kg = 22.05 lbs"]),
    ("东京现在几点，纽约呢？", "clock+clock", ["东京现在是", "纽约现在是"]),  # the second, the first with its place changed
    ("123乘以456，再加上100", "calculator+calculator", ["56088", "56188"]),
    ("北京天气怎么样，东京现在几点？", "weather+clock", ["北京", "20:00"]),
    ("what's 5 km in miles, what time is it in Paris?", "units+clock", ["5 km = 3.11 miles", "In Paris it is"]),
    ("what's 3+4 and 5*6", "calculator+calculator", ["3+4 = 7", "5*6 = 30"]),
])
async def test_requests_joined_by_a_comma_or_sharing_a_verb_are_each_answered(model, meteo, scripted_app, question,
                                                                               route, said):
    model.fn = RoleScript(responder=answered)  # a weather report is written by the model, from the tool's figures
    result = await scripted_app().ask(question)
    assert result.ok and result.route == route and result.model_calls <= (route.startswith("weather"))
    assert all(s in result.answer for s in said), result.answer


async def test_a_follow_up_clause_answered_with_its_question_is_not_called_unanswered(model, meteo, scripted_app):
    model.fn = RoleScript(responder=answered)
    result = await scripted_app().ask("北京天气怎么样？上海呢？")
    assert result.ok and {t.args["place"] for t in result.tool_calls} == {"北京", "上海"}
    assert "没能回答" not in result.answer


async def test_one_step_questions_do_not_pay_for_planning(model, meteo, scripted_app):
    model.fn = RoleScript(responder=answered)
    result = await scripted_app().ask("北京和上海哪个冷?")
    assert result.steps == [] and result.route == "weather" and result.model_calls == 1


async def test_a_failed_step_is_said_beside_the_one_that_worked(model, meteo, scripted_app):
    meteo.error = "Latitude must be in range of -90 to 90°. Given: 91.0."
    model.fn = RoleScript(responder=answered)
    events: list = []
    result = await scripted_app().ask("北京天气怎么样?顺便算一下 23*47", emit=events.append)
    assert not result.ok
    assert [(s.route, s.ok) for s in result.steps] == [("weather", False), ("calculator", True)]
    assert "1081" in result.answer and "天气" in result.answer.splitlines()[-1]
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == result.answer  # stored as it was shown
    assert result.model_calls == 0  # the calculation alone renders itself


async def test_a_dependent_step_after_a_failed_one_is_not_guessed(model, meteo, scripted_app):
    meteo.error = "Latitude must be in range of -90 to 90°. Given: 91.0."
    result = await scripted_app().ask("上海现在多少度?换算成华氏度是多少")
    assert not result.ok and [s.ok for s in result.steps] == [False, False]
    assert result.steps[1].tool_calls == [] and result.model_calls == 0


async def test_the_model_router_lists_further_requests(model, meteo, scripted_app):
    model.fn = RoleScript(
        router={"route": "weather", "also": [{"route": "calculator", "request": "帮我算算三乘以四"}]},
        executor=[call("weather", place="上海"), call("calculator", expression="3*4")],
        validator={"verdict": "PASS", "reason": "3*4 is three times four"},
        responder=answered,
    )
    result = await scripted_app().ask("上海要穿羽绒服吗?另外帮我算算三乘以四")
    assert result.ok and result.route_by == "model"
    assert [(s.route, s.ok) for s in result.steps] == [("weather", True), ("calculator", True)]
    assert "12" in result.answer


async def test_one_budget_of_retries_for_the_whole_turn(model, meteo, scripted_app):
    model.fn = RoleScript(
        router={"route": "weather", "also": [{"route": "calculator", "request": "三乘以四是多少"}]},
        executor=[call("weather", place="勗安"), call("calculator", expression="3*5")],
        validator={"verdict": "FAIL", "reason": "three times four is 3*4"},
        responder=answered,
    ).always("executor", call("weather", place="勗安"))
    result = await scripted_app(max_retries=1).ask("上海要穿羽绒服吗?另外三乘以四是多少")
    assert not result.ok
    assert sum(len({t.args.get("place") or t.args.get("expression") for t in s.tool_calls}) for s in result.steps) <= 3
    assert result.attempts <= 3  # two first tries and one retry in all, not one retry each


async def test_the_trace_shows_each_step_as_a_branch(model, meteo, scripted_app):
    from assistant.frontends import trace_view

    model.fn = RoleScript(responder=answered)
    app = scripted_app()
    result = await app.ask("上海现在多少度?换算成华氏度是多少")
    stored = app.store.turn(result.turn_id)
    assert [t["step"] for t in stored["tool_calls"]] == [1, 2]
    tree = trace_view.render(stored)
    assert "├─ step 1: weather «上海现在多少度?»" in tree
    assert "├─ step 2: calculator «换算成华氏度是多少», on the result of step 1" in tree
    assert "│  │  ├─ proposed calculator(" in tree and "│  └─ step 2 passed" in tree


@pytest.mark.parametrize("question, answered_part, named", [
    ("what is 2+2? and why is the sky blue?", "2+2 = 4", "'why is the sky blue?'"),
    ("123乘以456是多少，为什么天是蓝的？", "56088", "“为什么天是蓝的？”"),
    ("convert 10 kg to lbs, and who won the 1998 world cup?", "10 kg = 22.05 lbs", "'who won the 1998 world cup?'"),
])
async def test_a_model_held_to_small_talk_answers_the_parts_a_rule_reads_and_names_the_rest(fake, make_app, question,
                                                                                          answered_part, named):
    """It routes by rules alone: the rest would be declined whole; the parts a rule reads are answered, the rest named
    with what would answer it."""
    fake.models = {"qwen2.5:0.5b": ["completion", "tools"]}
    fake.sizes["qwen2.5:0.5b"] = "494.03M"
    result = await make_app(model="qwen2.5:0.5b").ask(question)
    assert result.model_calls == 0 and fake.requests == []
    assert answered_part in result.answer and named in result.answer and "assistant models pull" in result.answer
    assert not result.ok  # not everything was answered
