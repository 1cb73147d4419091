"""Small talk: a message made only of social phrases (greetings, how-are-you, thanks, farewells, acknowledgements,
apologies, praise), in English or Chinese. It is what the tiny built-in model may answer by itself: a reply to
"hi there, how is your day?" states no fact, so nothing in it can be a wrong one. Anything else it would have to
guess (a fact, code, a command, advice) is declined honestly (:func:`assistant.pipeline.language.too_small`).

A rule, so certain by construction: the message is cut into phrases it knows, and one word left over that is
not a filler ("there", "assistant", "please", "so", an emoji) makes it not small talk.

The tiny model's reply is held to the same rule from its side (:func:`is_social_reply`): it is shown as far as it
stays small talk ("Hello! How can I help you today?"), and ends where it starts saying more ("welcome to our
community #… on Instagram, where people share …"); when nothing of it is, :func:`reply_to` answers in a line."""

from __future__ import annotations

import re
from tools.lazy_re import lazy_compile
from tools.reading.forms import Phrases
from tools.reading.reader import spaced

_EN = [
    # greetings
    r"h(?:i|ello|ey|eya|owdy|iya)+", r"yo", r"greetings", r"good\s+(?:morning|afternoon|evening|day|night)(?:\s+to\s+you)?",
    r"morning", r"evening", r"what'?s\s+up", r"sup", r"nice\s+to\s+(?:meet|see)\s+you(?:\s+too)?",
    # how are you
    r"how\s+(?:are|r)\s+(?:you|u|ya)(?:\s+(?:doing|today|tonight|feeling))*",
    r"how(?:'s|\s+is)\s+(?:it\s+going|your\s+(?:day|morning|evening|week|weekend)(?:\s+(?:going|been))?|everything|life)",
    r"how\s+(?:have\s+you\s+been|do\s+you\s+do|was\s+your\s+(?:day|weekend))", r"are\s+you\s+(?:ok|okay|well|there)",
    r"(?:i'?m|i\s+am)\s+(?:fine|good|great|ok|okay|well|doing\s+(?:well|good|great|fine))(?:\s+too)?",
    r"and\s+you", r"you\s+too", r"same\s+here",
    # thanks
    r"(?:many\s+)?thanks?(?:\s+(?:you|a\s+lot|so\s+much|very\s+much|a\s+bunch|again))*"
    r"(?:\s+for\s+(?:(?:all\s+)?(?:your|the)\s+(?:kind\s+)?(?:help|time|answers?|patience|support|reply|advice)|"
    r"everything|helping(?:\s+me)?|asking|(?:the|your|this|that|these|those)(?:\s+[\w'-]+){1,3}))?", r"thx", r"ty",
    r"cheers", r"much\s+obliged",
    r"(?:i\s+)?(?:really\s+)?appreciate\s+it", r"much\s+appreciated", r"that(?:'?s|\s+is|\s+was)\s+(?:very\s+|so\s+|really\s+)?(?:kind|helpful|nice|great|cool|awesome|perfect|funny)",
    # farewells
    r"(?:good\s*)?bye(?:\s+bye)?", r"see\s+(?:you|ya)(?:\s+(?:later|soon|tomorrow|around))?", r"later",
    r"take\s+care", r"have\s+a\s+(?:nice|good|great)\s+(?:day|night|evening|weekend|one)", r"good\s*night",
    r"talk\s+(?:to\s+you\s+)?(?:later|soon)", r"ttyl",
    # acknowledgements
    r"ok(?:ay)?", r"k", r"cool", r"great", r"nice", r"awesome", r"perfect", r"sure", r"alright", r"got\s+it",
    r"i\s+see", r"fair\s+enough", r"sounds\s+good", r"no\s+problem", r"np", r"lol", r"haha+", r"hehe+", r"wow",
    r"yes", r"yeah", r"yep", r"no", r"nope", r"indeed",
    # apologies and praise
    r"sorry", r"my\s+bad", r"(?:you(?:'re|\s+are)\s+)?(?:very\s+|so\s+|really\s+)?(?:great|awesome|amazing|"
    r"the\s+best|smart|helpful|funny|nice|kind)", r"good\s+(?:job|work|bot)", r"well\s+done", r"i\s+like\s+you",
    r"love\s+(?:you|it)",
]
_FILLERS = r"(?:there|assistant|buddy|friend|mate|dear|man|everyone|all|again|please|pls|so|oh|ah|um|well|just|then|bot)"
_EN_TALK = lazy_compile(rf"(?:(?:{'|'.join(_EN)})\b|{_FILLERS}\b)", re.IGNORECASE)

