"""A reminder or a timer read from words, without a model: what to do (set one, list them, cancel some), when it is
due and what it is about, in English and Chinese.

"set a timer for ten minutes", "remind me at 4 to call the dentist", "remind me in 90 seconds", "wake me up
tomorrow at 7", "提醒我半小时后关火", "明天早上8点提醒我开会", "周五下午3点半提醒我交报告", "设一个10分钟的定时器";
"what reminders do I have?", "cancel the dentist one", "取消提醒".

:func:`read` is certain or silent: a request it cannot read whole is left to the model route, whose call is read
again (:func:`tools.reminders.due.due`), so a time is never guessed. What it asks of its neighbours: the time said
(:mod:`tools.reminders.due`), every time in the request (:mod:`tools.reminders.times`), a repeat
(:mod:`tools.reminders.repeats`), a cancel (:mod:`tools.reminders.cancelling`), a listing
(:mod:`tools.reminders.listing`)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Callable, Literal, TypeVar

from tools.base import CJK
from tools.reminders.args import RemindersArgs, unread_when_unfit
from tools.reminders.cancelling import read_cancel
from tools.reminders.repeats import EN_REPEAT, first_due, repeat_in
from tools.reminders.times import ZH_PARTS_OF_DAY, reads_time, times_read, times_said
from tools.reminders.due import (EN_MONTHS, EN_WEEKDAYS, MAX_TEXT, NO_HOUR, due, last_word, numbers_as_digits, request_text)
from tools.reminders.listing import asks_list, changes_one_set
from tools.reading.durations import EN_DURATION as _EN_DURATION
from tools.reading.when import EN_ORDINAL
from tools.reading.reader import spaced, tokens
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases
from tools.reading.time_of_day import ZH_PART as _ZH_PART




























# The weekend said with a time, on a weekday: its Saturday ("remind me this weekend at 9 to call mom" was at 9 today,
# about "this weekend to call mom"). On a Saturday or a Sunday which day is meant is not certain: the model's (the
# weekend stays in the words, where the check for a stretch of time finds it); "next weekend" in English is either.
_WEEKENDS = {"下个周末": "下周六", "下周末": "下周六", "这个周末": "周六", "这周末": "周六", "本周末": "周六", "周末": "周六",
             "this weekend": "on saturday", "on the weekend": "on saturday", "at the weekend": "on saturday",
             "over the weekend": "on saturday"}
_WEEKEND_SAID = Phrases(tuple(_WEEKENDS), re.IGNORECASE)


def _weekend_timed(text: str, now: datetime) -> str:
    """``text`` with a weekend said with a time ("周末早上9点", "下周末10点", "this weekend at 9") as its Saturday when
    ``now`` is a weekday; a weekend said otherwise ("周末的闹钟", "我周末有什么安排", "next weekend") as it was."""
    if now.weekday() >= 5:
        return text
    for m in _WEEKEND_SAID.finditer(text):  # ("next weekend" is none of them: it stays in the words)
        near = text[max(0, m.start() - 12):m.start()] + text[m.end():m.end() + 12]
        if any(c.isdigit() or c in "一二两三四五六七八九十" for c in near):
            return text[:m.start()] + _WEEKENDS[" ".join(m.group(0).casefold().split())] + text[m.end():]
    return text


# A stretch of time the reminder's time does not read, left beside what it is about ("next week to call bob", "call
# bob later this week", "明年", "月底交房租"): the time read would not be the one meant, so the model reads it.
_PERIODS = Phrases((
    "[(later|sometime)] (this|next) (week|month|year|weekend|spring|summer|autumn|fall|winter)",
    "[sometime] (later|early|earlier) (this|next|in the) (week|month|year)", "the week after next",
    "[(at|by|before|towards|toward)] [the] (end|start|beginning|middle) of [(the|this|next)] (week|month|year)",
    "[(in|during)] [the] (spring|summer|autumn|fall|winter)", "[in] (a few|a couple of|the next few|several) (days|weeks|months)",
    "the (day|night|morning|evening|week|weekend) (before|after|of)", "(one of these|some) days", "someday", "some day", "sometime", "eventually", "soon", "later on",
    "in (january|february|march|april|may|june|july|august|september|october|november|december)",
    # an occasion whose day the time did not read ("remind me on christmas at 9 to call grandma" was at 9 today)
    "(on|at|over|after) [the] (christmas [(eve|day)]|new year's [(eve|day)]|new year|thanksgiving|"
    "easter|halloween|valentine's [day]|[(my|his|her|their|our|mom's|dad's|mum's)] birthday|[(my|our)] anniversary|"
    "holidays|mother's day|father's day|independence day|labor day|memorial day|boxing day)",
), re.IGNORECASE)
# Words that open what a reminder is about only when the time said before them was not read whole: a day, a repeat,
# a condition ("at 3 on the first monday of the month", "at 9 every now and then", "at 6 unless it rains")
_UNREAD_OPENINGS = ("on", "every", "each", "unless", "if", "when", "whenever", "after", "during", "until", "till", "by",
                    "once", "or", "except", "excluding", "but")  # and another time ("at 7 or 8", "in an hour or two")
_ZH_PERIODS = ("明年", "今年", "去年", "下个月", "下月", "这个月", "本月", "月底", "月初", "月中", "年底", "年初", "年中", "下周", "这周",
               "本周", "周末", "春天", "夏天", "秋天", "冬天", "过几天", "改天", "过段时间", "以后", "将来", "最近", "有空")


def _a_period_left(text: str, zh: bool) -> bool:
    """Whether the words a reminder is about begin or end with a stretch of time no time was read from."""
    if zh:
        return text.startswith(_ZH_PERIODS) or text.endswith(_ZH_PERIODS)
    said = text.strip()
    if said.split(" ", 1)[0].casefold() in _UNREAD_OPENINGS:
        return True
    return _PERIODS.match(said) is not None or any(m.end() == len(said) for m in _PERIODS.finditer(said))










# ---------------------------------------------------------------- requests
_EN_SET = lazy_compile(
    r"^(?:(?:please\s+)?(?:set|start|create|make)\s+(?:me\s+)?(?:an?|the)\s+(?!new\s)(?P<dur0>[\w\s.-]+?)[\s-]+(?P<kind0>timer|countdown|alarm)"
    r"(?P<rest0>(?:\s+(?:to|that|for|about)\b.*)?)"
    r"|(?:please\s+)?(?:(?:i(?:\s+need|\s+want|\s+would\s+like|'d\s+like)(?:\s+you\s+to)?|make\s+sure|have)\s+"
    r"(?:(?:set(?:\s+up)?|start|create|add|make(?:\s+up)?|schedule|initiate|put\s+in|get)\s+)?"
    r"|(?:set(?:\s+up)?|start|create|add|make(?:\s+up)?|schedule|initiate|put\s+in|put)\s+)"
    r"(?:me\s+|up\s+)?(?:an?\s+|the\s+|my\s+|one\s+)?(?:new\s+)?"
    r"(?P<kind>timer|alarm|(?:(?:event|appointment|meeting|calendar)\s+)?reminder|countdown|notification|alert)"
    r"(?:\s+(?:is\s+)?set|\s+on(?=\s+for\b)|\s+(?:on|in|to)\s+(?:the|my)\s+calendar)?(?:\s+(?:for|of|to\s+go\s+off(?:\s+at)?|that\s+goes\s+off|set\s+for))?(?P<rest>.*)"
    r"|(?P<remind>remind\s+me|wake\s+me(?:\s+up)?|ping\s+me|nudge\s+me|alert\s+me|give\s+me\s+a\s+(?:shout|nudge|reminder)"
    r"|(?:don'?t|do\s+not)\s+let\s+me\s+forget(?:\s+about)?"
    r"|tell\s+me(?=\s+to\s.*\b(?:in|at|on|tomorrow|tonight)\b))"
    r"(?P<rest2>.*)"
    r"|(?:(?:a\s+)?new\s+)?(?:notification|alert)\s+(?:for|of|about)\s+(?P<rest4>.+)"
    r"|(?P<dur>.+?)\s+(?P<kind2>timer|countdown)"
    r"|(?:timer|countdown)\s+(?:for\s+)?(?P<rest3>.+))$", re.IGNORECASE)
_ZH_SET = lazy_compile(
    r"^(?:(?:帮我|请|给我|麻烦)*(?:设置|设定|设个|定个|开个|来个|建个|加个|调个|订个|开始|启动|设|定|开|建|加|调|订)(?:一)?(?:个)?(?:我的)?(?P<rest>.*?)(?:的)?(?:叫醒|起床)?(?P<kind>闹钟|定时器|计时器|倒计时|提醒|计时)(?P<after>.*)"
    # one wanted at a time: "我想要一个明天早上七点的叫醒闹钟", "我需要一个5分钟的计时器"
    r"|(?:我想要|我要|我需要|想要)(?:一)?(?:个)?(?P<rest8>[^的,，;；。]*?\d[^的,，;；。]*?)的?(?:叫醒|起床)?(?P<kind8>闹钟|定时器|计时器|倒计时|提醒)"
    # one made for something: "为这个周四的签证申请创建一个提醒"
    r"|(?:请|帮我)?(?:为|给)(?P<rest9>[^,，;；。]+?)(?:创建|设置|设定|添加|设|建|加|定)(?:一)?(?:个)?(?P<kind9>提醒|闹钟)"
    # an alarm said by its time alone: "明早8:10闹钟", "晚上8:10的闹钟", "另一个7点的闹钟"
    r"|(?:另一个|另外一个|一个)?(?P<rest4>[^的,，;；。]*?\d[^的,，;；。]*?)的?(?:(?:给我|帮我|为我)?(?:设置|设定|设|定|订|开|来|建|加)一?个?)?(?P<kind4>闹钟|倒计时|计时器|定时器|计时)"
    # what not to forget: "别让我忘了下午三点开会", "不要让我忘记明天交作业"
    r"|(?:别|不要)让我忘(?:了|记)?(?P<rest6>.+)"
    # the alarm set to a time: "把闹钟设在下午三点", "闹钟定到明早7点", "帮我把闹钟设置为6点半"
    r"|(?:帮我|请|给我|麻烦)?把?(?:我的)?闹钟(?:设置|设定|设|定|订|调)(?:在|到|为|成)(?P<rest5>.+)"
    # the alarm and its time, nothing else: "闹钟明天六点", "闹钟在7点" (not "闹钟坏了3天了", "闹钟3点响了吗")
    r"|闹钟(?:在|:|：)?(?=[^的,，\d]{0,6}\d)(?P<rest7>.+)"
    r"|(?P<pre>.*?)(?:提醒我|叫我|叫醒我|喊我|通知我|被提醒)(?P<rest2>.*)"
    r"|(?:提醒|倒计时|计时)(?P<rest3>.+))$")
# The list asked for: "我有哪些提醒", "查看最近的日程", "下午的日程是什么", "本周还有什么待办事项"
_ZH_LIST = Forms([
    # (what the assistant has is asked of it, not of the user's list: "你有什么安排")
    ("[<tell>] [我] [<now>] [(<days>|<weekday>)] [<part>] [我] (有|还有) (哪些|什么|几个|没有) <kinds> {rest}", "list"),
    ("[我] [<now>] [(<days>|<weekday>)] [<part>] [我] (有|还有) <kinds> (吗|没有|没) [(呢|啊)]", "list"),  # "我明天早上有闹钟吗"
    # what is left of one: "定时器还剩多久", "计时器还有几分钟"
    ("[(我的|<days> 的)] <kinds> [(还|还要)] (剩|有|剩下|要) (多久|多长时间|多少时间|几分钟|多少分钟|几秒|几个小时) [(呢|啊)]", "list"),
    ("(查看|看看|列出|显示|看一下) [(我的|所有|全部|<days> 的)] <kinds> {rest}", "list"),
    ("[<tell>] [<who>] [<now>] [<days>] [<who>] [<now>] [(一共|总共|共|都)] <set> (了|过) (哪些|什么|几个|多少) [个] <kinds> {rest}",
     "list"),
    # whether one is set: "我设闹钟了吗", "我有没有设早上叫我起床的闹钟", "明天的闹钟定了没有"
    ("[<who>] [<now>] (有没有|是不是|是否) <set> [(过|了|好)] {which} <kinds> [(吗|呢)]", "list"),
    ("[<who>] [<now>] [{which}] <set> [(过|了|好)] [个] <kinds> (了吗|了没有|了没|没有|吗)", "list"),
    ("[<who>] [<now>] [{which} 的] <kinds> <set> [(过|了|好)] (了吗|了没有|了没|没有|吗)", "list"),
    # when it rings: "我的起床闹钟定的是几点", "明天的闹钟是几点", "下一个闹钟", "工作日早上的闹钟时间"
    ("[<tell>] [(我的|<days> 的|<days>)] [{which}] <kinds> [响] (有哪些|列表|是什么|有什么|几点响|还在吗|<at>) [(呢|啊)]", "list"),
    ("<tell> [(我的|<days> 的|<days>)] {which} <kinds> [(时间|几点)] [(呢|啊)]", "list"),
    ("[<tell>] 下 [一] 个 <kinds> [(是|在)] [(几点|什么时候|哪天 [几点])] [(呢|啊)]", "list"),
    ("(我的|我所有的|我全部的) <kinds> [(呢|啊|吧)]", "list"),  # "看一下我的闹钟", its ask set aside: "我的闹钟"
], phrases={"days": "(今天|明天|后天|明早|明晚|今晚|上午|下午|晚上|本周|这周|下周|周末|最近)",
            "kinds": "(提醒|闹钟|定时器|计时器|日程 [安排]|安排|待办事项|待办)", "part": "(早上|上午|中午|下午|晚上|傍晚)",
            "weekday": "[(下|这|本|下个|这个)] (周|星期|礼拜) (一|二|三|四|五|六|日|天)",
            "who": "(我|你)", "now": "(现在|目前|当前)", "tell": "[(请|麻烦)] (告诉我|跟我说|说一下|说说|查一下|看一下)",
            "set": "(设|定|设置|设定|订|开|调)",
            "at": "([(是|设|定|设置|调)] [(在|的是|成|到|为)] 几点 [(响|叫我|叫醒我)]|[的] 时间 [是] [(几点|什么时候)])"},
   # what names one, never how to set one ("怎么设闹钟", "有没有设置闹钟的功能"): no verb of asking or setting in it
   types={"any": r".*?", "which": r"(?:(?!设|定|怎|如何|为什么|能|可以|会|要|吗|功能|办法)[^,，;；。?？!！])*?"},
   slots={"rest": "any", "which": "which"})
# (what is cancelled is one clause: "cancel the alarm, set a timer for 5 minutes" asks two things)






_NOT_ASKED = frozenset({"you", "u", "did", "didn't", "didnt", "why", "forgot", "forget", "if", "when", "how", "what"})
_ASKED_LAST = (" please remind me", " remind me please", " remind me about it", " remind me of it", " remind me")


def _ask_first(text: str) -> str:
    """A request whose ask comes last ("the dentist at 4 tomorrow, remind me"), or after its time ("at 4 tomorrow,
    remind me to call"), with the ask first: "remind me the dentist at 4 tomorrow", "remind me to call at 4 tomorrow"."""
    said = text.casefold()
    for tail in _ASKED_LAST:
        head = text[:len(text) - len(tail)].rstrip(" ,;:-")
        if said.endswith(tail) and head and "remind" not in head.casefold() and not _NOT_ASKED & set(tokens(head)):
            return f"remind me {head}"
    # the time first, with a comma or not: "at 4 tomorrow afternoon, remind me to start the oven", "tomorrow at 9
    # remind me to send the report", "every weekday at 9 remind me to stand up"
    when, comma, ask = text.partition(",")
    if not comma:
        when, ask = "", ""
        for start in _ASKS_TO_SET:
            if (at := said.find(f" {start}")) > 0 and (not ask or at < len(when)):
                when, ask = text[:at], text[at:]
    when, ask = when.strip(), ask.strip()
    if ask.casefold().startswith(_ASKS_TO_SET) and "remind" not in when.casefold() and _said_when(when):
        return f"{ask} {when}"
    return text


# How a request to set one starts, after the time said first ("at 5 set a reminder to call mom")
_ASKS_TO_SET = ("remind me ", "set a reminder", "set an alarm", "set a timer", "set reminder", "set alarm",
                "wake me", "create a reminder", "make a reminder", "add a reminder")


# What may be left of words that say only when once the times in them are set aside ("in an hour", "this evening")
_WHEN_WORDS = frozenset({"in", "at", "on", "by", "this", "today", "tomorrow", "tonight", "morning", "afternoon",
                         "evening", "night", "noon", "midnight", "next", "a", "an", "half", "hour", "hours", "minute",
                         "minutes", "min", "mins", "second", "seconds", "day", "days", "week", "weeks", "from", "now",
                         "the", "couple", "of", "few", "and", "o'clock", "am", "pm", *EN_WEEKDAYS, *EN_MONTHS})


def _said_when(words: str) -> bool:
    """``words`` are all a time, a delay or how often ("tomorrow at 9", "in 10 minutes", "every sunday"), and
    nothing else ("i have a meeting at 5" says more)."""
    repeat = EN_REPEAT.search(words)
    if repeat is not None:
        words = (words[:repeat.start()] + words[repeat.end():]).strip()
        if not words:
            return True
    words = numbers_as_digits(words)
    if not reads_time(words):
        return False
    left = spaced(words.casefold())
    for time in times_said(words, datetime.now().astimezone()):
        left = left.replace(spaced(time.casefold()), " ")
    return all(_a_when_word(word.strip(",.;!?")) for word in left.split())


def _a_when_word(word: str) -> bool:
    """"tomorrow", "3rd", "6:30", "8am": a word that only says when."""
    figure = word.removesuffix("am").removesuffix("pm").removesuffix("st").removesuffix("nd").removesuffix("rd")
    return not word or word in _WHEN_WORDS or figure.removesuffix("th").replace(":", "").replace(".", "").isdecimal()
















@unread_when_unfit
def read(question: str, now: datetime | None = None) -> RemindersArgs | None:
    """The request ``question`` makes of reminders, when it certainly makes one; else ``None``. One that sets a
    reminder carries the due time read from its ``when`` at ``now`` (default: the machine's clock)."""
    now = now or datetime.now().astimezone()
    text = request_text(question)
    if not text or len(text) > MAX_TEXT + 200:
        return None
    zh = bool(CJK.search(text))
    if "周末" in text or "weekend" in text.casefold():
        text = _weekend_timed(text, now)
    if _ZH_LIST.read(text) if zh else asks_list(text):
        return RemindersArgs(action="list")
    asked, cancel = read_cancel(text, zh, now)
    if asked:
        return cancel
    if not zh:
        text = _ask_first(text)  # "i have an appointment tomorrow at 9 remind me": "remind me i have …"
    repeat, anchor, text = repeat_in(text, zh)  # "every weekday at 9", "每天早上8点": read once, then set aside
    if repeat == "unread":
        return None
    found = _read_set(text, zh)
    if found is None:
        return _after_context(question, lambda tail: read(tail, now))
    if found.text and _a_period_left(found.text, zh):
        return None  # "remind me next week at 10 to call bob" is no reminder at 10 today about "next week to call bob"
    if repeat:
        before, _, after = anchor.partition("|")
        found = found.model_copy(update={"repeat": repeat, "when": (f"{before}{found.when}" if zh else
                                                                    f"{before} {found.when} {after}").strip()})
        return found.read_at(first_due(repeat, found.when, now))
    times = [] if zh else times_read(question, now)
    if len(times) > 1:
        return None  # "an alarm at 6:30 and one at 7": two times are two alarms, not one at a time made of both
    said = dict(times)
    return found.read_at(said[found.when] if found.when in said else due(found.when, now))


















# A Chinese request to set one, said first: "帮我设个闹钟", "提醒我买牛奶", "叫醒我"
_ZH_ASKED_TO_SET = Forms([
    ("[(帮我|请|给我|麻烦)] (设置|设定|设|定|开|来|建|加) [一] [个] [我的] [(叫醒|起床)] {kind} {rest}", "{kind}"),
    ("[(帮我|请|给我|麻烦)] (提醒我|叫醒我) {rest}", "reminder"),
], kinds={"kind": ("闹钟", "定时器", "计时器", "倒计时", "提醒")}, types={"any": r".*"}, slots={"rest": "any"})


R = TypeVar("R")
_CLAUSE_ENDS = (", ", ". ", "; ", "，", "。", "；")


def _after_context(question: str, reading: Callable[[str], R | None]) -> R | None:
    """A request said after what only sets the scene ("i'm making pasta, set a timer for 10 minutes", "going for a
    run, remind me in 30 minutes to stretch", "我在煮鸡蛋，设个3分钟的定时器"): the request, the last clause, read
    alone. What comes before must ask nothing itself: no question, no time, no word a reminder is set, listed or
    cancelled by. Once over the text: the clause read alone has no clause before it."""
    text = question.strip()
    cut = max(text.rfind(end) for end in _CLAUSE_ENDS)
    if cut <= 0:
        return None
    head, tail = text[:cut].strip(), text[cut + 1:].strip()
    if not tail or "?" in head or "？" in head or (len(head.split()) < 2 and not CJK.search(head)) \
            or head.split()[0].casefold() in _QUESTION_FIRST \
            or any(word in head.casefold() for word in _ASKING_WORDS) or times_said(head, datetime.now().astimezone()):
        return None
    return reading(tail)


_QUESTION_FIRST = frozenset({"what", "what's", "whats", "how", "how's", "when", "where", "who", "which", "why", "is", "are",
                             "will", "would", "can", "could", "do", "does", "did", "should", "tell", "please", "check"})
# Words that make a clause a request of its own, not the scene of one
_ASKING_WORDS = ("remind", "timer", "alarm", "reminder", "cancel", "delete", "remove", "list", "schedule", "提醒", "闹钟",
                 "定时", "计时", "取消", "删除", "日程")


def _before_an_event(question: str) -> bool:
    """A time said before an event the words do not time ("remind me one hour before the meeting i have tomorrow
    morning", "10 minutes ahead of my flight"): asking when is what fits."""
    said = f" {' '.join(question.casefold().split())} "
    for word in (" before ", " ahead of ", " prior to "):
        _, found, event = said.partition(word)
        if not found or not event.strip():
            continue
        times = times_said(event, datetime.now().astimezone())
        if not any(c.isdigit() for time in times for c in time):  # "before 5pm" is a time; "before the meeting" no hour
            return True
    return False


# How often a reminder comes back that none here keeps: the model reads it (never set once, never asked when)
_UNKEPT_REPEAT = Phrases(("every month", "each month", "of every month", "of each month", "monthly", "every year",
                          "each year", "yearly", "annually", "every other", "biweekly", "fortnightly", "every (second|third)",
                          "每月", "每个月", "每年", "隔天", "每隔一天", "每两周", "每隔一周"), re.IGNORECASE)


def hourless(request: RemindersArgs | None) -> bool:
    """A reminder to set whose words name its day and no hour ("remind me on friday to renew my passport",
    "下周一提醒我交报告"): its hour is asked back, and the reply joins the request."""
    found = request.due_read if request is not None and request.action == "set" else None
    return found is not None and found.at is None and found.problem is NO_HOUR


def untimed(question: str) -> Literal["reminder", "timer"] | None:
    """A request to set one that names no time ("remind me to buy milk", "set a timer", "提醒我买牛奶"), or a day
    but no hour: its kind, so the time can be asked back; ``None`` otherwise."""
    text = request_text(question)
    zh = bool(CJK.search(text))
    if not text or len(text) > MAX_TEXT + 200 or (zh and _zh_about(text)):
        return None
    if (request := read(question)) is not None:
        return request.kind if hourless(request) else None
    if repeat_in(text, zh)[0] == "unread" or _UNKEPT_REPEAT.search(text):
        return None  # "every hour from 9 to 5", "monthly": how often, with more than a time to ask for
    if (any(p in text for p in _ZH_PERIODS) if zh else _PERIODS.search(text)):
        return None  # "remind me next week to call bob": an hour said back would not place it (it had set one today)
    if not zh and times_said(question, datetime.now().astimezone()) and not _before_an_event(question):
        return None  # it names times (several, or one the rules could not place): asking "when?" would not fit
    if zh:
        said = _ZH_ASKED_TO_SET.read(text)
        if said is None:
            return _after_context(question, untimed)
        return "timer" if said in ("定时器", "计时器", "倒计时") else "reminder"
    # the ask said last, no time said ("i need to take out the trash please remind me"): the ask first; not a
    # question or a complaint about one ("why didn't you remind me", "you forgot to remind me")
    if (moved := _ask_first(text)) != text and not _NOT_ASKED & set(tokens(moved)):
        text = moved
    # "remind me of …", "remind me what/when …" ask to be told, now: no time to ask back for
    m = re.match(r"^(?:(?:can|could|would|will)\s+(?:you|u|i)\s+|how\s+about\s+|you\s+(?:need|have)\s+to\s+)?(?:please\s+)?"
                 r"(?:(?:dont|don't|do\s+not)\s+forget\s+to\s+)?"
                 r"(?:i(?:\s+need|\s+want|\s+would\s+like|'d\s+like|\s+must|\s+gotta|\s+have\s+to)\s+(?:you\s+)?(?:to\s+)?)?"
                 r"(?:(?:(?:set|start|create|add|make|schedule|open)(?:\s+up)?|give|get|turn\s+on)\s+(?:me\s+)?(?:an?\s+|the\s+|my\s+)?"
                 r"(?:(?:new|weekly|daily|monthly|event|appointment|meeting|calendar)\s+){0,2}"
                 r"(?P<kind>timer|alarm|reminder|countdown)\b"
                 r"|an?\s+(?:new\s+)?(?P<noun>timer|alarm|reminder|countdown)\b(?!\s+(?:of|that|is|was)\b)"
                 r"|new\s+(?:timer|alarm|reminder|countdown)(?:,?\s+please)?$|remind\s+me\b(?!\s+(?:of|about\s+(?:what|when|"
                 r"who|how|why|where|which)|what|when|who|whom|how|why|where|which|whether|if)\b)|wake\s+me\b"
                 r"|(?:be|get)\s+(?P<told>reminded|notified)\b(?!\s+(?:of|about|how|what|that|when|why)\b))", text, re.IGNORECASE)
    if m:
        return "timer" if (m.group("kind") or m.group("noun") or "").lower() in ("timer", "countdown") else "reminder"
    return _after_context(question, untimed)


# A question about setting one, not a request: "明天8点叫我起床的话要怎么设置闹钟?", "提醒功能怎么用"
_ZH_ABOUT = ("怎么", "如何", "怎样", "为什么", "为啥", "是什么", "什么意思", "的话", "能不能用", "有没有用", "好不好")


def _a_time_first(words: str) -> bool:
    """Whether ``words`` begin with a time ("早上7点", "7点半", "明天", "周五"), as the Chinese times are read."""
    return bool((m := _ZH_WHEN.match(words)) and m.group(0).strip())


def _zh_about(text: str) -> bool:
    return any(w in text for w in _ZH_ABOUT)


def _read_set(text: str, zh: bool) -> RemindersArgs | None:
    if zh and _zh_about(text):
        return None
    m = (_ZH_SET if zh else _EN_SET).match(text)
    if not m:
        return None
    g = m.groupdict()
    if zh:
        said_kind = g.get("kind") or g.get("kind4") or g.get("kind8") or g.get("kind9") or ""
        kind = "timer" if said_kind in ("定时器", "计时器", "倒计时", "计时") or (g.get("rest3") is not None and text.startswith(("倒计时", "计时"))) else "reminder"
        after = g.get("after") or ""
        if after[:1] in ("为", "成", "到", "在") and _a_time_first(after[1:]):
            after = after[1:]  # the alarm set to a time: "设置闹钟为早上七点", "定个闹钟在7点"
        body = " ".join(x for x in (g.get("rest"), after, g.get("pre"), g.get("rest2"), g.get("rest3"),
                                    g.get("rest4"), g.get("rest5"), g.get("rest6"), g.get("rest7"), g.get("rest8"),
                                    g.get("rest9")) if x)
        request = _split_zh(body, kind)
        if request is not None and (g.get("rest7") is not None or g.get("rest4") is not None) and request.text:
            return None  # words beside the time ("我用了10分钟计时", "闹钟坏了3天了"): talked about, not set
        alarm = said_kind == "闹钟" or g.get("rest5") is not None or g.get("rest7") is not None
        if request is not None and (alarm or "叫醒" in text):
            request = request.model_copy(update={"when": zh_in_the_morning(request.when)})
        return request
    kind = "timer" if (g.get("kind0") or g.get("kind") or g.get("kind2") or "").lower() in ("timer", "countdown") \
        or g.get("rest3") else "reminder"
    if changes_one_set(tokens(text)):
        return None  # "add 5 minutes to the timer", "take 2 minutes off my timer": the one running changed, the model's
    body = (f"for {g['dur0']}{g.get('rest0') or ''}" if g.get("dur0") else
            next(x for x in (g.get("rest"), g.get("rest2"), g.get("dur"), g.get("rest3"), g.get("rest4")) if x is not None))
    if (g.get("kind") or "").lower() == "alarm" and (bare := re.fullmatch(
            r"\s*(?:for\s+|at\s+)?(\d{1,2}(?::\d{2})?)(\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight|"
            r"tomorrow(?:\s+(?:morning|afternoon|evening))?|(?:on\s+)?(?:next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day))?\s*",
            body)):  # "for 8 on saturday": the hour with its day
        body = f"at {bare.group(1)}{bare.group(2) or ''}"  # "an alarm for 7", "for 6 in the morning": a time of day
    request = _split_en(body.strip(), kind)
    waking = (g.get("remind") or "").lower().startswith("wake") or (g.get("kind") or g.get("kind0") or "").lower() == "alarm"
    if request is not None and waking:
        request = request.model_copy(update={"when": in_the_morning(request.when)})
    return request


def in_the_morning(when: str) -> str:
    """An alarm's time: "at 7", "tomorrow at 5", "6:30", "for 10:00" are the morning's hour unless a part of the day
    is said ("wake me up at 7", "an alarm for 6:30"); "in 10 minutes" is no hour."""
    if any(c.isdecimal() for c in when) and not re.search(
            r"a\.?m\b|p\.?m\b|morning|afternoon|evening|night|tonight|noon|midnight|\b(?:in|after)\s+\d|"
            r"\b(?:1[3-9]|2[0-3]):\d\d|"
            r"minutes?|hours?|seconds?", when, re.IGNORECASE):
        return f"{when} in the morning"
    return when




def zh_in_the_morning(when: str) -> str:
    """An alarm's time in Chinese: "7点", "明天7点" are the morning's hour unless a part of the day is said ("晚上7点")
    or it is a span ("10分钟后")."""
    first = next((i for i, c in enumerate(when) if c.isdigit()), None)
    if first is None or any(p in when for p in ZH_PARTS_OF_DAY) or any(u in when for u in ("分钟", "小时", "秒", "后")):
        return when
    return f"{when[:first]}早上{when[first:]}"


_EN_WHEN = lazy_compile(
    rf"(?:\b(?:in|for|after)\s+)?(?:[-−–]\s*)?(?:{_EN_DURATION.pattern})(?:\s+(?:from\s+now|later))?"
    r"|(?:(?:\b(?:on\s+)?(?:(?:next|this)\s+)?(?:today|tonight|tomorrow|tmrw|yesterday|the\s+day\s+after\s+tomorrow|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4}(?!\s*(?:st|nd|rd|th|:|\d)))?"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:,?\s+\d{4}\b)?"
    r"|\d{4}-\d{2}-\d{2}))\b\s*(?:morning|afternoon|evening|night)?\s*)?(?:(?:at|by|around)\s+\d{1,2}(?::\d{2})?(?:\s*(?:a\.?m\.?|p\.?m\.?))?"
    r"(?:\s+o'?clock)?(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight))?|\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)"
    r"|\d{1,2}:\d{2}(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight))?|\b(?:at\s+)?(?:noon|midday|midnight)\b)"
    # a day with its part and no hour ("on sunday afternoon", "tomorrow morning"): the part's usual hour, never "noon"
    # read inside "afternoon"; a part alone ("in the afternoon", "this evening"): the next such part
    r"|\b(?:on\s+)?(?:(?:next|this)\s+)?(?:today|tonight|tomorrow|tmrw|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)\s+(?:morning|afternoon|evening|night)\b|\b(?:this|in\s+the)\s+(?:morning|afternoon|evening)\b"
    r"|\b(?:on\s+)?(?:(?:next|this)\s+)?(?:today|tonight|tomorrow|tmrw|yesterday|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)\b"
    # a date said after the time ("at 9 on 28 Dec 2026"): read with it, never left in the reminder's text
    r"|\b(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
    r"\.?(?:,?\s+\d{4}\b)?|\b(?:on\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}"
    r"(?:st|nd|rd|th)?\b(?:,?\s+\d{4}\b)?|\b(?:on\s+)?\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:on\s+)?(?:the\s+)?(?:\d{1,2}|" + EN_ORDINAL + r")(?:st|nd|rd|th)?\s+(?:of\s+)?(?:this|next)\s+month\b"  # "on the 1st of next month"
    r"|\bon\s+the\s+\d{1,2}(?:st|nd|rd|th)\b",  # the day of this month, or of the next ("on the 5th")
    re.IGNORECASE)


