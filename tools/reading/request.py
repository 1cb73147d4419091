"""A question read once, before any rule: the request in it, with the social wrapper set aside.

People wrap what they ask: a greeting or thanks around it ("hey, …, thanks!", "你好，…谢谢"), a polite frame
("would you mind telling me …", "could you convert …", "劳驾问一下…", "帮我查一下…"), fillers ("ok so", "um,"),
a trailing "please" or "呢". The bare request is what every tool's rule reads (:func:`read`), so a rule that
answers "15% of 80" answers "hey, could you tell me what 15% of 80 is, thanks!" too, without a pattern of its own.

The wrapper is a closed grammar (the phrases below, in both languages): only what it names is set aside, only at
the edges of the question, and never all of it (a message that is all wrapper is small talk, not a request). An
embedded question is put back in question order ("what 15% of 80 is" → "what is 15% of 80", "what time it is in
Tokyo" → "what time is it in Tokyo", "if it will rain" → "will it rain").

Text in chat-template or role markup (``[INST]``, ``<<SYS>>``, ``<|im_start|>system``, ``### System:``) is quoted
text, never an instruction: a question pasted as a user turn is that turn's words (:func:`unwrapped`, before
anything reads it), a system turn in it is cut out, and markup with no user turn is read as no request a rule may
answer (``markup``): what it says is left to the model, as the user's words.

A text longer than :data:`LONGEST` is no request a rule reads either (``long``): a document, a paste or noise,
which the model reads."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Callable

from tools.reading import reader
from tools.reading.numerals import EN_NUMBER, en_ordinal_dates, en_value
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases

# The longest text the rules read, in characters. A request to a tool is a sentence or two (the longest of the 34,686
# shared real ones is 186 characters; a reminder's words may take 500 of them); a longer text is a document, a paste
# or noise, which the model reads. The bound also holds what the rules cost: their patterns backtrack, and on a long
# run of one character (a 5,000-digit number, a line of question marks) they took seconds to minutes.
LONGEST = 600

# Chat-template markers and role tokens of the common model families.
MARKUP = lazy_compile(
    r"\[/?INST\]|<</?SYS>>|<\|(?:im_start|im_end|im_sep|eot_id|end_of_text|begin_of_text|start_header_id|end_header_id"
    r"|eom_id|endoftext|assistant|user|system|end|channel|message|return|start)\|>|</?s>|<(?:start|end)_of_turn>"
    r"|^#{2,3}\s*(?:Instruction|Response|Human|Assistant|System)\s*:|^(?:Human|User|System)\s*:\s",
    re.MULTILINE)
# Where a wrapped conversation's user turn starts, in the same families' templates.
_USER_TURN = lazy_compile(
    r"<\|im_start\|>\s*user\s*\n|<\|start_header_id\|>\s*user\s*<\|end_header_id\|>|<start_of_turn>\s*user\s*\n?"
    r"|\[INST\]|<\|user\|>|^#{2,3}\s*(?:Instruction|Human)\s*:|^(?:Human|User)\s*:\s", re.MULTILINE | re.IGNORECASE)
# A system turn in the same templates: instructions to a model, never a request of the user's.
_SYSTEM_TURN = lazy_compile(
    r"<<SYS>>.*?(?:<</SYS>>|\Z)|<\|im_start\|>\s*system\b.*?(?:<\|im_end\|>|\Z)"
    r"|<\|start_header_id\|>\s*system\s*<\|end_header_id\|>.*?(?:<\|eot_id\|>|\Z)"
    r"|<\|system\|>.*?(?=<\|(?:user|assistant|end)\|>|\Z)|<start_of_turn>\s*system\b.*?(?:<end_of_turn>|\Z)"
    r"|^#{2,3}\s*System\s*:.*?(?=^#{2,3}\s*\w+\s*:|\Z)|^System\s*:[^\n]*", re.DOTALL | re.MULTILINE | re.IGNORECASE)

# An assistant turn opened for the model to write: nothing of the user's.
_ASSISTANT_TURN = lazy_compile(r"<\|im_start\|>\s*assistant\b|<\|start_header_id\|>\s*assistant\s*<\|end_header_id\|>"
                               r"|<start_of_turn>\s*model\b|^#{2,3}\s*(?:Response|Assistant)\s*:|^Assistant\s*:",
                               re.MULTILINE | re.IGNORECASE)


def unwrapped(question: str) -> str:
    """A question pasted inside chat-template markup as a user turn (``<|im_start|>user\nWhat is 2+2?<|im_end|>``)
    is the question it wraps: the last user turn's words, without the markers. A system turn in it is cut out, never
    obeyed; and markup with no user turn is no question of the user's: it is returned as it is (quoted text, which
    no rule answers). Text without markers is returned as it is."""
    if not MARKUP.search(question):
        return question
    rest = _SYSTEM_TURN.sub(" ", question)
    starts = list(_USER_TURN.finditer(rest))
    first = MARKUP.search(rest)
    if not starts or (first is not None and rest[:first.start()].strip()):
        return question  # words before the markup ("notes.txt:", "summarise this:"): the markup is what they quote
    tail = rest[starts[-1].end():]
    end = MARKUP.search(tail)
    words = (tail[:end.start()] if end else tail).strip()
    after = MARKUP.sub(" ", _ASSISTANT_TURN.sub(" ", tail[end.start():])) if end else ""
    if not words or after.strip():
        return question  # words after the conversation ask about it: the conversation is quoted, not a request
    return words


_SEP = r"(?:[\s,，、.。!！:：;；~～…—]|-(?!\s*[\d.]))*"  # a hyphen before a number is its sign, never a pause
_END = r"[\s,，、.。!！?？:：;；~～…—-]*"

# English: what may open a request. Interjections stand alone only before a pause ("ok, …", "so, …").
# Names people call an assistant by: a name that is no word may open a request alone ("olly, …", "alexa what's …");
# one that is a word only after a greeting ("ok google", "hey computer").
_EN_NAMES = r"(?:olly|siri|alexa|cortana|jarvis|bixby)"
_EN_OPEN = [
    rf"(?:h(?:i+|e+y+a?|ello+|iya|owdy)|ok(?:ay)?)\s+(?:{_EN_NAMES[3:-1]}|google|computer)", _EN_NAMES,
    r"h(?:i+|e+y+a?|ello+|iya|owdy)(?:\s+(?:there|again|assistant|buddy|friend|mate|bot|all|everyone))?",
    r"yo+", r"greetings", r"good\s+(?:morning|afternoon|evening|day)(?:\s+(?:there|again|assistant|to\s+you))?",
    r"dear\s+assistant", r"(?:excuse|pardon)\s+me", r"sorry\s+to\s+(?:bother|trouble)\s+you(?:\s+but)?",
    r"(?:a\s+)?quick\s+question", r"(?:one\s+more|another|a)\s+question", r"i\s+have\s+a\s+(?:quick\s+)?question",
    r"(?:can|may)\s+i\s+ask(?:\s+you)?(?:\s+something)?", r"(?:a\s+)?quick\s+(?:one|q)", r"sorry(?=\s*[,.!:;—-])",
    r"(?:good\s+)?(?:morning|afternoon|evening)(?=\s*[,.!:;—-])", r"hi\s+hi",
]
_EN_PAUSED = r"(?:ok(?:ay)?|so|well|um+|uh+|hm+|alright|right|oh|ah|also|anyway|now|and)"
# An interjection needs no pause before a question word or a frame ("ok so what's 2+2", "so can you …").
_EN_BEFORE_QUESTION = r"(?:ok(?:ay)?|so|um+|uh+|hm+|oh|ah|alright|and|also)(?=\s+(?:so\b|what|how|when|where|which|who|is\b|are\b|" \
                      r"can\b|could\b|would\b|will\b|do\b|does\b|please\b|tell\b|convert\b|calculate\b))"
# Thanks said first, then the request: "thanks for the help, what's 5+5?"
_EN_THANKS_FIRST = r"(?:many\s+)?thanks?(?:\s+you)?(?:\s+(?:so|very)\s+much)?(?:\s+for\s+[^,.!?;:]{1,40})?(?=\s*[,.!;:—-])"
# Frames that take the request after them; those marked embed a question ("tell me what X is").
_EN_FRAME = [
    r"(?:please\s+)?(?:can|could|would|will)\s+(?:you|u)(?:\s+(?:please|kindly|just|maybe|possibly|quickly))?"
    r"(?:\s+help\s+me)?",
    r"would\s+you\s+(?:mind|be\s+so\s+kind\s+as\s+to)", r"(?:do\s+you\s+)?mind", r"please", r"pls", r"plz",
    r"kindly", r"help\s+me(?:\s+(?:with|to))?", r"i(?:\s+need|\s+want|\s+would\s+like|'d\s+like)\s+you\s+to",
    r"be\s+(?:so\s+)?kind\s+(?:enough\s+)?(?:as\s+)?to", r"be\s+able\s+to", r"are\s+you\s+able\s+to",
    r"is\s+it\s+possible\s+(?:for\s+you\s+)?to",
]
_EN_EMBED = [
    r"(?:tell|show)(?:ing)?\s+me(?!\s+to\s)", r"let(?:ting)?\s+me\s+know", r"(?:do|would)\s+you\s+(?:happen\s+to\s+)?know",
    r"(?:i\s+)?(?:wonder|was\s+wondering|am\s+wondering|'m\s+wondering)", r"any\s+idea", r"(?:do\s+you\s+)?know",
    r"i(?:\s+would|'d)\s+(?:like|love)\s+to\s+know", r"i(?:\s+(?:want|need|wanted)|(?:'m|\s+am)\s+(?:needing|wanting))\s+to\s+know", r"find(?:ing)?\s+out",
    r"i(?:'m|\s+am)\s+curious", r"curious",
    # "remind me of the date", "remind me what day it is": tell me, now (a reminder is "remind me to …", "… at 5")
    r"remind\s+me(?:\s+of)?(?=\s+(?:what(?:'s|\s+(?:is|was|time|day|date|year|the))\b|the\s+(?:date|time|day|year|weather|temperature)\b"
    r"|today'?s\s))",
    r"check(?:ing)?", r"look(?:ing)?\s+up", r"give\s+me", r"(?:can|could|may)\s+i\s+(?:please\s+)?(?:have|get|see)",
    r"i(?:'d|\s+would)\s+like", r"just\s+(?:tell|show)\s+me", r"just\s+let\s+me\s+know",
]
_EN_CLOSE = [
    r"please", r"pls", r"plz", r"(?:many\s+)?thanks?(?:\s+(?:you|a\s+lot|so\s+much|very\s+much|in\s+advance|again))*",
    r"thx", r"ty", r"tia", r"cheers", r"if\s+you\s+(?:can|could|would|don'?t\s+mind)", r"if\s+possible",
    r"for\s+me", r"(?:real\s+)?quick(?:ly)?", r"(?:my\s+)?(?:friend|buddy|mate)", r"assistant", r"bot", _EN_NAMES,
    r"(?:i\s+)?appreciate\s+it", r"much\s+appreciated", r"thank\s+you(?:\s+(?:so|very)\s+much)?",
    r"ok(?:ay)?\??", r"right\?", r"[:;]-?[)D]", r"at\s+the\s+moment",
]
# The words that name who is asked at a request's end ("…, bot"), which after an article are what is asked about
# ("are you a bot": the bot is the question)
_ADDRESSED = frozenset({"bot", "assistant", "friend", "buddy", "mate"})
_GERUND = {"converting": "convert", "calculating": "calculate", "computing": "compute", "working": "work",
           "figuring": "figure", "telling": "tell", "checking": "check", "finding": "find", "giving": "give",
           "adding": "add", "multiplying": "multiply", "dividing": "divide", "subtracting": "subtract",
           "changing": "change", "turning": "turn", "translating": "translate", "looking": "look"}
_GERUNDS = Phrases(tuple(_GERUND), re.IGNORECASE)

_ZH_OPEN = ["看看", "看一下", "查一下", "查查", "你好", "您好", "嗨", "哈喽", "哈啰", "喂", "听到没有", "听到了吗", "听见没有", "早上好", "上午好", "中午好", "下午好", "晚上好", "早安",
            "小助手", "助手", "那个", "嗯", "哦", "对了", "还有个问题", "有个问题", "问个问题", "打扰一下", "打扰了",
            "不好意思", "麻烦问一下", "劳驾问一下", "劳驾", "请问一下", "请问", "想问一下", "想问下", "问一下", "问下",
            "我想问一下", "我想问下", "我想问", "我想知道", "我想了解一下", "我想了解", "想知道", "你知道", "您知道",
            "你能告诉我", "您能告诉我", "你可以告诉我", "能告诉我", "可以告诉我", "告诉我", "麻烦你", "麻烦您",
            "麻烦", "请你帮我", "请您帮我", "请帮我", "能不能帮我", "能帮我", "可以帮我", "可不可以帮我",
            "你能帮我", "你可以帮我", "帮我看看", "帮我看一下", "帮我查一下", "帮我查查", "帮我查", "帮忙查一下",
            "帮忙看一下", "帮忙", "你帮我", "您帮我", "你给我", "您给我", "你替我", "替我", "帮我", "请你", "请您", "请"]
_ZH_ASKING = Phrases(("(能|可以|可不可以|能不能) (告诉|帮) 我", "知道"))
# "能不能…", "可以…吗", "你能否…": asking whether it can, before a verb of a request (a bare 能 or 可以 only there:
# "能量", "可以吃吗" are no frame); the 吗 that closes it is the frame's too
_ZH_MODAL = lazy_compile(r"^(?:你|您)?(?:能不能|能否|可不可以|可否|可以|能)(?:不可以|麻烦你|麻烦您|请你|请您)?"
                         r"(?=帮|给我|替我|提醒|叫醒|叫我|设|定个|定一个|开个|开一个|建|加个|算|计算|换算|转换|把|将|查|"
                         r"看看|看一下|告诉|说说|列出|取消|删)")
_ZH_CLOSE = ["谢谢你", "谢谢您", "谢谢啦", "谢谢了", "谢谢", "多谢", "感谢", "麻烦你了", "麻烦您了", "麻烦了",
             "拜托了", "拜托啦", "拜托", "好吗", "好不好", "可以吗", "行吗", "行不行", "哈", "呀", "啊", "啦", "嘛",
             "呢", "哦", "吧"]


def _alternatives(phrases: list[str]) -> str:
    return "|".join(sorted(phrases, key=len, reverse=True))


_EN_OPENING = lazy_compile(
    rf"^(?:(?:{_alternatives(_EN_OPEN)})\b{_SEP}|{_EN_PAUSED}\b[\s]*(?:[,，.!:;—]|-(?!\s*[\d.]))+\s*|{_EN_BEFORE_QUESTION}\s*|"
    rf"{_EN_THANKS_FIRST}{_SEP})", re.IGNORECASE)
_EN_FRAMING = lazy_compile(rf"^(?:{_alternatives(_EN_FRAME)})\b\s*", re.IGNORECASE)
_EN_EMBEDDING = lazy_compile(rf"^(?:{_alternatives(_EN_EMBED)})\b\s*(?:(?:about|on)\s+)?", re.IGNORECASE)
_EN_CLOSING = lazy_compile(rf"(?:^|(?<![\s,，.!?:;—-])[\s,，.!?:;—-]+)(?:{_alternatives(_EN_CLOSE)}){_END}$", re.IGNORECASE)
_ZH_OPENING = lazy_compile(rf"^(?:{_alternatives([re.escape(p) for p in _ZH_OPEN])})(?:呀|啊|哈|啦|哦)?{_SEP}")
_ZH_CLOSING = lazy_compile(rf"[,，、]?\s*(?:{_alternatives([re.escape(p) for p in _ZH_CLOSE])}){_END}$")

# An embedded question, put back in question order: "what time it is" as "what time is it", "if it will rain" as
# "will it rain", "how many ounces 2 cups are" as "how many ounces are 2 cups"; "how many grams are in a pound" is
# in question order already. A verb in the middle ("what the date was yesterday is") leaves the words as they are.
def _then(head: str, rest: str) -> str:
    return f"{head} {rest}" if rest[:1].isalnum() else head + rest


def _unless_a_verb(middle: str, said: str) -> str | None:
    return None if _A_VERB.search(middle) else said


def _asked_of(wh: str, middle: str, verb: str) -> str:
    """"what" + "timezone sedona" + "is": "what timezone is sedona" (the noun "what" asks for, then the verb, then
    its subject); "what" + "the capital" + "is": "what is the capital"; "what" + "twelve times four": "what is
    twelve times four" (no noun "what" asks for)."""
    words = middle.split()
    if wh in ("what", "which") and len(words) > 1 and words[0].casefold() in _ASKED_NOUNS:
        return f"{wh} {words[0]} {verb} {' '.join(words[1:])}"
    return f"{wh} {verb} {middle}"


