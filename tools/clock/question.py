"""Reading a time or date question by rule: what is asked (the time now, a difference, a weekday, days until
or between, a date) and where."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from typing import Callable

from pydantic import BaseModel, ValidationError

from tools.base import CJK, Grounding
from tools.clock.config import ClockArgs
from tools.clock.dates import HOLIDAY_WORDS, Ask, month_or_year, read_date
from tools.gazetteer import Gazetteer
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases
from tools.clock.zones import zone_named
from tools.reading.numerals import en_digits, en_ordinals, to_digits
from tools.reading.reader import leftover, tokens, unexplained, without_end
from tools.reading.time_of_day import ZH_PART, clock_time, hour_said
from tools.reading.when import find_when, span_from_now


# The certain forms. Each names what it asks; the pieces (a place, a date) must then be read exactly.


# An hour and a minute in Chinese numerals ("三", "十二", "两"; "十五", "零五"), read only inside a time of day: a place's
# name may hold a numeral ("三亚", "十堰").
_ZH_HOUR = "(?:十[一二]?|[一二两三四五六七八九])"
_ZH_MINUTE = "(?:[一二三四五]?十[一二三四五六七八九]?|零?[一二三四五六七八九])"

# The questions of the clock read by their form (tools/reading/forms.py): a time difference, a time of day in one place
# said in another's, the time or the days left until something, the days between two dates, a date. A form's slots
# read a place or a date as written; the tool checks each (a place it knows, a date it can read) and the next form
# that fits is tried when one does not hold.
_FORMS = Forms([(said, ask) for ask, said in (
    ("difference", "[<lead>] {place:zh_place} (和|与|跟|同) {other_place:zh_place} [的] (时差|时间差|相差几个小时|相差几小时|差几个小时|"
                   "差几小时|差多少个小时|差多少小时|相差多少个小时|相差多少小时|相差多少|差多少|相差多久|差多久|差几个钟头) "
                   "[(是多少|多少|有多少|是几个小时|是几小时|几个小时|几小时)]"),
    ("difference", "[<lead>] {place:zh_place} 比 {other_place:zh_place} (快|慢|早|晚) (几个小时|几小时|多少小时|多少个小时|几个钟头|多久) "
                   "[(呢|啊)]"),
    ("difference", "[<lead>] {place:zh_place} (和|与|跟|同) {other_place:zh_place} [之间] (有|有没有) 时差 [(吗|么|嘛|呢)]"),
    # a place's time said in another's, now: "把纽约时间换算成伦敦时间"
    ("difference", "[<lead>] 把 {place:zh_name} 时间 (换算|转换|折算|换|转) (成|为|到|成为) {other_place:zh_name} 时间 [(是多少|是几点)]"),
    ("difference", "[<lead>] [(what's|what is) the] time difference between {place} and {other_place}"),
    # a place's time against the time here: "what's the time difference with moscow", "is the time different in
    # moscow", "how many hours ahead is tokyo", "is london in a different time zone"
    ("difference", "[<lead>] [(what's|what is) the] time difference (with|to|from|in|for) {place}"),
    ("difference", "[<lead>] (is|are) the (time|times|hour|hours) different in {place}"),
    ("difference", "[<lead>] (is|are) {place} (in|on) (a different|another) (time zone|timezone)"),
    ("difference", "[<lead>] (does|do) {place} (have|use|keep|observe|follow|run on) (a different|another) (time zone|"
                   "timezone|time)"),
    ("difference", "[<lead>] how (many hours|far) (ahead|behind) is {place} [(from|of) (here|us|me)]"),
    ("difference", "[<lead>] how (many hours|far) (ahead|behind) is {place} (from|of|than) {other_place}"),
    # a time of day in one place, in another: "when it's 3pm in London, what time is it in Tokyo?", "3pm London time
    # in Tokyo", "伦敦下午3点是北京几点", "北京时间晚上8点是纽约几点"
    ("convert", "[<lead>] [(when|if) (it's|it is)] {at:clock} (in|on) {place} [,] what time (is it|will it be) in {other_place}"),
    ("convert", "[<lead>] (when|if) the time (in|on) {place} is {at:clock} [,] what time (is it|will it be) in {other_place}"),
    # the place asked about first: "what time is it in sydney when it is 9 am in london", "what is the time in india
    # when the time in the uk is twelve pm"
    ("convert", "[<lead>] (what time (is it|will it be|would it be)|(what's|what is) the time) in {other_place} "
                "(when|if) (it's|it is|it will be) {at:clock} (in|on) {place}"),
    ("convert", "[<lead>] (what time (is it|will it be|would it be)|(what's|what is) the time) in {other_place} "
                "(when|if) the time (in|on) {place} is {at:clock}"),
    ("convert", "[<lead>] [(convert|what's|what is)] {at:clock} [in] {place:few} [time] (in|to) {other_place:few} [time]"),
    ("convert", "[<lead>] [(如果|假如|要是|当)] {place:zh_name} [时间] [(是|为)] {at:zh_clock} [(是|等于|相当于|的时候)] [(,|，)] [(那么|那)] "
                "{other_place:zh_name} [时间] [(是|就是)] (几点|几点钟|什么时间|几点了)"),
    # "请把北京时间早上九点换算成东京时间"
    ("convert", "[<lead>] 把 {place:zh_name} [时间] {at:zh_clock} (换算|转换|折算|换|转) (成|为|到|成为) {other_place:zh_name} [时间] "
                "[(是多少|是几点|几点)]"),
    # the zone of a place one may be in: "if i'm in japan, what time zone am i in", "what timezone would i be in if i
    # traveled to moscow"
    ("zone", "[<lead>] if (i'm|i am|you're|you are|we're|we are|i was|i were) in {place} [,] what (timezone|time zone) "
             "(am i|are you|are we|would i be|would we be|would you be|will i be|will we be) in"),
    ("zone", "[<lead>] what (timezone|time zone) (would|will) (i|we|you) be in if (i|we|you) (traveled|travelled|went|go|"
             "flew|fly|moved|move|travel) to {place}"),
    # a place's time said in another's, no time of day given: "convert new york time to london" (the two, now)
    ("difference", "[<lead>] convert [the] {place:few} time (to|into|in) {other_place:few} [time]"),
    # the time a span from now: "what time will it be in 45 minutes", "what time was it 3 hours ago", "what's the time
    # 2 hours from now", "in 45 minutes what time will it be", "两个小时后是几点", "半小时前是几点"
    ("now", "[<lead>] what time (will it be|is it going to be|would it be|was it|is it) {at:ahead}"),
    ("now", "[<lead>] (what's|what is|what will be) the time {at:ahead}"),
    ("now", "[<lead>] [(what's|what is)] {at:from_now}"),
    ("now", "[<lead>] {at:ahead} [,] what time (will it be|is it going to be|would it be|was it|is it)"),
    ("now", "[<lead>] [(现在|从现在)] [再] {at:zh_ahead} [(是|就是)] (几点|几点钟|什么时间|什么时候) [了]"),
    ("now", "[<lead>] [(现在|从现在)] [再] {at:zh_pass} [(是|就是)] (几点|几点钟|什么时间) [了]"),
    # the time left until a time of day: "how many minutes until 5 pm", "how long until 12:25", "how much time till noon"
    ("time_until", "[<lead>] how (many [more] (minutes|mins|hours|hrs)|long|much [more] time) [(is it|is there|are there|"
                   "do (i|we) have|left|more)] (until|till|til|before|to) {at}"),
    ("days_until", "[<lead>] how many [more] {unit} [((are|is) (there|left)|left|is it|do (i|we) have)] "
                   "(until|till|til|to|before|for) {date}"),
    ("days_until", "[<lead>] {unit} (until|till|to) {date}"),
    # the days left in this year or month: "how many days are left in the year", "days remaining this month",
    # "今年还剩多少天", "这个月还有几天"
    ("days_left", "[<lead>] how many [more] {unit} [(are|is)] [there] (left|remaining) [(in|of)] [(the|this)] {date:period}"),
    ("days_left", "[<lead>] {unit} (left|remaining) [(in|of)] [(the|this)] {date:period}"),
    ("days_left", "[<lead>] {date:zh_period} 还 (剩|有|剩下) (多少|几) (天|周|个星期|个月)"),
    ("days_between", "[<lead>] [从] {date:zh_date} (到|至) {other_date} [(有|共|一共|相差|差)] (多少|几) 天"),
    ("days_between", "[<lead>] how many days [are there] (between|from) {date} (and|to|until) {other_date}"),
    # the length of a month or a year, and whether a year is a leap year: "how many days in february 2028", "how many
    # days does this month have", "is 2028 a leap year", "2月有几天", "今年是闰年吗"
    ("calendar", "[<lead>] how many days [(are there|are|is there|were there|will there be)] in {date:period_said}"),
    ("calendar", "[<lead>] how many days (does|do|did|will) {date:period_said} have"),
    ("calendar", "[<lead>] how many days (does|do|did|will) {date:month_name} have in {other_date:year_said}"),
    ("calendar", "[<lead>] (is|was|will) {date:year_said} [be] a leap year"),
    ("calendar", "[<lead>] {date:zh_period_said} [(一共|总共|共)] (有|是) (多少|几) 天"),
    ("calendar", "[<lead>] {date:zh_period_said} (是|是不是|算) 闰年 [(吗|么|嘛)]"),
    # whether a day is a weekday: "今天是星期一吗", "明天是不是周五" (answered with the day's weekday)
    ("weekday", "[<lead>] {date:zh_day} (是|是不是) (星期|周|礼拜) (一|二|三|四|五|六|日|天) [(吗|么|嘛|呢)]"),
    ("date", "[<lead>] when is {date}"),
    ("date", "[<lead>] (what's|what is) the date {date}"),
    ("date", "[<lead>] what date (is it|will it be|was it) {date:ahead}"),
    ("date", "[<lead>] what date is {date}"),
    ("date", "[<lead>] (what's|what is) {date:today} {s:possessive} date"),
)], slots={"place": "text", "other_place": "text", "at": "text", "date": "text", "other_date": "text"},
   phrases={"lead": "(请问|请|帮我查一下|帮我查|查一下|你知道|please|tell me|do you know)"},
   kinds={"unit": ("days", "weeks", "months")},
   types={"text": r".+?", "few": r"\S+(?:\s+\S+){0,3}?", "clock": r"[^\s,]+(?:\s?[ap]\.?m\.?)?",
          "zh_place": r"[^\s,，]+?", "zh_day": r"今天|明天|后天|昨天|前天|大后天", "zh_name": r"[^\s,，\d]+?", "zh_date": r"[^到至]+?",
          "zh_clock": rf"(?:{ZH_PART})?\s*(?:\d{{1,2}}|{_ZH_HOUR})\s*(?:点|时|:)\s*(?:半|(?:\d{{1,2}}|{_ZH_MINUTE})\s*分?|[一三]刻)?",
          "ahead": r"in\s+.+?|.+?\s+(?:from\s+now|ago|later)", "from_now": r".+?\s+(?:from\s+now|ago)",
          "zh_ahead": r"[^，,。？?\s]{1,10}?(?:以后|之后|后|以前|之前|前)", "zh_pass": r"过[^，,。？?\s]{1,8}?",
          "today": r"today", "possessive": r"'?s", "period": r"year|month|\d{4}", "month_name": r"[a-z]+", "zh_period": r"今年|本年|这个月|本月|这月",
          "period_said": r"[a-z]+(?:\s+(?:of\s+)?(?:\d{4}|this year|next year|last year))?|\d{4}|(?:this|next|last) (?:month|year)",
          "year_said": r"\d{4}|it|(?:this|next|last) year",
          "zh_period_said": r"[^\s,，]{1,9}?[年月份]"})


def _days_left(period: str, unit: str, question: str) -> dict[str, str]:
    """"how many days are left in the year", "这个月还有几天": the days (weeks, months) to the end of it."""
    year = period.casefold() in ("year", "今年", "本年")
    if period.isdecimal():  # "how many days left in 2026": to its last day
        return {"date": f"december 31 {period}", "unit": unit}
    if not CJK.search(question):
        return {"date": f"the end of the {'year' if year else 'month'}", "unit": unit}
    asked = question.rstrip("?？!！。.呢啊")  # the unit is what it ends with ("这个月还有几天": days)
    zh_unit = "weeks" if asked.endswith(("周", "星期")) else "months" if asked.endswith("个月") else "days"
    return {"date": "年底" if year else "月底", "unit": zh_unit}


def _without_trail(question: str) -> str:
    """``question`` without the marks and the particle that end it ("几点了呢？", "what time is it ?")."""
    said = without_end(question, "?？!！。.,，")
    return without_end(said[:-1], "?？!！。.,，") if said.endswith(("呢", "啊", "呀")) else said


_HERE = frozenset({"", "这里", "这儿", "本地", "我这里", "我这儿", "我们这里", "我们", "我", "here", "my place"})


def _as_written(question: str, piece: str) -> str:
    """``piece`` (words read in lower case) as the question writes it ("Tokyo"); as read where its words stand apart
    otherwise ("glenwood springs, co")."""
    at = question.casefold().find(piece)
    return question[at:at + len(piece)] if at >= 0 and len(question.casefold()) == len(question) else piece


def is_here(place: str) -> bool:
    """No place, or the user's own said in words ("here", "my place", "这里"): the clock of this machine."""
    return " ".join(place.casefold().split()) in _HERE