def _split_en(body: str, kind: str) -> RemindersArgs | None:
    """The time phrase and what it is about, from "at 4 to call the dentist", "to call mum tomorrow at 9",
    "for 10 minutes"; ``None`` unless both are read whole (nothing left over but the words that join them)."""
    spans = [m for m in _EN_WHEN.finditer(body) if m.group(0).strip()]
    if not spans:
        return None
    when = " ".join(m.group(0).strip() for m in spans)
    rest = body
    for m in reversed(spans):
        rest = rest[:m.start()] + " " + rest[m.end():]
    rest = " ".join(rest.split()).strip(" ,")
    if kind != "timer" and not any(c.isdigit() for c in when) and (hour := _hour_first(rest)):
        when, rest = f"at {hour[0]} {when}", hour[1]  # "a reminder for 7 tonight", "for 9 tomorrow to call bob"
    about = _ABOUT.match(rest)  # "[and] to call mum", "that the car is due"
    text = rest[about.end():].strip() if about and rest[about.end():about.end() + 1].isspace() else rest.strip()
    if text.lower().startswith("ish ") and when[-1:].isdigit():  # "at 5ish to leave": about 5
        text = text[4:].lstrip()
        text = text[3:].lstrip() if text.lower().startswith("to ") else text
    while text.lower().startswith("to "):  # "remind [me] to at 8 pm to take my medicine"
        text = text[3:].lstrip()
    if kind == "timer" and (said := _FOR_THE.match(text)):  # "a timer for 3 minutes for the eggs": the eggs
        text = text[said.end():].lstrip()
    if last_word(text) in ("for", "on", "at", "by", "in") and " " in text:  # "…the dentist for [tomorrow at 11]"
        text = text.rsplit(None, 1)[0]
    if not text and rest:
        return None
    if {"alarm", "alarms", "timer", "timers"} & set(text.casefold().split()) and any(c.isdigit() for c in text):
        return None  # "an alarm for 7 and a timer for 10 minutes": two requests, one read into the other's words
    if _UNREAD_TIME.match(text) or _repeats_unread(body):
        return None  # "tomorrow at daybreak", "at bedtime": a time of day the rules do not read, not what it is about;
        # "on the 30th of every month": a repeat the reminders do not keep, never one set once
    if text.replace(":", "").isdigit() or set(text.casefold().split()) <= _REQUEST_WORDS:
        text = ""  # "i want a [10 minute timer]", "a brand new [timer]", "an alarm clock", "[12] noon": no subject
    if last_word(rest) in ("to", "that", "about"):
        return None
    if kind != "timer" and (text.casefold().split()[:1] in (["before"], ["ahead"], ["prior"]) or
                            last_word(text) in ("before", "beforehand", "ahead", "prior", "early", "earlier")):
        return None  # "remind me 10 minutes before the meeting", "… about the meeting 15 minutes before": before an
        # event whose time is not said, not in 10 minutes
    return RemindersArgs(action="set", kind="timer" if kind == "timer" else "reminder", when=when, text=text)


