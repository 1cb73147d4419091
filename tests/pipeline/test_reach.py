"""Out of reach is said as out of reach: an action no tool here performs gets an honest line by rule on every model
(never the suggestion to pull a model, which could not do it either), and a conversation's answer that claims an
action was taken is not shown, since no tool ran."""

from __future__ import annotations

import pytest
from fake_ollama import Reply, Script

from assistant.pipeline.recognisers.reach import claims_action, out_of_reach
from tools import Registry


@pytest.mark.parametrize("question, said", [
    ("can you send an email to Bob saying I'm late?", "I have no tool that can send e-mails or messages"),
    ("please open the file report.pdf", "open, start or close files and apps"),
    ("turn up the volume", "change the computer's settings"),
    ("hey, book a table for two at 7", "book, reserve or order things"),
    ("play some music", "play or control music"),
    ("skip this song", "play or control music"),
    ("切歌", "播放音乐或视频"),
    ("帮我打开浏览器", "打开或关闭文件和应用"),
    ("给老王发个微信说我晚点到", "发邮件或消息"),
    ("把音量调大一点", "音量"),
    ("订一张去北京的机票", "预订或下单"),
    ("please turn my fan on", "control the lights and devices in your home"),
    ("can you please help me start the car", "control the lights and devices in your home"),
    ("are my doors locked right now", "control the lights and devices in your home"),
    ("can you set the temp to 69", "control the lights and devices in your home"),
    # in Chinese, the thing named between the verb and what it is ("播放周杰伦的歌", "打开客厅的灯")
    ("播放周杰伦的歌", "播放音乐或视频"), ("来一首邓紫棋的歌", "播放音乐或视频"), ("放点轻松的音乐", "播放音乐或视频"),
    ("打开客厅的灯", "控制家里的灯和设备"),
    # calls and messages as people ask for them: the verb first, the one called after it
    ("呼叫王希", "打电话"), ("我要打电话给李四", "打电话"), ("打给孩子的爸", "打电话"), ("你给朴叔打电话", "打电话"),
    ("请拨幺幺零", "打电话"), ("发信息给盛吉", "发邮件或消息"), ("写短信给小王", "发邮件或消息"), ("传简讯给家里", "发邮件或消息"), ("关掉卧室的空调", "控制家里的灯和设备"), ("帮我关一下灯", "控制家里的灯和设备"),
])
async def test_an_action_no_tool_performs_is_said_out_of_reach_with_no_call(fake, make_app, question, said):
    result = await make_app(model="qwen2.5:0.5b", model_trust="untrusted").ask(question)
    assert result.model_calls == 0 and fake.requests == [] and said in result.answer
    assert "models pull" not in result.answer  # a bigger model could not do it either
    assert not result.ok and result.declined == "out_of_reach"


@pytest.mark.parametrize("question, offered, draft", [
    ("can you send an email to Bob saying I'm late?", "Here is a draft you can send yourself:",
     "Hi Bob, I'm running about 15 minutes late. Sorry!"),
    ("给老王发个微信说我晚点到", "下面是一份草稿,你可以自己发出:", "老王,我这边晚一点到,抱歉!"),
    ("hey, book a table for two at 7", "Here is how you can do it yourself:",
     "Call the restaurant, or use its booking page, and ask for a table for two at 7."),
])
async def test_a_capable_model_offers_a_draft_or_the_steps_instead(fake, make_app, question, offered, draft):
    fake.handler = Script(responder=draft)
    result = await make_app().ask(question)
    assert offered in result.answer and result.answer.endswith(draft)
    assert result.model_calls == 1 and not result.ok and result.declined == "out_of_reach"  # the action stays undone
    system = fake.requests[0]["messages"][0]["content"]
    assert "Never say or suggest that you did it" in system and not fake.requests[0].get("tools")


async def test_an_offer_that_claims_the_action_done_is_not_shown(fake, make_app):
    fake.handler = Script(responder="Done! I've sent the email to Bob.")
    result = await make_app().ask("send an email to Bob saying I'm late")
    assert "sent the email" not in result.answer and "No draft is shown" in result.answer
    assert result.declined == "out_of_reach" and not result.ok


@pytest.mark.parametrize("question", ["play some music", "turn up the volume", "帮我打开浏览器"])
async def test_an_action_with_nothing_to_write_instead_costs_no_call_on_a_capable_model(fake, make_app, question):
    result = await make_app().ask(question)
    assert result.model_calls == 0 and fake.requests == [] and "can't do that here" in result.answer or \
        "做不到" in result.answer


async def test_on_the_built_in_model_too_and_not_as_too_small(fake, make_app):
    fake.models = {"qwen2.5:0.5b": ["completion", "tools"]}
    fake.sizes["qwen2.5:0.5b"] = "494.03M"
    result = await make_app(model="qwen2.5:0.5b").ask("send an email to my boss")
    assert "can't do that here" in result.answer and "too small" not in result.answer and result.model_calls == 0


@pytest.mark.parametrize("question", ["how do I send an email in Python?", "what is an alarm clock?",
                                      "call of duty tips", "order of operations in maths", "open source licences?",
                                      "set theory basics", "呼叫转移怎么设置", "发消息怎么撤回", "拨打电话的英文是什么"])
def test_questions_about_actions_are_questions(question):
    assert out_of_reach(question, Registry([])) is None


