"""Reading weather questions without a model: is a weather word used in the weather sense, does the message
ask for the weather, which places it excludes, and whether it names a place the gazetteer may not know.

Words like 冷, 热, rain and cold are weather words only in a weather frame: ``上海冷不冷?`` asks about the
weather; ``讲个冷笑话``, ``热狗怎么做``, ``I feel cold today, any tips?``, ``天气预报这个词的英文是什么?`` and
``Who sang November Rain?`` do not."""

from __future__ import annotations

from typing import TypeVar

import re

from tools.base import CJK
from tools.lazy_re import lazy_compile
from tools.reading.forms import Phrases, Words
from tools.reading.reader import tokens


ZH_STRONG = ("天气", "气温", "温度", "预报", "湿度", "雾霾", "降雨", "降温", "升温", "气象")
ZH_WEAK = ("多少度", "几度", "冷", "热", "凉", "暖和", "下雨", "下雪", "雨", "雪", "晴", "阴天", "刮风", "风大", "带伞",
           "闷热", "冰雹", "雾", "台风", "大风", "霜冻", "沙尘暴", "雷阵雨", "出太阳", "晴天")
EN_STRONG = ("weather", "forecast", "forcast", "forecasts", "temperature", "temperatures", "humidity", "humid",
             "wind speed", "heat wave", "precipitation")
EN_WEAK = ("rain", "raining", "rainy", "snow", "snowing", "snowy", "cold", "colder", "hot", "hotter",
           "warm", "warmer", "chilly", "chillier", "freezing", "sunny", "windy", "wind", "winds", "degrees", "umbrella",
           "cloudy", "clouds", "overcast", "storm", "stormy", "storms", "snowstorm", "snowfall", "blizzard", "foggy",
           "fog", "hail", "sleet", "drizzle", "showers", "thunderstorm", "thunderstorms", "frost", "icy", "heatwave",
           "tornado", "hurricane", "typhoon")
# What to wear and whether to take an umbrella depend on the weather, but only a model can tell whether they
# ask about it ("上海要穿羽绒服吗?" does, "面试穿什么" does not): they keep a model's weather route, no rule's.
ZH_IMPLIED = ("羽绒服", "外套", "大衣", "秋裤", "毛衣", "短袖", "雨伞", "穿什么", "穿多少", "要穿", "手套", "帽子", "围巾", "防晒霜",
              "防晒", "墨镜")
_EN_IMPLIED = Phrases(("coat", "jacket", "sweater", "umbrella", "scarf", "gloves", "sunscreen", "what to wear",
                       "(what's|what is|how's|how is) it [like] (out|outside|outdoors)"), re.IGNORECASE)
_EN_STRONG = Phrases(EN_STRONG, re.IGNORECASE)
_EN_WEAK = Phrases(EN_WEAK, re.IGNORECASE)

# Compounds where a weather character means something else (a cold joke, a hot dog, Sprite, body temperature).
_ZH_COMPOUNDS = Phrases((
    "冷笑话", "冷静", "冷门", "冷漠", "冷冻", "冷藏", "冷饮", "冷水", "冷战", "冷淡", "冷面", "冷落", "冷清", "冷却", "热狗", "热门",
    "热线", "热情", "热爱", "热点", "热量", "热水", "热饮", "热搜", "热闹", "热身", "热血", "热度", "热心", "热菜", "热带鱼", "发热",
    "加热", "退热", "雪碧", "雪糕", "白雪公主", "体温", "水温", "油温", "角度", "度数", "温度计", "凉皮", "凉菜", "凉拌", "凉茶",
    "凉鞋", "雨刷", "雨衣", "晴雯", "风雨无阻", "热茶", "热汤", "雪梨", "冰雹糖", "凉面", "雨点"))