_ZH = [
    "你好", "您好", "嗨", "哈喽", "哈啰", "早上好", "早安", "上午好", "中午好", "下午好", "晚上好", "早", "在吗", "在不在",
    "你好吗", "您好吗", "最近怎么样", "最近好吗", "你怎么样", "过得怎么样", "今天过得怎么样", "今天怎么样", "还好吗",
    "我很好", "我也很好", "我还好", "挺好的", "还不错", "你呢",
    *(f"{thanks}{whose}{what}" for thanks in ("谢谢", "感谢", "多谢", "非常感谢") for whose in ("你的", "您的", "")
      for what in ("帮助", "帮忙")), "麻烦你了",
    "谢谢你", "谢谢您", "谢谢", "多谢", "感谢", "太感谢了", "非常感谢", "辛苦了",
    "再见", "拜拜", "回头见", "明天见", "晚安", "下次见",
    "好的", "好吧", "好", "嗯嗯", "嗯", "哦", "噢", "哈", "呵", "明白了", "知道了", "了解", "收到", "没问题", "行",
    "对不起", "不好意思", "抱歉", "你真棒", "你真好", "你好棒", "太棒了", "厉害", "真厉害", "不错", "很好",
]
_ZH_TALK = Phrases(sorted(_ZH, key=len, reverse=True)) + ("啊", "呀", "吧", "呢", "哦", "啦", "了")


def _words_left(text: str) -> bool:
    """Whether a letter or a digit is left (in any script)."""
    return any(c.isalnum() or c == "_" for c in text)


# What an assistant says back in small talk, on top of the phrases either side says.
_EN_REPLY = [
    r"(?:how|what)\s+(?:can|may)\s+i\s+(?:help|assist|do\s+for)(?:\s+you)?(?:\s+(?:with|today|now))*",
    r"(?:is\s+there\s+)?anything\s+(?:else\s+)?(?:i\s+can\s+(?:help|do)(?:\s+you)?(?:\s+with)?|on\s+your\s+mind)(?:\s+today)?",
    r"anything\s+else", r"(?:i'?m|i\s+am)\s+here\s+(?:to\s+help|for\s+you|if\s+you\s+need\s+(?:me|anything))",
    r"(?:i'?m|i\s+am)?\s*(?:always\s+)?(?:glad|happy)\s+to\s+(?:help|hear\s+(?:that|it))(?:\s+you)?",
    r"you(?:'re|\s+are)\s+(?:very\s+|most\s+)?welcome", r"welcome", r"my\s+pleasure", r"no\s+worries", r"any\s*time",
    r"(?:it'?s|it\s+is)\s+(?:nice|good|great|a\s+pleasure)\s+to\s+(?:meet|see|hear\s+from|talk\s+to|chat\s+with)\s+you",
    r"(?:i'?m|i\s+am)\s+(?:doing\s+)?(?:very\s+|really\s+|pretty\s+)?(?:well|good|great|fine|okay|ok)",
    r"thanks?\s+(?:you\s+)?for\s+(?:asking|(?:the\s+)?(?:kind\s+words|chat|message))",
    r"(?:let\s+me\s+know|just\s+ask|feel\s+free\s+to\s+ask)(?:\s+if\s+you\s+(?:need|have)\s+(?:anything|any\s+questions))?(?:\s+else)?",
    r"(?:how|what)\s+about\s+you", r"(?:hope|i\s+hope)\s+you(?:'re|\s+are)?\s+(?:having|have)\s+a\s+(?:nice|good|great|lovely)\s+(?:day|evening|weekend|night)",
    r"(?:hope|i\s+hope)\s+you(?:'re|\s+are)\s+(?:doing\s+)?(?:well|good|great|fine)", r"take\s+care",
]
_EN_REPLY_TALK = lazy_compile(rf"(?:{'|'.join(_EN_REPLY)})\b", re.IGNORECASE)
_REPLY_FILLERS = Phrases(("today", "too", "as well", "and", "but", "i", "you", "me", "to", "a", "it"), re.IGNORECASE)
_ZH_REPLY = ["不客气", "不用谢", "很高兴认识你", "很高兴见到你", "很高兴为你服务", "很高兴为您服务", "有什么可以帮你的吗",
             "有什么可以帮您的吗", "有什么我可以帮你的吗", "我能帮你什么", "我能为你做什么", "随时为你服务", "谢谢关心",
             "你也是", "祝你愉快", "祝你有美好的一天", "我很好", "我也很好", "请问"]
