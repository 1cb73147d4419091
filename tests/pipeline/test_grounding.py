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

from assistant.pipeline.answer_check import carries, numbers_in, runaway
from assistant.pipeline.events import AnswerDelta
from assistant.pipeline.gate import SentenceGate, chat_piece_check, tool_piece_check
from tools import KeyFact
from tools.weather import Weather, WeatherConfig


def shown_by_gate(check, text: str, step: int = 3) -> tuple[str, str | None]:
    """What the gate releases of ``text`` streamed in small pieces, and why it stopped (None: it did not)."""
    gate = SentenceGate(check)
    out = []
    for i in range(0, len(text), step):
        out.append(gate.feed(text[i:i + step]))
        if gate.stopped:
            break
    out.append(gate.finish())
    return "".join(out), gate.held.reason if gate.held else None


def streamed(events) -> str:
    return "".join(e.text for e in events if isinstance(e, AnswerDelta))

SHANGHAI = (31.22, 121.46)


def chat_reply(request) -> str:
    """A plain chat answer in the language of the request."""
    return "这是聊天的回答。" if is_chinese(request.messages[-1].content) else "A chat answer."
RENDERED_SHANGHAI = "上海现在 2°C,小雨,体感 -2.9°C,湿度 54%,风速 13 km/h。"


# The answer check on its own


@pytest.mark.parametrize("written", ["about 28.27", "about 28.3", "28.2743338823", "≈28", "28.27 square units"])
def test_a_number_is_stated_at_any_sensible_rounding(written):
    assert carries(f"The area is {written}.", KeyFact(label="the result", number=28.2743338823))


@pytest.mark.parametrize("written", ["28.5", "29", "2.83", "282.7", "0"])
def test_a_wrong_number_is_not_the_fact(written):
    assert not carries(f"The area is {written}.", KeyFact(label="the result", number=28.2743338823))


def test_negative_and_grouped_numbers_are_read_as_written():
    assert numbers_in("零下3度,minus 4, −5 and 56,088 or 1,2") == [(-3, 0), (-4, 0), (-5, 0), (56088, 0), (1, 0), (2, 0)]
    assert carries("上海零下3度,小雨。", KeyFact(label="t", number=-2.9, tolerance=0.5))


PROMPT = "You are a helpful local assistant. Answer the user's request using the tool results below; they are correct and current."


@pytest.mark.parametrize("answer, why", [
    ('{"tool": "weather", "result": {"temperature": "2°C"}}', "JSON"),
    ("上海 2°C ```json", "JSON or tool markup"),
    ("Shanghai is 2°C with slight rain.", "not in Chinese"),
    ("上海 2°C,小雨。" * 5, "repeats"),
    (PROMPT + " 上海 2°C 小雨", "instructions"),
    ("上海 2°C,小雨,风速 25 km/h。", "figures the results do not have: 25"),
])
def test_pieces_of_a_tool_answer_that_may_not_be_shown(answer, why):
    shown, held = shown_by_gate(tool_piece_check("上海冷不冷?", '["上海冷不冷?", {"temperature": "2°C"}]', [PROMPT]), answer)
    assert held and why in held
    assert "25" not in shown and "{" not in shown and "Shanghai" not in shown and "helpful" not in shown


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
    ("Pour-terfaaire, les temps de l'air en 2019 est dangereres.", "2019"),  # ignores the result, invents a year
    ('[ { "tool": "weather", "arguments": {"place": "上海"} } ]', "JSON"),
    ("Shanghai is 2°C now with slight rain.", "not in Chinese"),
    ("上海现在 2°C,小雨,比平时的 23°C 冷多了。", "figures the results do not have: 23"),  # SmolLM2 on Dublin
    ("上海现在 2°F,小雨。", "°F"),
    ("上海现在 2°C,小雨,风速 25 km/h。", "figures the results do not have: 25"),
])
async def test_a_bad_answer_is_never_shown_and_the_rendering_takes_over(model, shanghai, scripted_app, bad, why):
    model.fn = RoleScript(responder=[bad, bad])
    events = []
    app = scripted_app()
    result = await app.ask("上海现在冷不冷?", emit=events.append)
    assert result.ok and result.answer == RENDERED_SHANGHAI
    assert result.replaced and why in result.replaced
    assert model.roles() == ["responder"] and result.model_calls == 1  # no second call: the rendering is certain
    assert streamed(events) == result.answer  # nothing unchecked reached the screen, nothing was taken back
    checks = [e for e in app.store.turn(result.turn_id)["events"] if e["type"] == "answer_check"]
    assert [c["verdict"] for c in checks] == ["FAIL"]
    turn_done = app.store.turn(result.turn_id)["events"][-1]
    assert turn_done["type"] == "turn_done" and turn_done["replaced"] == result.replaced


