"""Reading a time or date question by rule: what is asked (the time now, a difference, a weekday, days until
or between, a date) and where."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from typing import Callable

from pydantic import BaseModel

from tools.base import Grounding
from tools.clock.config import ClockArgs
from tools.clock.dates import HOLIDAY_NAMES, Ask, read_date
from tools.gazetteer import Gazetteer
from tools.lazy_re import lazy_compile
from tools.reading.time_of_day import ZH_PART, clock_time


# The certain forms. Each names what it asks; the pieces (a place, a date) must then be read exactly.


_LEAD = r"^(?:请问|请|帮我查一下|帮我查|查一下|你知道|(?i:please|tell\s+me|do\s+you\s+know))?\s*"


_FORMS: list[tuple[Ask, re.Pattern[str]]] = [
    ("now", re.compile(_LEAD + r"(?:现在|当前|目前|此刻|这会儿)?\s*(?P<place>[^\s,，]*?)\s*(?:现在|当前|目前|此刻|当地|的|时间)*\s*(?:是)?\s*(?:几点了?|几点钟|什么时间|什么时候了|几时)(?:了)?$")),
    ("now", re.compile(_LEAD + r"(?:现在|当前|目前|此刻|这会儿)?\s*(?P<place>[^\s,，]+?)(?:现在|当地|的)*时间$")),
    ("now", re.compile(_LEAD + r"(?i:(?:what(?:'s|\s+is)\s+the\s+(?:current\s+|local\s+)?time|what\s+time\s+is\s+it|"
                               r"current\s+time|local\s+time|time)(?:\s+(?:right\s+)?now)?(?:\s+(?:over|back\s+home|over\s+there|"
                               r"out|down|up))?(?:\s+in\s+(?P<place>.+?))?"
                               r"(?:\s+(?:right\s+)?now)?)$")),
    ("zone", re.compile(_LEAD + r"(?P<place>[^\s,，]+?)\s*(?:是|在|用|属于|的)*\s*(?:哪个|哪一个|什么|啥)?\s*时区"
                               r"(?:是什么|是哪个|是多少)?(?:呢|啊)?$")),
    ("difference", re.compile(_LEAD + r"(?P<place>[^\s,，]+?)\s*(?:和|与|跟|同)\s*(?P<other_place>[^\s,，]+?)\s*(?:的)?\s*"
                                      r"(?:时差|时间差|相差几个?小时|差几个?小时|差多少(?:个)?小时)(?:是多少|多少|有多少|是几个?小时|几个?小时)?$")),
    ("difference", re.compile(_LEAD + r"(?i:(?:what(?:'s|\s+is)\s+the\s+)?time\s+difference\s+between\s+(?P<place>.+?)\s+and\s+"
                                      r"(?P<other_place>.+?))$")),
    # a time of day in one place, in another: "when it's 3pm in London, what time is it in Tokyo?", "3pm London time
    # in Tokyo", "伦敦下午3点是北京几点", "北京时间晚上8点是纽约几点"
    ("convert", re.compile(_LEAD + r"(?i:(?:(?:when|if)\s+it(?:'s|\s+is)\s+)?(?P<at>\S+(?:\s?[ap]\.?m\.?)?)\s+in\s+"
                                   r"(?P<place>.+?),?\s+what\s+time\s+(?:is\s+it|will\s+it\s+be)\s+in\s+(?P<other_place>.+?)|"
                                   r"(?:convert\s+|what(?:'s|\s+is)\s+)?(?P<at2>\S+(?:\s?[ap]\.?m\.?)?)\s+(?:in\s+)?"
                                   r"(?P<place2>.+?)\s+time\s+(?:in|to)\s+(?P<other_place2>.+?)(?:\s+time)?)$")),
    ("convert", re.compile(_LEAD + r"(?P<place>[^\s,，\d]+?)(?:时间)?\s*(?P<at>(?:" + ZH_PART + r")?\s*\d{1,2}\s*(?:点|时|:)"
                                   r"\s*(?:半|\d{1,2}\s*分?|[一三]刻)?)\s*(?:是|等于|相当于|的时候)?\s*(?P<other_place>[^\s,，\d]+?)"
                                   r"(?:时间)?\s*(?:几点|几点钟|什么时间|几点了)$")),
    ("weekday", re.compile(_LEAD + r"(?P<date>.+?)\s*(?:是|为)?\s*(?:星期几|周几|礼拜几)(?:呢)?$")),
    ("weekday", re.compile(_LEAD + r"(?i:(?:what|which)\s+(?:day(?:\s+of\s+the\s+week)?|weekday)\s+is\s+it"
                                   r"(?:\s+(?P<date>today|tomorrow|yesterday))?(?:\s+(?:today|(?:right\s+)?now))?|"
                                   r"(?:what|which)\s+(?:day(?:\s+of\s+the\s+week)?|weekday)\s+(?:will\s+it\s+be|is\s+it|was\s+it|will\s+be|is|was)\s+"
                                   r"(?P<date2>.+?)(?:\s+on)?|(?:what|which)\s+day(?:\s+of\s+the\s+week)?\s+(?:does|did|will)\s+"
                                   r"(?P<date3>.+?)\s+(?:fall|land|be)(?:\s+on)?(?:\s+this\s+year)?)$")),
    ("days_until", re.compile(_LEAD + r"(?:离|距离|距)\s*(?P<date>.+?)\s*(?:还有|还剩|有)\s*(?:多少|几)\s*天(?:了)?$")),
    ("days_until", re.compile(_LEAD + r"(?:还有|还剩)\s*(?:多少|几)\s*天\s*(?:到|就到|就是|过)\s*(?P<date>.+?)$")),
    ("days_until", re.compile(_LEAD + r"(?P<date>[^\s,，]+?)\s*(?:还有|还剩)\s*(?:多少|几)\s*天(?:了)?$")),  # 国庆节还有几天
    ("days_until", re.compile(_LEAD + r"(?i:how\s+many\s+(?:more\s+)?days\s+(?:are\s+(?:there|left)\s+)?(?:until|till|til|to|before)\s+"
                                      r"(?P<date>.+?)|days\s+(?:until|till|to)\s+(?P<date2>.+?))$")),
    ("days_between", re.compile(_LEAD + r"(?:从)?\s*(?P<date>[^到至]+?)\s*(?:到|至)\s*(?P<other_date>.+?)\s*(?:有|共|一共|相差|差)?\s*"
                                        r"(?:多少|几)\s*天$")),
    ("days_between", re.compile(_LEAD + r"(?i:how\s+many\s+days\s+(?:are\s+there\s+)?(?:between|from)\s+(?P<date>.+?)\s+"
                                        r"(?:and|to|until)\s+(?P<other_date>.+?))$")),
    ("date", re.compile(_LEAD + r"(?P<date>.+?)\s*(?:是)\s*(?:几号|哪天|哪一天|几月几[号日]|什么时候|什么日子|几月几号)$")),
    ("date", re.compile(_LEAD + r"(?P<date>今天|明天|后天|昨天)\s*(?:是)?\s*(?:几号|几月几[号日])$")),
    ("date", re.compile(_LEAD + r"(?i:when\s+is\s+(?P<date>.+?)|what(?:'s|\s+is)\s+the\s+date\s+(?P<date2>.+?)|"
                                r"what\s+date\s+(?:is\s+it|will\s+it\s+be|was\s+it)\s+(?P<date5>in\s+.+?|.+?\s+(?:from\s+now|ago))|"
                                r"what\s+date\s+is\s+(?P<date3>.+?)|what(?:'s|\s+is)\s+(?P<date4>today)'?s\s+date)$")),
]


_TRAIL = lazy_compile(r"[\s?？!！。.,，]*(?:呢|啊|呀)?[\s?？!！。.,，]*$")


HERE = lazy_compile(r"^(?:这里|这儿|本地|我这里|我这儿|我们这里|我们|我|here|my\s+place)?$", re.IGNORECASE)


TIME_WORDS = lazy_compile(r"几点|时间|时差|时区|小时|星期几|周几|礼拜几|几号|哪天|多少天|几天|日期|节|\b(?i:time|date|day|days|weekday|until|clock)\b"
                         r"|" + HOLIDAY_NAMES, re.IGNORECASE)


def _group(m: re.Match[str], name: str) -> str:
    for key in (name, name + "2", name + "3", name + "4", name + "5"):
        if m.groupdict().get(key):
            return m.group(key).strip()
    return ""


class ClockQuestions:
    """Reads a time or date question by rule; a part of :class:`tools.clock.tool.Clock`, given the places it may
    name (the gazetteer, opened when first needed) and the clock it reads 'today' from."""

    def __init__(self, places: Callable[[], Gazetteer], now: Callable[[], datetime]) -> None:
        self.places = places
        self.now = now

    def parse(self, question: str) -> ClockArgs | None:
        """The arguments when ``question`` is certainly one of the forms above, with its place or date readable."""
        q = _TRAIL.sub("", unicodedata.normalize("NFKC", question).strip())
        today = self._today_cheap()
        for ask, form in _FORMS:
            m = form.match(q)
            if not m:
                continue
            args = ClockArgs(ask=ask, place=_group(m, "place"), other_place=_group(m, "other_place"), at=_group(m, "at"),
                             date=_group(m, "date") or ("today" if ask == "weekday" else ""),  # "what day is it?"
                             other_date=_group(m, "other_date"))
            if ask == "convert" and clock_time(args.at) is None:
                continue  # "3" or "3点" alone: morning or afternoon is not certain
            if ask in ("now", "zone", "difference", "convert"):
                places = [args.place] + ([args.other_place] if ask not in ("now", "zone") else [])
                if all(HERE.match(p) or self.places().resolve(p) is not None for p in places):
                    return args
                continue
            dates = [args.date] + ([args.other_date] if ask == "days_between" else [])
            if all(read_date(x, today) is not None for x in dates):
                return args
        return None

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