TIME_WORDS = Phrases((
    "几点", "多少分钟", "几分钟", "多少小时", "几个小时", "时间", "时差", "时区", "小时", "农历", "阴历", "星期几", "周几", "礼拜几", "几号",
    "哪天", "多少天", "几天", "闰年", "(星期|周|礼拜) (一|二|三|四|五|六|日|天) (吗|么|嘛)", "是不是 (星期|周|礼拜)", "leap year", "几个星期", "多少个星期", "几周", "多少周", "日期", "日子", "多久", "节", "放假", "假期", "哪一年", "哪年", "几几年", "几月", "time", "date", "day", "days", "weekday", "until",
    "clock", "today", "today's", "timezone", "holidays", "holiday", *(f"{zone}{kind}t" for zone in "ecmp" for kind in "sd"),
    "utc", "gmt", "year", "month", "hours (ahead|behind)", "(far|much) (ahead|behind)", *HOLIDAY_WORDS), re.IGNORECASE)


class ClockQuestions:
    """Reads a time or date question by rule; a part of :class:`tools.clock.tool.Clock`, given the places it may
    name (the gazetteer, opened when first needed) and the clock it reads 'today' from."""

    def __init__(self, places: Callable[[], Gazetteer], now: Callable[[], datetime]) -> None:
        self.places = places
        self.now = now
        self.reading = ClockReading(places, self._today_cheap)
        self.heard = self.reading.heard

    def parse(self, question: str) -> ClockArgs | None:
        """The arguments when ``question`` is certainly one of the forms above, with its place or date readable, or
        is made of the words such questions are asked with and its values (:meth:`ClockReading.by_words`)."""
        q = _without_trail(unicodedata.normalize("NFKC", question).strip())
        today = self._today_cheap()
        for ask, said in _FORMS.each(q):
            if ask == "days_left":  # the days to the end of this year or month
                said = {**said, **_days_left(said.get("date", ""), said.get("unit", "days"), q)}
            try:
                args = ClockArgs(ask="days_until" if ask == "days_left" else str(ask), place=said.get("place", ""),
                                 other_place=said.get("other_place", ""), at=said.get("at", ""), date=said.get("date", ""),
                                 other_date=said.get("other_date", ""), unit=said.get("unit", "days").casefold())
            except ValidationError:
                continue  # a "place" of a hundred characters and more: no place, and no such question
            if ask == "time_until":
                if hour_said(en_digits(args.at)) is None:  # "how long until christmas": a day
                    if read_date(args.at, today) is not None:
                        return args.model_copy(update={"ask": "days_until", "date": args.at, "at": ""})
                    continue
                return args.model_copy(update={"at": en_digits(args.at)})
            if ask == "convert" and CJK.search(args.at):
                args = args.model_copy(update={"at": to_digits(args.at.replace("两", "二"))})  # "下午两点": in digits
            if ask == "convert" and clock_time(args.at) is None:
                if clock_time(digits := en_digits(args.at)) is None:
                    continue  # "3" or "3点" alone: morning or afternoon is not certain
                args = args.model_copy(update={"at": digits})  # "nine am"
            if ask == "now" and args.at and span_from_now(args.at) is None:
                continue  # "what time is it in tokyo": a place, not a span from now
            if ask in ("now", "zone", "difference", "convert"):
                places = [args.place] + ([args.other_place] if ask not in ("now", "zone") else [])
                if all(is_here(p) or self.places().resolve(p) is not None or zone_named(p) is not None for p in places):
                    return args
                continue
            if ask == "calendar":
                if args.other_date:  # "how many days does february have in 2027": the month of that year
                    args = args.model_copy(update={"date": f"{args.date} {args.other_date}", "other_date": ""})
                if month_or_year(args.date, today) is not None:
                    return args.model_copy(update={"date": args.date or "this year"})
                continue
            dates = [args.date] + ([args.other_date] if ask == "days_between" else [])
            if all(read_date(x, today) is not None for x in dates):
                return args
        heard = self.reading.by_words(question)  # the time now and a day's weekday, in the words they are asked with
        return heard[0] if heard and isinstance(heard[0], ClockArgs) else None

    def _today_cheap(self) -> date:
        """Today for reading phrases in the router: the clock's UTC date is close enough to tell a date from
        no date (the run resolves the exact local day)."""
        return self.now().date()

    def route(self, question: str) -> list[BaseModel] | None:
        if not TIME_WORDS.search(question):
            return None
        args = self.parse(question)
        return [args] if args else None

    def grounding(self, question: str) -> Grounding:
        return "grounded" if TIME_WORDS.search(question) else "ungrounded"