_EN_IDIOMS = lazy_compile(
    r"(?<!\bthe )(?<!'s )(?<!’s )\bweather(?:ed|ing)?\s+(?:the|a|this|that|it|out)(?:\s+storms?)?\b|\bunder the weather\b|\bhot\s*dogs?\b|\bhot\s+(?:take|sauce|tub|spot"
    r"|pot|line|key|fix|topic|seat|wheels)\b|\bhotline\b|\bcold\s+(?:case|feet|turkey|call|calls|war|brew|shoulder|open)\b"
    r"|\bmake it rain\b|\brain\s*check\b|\braining (?:cats|men)\b|\bbrainstorm\w*\b|\bsnow\s*(?:white|flake|board\w*|ball\w*)\b"
    r"|\b(?:hot|cold|warm)\s+(?:water|shower|bath|drinks?|chocolate|coffee|tea|milk|food|meals?|dishes|brew)\b"
    r"|\bstorm(?:ed|ing)? (?:off|out|in)\b|\bsnowden\b|\bwarm(?:ed|ing)? up\b|\bwarm welcome\b|\bglobal warming\b",
    re.IGNORECASE)
# Weather words as metaphors: a weather word said of an economy, a market, a business, a relationship, a mood or a
# reception ("a cloudy outlook for the business", "stormy relationship", "the market is cooling", "sunny disposition",
# "a storm of criticism", "经济寒冬", "楼市降温", "两国关系升温", "市场遇冷"). Trips, meetings and events keep their weather:
# "the weather for the business trip" asks for a report.
_FIGURATIVE_SUBJECT = (
    r"(?:outlook|prospects?|future|economy|economic|markets?|stocks?|shares|business(?!\s+(?:trip|travel|meeting|"
    r"dinner|lunch|flight|conference|event))|company|companies|startups?|industry|sales|earnings|profits?|revenue|"
    r"career|relationships?|marriage|romance|friendship|mood|temper|disposition|personality|reception|response|"
    r"reaction|welcome|memory|memories|mind|thinking|judg(?:e)?ment|politics|political|negotiations?|talks|deal|"
    r"finances?|budget|job\s+market|housing\s+market|real\s+estate|quarter|year\s+for\s+(?:the|our)\s+company)")
_FIGURATIVE = lazy_compile(
    r"\b(?:cloudy|stormy|sunny|sunnier|rosy|foggy|hazy|frosty|icy|chilly|cold|warm|heated|thunderous|rainy|gloomy|"
    r"bright|turbulent|freezing|cooling|heating|overcast)\s+(?:\w+\s+)?" + _FIGURATIVE_SUBJECT + r"\b"
    r"|\b(?:storm|storms|wave|flood|rain|avalanche|blizzard|hail|whirlwind|cloud|clouds|fog|chill|thaw|freeze)\s+of\s+"
    r"(?:criticism|complaints|emails|questions|protests|praise|orders|requests|doubt|suspicion|uncertainty|debt|"
    r"money|cash|layoffs|lawsuits|bugs|work|tasks|memories|ideas|applications|sales|support)\b"
    r"|\b" + _FIGURATIVE_SUBJECT + r"\s+(?:\w+\s+){0,4}?(?:is|are|was|were|looks?|seems?|feels?|has\s+been|have\s+been|"
    r"remains?|turned|turns?|getting|gets|got|became|becomes)\s+(?:\w+\s+){0,2}?(?:cloudy|stormy|sunny|rosy|foggy|"
    r"hazy|frosty|icy|chilly|cold|warm|heated|gloomy|bright|turbulent|freezing|cooling|heating|overcast|frozen)\b"
    r"|\b(?:cloud(?:s|ed)?|clouding)\s+(?:my|his|her|their|our|your)\s+(?:judg(?:e)?ment|thinking|mind|memory|vision)\b"
    r"|\b(?:weather|ride\s+out)\s+(?:the|this|a)\s+(?:crisis|recession|downturn|scandal|slump)\b",
    re.IGNORECASE)