# The nouns "what" and "which" ask for ("what timezone", "which city"), whose subject follows them
_ASKED_NOUNS = frozenset("timezone zone color colour day date year month week weekday holiday season city country "
                         "state province language currency temperature size kind type sort number percentage percent "
                         "unit place name age team song movie film book".split())
_IS = {"'s": "is"}
_QUESTION_ORDER = Forms([
    ("{wh} {subject} {verb:be} {rest}",
     lambda v: _then(f"{v['wh']} {_IS.get(v['verb'], v['verb'])} {v['subject']}", v.get("rest", ""))),
    ("(if|whether) {subject:if_subject} {verb:if_be} {rest}",
     lambda v: _then(f"{_IS.get(v['verb'], v['verb'])} {v['subject']}", v.get("rest", ""))),
    ("{wh:how_many} {noun:words} {middle:amount_said} {verb:counts_as} {end}",
     lambda v: f"{v['wh']} {v['noun']} {v['verb']} {v['middle']}{v.get('end', '')}"),
    ("{wh:how_many} {noun:words} (is|are) (in|to|per) {rest}", ""),  # question order already
    ("{wh} {middle} will be {rest}",
     lambda v: _unless_a_verb(v["middle"], _then(f"{v['wh']} will {v['middle']} be", v.get("rest", "")))),
    ("{wh} {middle} {verb:is_was} {rest:from_preposition}",
     lambda v: _unless_a_verb(v["middle"], f"{_asked_of(v['wh'], v['middle'], v['verb'])} {v['rest']}")),
    ("{wh} {middle} {verb:says} {end}",
     lambda v: _unless_a_verb(v["middle"], f"{_asked_of(v['wh'], v['middle'], v['verb'])}{v.get('end', '')}")),
], slots={"middle": "text", "rest": "any", "end": "ending"},
   types={"text": r"\S(?:.*?\S)?", "any": r".*", "words": r"[^\d\s](?:[^\d]*?[^\d\s])?", "amount_said": r"\d(?:.*?\S)?",
          "ending": r"[\s?.!]*",
          "from_preposition": r"(?:in|into|to|as|from|like|for|on|at|between|of)\b.*"},
   kinds={"wh": ("what time zone", "what timezone", "which time zone", "which timezone", "what time", "what day", "what date", "what", "how much", "how many", "how hot", "how cold", "how warm",
                 "how far", "how long", "how big", "how old", "how", "when", "where", "which", "who"),
          "subject": ("it", "they", "there", "this", "that", "he", "she"), "if_subject": ("it", "there", "they"),
          "be": ("is", "are", "was", "will be", "would be", "'s"), "if_be": ("is", "are", "will", "'s", "was"),
          "how_many": ("how many", "how much"), "counts_as": ("is", "are", "makes", "make", "equals", "equal"),
          "is_was": ("is", "are", "was"),
          "says": ("is", "are", "was", "will be", "would be", "equals", "comes to", "makes")})