# What a time or date question asks with, beside its values: these words ask for the day ("what day of the week is
# it", "what's the date"), for the time ("tell me the hour"), or for the next holiday ("our next day off"); and the
# words any request is said with. A question made of nothing else (and its values) is one by its words alone.
_SAID_WITH = frozenset({"what", "what's", "whats", "which", "is", "it", "the", "a", "an", "of", "on", "in", "for",
                        "me", "tell", "please", "can", "could", "you", "i", "know", "does", "give", "show", "would",
                        "be", "will", "now",
                        "current", "currently", "right", "exactly", "exact", "at", "moment", "this",
                        "information", "info", "find", "check", "say", "says", "let", "wanna", "want", "need",
                        "to", "search", "they"})
_DAY_WORDS = frozenset({"date", "dates", "day", "weekday", "week", "fall", "falls", "was", "did", "year", "today's",
                        "today", "full", "month", "and", "days", "gonna", "going", "after", "another", "share", "need",
                        "have", "calendar", "calender", "it's"})
_TIME_WORDS = frozenset({"time", "hour", "clock", "local", "zone", "timezone", "minute", "there", "uses", "over",
                         "back", "home", "out", "down", "that", "applicable", "they", "fall", "falls", "does", "do",
                         "use", "are", "am", "kept", "keep", "set", "getting", "watch", "have", "got", "your"})