_ZH_REPLY_TALK = Phrases(sorted(_ZH_REPLY, key=len, reverse=True))


def is_social_reply(piece: str) -> bool:
    """A piece of a reply that is small talk only: either side's social phrases, and what an assistant says back
    ("How can I help you today?", "You're welcome!", "不客气")."""
    rest = _ZH_REPLY_TALK.sub(" ", _EN_REPLY_TALK.sub(" ", piece.replace("’", "'")))
    return not _words_left(_REPLY_FILLERS.sub(" ", _ZH_TALK.sub(" ", _EN_TALK.sub(" ", rest))))


# When nothing the tiny model said stayed small talk: a line in kind, by what the message was (the first that fits).
# Each cue is looked for in the message's words (lower case, punctuation as spaces); a cue with a space either side
# is a whole word ("ty", not "pretty").
_REPLIES = [
    ("thank|thx| ty |cheers|appreciate|谢|感谢|辛苦", "You're welcome!", "不客气!"),
    ("good night|goodnight|晚安", "Good night!", "晚安!"),
    ("bye|see you|later|take care|ttyl|再见|拜拜|回头见|明天见", "Goodbye, take care!", "再见!"),
    ("sorry|my bad|对不起|不好意思|抱歉", "No worries!", "没关系!"),
    ("how are|how r|how is|how have|how do|how was|你好吗|怎么样|还好吗", "I'm doing well, thank you!", "我很好,谢谢!"),
    ("nice to meet|nice to see|很高兴认识", "Nice to meet you too!", "我也很高兴认识你!"),
    ("morning|早上好|早安|上午好", "Good morning!", "早上好!"),
    ("afternoon|下午好|中午好", "Good afternoon!", "下午好!"),
    ("evening|晚上好", "Good evening!", "晚上好!"),
    ("hi|hello|hey|greetings|yo |whats up|what s up| sup |你好|您好|嗨|哈喽|早|在吗", "Hello!", "你好!"),
    ("great|awesome|amazing|the best|smart|helpful|funny|kind|good job|good work|good bot|well done|like you|love|棒|厉害"
     "|不错|很好", "Thank you!", "谢谢!"),
]


def reply_to(message: str, chinese: bool) -> str:
    """A line of small talk back to ``message`` (thanks: "You're welcome!"; a greeting: "Hello!")."""
    said = spaced(message)
    for cues, en, zh in _REPLIES:
        if any(cue in said for cue in cues.split("|")):
            return zh if chinese else en
    return "🙂"


def is_small_talk(message: str) -> bool:
    """The message is only social phrases (and fillers, punctuation, emoji): no request for a fact, code or advice."""
    text = message.strip()
    if not text or len(text) > 160:
        return False
    rest = _ZH_TALK.sub(" ", _EN_TALK.sub(" ", text.replace("’", "'")))
    return not _words_left(rest)