_CONTRACTION = Phrases(("whats", "hows", "wheres", "whos", "whens"), re.IGNORECASE)  # "whats 23*47": "what's"
# Request verbs people use for the same thing: read as the one the rules know.
_SAME_VERB = Phrases(("work out", "figure out"), re.IGNORECASE)


# Values read once, in the forms people write them, into the forms every rule reads.
# Where a number word is a word, not an amount: "one of", "the one", "no one", "one day", "which one".
_A_VERB = Phrases(("is", "are", "was", "does", "do", "did", "will", "would", "can"), re.IGNORECASE)
_NOT_AN_AMOUNT = lazy_compile(r"^one\b(?!\s*(?:hundred|thousand))", re.IGNORECASE)
_MONEY = lazy_compile(r"[$€£¥￥]\s?(?=\d)|(?<=\d)\s?(?:usd|eur|gbp|rmb|cny|dollars?|bucks|euros?)\b",
                    re.IGNORECASE)
_PERCENT_ON = lazy_compile(r"(?:\ban?\s+)?((?<![\d.])\d+(?:\.\d+)?\s*(?:%|percent|per\s+cent))\s+(?:tip|(?:sales\s+)?tax|discount|commission|service"
                         r"(?:\s+charge)?|interest|markup|vat|gratuity|surcharge)\s+(?:on|of|for)\s+(?:(?:a|an|the|my|our)\s+)?",
                         re.IGNORECASE)