_DATE_TOO = frozenset({"date", "and", "today", "today's"})  # "what is the date and time (for today)": the time's answer says it
_WEEKDAY_NAMES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
_HOLIDAY_WORDS = frozenset({"next", "holiday", "holidays", "holiday's", "day", "days", "off", "free", "until", "till",
                            "til", "upcoming", "coming", "up", "soon", "closest", "nearest", "public", "bank",
                            "national", "federal", "official", "paid", "scheduled", "when", "when's", "whens", "how",
                            "many", "long", "much", "more", "time", "are", "there", "any", "week", "weeks", "month",
                            "calendar", "get", "comes", "come", "after", "today", "line", "here", "arrives", "arrive",
                            "date", "following", "another", "vacation", "expect", "we", "i", "have", "again",
                            "office", "work", "job", "company", "federally", "recognized", "recognised", "observed",
                            "am", "i'm", "finally", "that", "some", "with", "pay", "stay", "from", "before", "period",
                            "our", "comming", "do", "longer", "my", "vacation's"})
# What makes a holiday asked for, not talked about: the next one, when, how long until it.
_NEXT = frozenset({"next", "when", "when's", "whens", "until", "till", "til", "upcoming", "coming", "soon", "closest",
                   "nearest", "following", "another", "again", "any", "comming"})