async def test_what_was_shown_stays_and_the_rendering_follows_it(model, shanghai, scripted_app):
    """A true sentence without the figures is shown as it streams; the rendering then adds what it lacked."""
    model.fn = RoleScript(responder="上海很冷。比平时的 23°C 冷多了。")
    events = []
    result = await scripted_app().ask("上海现在冷不冷?", emit=events.append)
    assert result.answer == "上海很冷。\n" + RENDERED_SHANGHAI and "23" in result.replaced and result.model_calls == 1
    assert streamed(events) == result.answer and "23°C" not in streamed(events)


async def test_a_right_answer_costs_one_call(model, shanghai, scripted_app):
    model.fn = RoleScript(responder="上海现在 2°C,下着小雨,挺冷的。")
    events = []
    result = await scripted_app().ask("上海现在冷不冷?", emit=events.append)
    assert result.answer == "上海现在 2°C,下着小雨,挺冷的。" and result.model_calls == 1 and result.replaced is None
    assert streamed(events) == result.answer


async def test_a_stream_that_repeats_itself_is_cut_and_the_rendering_follows(model, shanghai, scripted_app):
    model.fn = RoleScript(responder=["天气很好。" * 400] * 2)
    app = scripted_app()
    result = await app.ask("上海现在冷不冷?")
    assert result.answer == "天气很好。\n" + RENDERED_SHANGHAI and "does not state" in result.replaced
    replies = [json.loads(c["reply"]) for c in app.store.turn(result.turn_id)["model_calls"]]
    assert [r["done_reason"] for r in replies] == ["cut"]
    assert all(len(r["content"]) < 100 for r in replies)  # stopped at the first repeat, not 2,000 characters


async def test_a_model_that_keeps_failing_is_not_asked_any_more(model, shanghai, scripted_app):
    """After weak_writer_after answers in a row fail the gate, the rendering is shown at once with no call; the
    model is asked again after ten skipped answers."""
    model.fn = RoleScript()
    model.fn.always("responder", "上海现在 2°C,小雨,比平时的 23°C 冷多了。")
    app = scripted_app(weak_writer_after=2)
    calls = []
    for _ in range(14):
        result = await app.ask("上海现在冷不冷?")
        assert result.answer == RENDERED_SHANGHAI
        calls.append(result.model_calls)
    assert calls == [1, 1] + [0] * 10 + [1, 0]


async def test_every_role_has_a_generation_cap(model, scripted_app):
    # a radius the user did not write as such (6 across): the check cannot pass the formula, the validator judges it
    model.fn = RoleScript(router={"route": "calculator"}, executor=call("calculator", expression="pi*3^2"),
                          validator={"verdict": "PASS", "reason": "ok"}, responder=answered)
    await scripted_app(responder_max_tokens=300, one_call=False).ask("How much floor does a round rug 6 feet across cover?")
    assert [r.settings.max_tokens for r in model.requests] == [48, 256, 128, 300]
    # one call decides and answers: it is capped as the answer it may be
    model.requests.clear()
    model.fn = RoleScript(decide=call("calculator", expression="pi*3^2"),
                          validator={"verdict": "PASS", "reason": "ok"}, responder=answered)
    await scripted_app(responder_max_tokens=300).ask("How much floor does a round rug 6 feet across cover?")
    assert [(r.role, r.settings.max_tokens) for r in model.requests] == [("router", 300), ("validator", 128),
                                                                        ("responder", 300)]