def _hour_first(rest: str) -> tuple[str, str] | None:
    """A bare hour that the words left beside a day begin with ("9", "for 9", "7:30"), when nothing follows it or
    what a reminder is about does ("9 to call bob": ``("9", "to call bob")``); ``None`` otherwise ("2 buy milk", "3
    times": no hour said)."""
    words = rest.split()
    if words[:1] in (["for"], ["at"]):
        words = words[1:]
    hour, _, minutes = (words[0] if words else "").partition(":")
    if not (hour.isdecimal() and 0 < int(hour) <= 24 and (not minutes or (minutes.isdecimal() and len(minutes) == 2
                                                                          and int(minutes) < 60))):
        return None
    after = " ".join(words[1:])
    return (words[0], after) if not after or _ABOUT.match(after) else None


_ABOUT = Phrases(("[and] (to|that|about|of|so i can)",), re.IGNORECASE)
# A time of day said by what happens then, which no clock reading gives ("an alarm for tomorrow at daybreak")
_UNREAD_TIME = Phrases(("(at|around|by|before|after|until) [the] (daybreak|dawn|sunrise|sunup|first light|twilight|dusk|"
                        "sunset|sundown|nightfall|bedtime|lunchtime|dinnertime|teatime)",), re.IGNORECASE)
# How often a reminder comes back that none here does (daily, on weekdays and weekly ones are read as such)
_UNREAD_REPEAT = Phrases(("(every|each) (month|year|fortnight|hour)", "(monthly|yearly|annually|biweekly|fortnightly|hourly)",
                          "of (every|each) month", "once a (month|year)", "(twice|three times) a (day|week|month)"),
                         re.IGNORECASE)