_ZH_FIGURATIVE = lazy_compile(
    r"(?:经济|市场|股市|楼市|房市|车市|行业|产业|销量|销售|需求|人气|舆论|局势|态度|感情|关系|气氛|前景|前途|事业|投资|消费|融资|就业|招聘|"
    r"资本|币圈|流量|票房|口碑|热度)(?:[^,，。!?？！]{0,4})(?:降温|升温|遇冷|回暖|转暖|寒冬|严冬|冰点|风暴|暴风雨|阴霾|晴朗|"
    r"冰冷|火热|过热|冷清|乌云|多云|雨过天晴|春天|暖春)"
    r"|(?:寒冬|冰点|风暴|暴风雨|阴霾|乌云|春天)(?:[^,，。!?？！]{0,2})(?:经济|市场|股市|楼市|行业|事业|职场|资本)")


def figurative(question: str) -> bool:
    """Weather words said of an economy, a market, a relationship or a mood: a metaphor, not a request for a report."""
    return bool(_FIGURATIVE.search(question) or _ZH_FIGURATIVE.search(question))


# Questions about words, songs and stories that contain weather words.
_META = Phrases((
    "这个词", "这个字", "这个成语", "英文", "英语", "翻译", "怎么说", "什么意思", "的意思", "怎么写", "拼音", "造句", "歌词", "这首歌",
    "哪首歌", "唱的", "电影", "小说", "诗", "像什么",
    "mean", "means", "meaning", "translate", "translation", "definition", "define", "synonyms", "synonym", "antonyms",
    "antonym", "spell", "spelling", "word", "words", "phrase", "idiom", "song", "songs", "sang", "sing", "sings",
    "singer", "lyrics", "movie", "film", "album", "band", "novel", "book", "poem", "metaphor", "playlist", "playlists",
    "painting", "picture", "photo", "rating", "dvd", "soundtrack", "trailer", "saga", "artist", "track", "correlation",
    "correlate", "correlated", "relationship", "nasdaq", "stocks", "stock"), re.IGNORECASE)
# Someone saying how they feel is not asking about the weather.
_PERSONAL = lazy_compile(
    r"我(?:好|很|真|有点|有些|觉得|感觉|太|快)?(?:好|很|太)?(?:冷|热)|好(?:冷|热)啊|受不了|怎么这么(?:冷|热)"
    r"|\bI(?:'m| am| feel| felt| was| get| got)\b[^.?!]{0,20}\b(?:cold|hot|warm|freezing|chilly)\b"
    r"|\bfeel(?:ing|s)?\s+(?:so\s+|very\s+|really\s+|a bit\s+)?(?:cold|hot|warm|chilly)\b",
    re.IGNORECASE)
_ZH_ASKS = ("吗", "么", "嘛", "呢", "?", "？", "不冷", "不热", "多少度", "几度", "怎么样", "如何", "会不会", "要不要", "有没有",
            "下不下", "冷不", "热不", "咋样", "查", "多少", "高不高", "低不低", "大不大")
_EN_ASKS = Phrases(("?", "is it", "will it", "does it", "gonna", "going to", "(how's|how is|how) (it|the)",
                    "how (cold|hot|warm)", "(what's|what is) the", "tell me", "check", "show me", "forecast"), re.IGNORECASE)

# Places the user rules out: "不要是北京,上海", "除了上海", "anywhere but London", "except Paris".
_EXCLUDE = Phrases(("不要是", "不要", "不能是", "别是", "不是", "除了", "除去", "不包括", "排除", "except [for]", "excluding", "but not",
                    "other than", "anywhere but", "not in", "apart from", "besides", "not"), re.IGNORECASE)
_LIST_GAP = lazy_compile(r"^[\s,，、/]*(?:(?:和|与|及|或|或者|还有|也不要|and|or|nor)\b|和|与|及|或)?[\s,，、/]*$", re.IGNORECASE)
# "Any city" requests: the place is the model's choice, checked against the exclusions.
_ANY_PLACE = lazy_compile(
    r"随便|任意|任何一个|某个|哪个城市都|(?:一个|个)(?:\w{0,4})?(?:城市|地方)|\bany\s+(?:city|place|town)\b|\ba random (?:city|place)\b"
    r"|\bsome (?:city|place)\b|\banywhere\b", re.IGNORECASE)