async def test_two_places_render_with_a_comparison(model, meteo, scripted_app):
    meteo.set_weather(39.91, 116.40, -1.0, code=0)
    meteo.set_weather(*SHANGHAI, 6.0, code=3)
    model.fn = RoleScript(responder=["北京更冷。", "北京更冷。"])
    result = await scripted_app().ask("北京和上海哪个冷?")
    assert result.replaced and "-1°C" in result.answer and "6°C" in result.answer and result.answer.endswith("北京比上海冷。")


async def test_rendered_answers_setting_needs_no_model_call(model, shanghai, scripted_app):
    result = await scripted_app(rendered_answers=True).ask("上海现在冷不冷?")
    assert result.answer == RENDERED_SHANGHAI and result.model_calls == 0 and model.requests == []


async def test_a_chat_answer_that_is_a_tool_call_gets_one_retry(model, scripted_app):
    model.fn = RoleScript(router={"route": "chat"}, responder=['{"name": "weather", "arguments": {"place": "Paris"}}',
                                                               "Hello! How can I help?"])
    events = []
    result = await scripted_app().ask("hello there", emit=events.append)
    assert result.ok and result.answer == "Hello! How can I help?" and result.model_calls == 2
    assert streamed(events) == result.answer and "weather" not in streamed(events)


async def test_json_that_is_not_ours_is_an_answer(model, scripted_app):
    model.fn = RoleScript(router={"route": "chat"}, responder='{"answer": "hi"}')
    result = await scripted_app().ask("hello there")
    assert result.ok and result.answer == '{"answer": "hi"}' and result.model_calls == 1


async def test_a_chat_answer_that_echoes_the_feedback_is_never_shown(model, scripted_app):
    echo = ("Your previous answer could not be shown: it is not in Chinese, the language of the question; "
            "answer plain sentences.")
    model.fn = RoleScript(router={"route": "chat"}, responder=["The sky scatters blue light.", echo])
    events = []
    result = await scripted_app().ask("为什么天空是蓝色的?", emit=events.append)
    # the first is in the wrong language, the second repeats our feedback: neither is shown
    assert not result.ok and result.answer.startswith(f"抱歉,{result.model} 没能可靠地回答") and "更大的模型" in result.answer
    assert model.roles() == ["router", "responder"] and streamed(events) == result.answer  # one call decided and answered


async def test_two_unshowable_chat_answers_end_in_an_honest_sentence(model, scripted_app):
    model.fn = RoleScript(router={"route": "chat"}, responder=['{"route": "chat"}', '<tool_call>{"name": "x"}</tool_call>'])
    result = await scripted_app().ask("你好")
    assert result.route == "chat" and not result.ok and result.answer.startswith(f"抱歉,{result.model} 没能可靠地回答")
    assert "markup" in (result.replaced or "") and "{" not in result.answer and result.error


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
    app = scripted_app(one_call=False)  # a routing call of its own
    result = await app.ask(question)
    assert result.ok and result.route == "chat" and result.route_by == "check" and result.answer in ("A chat answer.", "这是聊天的回答。")
    assert model.roles() == ["router", "responder"] and result.tool_calls == []
    reason = app.store.turn(result.turn_id)["route_reason"]
    assert f"chose {tool}" in reason and "answered as chat" in reason


@pytest.mark.parametrize("question, tool", [
    ("Why is the moon round?", "weather"), ("What does 'weather the storm' mean?", "weather"),
    ("今天好热啊,推荐个饮料", "weather"), ("Why is the moon round?", "calculator"), ("Who is the mayor of London?", "units"),
])
async def test_a_tool_called_on_chit_chat_in_the_deciding_call_becomes_chat(model, meteo, scripted_app, question, tool):
    """Small models call tools on chit-chat: the route gate holds the deciding call's tool call as it holds a routing
    call's choice, and the conversation is answered by a second call."""
    model.fn = RoleScript(decide={"tool_calls": [{"name": tool, "arguments": {}}]}, responder=chat_reply)
    app = scripted_app()
    result = await app.ask(question)
    assert result.ok and result.route == "chat" and result.route_by == "check" and result.answer in ("A chat answer.", "这是聊天的回答。")
    assert model.roles() == ["router", "responder"] and result.tool_calls == [] and model.requests[0].tools
    reason = app.store.turn(result.turn_id)["route_reason"]
    assert f"called {tool}" in reason and "answered as chat" in reason