# The rate said after the amount: "the tip on 85 at 18 percent", "tax on 250 at 8%": that percentage of it
_RATE_AFTER = Forms([("[the] (tip|tax|sales tax|vat|gratuity|service charge|discount) (on|for|of) [(a|an|the|my)] {a:figure} "
                      "[(bill|check|meal)] (at|with) [(a|an)] {p:amount} (%|percent|per cent)", "{p}% of {a}")])
# "15% of 64 bill" (after the above): the bill is the amount
_AMOUNT_NOUN = lazy_compile(r"((?<![\d.])\d+(?:\.\d+)?\s*(?:%|percent|per\s+cent)\s+of\s+\d+(?:\.\d+)?)\s+(?:dollar\s+|euro\s+)?"
                            r"(?:bill|check|cheque|meal|order|purchase|tab|total|dinner|lunch|breakfast)\b", re.IGNORECASE)
# Compound quantities and durations, written as one amount of the smaller unit: the form, how many of the smaller
# unit make one of the larger, the smaller unit's name and the larger's, and how the smaller one is asked for.
_COMPOUNDS = [
    ("{big} (feet|foot|ft|') [and] {small} {inch}", 12, "inches", "feet", r"inch|inches"),
    ("{big} (feet|foot|ft|') {small:inches}", 12, "inches", "feet", r"inch|inches"),  # a height: "5 foot 10"
    ("{big} (pounds|pound|lbs|lb) [and] {small} (ounces|ounce|oz)", 16, "ounces", "pounds", r"ounces?|oz"),
    ("{big} (hours|hour|hrs|hr|h) [and] {small} (minutes|minute|mins|min|m)", 60, "minutes", "hours", r"minutes?|mins?"),
    ("{big} (minutes|minute|mins|min) [and] {small} (seconds|second|secs|sec|s)", 60, "seconds", "minutes",
     r"seconds?|secs?"),
    ("{big} [个] (小时|钟头) [零] {small} 分 [钟]", 60, "分钟", "小时", r"分钟"),
    ("{big} 分 [钟] [零] {small} 秒", 60, "秒", "分钟", r"秒"),
    ("{big} 英尺 {small} 英寸", 12, "英寸", "英尺", r"英寸"),
]
_COMPOUND_FORMS = Forms([(said, "") for said, *_ in _COMPOUNDS], slots={"big": "amount", "small": "amount", "inch": "inch"},
                        # "in" is the inch only where no unit follows it ("5 ft 9 in"; "5 foot 9 in cm" is 69 inches in cm)
                        types={"inches": r"(?:1[01]|[0-9])(?![\d.])", "inch": r"(?:inches|inch|\"|in(?![ \t]*(?:[a-z]|"
                                                                            r"厘米|米|公分)))"})