# A place-like phrase the gazetteer may not know: "in Xyz", "Xyz的天气".
_TIME_WORDS = Phrases((
    "今天", "明天", "后天", "昨天", "今日", "明日", "明儿", "今儿", "现在", "今晚", "今夜", "今早", "明早", "明晚", "这两天", "最近",
    "(这|本|下) [个] 周末", "周末", "本周", "下周", "这周",
    "(这|本|下) [个] (星期|礼拜)",  # before the weekdays: "这个星期天气" is this week's weather, not Sunday's "气"
    "[下] (星期|周|礼拜) (一|二|三|四|五|六|日|天)",
    "早上", "晚上", "下午", "上午", "目前", "当前", "这里", "外面", "那边"))
_ZH_PLACE_PHRASE = lazy_compile(r"([\u3400-\u9fff]{2,8}?)(?:的)?(?:" + _TIME_WORDS.body() + r")*(?:天气|气温|温度|冷不冷|热不热|下雨|下雪)")
_EN_PLACE_PHRASE = lazy_compile(
    r"\b(?:in|at|for|of)\s+((?!(?:the|a|an|this|that|it|my|your|our|today|tomorrow|tonight|now|general|weather|summer"
    r"|winter|spring|autumn|fall|morning|evening|afternoon|night|celsius|fahrenheit|degrees)\b)[A-Za-z][\w'’.-]+)", re.IGNORECASE)


# Quoted words are mentioned, not used: "Who wrote 'A Storm of Swords'?", 《雪国》的作者是谁?
_QUOTED = lazy_compile(r"(?<![A-Za-z])'(?=\S)[^'\n]{2,80}(?<=\S)'(?![A-Za-z])|\"[^\"\n]{2,80}\"|“[^”\n]{1,80}”|‘[^’\n]{1,80}’"
                     r"|「[^」\n]{1,80}」|『[^』\n]{1,80}』|《[^》\n]{1,80}》")


# Short words people leave in lower case even when they capitalise the rest ("Will it Rain in Paris").
_TITLE_SMALL = {"a", "an", "the", "and", "but", "or", "nor", "for", "on", "at", "to", "by", "of", "in", "as", "is", "s",
                "it", "be"}


def _title_words(question: str) -> str:
    """A weather word capitalised inside a sentence that is not in Title Case is part of a title or a name ("find
    Heat Wave", "Is Storm Warning playing", "Miracle in the Rain"), not the weather."""
    words = re.findall(r"[A-Za-z][A-Za-z']*", question)
    if all(w[0].isupper() or w.casefold() in _TITLE_SMALL for w in words):
        return question  # Title Case Or ALL CAPS: capitals say nothing here ("Show me It Might…" is not)
    first = re.match(r"\W*[A-Za-z']+", question)
    head = first.end() if first else 0

    rest = re.sub(r"\b[A-Z][a-z]+\s+[A-Z][a-z]+\b", lambda m: " " if _EN_STRONG.fullmatch(m.group()) else m.group(),
                  question[head:])
    return question[:head] + re.sub(r"\b[A-Z][a-z]+\b", lambda m: " " if _EN_WEAK.fullmatch(m.group()) else m.group(), rest)


def _strip_senses(question: str) -> str:
    return _EN_IDIOMS.sub(" ", _ZH_COMPOUNDS.sub(" ", _QUOTED.sub(" ", _title_words(question))))


def has_strong_word(question: str) -> bool:
    q = _strip_senses(question)
    return any(w in q for w in ZH_STRONG) or bool(_EN_STRONG.search(q))


def has_weak_word(question: str) -> bool:
    q = _strip_senses(question)
    return any(w in q for w in ZH_WEAK) or bool(_EN_WEAK.search(q))