@pytest.mark.parametrize("question", ["明天会下雨吗?", "天气怎么样?", "Will it rain?",
                                      "明天会不会下雨", "今天下不下雨?", "后天还会下雪吗",  # "会不会", "下不": no place
                                      "今天要穿外套吗", "明天需要穿羽绒服吗",  # what to wear today: its weather
                                      "这周末我需要防晒霜吗", "明天要戴手套吗",
                                      # the day's high or low, and "下个", are no place's name
                                      "今天最高温度", "今天的最高温度是多少", "明天最低气温多少", "下个周末天气怎么样",
                                      "这个星期天气怎么样", "下个星期天气怎么样", "今天会出太阳吗"])
async def test_a_weather_question_without_a_place_is_asked_back_without_a_model(model, scripted_app, question):
    result = await scripted_app().ask(question)
    assert result.route == "clarify" and result.model_calls == 0
    assert result.answer in ("请问您想查询哪个城市的天气?", "Which place would you like the weather for?")


@pytest.mark.parametrize("trap", [
    "天气预报这个词的英文是什么?", "I feel cold today, any tips?", "今天好热啊,推荐个饮料", "讲个冷笑话", "热狗怎么做",
    "Who sang November Rain?", "Is 100 degrees Fahrenheit too hot for a run?", "38度算发烧吗?",
    "面试穿什么合适", "外套怎么洗",  # what to wear, no day: not the weather's
    "太阳从哪边出来", "太阳什么时候出来",  # the sun, not a forecast
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
    feedback = model.requests[1].messages[-1].content  # the deciding call proposed 北京; the executor hears why not
    assert "excluded 北京" in feedback and model.requests[0].tools and model.requests[1].role == "executor"


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
    assert result.ok and result.answer == ("The moon is round. Gravity pulls everything inward.\n\n"
                                           "(The answer stopped here: it started repeating itself.)")  # not silently
    replies = [json.loads(c["reply"]) for c in app.store.turn(result.turn_id)["model_calls"]]  # one: it decided and answered
    assert [r["done_reason"] for r in replies] == ["cut"] and all(len(r["content"]) < 200 for r in replies)
    assert streamed(events) == result.answer  # the loop never reached the screen


async def test_an_answer_that_turns_into_json_is_stopped_at_once(model, shanghai, scripted_app):
    json_answer = '上海 [ { "tool": "weather", "arguments": {"place": "上海"} } ] ' + "更多的文字" * 300
    model.fn = RoleScript(responder=[json_answer, json_answer])
    app = scripted_app()
    result = await app.ask("上海现在冷不冷?")
    assert result.answer == RENDERED_SHANGHAI and "JSON" in result.replaced
    replies = [json.loads(c["reply"]) for c in app.store.turn(result.turn_id)["model_calls"]]
    assert [r["done_reason"] for r in replies] == ["cut"] and all(len(r["content"]) < 40 for r in replies)


@pytest.mark.parametrize("answer, shown", [
    ("To install it:\n```\npip install requests\n```\nThen import it.", True),
    ("An example:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```", True),
    ("An example config:\n```toml\nmodel = \"qwen3\"\n```", True),
    ("Use `git status` to see it, and `{\"a\": 1}` is a JSON object.", True),
    ("```\n{\"a\": 1}\n```", True),  # a JSON example is an answer
    ("The function takes two arguments: the city and the day.", True),  # prose about arguments
    ("Call it so:\n```json\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", True),  # asked for
    ("```json\n{\"route\": \"weather\"}\n```", False),  # nothing but our own decision
    ('{"name": "weather", "arguments": {"place": "Paris"}}', False),  # a call of our tool, as text
    ("Sure. <tool_call>{\"name\": \"weather\"}</tool_call>", False),
])
def test_code_and_json_in_a_conversation_are_answers(answer, shown):
    question = "How do I write the JSON for it?" if "Call it so" in answer else "How do I do it?"
    text, held = shown_by_gate(chat_piece_check(question, question, [], [Weather(WeatherConfig(cache_dir="unused",
                                                                                             gazetteer_index="unused"))]), answer)
    assert (held is None) is shown, held
    if shown:
        assert text == answer


def test_code_is_not_held_to_the_questions_language():
    answer = "用下面的命令安装:\n```\npip install requests --upgrade --user\n```\n然后在代码里导入它。"
    question = "怎么安装 requests?"
    assert shown_by_gate(chat_piece_check(question, question, [], []), answer) == (answer, None)


async def test_terminal_control_sequences_never_reach_the_screen(model, shanghai, scripted_app):
    """An OSC 52 clipboard write, a window title and a screen clear, from the model or from a tool's result."""
    model.fn = RoleScript(router={"route": "chat"},
                          responder="Hello \x1b]52;c;ZXZpbA==\x07there. Title\x1b]0;pwned\x1b\\ set. Clear\x1b[2J\x1b[H done.")
    events = []
    result = await scripted_app().ask("hello", emit=events.append)
    assert result.answer == "Hello there. Title set. Clear done." and streamed(events) == result.answer
    assert "\x1b" not in streamed(events)


async def test_bidirectional_controls_never_reorder_what_is_shown(model, shanghai, scripted_app):
    """U+202E and its kin from a model, or from a tool's result, are taken out of the answer, the stored turn and
    the trace ("Trojan source": text that reads one way and runs another)."""
    model.fn = RoleScript(router={"route": "chat"},
                          responder="Run \u202erm -rf ~\u202c safely, or \u2066this\u2069.")
    app = scripted_app()
    result = await app.ask("how do I clean my folder?")
    assert result.answer == "Run rm -rf ~ safely, or this."
    stored = app.store.turn(result.turn_id)
    assert stored["answer"] == result.answer  # the answer is stored as shown; the model's raw reply stays in its call
    assert "\u202e" in json.dumps(stored["model_calls"], ensure_ascii=False)  # (the trace keeps what it wrote)
    from assistant.frontends import trace_view

    shown = trace_view.render(stored)
    assert not any(c in shown for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


async def test_a_tools_result_is_stored_and_read_without_control_sequences(model, scripted_app):
    """What a tool returns may carry ESC sequences and bidi controls: they are out before the model, the store or
    the screen sees the result."""
    from tools import ToolResult

    app = scripted_app()
    tool = app.registry.get("calculator")

    class Dirty:
        async def run(self, tool, args):  # a runner whose tool writes escape sequences into its result
            return ToolResult.success(expression="1+1", value="2\x1b]52;c;ZXZpbA==\x07\u202e")

        async def warm(self, tools):
            pass

        async def aclose(self):
            pass

    app.runner = Dirty()
    result = await app.ask("1+1")
    assert result.ok and result.tool_calls[0].result == {"expression": "1+1", "value": "2"}
    stored = json.dumps(app.store.turn(result.turn_id), ensure_ascii=False)
    assert "\x1b" not in stored and "\u202e" not in stored and tool is not None


async def test_an_answer_cut_for_repeating_itself_says_so(fake, make_app):
    """A model that loops is cut where it starts repeating; the answer ends with a note saying so, not silently."""
    from fake_ollama import Reply, Script

    looping = "Rain falls when clouds cool. " + "The water falls down again. " * 12
    fake.handler = Script(decide=Reply(content=looping))
    result = await make_app().ask("Why does it rain?")
    assert result.answer.endswith("(The answer stopped here: it started repeating itself.)"), result.answer
    assert result.answer.count("The water falls down again.") <= 2 and result.replaced