@pytest.mark.parametrize("piece, claims", [
    ("I've sent the email to Bob.", True), ("The alarm is set for 7:00.", True), ("已为你打开浏览器。", True),
    ("Your reminder has been set.", True), ("I have booked a table for two at 7.", True),
    ("I've opened Spotify and started your playlist.", True),
    ("Here is how to send an email in Python.", False), ("I called the function twice.", False),
    ("The file is opened with open().", False), ("I set up the notes below:", False),
    # a pronoun for what was done, said in the present perfect or as news: a claim; the same words in a story or a
    # condition are not
    ("Done! I've sent it and set everything up for you.", True), ("It has been booked for 7 pm.", True),
    ("我已经帮你发好了。", True), ("邮件发送成功!", True),
    ("I called her every day when I was young.", False), ("Once it has been sent, you cannot unsend it.", False),
    ("Make sure it is sent before noon.", False), ("I've set it up so that you only need to press Enter.", False),
])
def test_an_answer_that_claims_an_action_is_told_apart(piece, claims):
    assert (claims_action(piece) is not None) is claims


async def test_a_capable_models_claim_of_an_action_it_has_no_tool_for_is_not_shown(fake, make_app):
    """'Let Bob know I'm late' is no imperative the rule reads; the model answers, claims it sent a message, and
    that sentence is never shown."""
    fake.handler = Script(decide=Reply(content="Done! I've sent the message to Bob letting him know you're late."),
                          responder="I can't send messages, but you could text Bob that you're running late.")
    result = await make_app().ask("Let Bob know I'm running late")
    assert "sent the message" not in result.answer


@pytest.mark.parametrize("false_pair", ["It is often -5°C (-32°F) in Moscow in winter.",
                                        "A 10 km (16 miles) run takes about an hour.",
                                        "The bag weighs 10 kg (12 lbs)."])
async def test_a_trusted_models_false_conversion_pair_is_refuted(fake, make_app, false_pair):
    """The check that refutes false conversions reads a pair in brackets too, for a trusted model as for any."""
    fake.handler = Script(decide=Reply(content=false_pair), responder="I would rather not guess the figures.")
    result = await make_app(model_trust="trusted").ask("Tell me something about winter, running or luggage.")
    assert false_pair not in result.answer


@pytest.mark.parametrize("question, home", [
    ("turn on the living room lights", True), ("put the lights on low", True), ("make sure all doors are locked", True),
    ("what's the ac set to", True), ("who is at the door", True), ("warm up my car for me", True),
    ("set my oven to 350 for me right now", True), ("tv on turn", True),
    # a device talked about, the weather, a reminder, the computer: not the home's devices
    ("the lights are on", False), ("what is the temperature in paris", False), ("turn off the alarm", False),
    ("set an alarm for 7", False), ("is it cold", False), ("why do my lights flicker when the fan is on", False),
    ("how do i start a car with a dead battery", False), ("start a timer for 10 minutes", False),
])
def test_the_home_s_devices_are_read_by_their_words(question, home):
    from assistant.pipeline.recognisers.reach import home_device

    assert home_device(question) is home


@pytest.mark.parametrize("question, call", [
    ("call dave", True), ("can you call mary", True), ("ring steven", True), ("please phone lizzy", True),
    ("i have to call the commander", True), ("call sandra right now", True), ("would you give jenny a call", True),
    ("dial lisa's cell phone number", True),
    # calling said of something else, or with no one to call
    ("call me later", False), ("call it a day", False), ("call of duty", False), ("what do you call a baby cat", False),
    ("call a taxi", False), ("how do i call a function in python", False), ("call the function twice", False),
    ("dial down the music", False),
])
def test_a_call_is_read_by_its_words(question, call):
    from assistant.pipeline.recognisers.reach import call_asked

    assert call_asked(question) is call


@pytest.mark.parametrize("question, music", [
    ("put on some music", True), ("i'd like to hear my workout playlist", True), ("turn on the rap playlist", True),
    ("play help! by the beatles", True), ("play me some tunes", True), ("start my playlist", True),
    # music talked about, asked about, or a game
    ("what does their music sound like", False), ("do you have any elvis music", False), ("let's play chess", False),
    ("play a game with me", False), ("the song is stuck in my head", False), ("what is the best album of 2020", False),
])
def test_music_is_read_by_its_words(question, music):
    from assistant.pipeline.recognisers.reach import music_asked

    assert music_asked(question) is music


@pytest.mark.parametrize("question, kind", [
    ("i need a taxi to take me to the airport please", "ride"), ("call me an uber for right now", "ride"),
    ("book my nearest available taxi", "ride"), ("mute the speakers", "mute"), ("hey olly mute the speaker please", "mute"),
    ("stop the audio", "mute"), ("帮我写个邮件", "mail"), ("我要回复这个邮件", "mail"), ("给我看新邮件", "mail"),
    # asked about, said, or not a request
    ("how much is a taxi to the airport", None), ("the taxi was late", None), ("is my mic muted", None),
    ("silence is golden", None), ("邮件怎么写", None), ("我收到一封邮件", None), ("他发了邮件吗", None),
])
def test_a_ride_the_sound_muted_and_chinese_e_mail_are_read_by_their_words(question, kind):
    from assistant.pipeline.recognisers.reach import mute_asked, ride_asked, zh_mail_asked

    said = {"ride": ride_asked(question), "mute": mute_asked(question), "mail": zh_mail_asked(question)}
    assert [k for k, v in said.items() if v] == ([kind] if kind else [])


async def test_chinese_e_mail_gets_the_honest_line_in_chinese(fake, make_app):
    result = await make_app(model="qwen2.5:0.5b", model_trust="untrusted").ask("帮我转发这封邮件")
    assert result.model_calls == 0 and "收发或查看你的邮件" in result.answer and result.declined == "out_of_reach"


def test_ringing_at_a_time_is_no_call():
    from tools import Registry

    assert out_of_reach("ring my phone at 12 pm", Registry()) is None  # an alarm, asked another way
    assert out_of_reach("ring my mum", Registry()) is not None