# Questions about how the world works (why it rains, how snow forms, what wind chill is, a law of heat), which
# a report cannot answer: knowledge, unless they ask about a day ("为什么今天这么冷?").
_EXPLAINS = lazy_compile(
    r"为什么|为何|怎么形成|如何形成|是怎么|怎样形成|怎么产生|如何产生|怎么来的|原理|原因是|成因|什么是|是什么|有什么区别|区别是|"
    r"定律|效应|定义|概念|物理|化学|公式"
    r"|\bwhy\b|\bhow\s+(?:does|do|is|are)\s+\w+(?:\s+\w+)?\s+(?:form|forms|formed|work|works|happen|happens|made|measured)\b"
    r"|\bwhat\s+(?:causes|caused|makes|creates)\b|\bwhat\s+(?:is|are)\s+(?!(?:\w+\s+){0,3}?(?:weather|temperature|"
    r"forecast|humidity|wind\s+speed|chances?|odds)\b)"
    r"(?!it\b)|\bdifference\s+between\b|\bexplain\b|\bphysics\b|\bchemistry\b|\blaw\s+of\b", re.IGNORECASE)
_WHEN_WORDS = Phrases(("今天", "明天", "后天", "今晚", "明晚", "现在", "这周", "周末", "本周", "下周", "今早", "明早", "晚上", "早上",
                       "上午", "中午", "下午", "today",
                       "tomorrow", "tonight", "now", "this (week|weekend|morning|afternoon|evening)", "next week",
                       "weekend"), re.IGNORECASE)


def explains(question: str) -> bool:
    """The message asks how the world works (why it rains, how snow forms), not for a report of any day."""
    return bool(_EXPLAINS.search(question)) and not _WHEN_WORDS.search(question)


def weather_sense(question: str) -> bool:
    """A weather word used in the weather sense: not inside a compound or idiom, not in a question about a word
    or a song, and not only a person saying how they feel."""
    if _META.search(question) or figurative(question):
        return False
    if has_strong_word(question):
        return True
    return has_weak_word(question) and not _PERSONAL.search(question)


def asks_weather_here(question: str) -> bool:
    """The message asks for the weather with no place, clearly enough to be about the home city: it asks for
    weather information, and in Chinese by a weather word of its own (天气, 下雨, 多少度) or a single weather character
    said of a day (今天冷吗): 雨 in a singer's name, 雪 in a poem's title, 热 for popular ask nothing of the sky."""
    if not asks_weather(question):
        return False
    if not CJK.search(question) or has_strong_word(question) or dresses_for_the_day(question):
        return True
    q = _strip_senses(question)
    return any(len(w) > 1 and w in q for w in ZH_WEAK) or bool(_WHEN_WORDS.search(q))


def weather_related(question: str) -> bool:
    """``weather_sense``, or what to wear and whether to take an umbrella (for a model's route only)."""
    if weather_sense(question):
        return True
    return not _META.search(question) and (any(w in question for w in ZH_IMPLIED) or bool(_EN_IMPLIED.search(question)))


# Who or where: "谁在雪里跑", "哪有雪", "Where is it snowing?" ask for a someone or a somewhere, never for a place's weather.
_ZH_WHO_WHERE = ("谁", "哪里", "哪儿", "哪有", "哪些地方")


def dresses_for_the_day(question: str) -> bool:
    """What to wear asked of a day, in Chinese, and nothing more ("今天要穿外套吗", "明天需要穿羽绒服吗", "今天穿什么合适"):
    the day's weather answers it, as "do i need a coat today" is answered in English."""
    if not CJK.search(question) or not any(w in question for w in ZH_IMPLIED) or not _WHEN_WORDS.search(question) \
            or _META.search(question):
        return False
    left = "".join(_zh_left_over(question))
    return all(c in _ZH_FILLER_CHARS or c in "合适需戴该涂擦用" for c in left) and not any(c.isascii() and c.isalnum() for c in question)