def _repeats_unread(body: str) -> bool:
    """``body`` (numbers in words already digits) says a reminder comes back in a way none here does ("on the 30th of
    every month", "every 2 hours", "every other day"): never one set once (daily, weekday and weekly ones are read
    before)."""
    words = body.casefold().split()
    return bool(_UNREAD_REPEAT.search(body)) or any(
        w in ("every", "each") and i + 1 < len(words)
        and (words[i + 1][:1].isdigit() or words[i + 1] in ("other", "few", "couple", "second", "third"))
        for i, w in enumerate(words))
# The words a request to set one is made of, which are never what it is about when they are all that is left
_REQUEST_WORDS = frozenset("""
i i'd i'm id want wanna wish need needs gotta got have get like would could can you u me my a an the one another
brand new clock for on at in to please pls plz now right away starting start from set setting up make create
just some quick little add put run begin
""".split())
_FOR_THE = Phrases(("for the", "to the", "about the", "for", "to", "about"), re.IGNORECASE)
# A day said in Chinese: a named one, a weekday, a date ("明天", "下周一", "5月3日")
_ZH_DAYS = (r"今天|今日|今晚|今早|明天|明日|明早|明晚|后天|大后天|昨天|前天|(?:下下(?:个)?|下(?:个)?|这(?:个)?|本)?(?:周|星期|礼拜)[一二三四五六日天]"
            r"|(?:\d{4}年)?\d{1,2}月\d{1,2}[日号]|(?:下个?月|本月|这个?月)\d{1,2}[日号]")