# The same in Chinese: what asks for the time, what for the day, and what else they are said with (the longest first).
_ZH_TIME_ASKS = ("几点", "时间", "几时")
_ZH_DAY_ASKS = ("日期", "几号", "星期几", "周几", "礼拜几", "什么日子", "几月几日", "几月几号", "哪一年", "哪年", "几几年", "几月份",
                "几月", "哪天", "哪一天")  # the year or the month asked: today's date says them
_ZH_ALONE = 8  # the first asks name a day alone; the rest ask of a day said ("今年是哪一年"; "哪年呀?" alone: of what?)
_ZH_THIS = ("今年", "这个月", "本月", "现在", "今天", "目前", "当前")
_ZH_SAID_WITH = tuple(sorted({
    "几点几分", "几点钟", "几点了", "几点", "几时", "时间", "日期", "几号", "星期几", "周几", "礼拜几", "什么日子", "几月几日",
    "几月几号", "哪一天", "哪天", "现在", "当前", "目前", "此刻", "这会儿", "查询", "查一下", "查", "看看", "看一下", "精确", "准确", "具体",
    "当地", "的", "是", "了", "吗", "呢", "啊", "请问", "告诉我", "今天是", "多少", "什么", "是什么", "哪一年", "哪年", "几几年",
    "几月份", "几月", "今年", "这个月", "本月"}, key=len, reverse=True))
_ZH_ZONE_SAID_WITH = tuple(sorted({
    "时区", "是什么", "是哪个", "是多少", "哪一个", "哪个", "什么", "啥", "用的是", "属于", "用", "在", "是", "的", "呢", "啊",
    "请问", "现在"}, key=len, reverse=True))
# The time left until a time of day, asked in Chinese; the time of day said ("12点25分", "下午5点", "12:25").
_ZH_SPAN_ASKS = ("多少分钟", "几分钟", "多少小时", "几个小时", "几小时", "多久", "多长时间")
_ZH_CLOCK = lazy_compile(r"(?:上午|下午|晚上|早上|中午|凌晨)?\d{1,2}\s*(?:点|:|：)\s*(?:\d{1,2}\s*分?|半)?")
_ZH_UNTIL_ASKS = ("还有多久", "还有多少天", "还有几天", "还剩几天", "还剩多少天", "多少天", "有多久")
# The span asked in weeks or months: "元宵节还有几个星期", "多少月之后就是过年了"
_ZH_UNIT_ASKS = {"几个星期": "weeks", "多少个星期": "weeks", "多少星期": "weeks", "几周": "weeks", "多少周": "weeks",
                 "几个礼拜": "weeks", "几个月": "months", "多少个月": "months", "多少月": "months"}
_ZH_UNTIL_SAID_WITH = tuple(sorted({
    "还有多久", "还有多少天", "还有几天", "还剩几天", "还剩多少天", "多少天", "有多久", "多久", "距离", "离", "距", "到",
    "还有", "还剩", "之后就是", "以后就是", "之后", "以后", "就是", "的", "是", "了", "呢", "啊", "请问", "现在", "今天",
    *_ZH_UNIT_ASKS}, key=len, reverse=True))
_ZH_NEXT = ("什么时候", "哪天", "哪一天", "几号", "下一个", "下个", "下次", "最近", "接下来")  # not "假期还有几天": left of mine
_ZH_HOLIDAY_ASKS = ("节假日", "假期", "放假", "假日", "公共假期", "法定节日", "法定假日")
_ZH_HOLIDAY_SAID_WITH = tuple(sorted({
    "节假日", "假期", "放假", "假日", "公共假期", "公共", "法定节日", "法定假日", "法定", "下一个", "下一次", "下个", "下次",
    "最近的", "最近", "接下来的", "接下来", "什么时候", "是什么时候", "哪天", "哪一天", "还有多久", "还有几天", "多久",
    "什么", "是", "的", "了", "呢", "吗", "啊", "请问", "在", "会", "再", "离", "距离"}, key=len, reverse=True))
_ZH_LUNAR_SAID_WITH = tuple(sorted({"农历", "阴历", "是多少", "多少", *_ZH_SAID_WITH}, key=len, reverse=True))


def _set_aside(text: str, phrases: tuple[str, ...], keep: str | None = None) -> str:
    """``text`` without ``phrases`` (the longest first) and without spaces: what is left of a Chinese question once
    the words it is asked with are set aside. ``keep``: a phrase of it that stays whole (the day said, "本月1号",
    whose 本月 is a word of the ask too: "本月是几月")."""
    if keep:
        text = text.replace(keep, "\0")
    for phrase in phrases:
        text = text.replace(phrase, " ")
    return "".join(text.split()).replace("\0", keep or "")