def asks_weather(question: str) -> bool:
    """The message asks for weather information (so a missing place is worth asking back for)."""
    if dresses_for_the_day(question):
        return True
    if not weather_sense(question) or any(w in question for w in _ZH_WHO_WHERE) \
            or any(w.partition("'")[0] in ("who", "where") for w in tokens(question)):  # "where's" too
        return False
    if any(w in question for w in _ZH_ASKS) or _EN_ASKS.search(question):
        return True
    # A bare request ("天气", "weather today") asks too; a statement ("The weather was nice yesterday", "it was
    # sunny", "that meeting was stormy") does not.
    if re.search(r"\b(?:was|were|has\s+been|had\s+been)\b", question, re.IGNORECASE):
        return False
    words = re.findall(r"[A-Za-z']+", question)
    return len(CJK.findall(question)) + 2 * len(words) <= 8


# A temperature of a thing, not of the air outside: an oven, a body, food, a drink, a machine, a body in the sky, the
# water of a bath or a pool, a room ("what temperature should the oven be", "normal body temperature", "how hot is
# the surface of the sun", "烤箱温度多少合适", "人体正常体温"). With no place named, no weather report answers it.
_A_THING = Phrases((
    "ovens", "oven", "stoves", "stove", "grills", "grill", "bbq", "barbecue", "[air] fryers", "[air] fryer", "airfryers",
    "airfryer", "fridges", "fridge", "refrigerators", "refrigerator", "freezers", "freezer", "kilns", "kiln", "body",
    "bodies", "fevers", "fever", "babies", "baby", "bath", "bathwater", "shower", "kettle", "milk", "coffee", "tea",
    "soup", "chicken", "meat", "steak", "pork", "beef", "turkey", "fish", "salmon", "bread", "cake", "cookies", "pizza",
    "oil", "sugar", "candy", "chocolate", "wine", "beer", "sun", "sun's", "moon", "mars", "venus", "jupiter", "stars",
    "star", "core", "mantle", "lava", "magma", "engine", "cpu", "gpu", "processor", "laptop", "computer", "phone",
    "battery", "server", "pool", "jacuzzi", "hot tub", "sauna", "aquarium", "fish tank", "fishtank", "room",
    "thermostat", "boiling", "freezing point", "melting point", "absolute zero", "plasma", "flame", "fire", "iron",
    "soldering", "solder", "3d printer", "nozzle", "incubator", "compost", "ac", "a/c", "air conditioner",
    "air conditioners", "air conditioning", "airconditioner", "airconditioners", "airconditioning", "heaters",
    "heater", "heating", "furnace", "inside", "indoors", "house", "apartment",
    "烤箱", "烤炉", "微波炉", "冰箱", "冷冻", "冷藏", "体温", "发烧", "发热", "宝宝", "婴儿", "洗澡水", "水温", "油温", "热水器", "咖啡",
    "牛奶", "鸡肉", "牛排", "面包", "蛋糕", "太阳", "月球", "火星", "地核", "岩浆", "发动机", "CPU", "显卡", "电脑", "手机", "电池",
    "泳池", "桑拿", "鱼缸", "室温", "房间", "沸点", "熔点", "冰点", "绝对零度", "火焰"), re.IGNORECASE)


def about_a_thing(question: str) -> bool:
    """The message asks about the temperature of a thing (an oven, a body, the sun), not the weather of a place. The
    sun is the sky's in a forecast ("will the sun come out today", "how much sun will there be", "明天有太阳吗") and
    a thing only with its heat, its size or its distance ("how hot is the sun", "太阳表面温度")."""
    things = {m.group(0).casefold() for m in _A_THING.finditer(question)}
    if things and things <= {"sun", "sun's", "太阳"} and _THE_SUN_OUT.search(question) \
            and not _THE_SUN_ITSELF.search(question):
        return False
    return bool(things)


_THE_SUN_OUT = Phrases(("come", "comes", "coming", "out", "shine", "shines", "shining", "be", "any", "much", "see",
                        "get", "有", "出来", "出太阳"), re.IGNORECASE)  # said of the sun in a forecast, not of a title