_ZH_COUNT = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
# An hour and a half, two and a half hours, 两个半小时: in minutes (a count of hours, then half of one)
_HALVES = Forms([
    ("(an|one) (hours|hour) and a half", "90 minutes"),
    ("{n} (hours|hour) and a half", lambda v: f"{int(v['n']) * 60 + 30} minutes"),
    ("{n} and a half (hours|hour)", lambda v: f"{int(v['n']) * 60 + 30} minutes"),
    ("half an hour", "30 minutes"),
    ("{n} [个] 半 [个] (小时|钟头)",
     lambda v: f"{(int(v['n']) if v['n'].isdigit() else _ZH_COUNT[v['n']]) * 60 + 30}分钟"),
    ("半 [个] (小时|钟头)", "30分钟"),
], slots={"n": "count"})


def _amount(text: str) -> str:
    value = float(text)
    return str(int(value)) if value.is_integer() else f"{value:g}"


# What follows "one" when it is a number: an operation, a unit or a part ("one plus two", "one mile", "one sixth").
_COUNTED = ("-", "+", "*", "/", "×", "÷", "^", "plus", "minus", "times", "divided", "multiplied", "mile", "km", "kilo",
            "pound", "kg", "foot", "feet", "inch", "hour", "minute", "second", "cup", "ounce", "gallon", "liter", "litre",
            "meter", "metre", "half", "third", "quarter", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _numbers_in_words(text: str) -> str:
    def digits(m: re.Match[str]) -> str:
        words = m.group(0)
        if _NOT_AN_AMOUNT.match(words) and not text[m.end():].lstrip().lower().startswith(_COUNTED):
            return words  # "one of them", "which one": a word
        return str(en_value(words))

    return EN_NUMBER.sub(digits, en_ordinal_dates(text))


_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}