# Words of the ask that the date reader would read as a day ("the week": this week's): never the day asked about.
_ASK_ONLY = frozenset({"the", "week", "day", "days", "of", "a", "an", "is", "what", "which", "weekday", "date"})
# Possessives that are names ("chicago's time zone", "denver's timezone"), not words that end so ("what's").
_NOT_POSSESSIVE = frozenset({"what", "it", "that", "let", "there", "here", "when", "who", "where", "how", "today",
                             "tomorrow", "yesterday", "he", "she"})


# Words of a region's side ("southern california", "northern italy"): the zone is the region's.
_DIRECTIONS = frozenset({"north", "south", "east", "west", "northern", "southern", "eastern", "western", "central",
                         "upstate", "downstate", "northeast", "northwest", "southeast", "southwest", "northeastern",
                         "northwestern", "southeastern", "southwestern", "coastal", "rural", "downtown"})
# The countries whose people's word takes no regular ending ("the french time zone": France's)
_PEOPLE = {"french": "france", "dutch": "netherlands", "swiss": "switzerland", "greek": "greece", "thai": "thailand",
           "filipino": "philippines", "welsh": "wales", "irish": "ireland", "english": "england", "scottish": "scotland",
           "danish": "denmark", "swedish": "sweden", "finnish": "finland", "polish": "poland", "spanish": "spain",
           "portuguese": "portugal", "norwegian": "norway", "icelandic": "iceland", "kiwi": "new zealand",
           "aussie": "australia", "british": "united kingdom", "american": "united states", "korean": "south korea"}
# How a country's people are named from its name: the ending said, and what the name ends with instead.
_PEOPLE_ENDINGS = (("vian", ("",)), ("ian", ("ia", "a", "y", "")), ("ean", ("ea", "e")), ("an", ("a", "o", "")),
                   ("ese", ("", "a")), ("ish", ("land", "ey", "")), ("i", ("", "istan")))


