"""What can you do? Said by rule from the registry as it is, each tool with a request a person can type, in the
question's language, with no model call; what answers beyond the tools is named: the model in use, or, for a model
held to small talk, the one command to a capable one."""

from __future__ import annotations

import pytest
from fake_ollama import Reply, Script

from assistant.pipeline.recognisers import abilities


@pytest.mark.parametrize("question", [
    "What can you do?", "hey, what can you help me with?", "help", "what are you good at", "What are your capabilities?",
    "how can you help me?", "what kind of questions can I ask you?", "你能做什么", "你有什么功能？", "你好，你都会些什么呀",
    "你擅长什么", "What exactly can you help with?", "show me your tools", "你能帮我干点啥", "你可以做哪些事情呀",
])
async def test_a_question_about_what_it_can_do_is_answered_by_rule(fake, make_app, question):
    result = await make_app().ask(question)
    assert result.ok and result.model_calls == 0 and fake.requests == []
    zh = any("\u4e00" <= c <= "\u9fff" for c in question)
    assert ("计算器:例如“123乘以456是多少”" if zh else "- calculator: try “what is 23*47”") in result.answer
    assert ("天气查询" if zh else "weather") in result.answer
    assert "qwen2.5:3b" in result.answer  # what answers the rest: the model in use, by its name


@pytest.mark.parametrize("message", ["what can you do for a headache?", "help me with my homework",
                                     "I can't do anything right today", "你能做什么菜?"])
def test_questions_that_only_look_like_it_are_not(message):
    from tools.reading.request import read

    assert not abilities.asks(read(message).core)


async def test_on_a_model_held_to_small_talk_it_says_how_to_get_a_capable_one(fake, make_app):
    fake.models = {"qwen2.5:0.5b": ["completion", "tools"]}
    fake.sizes["qwen2.5:0.5b"] = "494.03M"
    fake.handler = Script(decide=Reply(content="unused"))
    result = await make_app(model="qwen2.5:0.5b").ask("what can you do?")
    assert result.ok and result.model_calls == 0
    assert "qwen2.5:0.5b is too small to be reliable" in result.answer and "assistant models pull" in result.answer


@pytest.mark.parametrize("question", [
    "who are you?", "hi, who are you?", "What's your name?", "are you a robot?", "Are you human?", "introduce yourself",
    "tell me about yourself", "what model are you using?", "你是谁", "你叫什么名字？", "你是机器人吗", "介绍一下你自己",
    "你用的是什么模型", "请问你是谁呀", "may I know your name?", "can you tell me your name?",
    "谁开发的你", "你是谁做的", "你的开发者是谁", "你是哪家公司的", "谁创造了你",
])
async def test_a_question_about_what_it_is_is_answered_by_rule_and_names_the_model(fake, make_app, question):
    """Ours to say: a small model asked "who are you?" claims to be ChatGPT, or a person."""
    result = await make_app().ask(question)
    assert result.ok and result.model_calls == 0 and fake.requests == []
    zh = any("\u4e00" <= c <= "\u9fff" for c in question)
    assert result.answer.startswith("我是 assistant" if zh else "I'm assistant") and ("不是真人" if zh else "not a person") \
        in result.answer
    assert ("计算器" if zh else "calculator") in result.answer and "qwen2.5:3b" in result.answer


@pytest.mark.parametrize("message", ["who are you talking to?", "who are the Beatles?", "what is your name for this file?",
                                     "are you sure?", "你是谁的朋友", "what are you doing tomorrow?", "你是不是忘了",
                                     "谁是你的朋友", "你做的菜好吃吗", "这是谁做的",
                                     "are you free tonight?", "what is your name's origin?", "your name is John",
                                     "may I know your plans?"])
def test_questions_that_only_look_like_one_about_itself_are_not(message):
    from tools.reading.request import read

    assert not abilities.about_itself(read(message).core) and not abilities.about_itself(message)


def test_the_built_in_model_is_named_when_it_says_what_it_cannot_answer():
    from assistant.pipeline.language import scope_line

    assert "the built-in model (SmolLM2-135M-Instruct) is too small" in scope_line("who are you", True,
                                                                                  "SmolLM2-135M-Instruct", True)
    assert "内置的模型(SmolLM2-135M-Instruct)太小" in scope_line("你是谁", True, "SmolLM2-135M-Instruct", True)