def _scaled(text: str) -> str:
    """An amount said with its scale as one number: "1 million", "2.5 billion", "400 thousand" (after numbers in
    words: "a thousand")."""
    words = text.split(" ")
    out: list[str] = []
    for word in words:
        scale = _SCALES.get(word.lower().rstrip("?.!,"))
        if scale and out and out[-1].replace(".", "", 1).isdigit():
            value = float(out.pop()) * scale
            out.append((str(int(value)) if value.is_integer() else str(value)) + word[len(word.rstrip("?.!,")):])
        else:
            out.append(word)
    return " ".join(out)


# Words of time and of the weather people misspell or shorten, as the rules read them ("set up a reminder to mail a
# check tommorow", "what's the forcast"): the misspellings of the shared utterances and their like.
_SPELLED = {"tommorow": "tomorrow", "tommorrow": "tomorrow", "tomorow": "tomorrow", "tomorrw": "tomorrow",
            "tomorroe": "tomorrow", "2morrow": "tomorrow", "2moro": "tomorrow", "tonite": "tonight", "2nite": "tonight",
            "wensday": "wednesday", "wednsday": "wednesday", "wedensday": "wednesday", "thurday": "thursday",
            "thursay": "thursday", "tuseday": "tuesday", "saterday": "saturday", "febuary": "february",
            "calender": "calendar", "hrs": "hours", "hr": "hour", "wednseday": "wednesday", "thrusday": "thursday",
            "wat": "what", "wut": "what", "whut": "what", "tues": "tuesday", "thurs": "thursday", "thur": "thursday",
            "weds": "wednesday",
            # and of the weather (a word close to one that is a word of its own, "forest", "temperate", stays as it is)
            "weathr": "weather", "wheather": "weather", "weahter": "weather", "wather": "weather", "forcast": "forecast",
            "forecase": "forecast", "forrecast": "forecast", "foreast": "forecast", "forcaste": "forecast",
            "temperaure": "temperature", "temprature": "temperature", "tempature": "temperature",
            "temperture": "temperature", "tempreture": "temperature", "wether": "weather", "weater": "weather",
            # and of the reminders and sums
            "alram": "alarm", "alaram": "alarm", "remaind": "remind", "reminde": "remind", "timmer": "timer",
            "calculte": "calculate", "calcualte": "calculate", "convet": "convert", "tmrw": "tomorrow",
            "tmr": "tomorrow", "tmrrw": "tomorrow", "2day": "today",
            # words of chat, as the words they stand for ("r u a bot", "can u set an alarm", "gonna need a timer")
            "u": "you", "r": "are", "ur": "your", "pls": "please", "plz": "please", "plse": "please", "thx": "thanks",
            "thnx": "thanks", "tnx": "thanks", "wats": "what's", "wuts": "what's", "whats": "what's", "hows": "how's",
            "gonna": "going to", "wanna": "want to", "gimme": "give me", "lemme": "let me", "abt": "about",
            "b4": "before", "rn": "right now", "cuz": "because", "@": "at", "pct": "percent", "w/": "with",
            "approx": "about"}