_THE_SUN_ITSELF = Phrases(("temperature", "temperatures", "hot", "hotter", "hottest", "heat", "surface", "core",
                           "degrees", "far", "distance", "big", "bigger", "made", "mass", "burn", "burning", "burns",
                           "old", "age", "explode", "die", "light year", "planet", "planets", "orbit", "温度", "多热",
                           "表面", "多远", "多大", "距离", "核心", "几度"), re.IGNORECASE)


_STATED_TEMPERATURE = lazy_compile(r"(?<![\d.])\d+(?:\.\d+)?\s*(?:°|℃|℉|度|degrees?\b)", re.IGNORECASE)


def states_temperature(question: str) -> bool:
    """The message gives a temperature itself (``Is 100 degrees Fahrenheit too hot for a run?``): it may be about
    that figure rather than a report, so a missing place is not certainly worth asking back for."""
    return bool(_STATED_TEMPERATURE.search(question))


def asks_any_place(question: str) -> bool:
    return bool(_ANY_PLACE.search(question))


_ZH_FILLER = Phrases(sorted(ZH_STRONG + ZH_WEAK + ZH_IMPLIED, key=len, reverse=True)) + _TIME_WORDS.phrases + (
    "怎么样", "如何", "多少", "什么", "会不会", "要不要", "是不是", "有没有", "告诉", "查询", "看看", "一下", "需要", "可以", "知道", "中文",
    "英文", "城市", "地方", "哪里", "哪儿", "出门", "最高", "最低")  # (the day's high and low: no place)
_ZH_FILLER_CHARS = set("的了吗呢么吧啊呀嘛哦我你他她它们这那里边是不有在很好太真还也都就要会能想去穿带查看请帮问个几多少咋样下上冷热度天")


def names_something(question: str) -> bool:
    """Words left once the weather, time, question and function words are gone: a place the gazetteer may not
    know (``甘肃省会``, ``Hallstatt``), worth giving to the executor rather than asking back."""
    if place_phrase(question):
        return True
    if CJK.search(question) and re.search(r"[A-Za-z]{3,}", _strip_senses(question)):
        return True  # a Latin name in a Chinese question: "Xyzzyville的天气"
    for run in _zh_left_over(question):
        if len([c for c in run if c not in _ZH_FILLER_CHARS]) >= 2:
            return True
    return False


def _zh_left_over(question: str) -> list[str]:
    """The runs of Chinese characters left once the weather's, time's and asking words are set aside."""
    return re.findall(r"[\u3400-\u9fff]+", _ZH_FILLER.sub(" ", question))


_ZH_ASKING = Words({w: "" for w in ("查询", "查一下", "查查", "查看", "查", "看一下", "看看", "搜索", "搜一下", "搜", "帮我", "帮忙",
                                     "告诉我", "说说", "一下", "请问", "请", "想知道", "知道")}, around="{}")


_NAME = r"[A-Z\u00c0-\u00de][\w'’.\-]*"
_EN_UNKNOWN_PLACE = lazy_compile(
    r"\b(?:in|at|for|near|around)\s+(?:the\s+(?:city|town|village)\s+of\s+)?"
    r"(" + _NAME + r"(?:\s+(?:(?:de|del|da|do|la|le|du|upon|am|sur)\s+)?" + _NAME + r")*)"
    r"(?:\s*,\s*|\s+in\s+(?:the\s+(?:state|country)\s+of\s+)?)?(" + _NAME + r"(?:\s+(?:and\s+(?:the\s+)?)?" + _NAME + r")*)?")


def unknown_place(question: str, never: set[str]) -> str | None:
    """The capitalised name after "in", "at" or "for" that a weather question is about, with the country or state
    that follows it ("Princeton Junction", "Wells, Indiana"); ``never`` holds words that are no place (months,
    units). For a name the offline gazetteer does not know: the tool looks it up online."""
    m = _EN_UNKNOWN_PLACE.search(_strip_senses(question))
    if not m or m.group(1).split()[0].rstrip(".").casefold() in never:
        return None
    name, qualifier = m.group(1).rstrip("."), m.group(2) and m.group(2).rstrip(".")
    if qualifier and qualifier.split()[0].casefold() not in never:
        return f"{name}, {qualifier}"
    return name


