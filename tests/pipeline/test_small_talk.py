"""Small talk, the one thing the tiny built-in model answers by itself: a message of social phrases only. Anything
with a request in it (a fact, code, a command, advice), however it opens, is not."""

from __future__ import annotations

import pytest

from assistant.pipeline.recognisers.small_talk import is_small_talk, is_social_reply, reply_to

SMALL_TALK = [
    "hi", "Hello!", "hey there", "Hi there, how is your day going?", "Good morning!", "good evening, assistant",
    "How are you doing today?", "how r u", "I'm fine, and you?", "what's up", "nice to meet you",
    "thanks", "Thank you so much!", "thx 🙏", "Thanks for your help!", "thank you for all your help", "谢谢你的帮助!",
    "thanks for the recipe", "Thank you so much for the quick reply!", "many thanks, that was really helpful",
    "Hello there, good evening to you!", "非常感谢你的帮忙!", "多谢您的帮助", "much obliged", "Thanks, that is very helpful!", "much appreciated",
    "bye", "Goodbye, see you tomorrow", "good night", "take care", "have a nice weekend",
    "ok", "cool, got it", "haha nice", "lol", "sorry, my bad", "you're awesome", "good job",
    "你好", "您好!", "你好吗?", "最近怎么样", "谢谢!", "非常感谢", "再见～", "晚安啦", "好的", "哈哈哈", "对不起", "你真棒",
]

REQUESTS = [
    "What is the capital of France?", "hello, what is the capital of France?", "Hi! Who wrote Hamlet?",
    "how do I undo a git commit?", "thanks, now tell me about rust", "good morning, what time is it in Tokyo",
    "how are you able to do that", "sorry, what is 2+2", "ok so what is a closure", "hey can you help me",
    "Say hello in French", "tell me a joke", "write a poem about the sea", "is it safe to mix bleach and vinegar?",
    "How are you different from ChatGPT?", "What's up with my code? it crashes", "thanks for the help, now fix my code",
    "thanks for the recipe, how long do I bake it?", "thanks for the capital of France, and Spain's?",
    "thanks for the help. What is the capital of France?", 
    "法国的首都是哪里?", "你好,帮我写个python脚本", "谢谢,那地球到月球有多远?", "晚安,明天会下雨吗", "你好吗?顺便问一下 rm -rf 是什么意思",
    "", "   ", "hi " * 80,
]


@pytest.mark.parametrize("message", SMALL_TALK)
def test_social_phrases_are_small_talk(message):
    assert is_small_talk(message)


@pytest.mark.parametrize("message", REQUESTS)
def test_a_request_however_it_opens_is_not(message):
    assert not is_small_talk(message)


REPLIES = [
    "Hello!", "hey there!", "Hello! How can I help you today?", "I'm doing well, thank you! How about you?",
    "You're welcome!", "Glad to help!", "Is there anything else I can help you with?", "It's nice to meet you too!",
    "Let me know if you need anything else.", "I'm fine, thanks for asking.", "Good morning! I hope you're having a "
    "great day.", "Sure!", "你好!有什么可以帮你的吗?", "不客气!", "😊",
]
MORE_THAN_SMALL_TALK = [
    "welcome to our community 😊😉 #thespire on Instagram where people share their stories",
    "The capital of France is Paris.", "I'm a large language model trained by OpenAI.", "I love pizza.",
    "I am 25 years old.", "You are welcome to visit Paris.", "Call me at 555-0199.", "I was born in London.",
    "巴黎是法国的首都。",
]


@pytest.mark.parametrize("piece", REPLIES)
def test_a_reply_of_small_talk_is_shown(piece):
    assert is_social_reply(piece)


@pytest.mark.parametrize("piece", MORE_THAN_SMALL_TALK)
def test_a_reply_that_says_more_than_small_talk_is_not(piece):
    assert not is_social_reply(piece)


@pytest.mark.parametrize("message, en, zh", [
    ("thanks a lot", "You're welcome!", "不客气!"), ("Goodbye, see you tomorrow", "Goodbye, take care!", "再见!"),
    ("good night", "Good night!", "晚安!"), ("how are you doing?", "I'm doing well, thank you!", "我很好,谢谢!"),
    ("hey there", "Hello!", "你好!"), ("Good morning!", "Good morning!", "早上好!"), ("晚上好", "Good evening!", "晚上好!"),
    ("nice to meet you", "Nice to meet you too!", "我也很高兴认识你!"),
    ("you're awesome", "Thank you!", "谢谢!"), ("sorry, my bad", "No worries!", "没关系!"), ("ok", "🙂", "🙂"),
])
def test_a_line_in_kind(message, en, zh):
    assert reply_to(message, chinese=False) == en and reply_to(message, chinese=True) == zh