_ZH_WHEN = lazy_compile(
    rf"(?:(?:{_ZH_DAYS}|\d{{1,2}}[日号])\s*)?"
    rf"(?:(?:{_ZH_PART})\s*)?\d{{1,2}}\s*(?:点|时|:)\s*(?:半|\d{{1,2}}\s*分?|[一三]刻)?(?:钟)?"
    r"|(?:过)?(?:[-−–负]\s*)?(?:\d+\s*个?半\s*(?:小时|钟头)|\d+(?:\.\d+)?\s*(?:个小时|小时|个钟头|钟头|分钟|分|秒钟|秒|天|个星期|星期|个礼拜|礼拜|周|年)(?:半)?(?:\s*(?:零)?\d+\s*(?:分钟|分|秒钟|秒))?|半(?:个)?小时|一刻钟|\d刻钟)"
    r"\s*(?:以后|之后|后)?"
    rf"|(?:{_ZH_DAYS})\s*(?:{_ZH_PART})?"
    rf"|(?:{_ZH_PART})")  # a part of the day alone, as "in the evening" is: "提醒我晚上穿正装"


# Words said before the ask that are no part of what to be reminded of: "记得提醒我明天交作业", "到时候叫我"
_ZH_LEADS = ("一定要记得", "一定记得", "记得要", "记得", "别忘了", "到时候", "到时", "一定要", "务必",
             "内容是", "内容为", "内容:", "内容：",  # "设一个下午两点的提醒，内容是交报告"
             "需要在", "想在", "要在", "希望在")  # "我需要在下午四点半被提醒去接孩子"