class ClockReading:
    """What a time or date question asks, heard in any words, with its values read exactly: a place run the
    gazetteer names, a day phrase the date reader reads. A part of :class:`ClockQuestions`.

    Heard two ways: as the learned reader heard it (:meth:`heard`, its words held to the frame of what the reader
    learned of the clock), or by its words alone (:meth:`by_words`: the question is made of the ask's words and
    its values, nothing else, whatever the reader makes of it)."""

    def __init__(self, places: Callable[[], Gazetteer], today: Callable[[], date]) -> None:
        self.places = places
        self.today = today

    def heard(self, target: str, question: str, frame: str = "clock") -> list[BaseModel] | None:
        """The arguments of ``question``, heard as ``target`` (``clock.time``, ``clock.date``, ``clock.timezone``,
        ``clock.holiday``, ``clock.query`` or the family ``clock``), when every word is the ask's, in ``frame``
        (the learned words of a target; ``""``: none) or a value read."""
        said_as = question  # a day as written ("new year's day"); a place without its possessive ("chicago's")
        question = " ".join(w[:-2] if w.lower().endswith("'s") and w[:-2].lower() not in _NOT_POSSESSIVE else w
                            for w in question.replace("’", "'").split())
        said = tokens(question)
        words = set(said)
        if target == "clock.holiday":
            return self._holiday(question, words, frame and "clock.holiday")
        if target in ("clock.query", "clock"):  # the time or the date, as its words say ("tell me the hour", "today date")
            timely = bool(words & {"time", "hour", "clock", "timezone"})
            daily = bool(words & {"date", "day", "days", "weekday", "today", "today's", "month", "year"} or words & _WEEKDAY_NAMES)
            target = "clock.time" if timely and not daily else "clock.date" if daily and not timely else ""
            if timely and daily and {"date", "time"} <= words and not words & {"zone", "timezone"}:
                target = "clock.time"  # "what is the date and time": the time's answer says the date too
            zoned = "timezone" in words or any(a == "time" and b == "zone" for a, b in zip(said, said[1:], strict=False))
            timed = "hour" in words or any(a == "time" and b != "zone" for a, b in zip(said, [*said[1:], ""], strict=False))
            if target == "clock.time" and zoned and not timed:  # "chicago's time zone"; not "the time in the central timezone"
                target = "clock.timezone"
        if target == "clock.date":
            return self._day(said_as, set(tokens(said_as)), frame)
        if target in ("clock.time", "clock.timezone"):
            return self._time(question, words, "now" if target == "clock.time" else "zone", frame)
        return None

    def by_words(self, question: str) -> list[BaseModel] | None:
        """The arguments of a time, date or holiday question made only of the words such questions are asked with
        and its values ("what's today", "current date", "what's chicago's time zone", "when is the next holiday"),
        with no reader."""
        if CJK.search(question):
            return self._by_zh_words(question)
        words = set(tokens(question))
        if words & {"holiday", "holidays", "holiday's"} or (words & {"off", "vacation"} and words & {"day", "days", "time"}):
            return self.heard("clock.holiday", question, frame="")
        return self.heard("clock", question, frame="")

    def _by_zh_words(self, question: str) -> list[BaseModel] | None:
        """A Chinese question of the time or the date made of the words they are asked with and one value, a place
        or a day ("旧金山几点几分", "武汉的精确时间是", "现在星期几", "明天什么日子", "现在的日期"): those words
        set aside, what is left must be nothing, or a place, or a day, read whole."""
        text = question.strip().rstrip("?？。.!！")
        if any(p in text for p in _ZH_HOLIDAY_ASKS) and any(p in text for p in _ZH_NEXT):  # "下一个节假日是什么时候"
            rest = _set_aside(text, _ZH_HOLIDAY_SAID_WITH)
            if not rest:
                return [ClockArgs(ask="holiday", place="")]
            return [ClockArgs(ask="holiday", place=rest)] if self.places().qualifier(rest) else None
        if any(p in text for p in _ZH_SPAN_ASKS) and (at := _ZH_CLOCK.search(to_digits(text))) is not None \
                and hour_said(at.group()) is not None:  # "还有多少分钟12点", "距离12点25分还有多少分钟", "离下午5点还有多久"
            return [ClockArgs(ask="time_until", at=at.group())]
        unit = next((u for said, u in _ZH_UNIT_ASKS.items() if said in text), None)
        if unit or any(p in text for p in _ZH_UNTIL_ASKS):  # "距离春节还有多久", "还有多少天过年", "元宵节还有几个星期"
            rest = _set_aside(text, _ZH_UNTIL_SAID_WITH)
            return [ClockArgs(ask="days_until", date=rest, unit=unit or "days")] \
                if rest and read_date(rest, self.today()) else None
        if "时区" in text and not any(p in text for p in ("时差", "几点")):  # "俄罗斯是哪个时区", "纽约的时区", "这里是什么时区"
            rest = _set_aside(text, _ZH_ZONE_SAID_WITH)
            return [ClockArgs(ask="zone", place=rest)] if not rest or is_here(rest) else self._in_place("zone", rest)
        lunar = text.replace("农历新年", "")
        if ("农历" in lunar or "阴历" in lunar) and any(p in lunar for p in ("几号", "几月", "多少", "日期", "哪天", "什么日子")):
            rest = _set_aside(lunar, _ZH_LUNAR_SAID_WITH)  # "明天是农历几号", "今天农历是多少"
            said = rest or "今天"
            return [ClockArgs(ask="lunar", date=said)] if read_date(said, self.today()) else None
        if "什么时候" in text:  # "清明节是什么时候", "今年中秋节什么时候": a holiday's day; "什么时候下雨" is not one
            rest = _set_aside(text, ("是什么时候", "什么时候", "请问", "的", "在"))
            read = read_date(rest, self.today()) if rest else None
            return [ClockArgs(ask="date", date=rest)] if read is not None and read[1] else None
        asks_time = any(p in text for p in _ZH_TIME_ASKS)
        asks_day = any(p in text for p in _ZH_DAY_ASKS)
        if asks_time == asks_day:
            return None
        rest = _set_aside(text, _ZH_SAID_WITH, keep=find_when(text))
        if asks_time:
            return [ClockArgs(ask="now", place="")] if not rest else self._in_place("now", rest)
        weekday = any(p in question for p in ("星期几", "周几", "礼拜几"))
        if not rest and not any(p in question for p in _ZH_DAY_ASKS[:_ZH_ALONE]) and not any(p in question for p in _ZH_THIS):
            return None  # "哪天的?": which day of what was said before, no date of its own
        if not rest:
            return [ClockArgs(ask="weekday" if weekday else "date", date="今天")]
        return [ClockArgs(ask="weekday" if weekday else "date", date=rest)] if read_date(rest, self.today()) else None

    def _in_place(self, ask: Ask, place: str) -> list[BaseModel] | None:
        """``ask`` of ``place`` as written, when the gazetteer knows it and its time zone."""
        found = self.places().resolve(place)
        return [ClockArgs(ask=ask, place=place)] if found is not None and found.timezone else None

    def _day(self, question: str, words: set[str], frame: str) -> list[BaseModel] | None:
        """The date or weekday of a day said ("what day of the week is the twenty second of may", "is it monday
        today", "can i have today's date"), today when none is."""
        if words & {"how", "about", "my", "i", "we", "have"} and not words & {"date", "many", "much", "long"}:
            return None  # "how is the day today", "tell me about my day", "do i have a date friday": no date asked
        if words & {"week", "day"} and ("of the year" in " ".join(question.casefold().split()) or words & {"number"}):
            return None  # "what week of the year is it", "what day of the year is it": a count the date does not say
        named = words & _WEEKDAY_NAMES  # "is it monday today", "is the 23rd of april a saturday": the day it is
        checked = named and question.split()[0].lower() in ("is", "was", "isn't", "wasn't", "will")
        said = self.day_said(" ".join(w for w in question.split() if not checked or w.lower().strip("?,.!") not in named))
        if said and {"month", "months"} & words and all(w in ("the", "on") or w[:-2].isdigit() for w in said[0].split()):
            # "the 22nd … this month": the month said apart from the day; this month's 22nd, never the next 22nd
            this_month = " this month" in " ".join(question.casefold().split())
            if not this_month or read_date(f"{said[0]} of this month", self.today()) is None:
                return None
            said = (f"{said[0]} of this month", said[1])
        if unexplained(question, frame, f"{said[1] if said else ''} {' '.join(_SAID_WITH | _DAY_WORDS | named)}"):
            return None
        weekday = bool(words & {"day", "weekday"} or named) and "date" not in words
        return [ClockArgs(ask="weekday" if weekday else "date", date=said[0] if said else "today")]

    def _time(self, question: str, words: set[str], ask: Ask, frame: str) -> list[BaseModel] | None:
        """The time now or the time zone, here or in the one place the words left over name ("what's the time
        set to in orlando florida right now", "which timezone is reno in")."""
        if words & {"need", "want", "set", "start", "make", "create"} and not words & {"what", "what's", "whats", "tell"}:
            return None  # "i need you to set a time": a timer or a reminder, not the time now
        known = " ".join(_SAID_WITH | _TIME_WORDS | (_DATE_TOO if "date" in words else set()))
        if not unexplained(question, frame, known):
            return [ClockArgs(ask=ask, place="")]
        run = leftover(question, frame, known)
        if run is None:
            return None
        named = zone_named(" ".join(run[0][run[1]:run[2]]))  # a time zone by its name: "the central timezone"
        if named is not None and ask == "now" and {"zone", "timezone"} & set(run[0]):
            return [ClockArgs(ask=ask, place=named[1])]
        said, start, end = run
        if said[start] in _DIRECTIONS and end - start > 1:  # "southern california": the region's zone
            start += 1
        if end - start == 1 and (country := self.country_of_people(said[start])) is not None:
            return [ClockArgs(ask=ask, place=country)]  # "the peruvian time zone": Peru's
        if (found := self.places().named_around(said, start, end)) is not None and found[1].timezone:
            # the place as written, its qualifier with it ("paris texas": Paris, Texas; its name alone is Paris, France)
            return [ClockArgs(ask=ask, place=_as_written(question, found[0]))]
        return [ClockArgs(ask=ask, place=named[1])] if named is not None else None

    def country_of_people(self, word: str) -> str | None:
        """The country whose people ``word`` names ("peruvian": Peru, "mexican": Mexico, "chinese": China), by the
        endings such words take, as the gazetteer names it; ``None`` when no country is named so."""
        if (country := _PEOPLE.get(word)) is not None and self.places().country(country) is not None:
            return country
        for ending, instead in _PEOPLE_ENDINGS:
            if word.endswith(ending) and len(word) > len(ending) + 2:
                stem = word[: -len(ending)]
                for name in (stem + tail for tail in instead):
                    if self.places().country(name) is not None:
                        return name
        return None

    def _holiday(self, question: str, words: set[str], frame: str) -> list[BaseModel] | None:
        """The next public holiday, here or in the place named ("when is the next holiday", "how many days until my
        next day off", "is there a holiday next week in japan")."""
        if not words & {"holiday", "holidays", "holiday's", "off", "free", "vacation"} or not words & _NEXT:
            return None  # "holidays are fun", "i am taking a holiday": no holiday asked for
        known = " ".join(_SAID_WITH | _HOLIDAY_WORDS)
        if not unexplained(question, frame, known):
            return [ClockArgs(ask="holiday", place="")]
        run = leftover(question, frame, known)
        if run is None:
            return None
        named = " ".join(run[0][run[1]:run[2]])
        placed = run[1] > 0 and run[0][run[1] - 1] in ("in", "the", "for", "of")  # "in the uk"; not "when am i off"
        if self.places().country(named) is not None and (len(named) > 3 or placed):  # a country by its name or letters
            return [ClockArgs(ask="holiday", place=named)]
        if len(named) <= 3 and not placed:
            return None  # "am", "me", "it": a word, not a country's letters
        found = self.places().named_around(*run)
        return [ClockArgs(ask="holiday", place=found[0])] if found is not None else None

    def day_said(self, question: str) -> tuple[str, str] | None:
        """The longest run of the question's words (up to six) that the date reader reads as a day ("tomorrow",
        "in 10 days", "the twenty second of may", "christmas"), as the date reader reads it (numbers in words as
        digits) and as written; ``None`` when none does."""
        words = [w.strip(",.?!") for w in question.lower().split()]
        today = self.today()
        spans = sorted(((i, j) for i in range(len(words)) for j in range(i + 1, min(len(words), i + 6) + 1)),
                       key=lambda ij: ij[0] - ij[1])
        for i, j in spans:
            if all(w in _ASK_ONLY for w in words[i:j]):
                continue  # "the week", "day": what is asked, not a day
            written = " ".join(words[i:j])
            digits = en_digits(en_ordinals(written))
            for read in dict.fromkeys((digits, digits.replace("'s", ""))):
                if read_date(read, today) is not None:  # "new year's day"; "tomorrow's" as "tomorrow"
                    return read, written
        return None