# A Chinese weather request that is a place and its weather, nothing more, once the day and the asking are set
# aside ("舒城的天气", "盘县今天的天气如何", "罗山天气"): the place is looked up online when the gazetteer lacks it.
_ZH_BARE_REPORT = frozenset(a + b + c + d + e for a in ("", "的") for b in ("天气", "气温", "温度") for c in ("", "预报", "情况")
                            for d in ("", "怎么样", "如何", "怎样", "好吗", "好不好") for e in ("", "啊", "呢", "呀", "吗"))


_NOT_A_PLACE_END = ("节", "日", "会", "赛", "礼", "试", "期", "天", "年", "月", "周", "末", "议", "动", "游", "行")


def zh_unknown_place(question: str) -> str | None:
    """The place of a request that is a place, a day and the weather asked for ("舒城的天气"), or ``None``."""
    name = place_phrase(question)
    if name is None or not CJK.search(question) or name.endswith(_NOT_A_PLACE_END):
        return None  # "春节的天气", "比赛的天气": a day or an event, not a place
    rest = _TIME_WORDS.sub("", _ZH_ASKING.sub(question.replace(name, "", 1)))
    return name if "".join(c for c in rest if not c.isspace() and c not in "?？!！。.,，") in _ZH_BARE_REPORT else None


# How a Chinese question asks just before its weather word: "会不会下雨", "今天下不下雨", "明天会下雪吗" (the
# longest first; never part of a place's name).
_ZH_ASK_BEFORE = ("会不会", "是不是", "要不要", "有没有", "能不能", "还会", "将会", "下不")  # not 会 alone: "甘肃省会"


def _without_ask_before(text: str) -> str:
    while ending := next((a for a in _ZH_ASK_BEFORE if text.endswith(a)), ""):
        text = text[:-len(ending)]
    return text


# Words of the report itself before its weather word ("今天最高温度", "平均气温", "体感温度"), and of the day's
# ("下个周末天气"): never a place's name.
_ZH_OF_THE_REPORT = ("最高", "最低", "平均", "体感", "实时", "室外", "户外", "外面", "下个", "这个", "上个")


def place_phrase(question: str) -> str | None:
    """A phrase that looks like a place the gazetteer does not know, or ``None``."""
    for m in _ZH_PLACE_PHRASE.finditer(question):
        text = _without_ask_before(_ZH_ASKING.sub(_TIME_WORDS.sub("", m.group(1))).strip("的"))
        for word in _ZH_OF_THE_REPORT:
            text = text.replace(word, "")
        if len(text) >= 2 and not re.search(r"[吗呢么我你他她它这那哪什怎]", text):
            return text
    found = _EN_PLACE_PHRASE.search(_strip_senses(question))
    return found.group(1) if found else None


P = TypeVar("P")  # what a place found is (the gazetteer's Place)


def split_excluded(question: str, found: list[tuple[str, P]]) -> tuple[list[tuple[str, P]], list[tuple[str, P]]]:
    """``found`` (places in order of appearance, as written) split into (named, excluded): a place right after
    an excluding word, or in a list that follows one, is excluded."""
    positions: list[tuple[int, int, str, P]] = []
    cursor = 0
    for written, place in found:
        at = question.find(written, cursor)
        at = at if at >= 0 else cursor
        positions.append((at, at + len(written), written, place))
        cursor = at + len(written)
    excluded: set[int] = set()
    for m in _EXCLUDE.finditer(question):
        chain_end = m.end()
        for i, (start, end, _, _) in enumerate(positions):
            if start < m.end():
                continue
            if _LIST_GAP.match(question[chain_end:start]):
                excluded.add(i)
                chain_end = end
            else:
                break
    named = [(w, p) for i, (_, _, w, p) in enumerate(positions) if i not in excluded]
    out = [(w, p) for i, (_, _, w, p) in enumerate(positions) if i in excluded]
    return named, out