def _spelled(text: str) -> str:
    """``text`` with the words of :data:`_SPELLED` as they are spelt, their stops kept; every other word as written."""
    def spelt(word: str) -> str:
        bare = word.strip("?.!,;:")
        right = _SPELLED.get(bare.lower())
        return word if right is None else word.replace(bare, right, 1)

    return " ".join(spelt(w) for w in text.split(" "))


def values(text: str) -> str:
    """``text`` with its values in the forms the rules read: numbers in words as digits ("thirty-six times twelve"
    → "36 times 12"), money without its sign ("$48.60" → "48.60"), a tip or a tax "on" an amount as a percentage
    "of" it, and compound quantities and durations as one amount ("5 feet 11 inches" → "71 inches", "1 hour and 45
    minutes" → "105 minutes", "3小时20分钟" → "200分钟")."""
    out = _scaled(_numbers_in_words(_spelled(text)))
    out = _MONEY.sub("", out)
    out = _AMOUNT_NOUN.sub(r"\1", _PERCENT_ON.sub(r"\1 of ", _RATE_AFTER.sub(out)))
    out = _HALVES.sub(out)
    for pattern, (_, factor, small, large, small_names) in zip(_COMPOUND_FORMS.patterns(), _COMPOUNDS, strict=True):
        out = pattern.sub(_in_one(out, pattern, factor, small, large, small_names), out)
    return out


def _in_one(text: str, pattern: re.Pattern[str], factor: int, small: str, large: str,
            small_names: str) -> Callable[[re.Match[str]], str]:
    """A compound amount (its larger part, then its smaller) written as one amount: of the smaller unit, or, where
    the question asks for the smaller unit ("how many minutes is 1 hour and 45 minutes"), of the larger one when
    that is exact to four places (1.75 hours)."""
    asks_small = bool(re.search(rf"(?:{small_names})", pattern.sub(" ", text), re.IGNORECASE))

    def one(m: re.Match[str]) -> str:
        big, rest = float(m.group(1)), float(m.group(2))
        amount, unit = big * factor + rest, small
        if asks_small and round(rest / factor, 4) == rest / factor:
            amount, unit = big + rest / factor, large
        return f"{_amount(str(amount))} {unit}" if unit.isascii() else f"{_amount(str(amount))}{unit}"

    return one


@dataclass(frozen=True)
class Request:
    """What a question asks, read once: ``text`` as typed; ``core`` the request with its social wrapper set aside
    (the text itself when there is none); ``wrapper`` the phrases set aside, in order; ``markup`` whether the
    question carries chat-template or role markup (then no rule may answer it)."""

    text: str
    core: str
    wrapper: tuple[str, ...] = field(default=())
    markup: bool = False
    long: bool = False  # longer than LONGEST: no rule reads it

    @property
    def readable(self) -> bool:
        """Whether a rule may read the request: neither markup nor longer than :data:`LONGEST`."""
        return not (self.markup or self.long)

    @property
    def wrapped(self) -> bool:
        return self.core != self.text

    @cached_property
    def intent(self) -> reader.Reading | None:
        """What the learned reader makes of the words as typed (it was trained on them wrapped as people wrap
        them), read once: ``None`` when it has nothing to say, or for a request no rule reads (markup, or too
        long). When it is unsure of the words as typed, the request with its wrapper set aside is read ("can i have
        today's date")."""
        if not self.readable:
            return None
        whole = reader.read(self.text)
        if self.wrapped and (whole is None or not (whole.certain or whole.family)):
            bare = reader.read(self.core)
            if bare is not None and (bare.certain or bare.family):
                return bare
        return whole