def _split_zh(body: str, kind: str) -> RemindersArgs | None:
    body = body.strip(" ,，")
    spans = [m for m in _ZH_WHEN.finditer(body) if m.group(0).strip()]
    if not spans:
        return None
    when = "".join(m.group(0) for m in spans)
    rest = body
    for m in reversed(spans):
        rest = rest[:m.start()] + rest[m.end():]
    rest = re.sub(r"^(?:的|在|我)?\s*|(?:的)?(?:吧|哦|啊|呀)?$", "", rest.strip(" ,，")).strip(" ,，")
    rest = next((rest[len(ask):] for ask in ("提醒我", "叫我") if rest.startswith(ask)), rest).strip()
    rest = next((rest[len(lead):] for lead in _ZH_LEADS if rest.startswith(lead)), rest).strip()  # "记得 交作业"
    rest = next((rest[:-2] for tail in ("一下", "一声") if rest.endswith(tail)), rest).strip(" ,，")  # "叫我一下"
    if kind == "timer":
        rest = rest.removeprefix("的")
    if any(ask in rest for ask in ("提醒我", "叫我", "叫醒我")) or len(spans) > 1 and any(c in body for c in ",，;；"):
        return None  # "五分钟后提醒我关火,十分钟后提醒我出门": two requests, never one made of both
    return RemindersArgs(action="set", kind="timer" if kind == "timer" else "reminder", when=when, text=rest)














    # gone by: set, it is said to have passed; whatever the clock, the same words are the same times