def has_markup(text: str) -> bool:
    return bool(MARKUP.search(text))


def _in_question_order(core: str) -> str:
    return _QUESTION_ORDER.read(core) or core


def _unwrap_en(text: str, taken: list[str]) -> str:
    core = text
    for _ in range(8):  # a few phrases in a row: "hey, ok so, could you please tell me …"
        m = _EN_OPENING.match(core) or _EN_FRAMING.match(core)
        if m and m.end() < len(core):
            taken.append(m.group(0).strip())
            core = core[m.end():]
            continue
        break
    for _ in range(4):
        m = _EN_CLOSING.search(core)
        if m and m.start() > 0 and not (core[:m.start()].casefold().split()[-1:] in (["a"], ["an"], ["the"], ["your"])
                                        and m.group(0).strip(" ,.!?").casefold() in _ADDRESSED):
            taken.append(m.group(0).strip(" ,.!"))
            core = core[:m.start()]
            continue
        break
    embedded = _EN_EMBEDDING.match(core)
    if embedded and embedded.end() < len(core):
        taken.append(embedded.group(0).strip())
        core = _in_question_order(core[embedded.end():])
    first = _GERUNDS.match(core)
    if first and taken:  # "would you mind converting …"
        core = _GERUND[first.group().lower()] + core[first.end():]
        again = _EN_EMBEDDING.match(core)  # "mind telling me what time it is …"
        if again and again.end() < len(core):
            core = _in_question_order(core[again.end():])
    if taken and (same := _SAME_VERB.match(core)):
        core = "calculate" + core[same.end():]  # "can you work out 123 * 456"
    return _CONTRACTION.sub(lambda m: m.group()[:-1] + "'s", core)


def _without_ma(core: str) -> str:
    """``core`` without the 吗 that ends it (and the question mark after it)."""
    said = core.rstrip()
    said = said[:-1].rstrip() if said[-1:] in ("?", "？") else said
    return said[:-1] if said.endswith("吗") else core


def _unwrap_zh(text: str, taken: list[str]) -> str:
    core = text
    asking = False
    for _ in range(6):
        m = _ZH_MODAL.match(core)
        if m and m.end() < len(core):
            taken.append(m.group(0))
            asking, core = True, core[m.end():]
            continue
        m = _ZH_OPENING.match(core)
        if m and m.end() < len(core):
            taken.append(m.group(0).strip())
            asking = asking or bool(_ZH_ASKING.search(m.group(0)))
            core = core[m.end():]
            continue
        break
    if asking:  # "你能告诉我…吗": the 吗 asks whether it can tell, part of the frame
        core = _without_ma(core)
    for _ in range(4):
        m = _ZH_CLOSING.search(core)
        if m and m.start() > 0:
            taken.append(m.group(0).strip())
            core = core[:m.start()]
            continue
        break
    return core


def _trimmed(text: str) -> str:
    """``text`` without the pauses left at its edges, keeping a leading minus sign: "-5 + 3" is minus five."""
    text = text.rstrip(" \t,，、:：;；—-")
    start = len(text) - len(text.lstrip(" \t,，、:：;；—-"))
    sign = text.rfind("-", 0, start)
    if sign >= 0 and text[start:start + 1].isdigit():  # "-5 + 3", "- 5 + 3": the number's sign
        return "-" + text[start:]
    return text[start:]


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


@lru_cache(maxsize=64)
def read(question: str) -> Request:
    """The request in ``question`` (see the module's text): read once, whichever rule asks (the router, the plan,
    the follow-up and the checks of one turn ask about the same words). An apostrophe typed as a typographic one
    ("what’s", "o’clock", as phones and word processors write it) is read as the plain one."""
    text = question.strip().translate(_APOSTROPHES)
    if len(text) > LONGEST:
        return Request(text=text, core=text, long=True)
    if has_markup(text):
        return Request(text=text, core=text, markup=True)
    norm = unicodedata.normalize("NFKC", text)
    taken: list[str] = []
    core = _spelled(norm)  # "r u a bot", "can u set an alarm": the words meant, before the wrapper is read
    for _ in range(3):  # the two grammars in turn, as people mix them ("你好, what is 2+3?")
        before = core
        core = _trimmed(_unwrap_zh(_unwrap_en(core, taken), taken))
        if core == before:
            break
    core = values(core)
    if core == norm or not any(c.isalnum() or c == "_" for c in core):
        return Request(text=text, core=text)
    asked = norm.rstrip()[-1:]
    if asked in ("?", "？") and not core.endswith(("?", "？")):
        core += asked
    return Request(text=text, core=core, wrapper=tuple(taken))
