"""Time and dates without a model: the time now in a place (the gazetteer's timezone through ``zoneinfo``), the
time difference between places, the weekday of a date, the days until a date or holiday (春节, 中秋 and the other
lunar ones through the maintained ``lunardate``), the days between dates, and the date of a day phrase or holiday.

The clock is injected (``ClockConfig.clock``), so tests and reproducible runs are exact."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field

from tools.base import Grounding, KeyFact, LocalText, Permissions, Tool, ToolResult, Verdict, language_of
from tools.gazetteer import Gazetteer, gazetteer
from tools.numerals import to_digits
from tools.when import current_time, find_when, resolve

Ask = Literal["now", "difference", "weekday", "days_until", "days_between", "date"]

# Holidays: (Chinese label, English label, calendar, month, day, names). Lunar ones follow the Chinese calendar.
HOLIDAYS: list[tuple[str, str, str, int, int, tuple[str, ...]]] = [
    ("元旦", "New Year's Day", "solar", 1, 1, ("元旦", "新年", "new year's day", "new year", "new years day", "new years")),
    ("春节", "Chinese New Year", "lunar", 1, 1, ("春节", "过年", "大年初一", "农历新年", "chinese new year", "lunar new year",
                                                 "spring festival")),
    ("除夕", "Chinese New Year's Eve", "lunar", 0, 0, ("除夕", "大年三十", "年三十", "chinese new year's eve")),
    ("元宵节", "the Lantern Festival", "lunar", 1, 15, ("元宵节", "元宵", "lantern festival")),
    ("情人节", "Valentine's Day", "solar", 2, 14, ("情人节", "valentine's day", "valentines day")),
    ("妇女节", "Women's Day", "solar", 3, 8, ("妇女节", "三八节", "women's day", "international women's day")),
    ("劳动节", "Labour Day", "solar", 5, 1, ("劳动节", "五一", "五一劳动节", "labour day", "labor day", "may day")),
    ("端午节", "the Dragon Boat Festival", "lunar", 5, 5, ("端午节", "端午", "dragon boat festival")),
    ("儿童节", "Children's Day", "solar", 6, 1, ("儿童节", "六一", "children's day")),
    ("七夕", "Qixi", "lunar", 7, 7, ("七夕", "七夕节", "qixi", "qixi festival")),
    ("中秋节", "the Mid-Autumn Festival", "lunar", 8, 15, ("中秋节", "中秋", "mid-autumn festival", "mid autumn festival",
                                                          "moon festival")),
    ("重阳节", "the Double Ninth Festival", "lunar", 9, 9, ("重阳节", "重阳", "double ninth festival")),
    ("国庆节", "National Day", "solar", 10, 1, ("国庆节", "国庆", "十一", "national day")),
    ("万圣节", "Halloween", "solar", 10, 31, ("万圣节", "halloween")),
    ("平安夜", "Christmas Eve", "solar", 12, 24, ("平安夜", "christmas eve")),
    ("圣诞节", "Christmas", "solar", 12, 25, ("圣诞节", "圣诞", "christmas", "christmas day", "xmas")),
    ("跨年夜", "New Year's Eve", "solar", 12, 31, ("跨年夜", "new year's eve", "new years eve")),
]
_HOLIDAY = {name: h for h in HOLIDAYS for name in h[5]}
_HOLIDAY_NAMES = "|".join(re.escape(n) for n in sorted(_HOLIDAY, key=len, reverse=True))
_WITH_YEAR = re.compile(rf"^(?:(?P<y1>\d{{4}})\s*年?\s*(?:的)?)?(?:the\s+)?(?P<name>{_HOLIDAY_NAMES})(?:\s*,?\s*(?:of\s+)?(?P<y2>\d{{4}})(?:年)?)?$",
                        re.IGNORECASE)
_EN_MONTHS = {m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                              "september", "october", "november", "december"))}
_EN_MONTHS |= {m[:3]: i for m, i in list(_EN_MONTHS.items())} | {"sept": 9}
_MONTH = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
_FULL_DATES = [
    re.compile(r"^(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]?$"),
    re.compile(r"^(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})$"),
    re.compile(rf"^(?P<mn>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})$", re.IGNORECASE),
    re.compile(rf"^(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mn>{_MONTH})\.?,?\s+(?P<y>\d{{4}})$", re.IGNORECASE),
]
_ZH_WEEKDAYS = "一二三四五六日"
_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EN_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                   "November", "December")


def _lunar(year: int, month: int, day: int) -> date | None:
    try:
        from lunardate import LunarDate
    except ImportError:  # the core works without it: lunar holidays then stay with the model
        return None
    def solar(d: LunarDate) -> date:
        return d.to_solar_date() if hasattr(d, "to_solar_date") else d.toSolarDate()

    try:
        if month == 0:  # 除夕: the day before the new year
            return solar(LunarDate(year, 1, 1)) - timedelta(days=1)
        return solar(LunarDate(year, month, day))
    except ValueError:  # outside the library's years (1900–2099)
        return None


def holiday_date(name: str, year: int) -> date | None:
    zh, en, calendar, month, day, _ = _HOLIDAY[name.casefold()]
    if calendar == "solar":
        return date(year, month, day)
    return _lunar(year, month, day)


def holiday_label(name: str, language: str) -> str:
    h = _HOLIDAY[name.casefold()]
    return h[0] if language == "zh" else h[1]


def read_date(text: str, today: date) -> tuple[date, str | None] | None:
    """The date ``text`` names, and the holiday's name when it is one: ``2027年1月1日``, ``2027-01-01``,
    ``January 1, 2027``, ``春节``, ``2027年春节``, ``Christmas 2027``, ``下周五``, ``明天``, ``11月28日``. A holiday or a
    date without a year is the next one, today included."""
    t = unicodedata.normalize("NFKC", text).strip().strip("?？。.!！").strip()
    t = re.sub(r"^(?:the\s+)?(?:next\s+|this\s+|今年的?|今年)", lambda m: m.group() if "next" in m.group() else "", t, flags=re.I)
    if m := _WITH_YEAR.match(t):
        name, year = m.group("name"), m.group("y1") or m.group("y2")
        if year:
            found = holiday_date(name, int(year))
        else:
            found = holiday_date(name, today.year)
            if found is not None and found < today:
                found = holiday_date(name, today.year + 1)
        return (found, name) if found else None
    for form in _FULL_DATES:
        if m := form.match(to_digits(t)):  # 二〇二七年一月一日 too
            month = int(m.group("m")) if m.groupdict().get("m") else _EN_MONTHS[m.group("mn").casefold()]
            try:
                return date(int(m.group("y")), month, int(m.group("d"))), None
            except ValueError:
                return None
    period = resolve(t, datetime.combine(today, datetime.min.time()))
    if period is not None and period.start == period.end and _only_a_day(t):
        return period.start, None
    return None


def _only_a_day(text: str) -> bool:
    """``resolve`` reads a phrase inside any text; here the text must be nothing but the day phrase."""
    phrase = find_when(text)
    return phrase is not None and re.sub(r"[\s的]", "", phrase.casefold()) == re.sub(r"[\s的]", "", text.casefold())


def zh_date(d: date, today: date | None = None) -> str:
    year = f"{d.year}年" if today is None or d.year != today.year else ""
    return f"{year}{d.month}月{d.day}日(星期{_ZH_WEEKDAYS[d.weekday()]})"


def en_date(d: date, today: date | None = None) -> str:
    year = f" {d.year}" if today is None or d.year != today.year else ""
    return f"{_EN_WEEKDAYS[d.weekday()]} {d.day} {_EN_MONTH_NAMES[d.month - 1]}{year}"


def utc_offset(t: datetime) -> str:
    off = t.utcoffset() or timedelta(0)
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


def hours_text(hours: float, language: str) -> str:
    whole = int(abs(hours))
    minutes = round((abs(hours) - whole) * 60)
    if language == "zh":
        return f"{whole}小时" + (f"{minutes}分钟" if minutes else "")
    return f"{whole} hour{'s' if whole != 1 else ''}" + (f" {minutes} minutes" if minutes else "")


class ClockConfig(BaseModel):
    gazetteer_index: str
    home_city: str | None = None  # "here": this place's timezone; None: the machine's
    clock: str | None = None  # "now" as ISO 8601 (tests, reproducible runs); None: the real time


class ClockArgs(BaseModel):
    ask: Ask = Field(..., description=("now: the time in a place; difference: the time difference of two places; "
                                       "weekday: the weekday of a date; days_until: days from today to a date or holiday; "
                                       "days_between: days between two dates; date: the date of a day phrase or holiday"))
    place: str = Field("", max_length=100, description="for now/difference: the place as the user wrote it ('' = here)")
    other_place: str = Field("", max_length=100, description="for difference: the second place")
    date: str = Field("", max_length=60, description="a date, holiday or day phrase as written: '2027-01-01', '春节', 'Christmas', '下周五'")
    other_date: str = Field("", max_length=60, description="for days_between: the second date")


# The certain forms. Each names what it asks; the pieces (a place, a date) must then be read exactly.
_LEAD = r"^(?:请问|请|帮我查一下|帮我查|查一下|你知道|(?i:please|tell\s+me|do\s+you\s+know))?\s*"
_FORMS: list[tuple[Ask, re.Pattern[str]]] = [
    ("now", re.compile(_LEAD + r"(?P<place>[^\s,，]*?)\s*(?:现在|当前|目前|此刻|当地|的|时间)*\s*(?:是)?\s*(?:几点了?|几点钟|什么时间|什么时候了|几时)(?:了)?$")),
    ("now", re.compile(_LEAD + r"(?P<place>[^\s,，]+?)(?:现在|当地|的)*时间$")),
    ("now", re.compile(_LEAD + r"(?i:(?:what(?:'s|\s+is)\s+the\s+(?:current\s+|local\s+)?time|what\s+time\s+is\s+it|"
                               r"current\s+time|local\s+time|time)(?:\s+(?:right\s+)?now)?(?:\s+in\s+(?P<place>.+?))?"
                               r"(?:\s+(?:right\s+)?now)?)$")),
    ("difference", re.compile(_LEAD + r"(?P<place>[^\s,，]+?)\s*(?:和|与|跟|同)\s*(?P<other_place>[^\s,，]+?)\s*(?:的)?\s*"
                                      r"(?:时差|时间差|相差几个?小时|差几个?小时|差多少(?:个)?小时)(?:是多少|多少|有多少|是几个?小时|几个?小时)?$")),
    ("difference", re.compile(_LEAD + r"(?i:(?:what(?:'s|\s+is)\s+the\s+)?time\s+difference\s+between\s+(?P<place>.+?)\s+and\s+"
                                      r"(?P<other_place>.+?))$")),
    ("weekday", re.compile(_LEAD + r"(?P<date>.+?)\s*(?:是|为)?\s*(?:星期几|周几|礼拜几)(?:呢)?$")),
    ("weekday", re.compile(_LEAD + r"(?i:what\s+day\s+of\s+the\s+week\s+(?:is|was|will\s+be)\s+(?P<date>.+?)(?:\s+on)?)$")),
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
                                r"what\s+date\s+is\s+(?P<date3>.+?)|what(?:'s|\s+is)\s+(?P<date4>today)'?s\s+date)$")),
]
_TRAIL = re.compile(r"[\s?？!！。.,，]*(?:呢|啊|呀)?[\s?？!！。.,，]*$")
_HERE = re.compile(r"^(?:这里|这儿|本地|我这里|我这儿|here|my\s+place)?$", re.IGNORECASE)
_TIME_WORDS = re.compile(r"几点|时间|时差|小时|星期几|周几|礼拜几|几号|哪天|多少天|几天|日期|节|\b(?i:time|date|day|days|weekday|until|clock)\b"
                         r"|" + _HOLIDAY_NAMES, re.IGNORECASE)


def _group(m: re.Match[str], name: str) -> str:
    for key in (name, name + "2", name + "3", name + "4"):
        if m.groupdict().get(key):
            return m.group(key).strip()
    return ""


class Clock(Tool):
    name = "clock"
    description = ("Time and dates: the time now in a place, the time difference of two places, the weekday of a date, "
                   "days until a date or holiday (春节, 中秋, Christmas …), days between two dates, the date of a day "
                   "phrase or holiday. Copy places, dates and holidays as the user wrote them.")
    Args = ClockArgs
    Config = ClockConfig
    title = LocalText(zh="时间和日期", en="time and dates")
    renders_directly = True

    def __init__(self, config: ClockConfig) -> None:
        super().__init__(config)
        self.cfg = config

    @property
    def permissions(self) -> Permissions:
        return Permissions(files=[str(Path(self.cfg.gazetteer_index).parent)])

    @property
    def gazetteer(self) -> Gazetteer:
        return gazetteer(Path(self.cfg.gazetteer_index))

    def now(self) -> datetime:
        """The current time (UTC), or the configured clock."""
        return current_time(self.cfg.clock)

    def _zone(self, place: str) -> tuple[tzinfo, str] | None:
        """The timezone of ``place`` ('' or 'here': the home city's, else the machine's) and its name for people."""
        if _HERE.match(place.strip()):
            if self.cfg.home_city:
                return self._zone(self.cfg.home_city)
            local = datetime.now().astimezone().tzinfo
            return (local, "") if local is not None else None
        found = self.gazetteer.resolve(place)
        if found is None or not found.timezone:
            return None
        try:
            return ZoneInfo(found.timezone), found.name
        except ZoneInfoNotFoundError:
            return None

    def _today(self) -> date:
        zone = self._zone("")
        return self.now().astimezone(zone[0] if zone else timezone.utc).date()

    async def run(self, args: ClockArgs) -> ToolResult:  # type: ignore[override]
        now = self.now()
        if args.ask in ("now", "difference"):
            zones = []
            for place in ([args.place] if args.ask == "now" else [args.place, args.other_place]):
                zone = self._zone(place)
                if zone is None:
                    return ToolResult.failure(f"unknown place '{place}': give a city, e.g. 'Tokyo' or '东京'",
                                              LocalText(zh=f"找不到地点“{place}”。", en=f"I could not find the place '{place}'."))
                zones.append(zone)
            local = [now.astimezone(z) for z, _ in zones]
            if args.ask == "now":
                t = local[0]
                return ToolResult.success(place=zones[0][1], time=t.strftime("%H:%M"), date=t.date().isoformat(),
                                          weekday=t.weekday(), utc_offset=utc_offset(t))
            hours = ((local[0].utcoffset() or timedelta(0)) - (local[1].utcoffset() or timedelta(0))).total_seconds() / 3600
            return ToolResult.success(place=zones[0][1], other_place=zones[1][1], hours=hours,
                                      offsets=[utc_offset(t) for t in local], times=[t.strftime("%H:%M") for t in local])
        today = self._today()
        first = read_date(args.date, today)
        if first is None:
            return ToolResult.failure(f"cannot read the date '{args.date}': write it as 2027-01-01, a holiday (春节, Christmas) "
                                      "or a day phrase (下周五, next Friday)",
                                      LocalText(zh=f"看不懂日期“{args.date}”。", en=f"I cannot read the date '{args.date}'."))
        d, holiday = first
        data: dict = {"date": d.isoformat(), "weekday": d.weekday(), "holiday": holiday, "today": today.isoformat()}
        if args.ask == "days_until":
            data["days"] = (d - today).days
        elif args.ask == "days_between":
            second = read_date(args.other_date, today)
            if second is None:
                return ToolResult.failure(f"cannot read the date '{args.other_date}'",
                                          LocalText(zh=f"看不懂日期“{args.other_date}”。", en=f"I cannot read the date '{args.other_date}'."))
            data |= {"other_date": second[0].isoformat(), "days": abs((second[0] - d).days)}
        return ToolResult.success(**data)

    def parse(self, question: str) -> ClockArgs | None:
        """The arguments when ``question`` is certainly one of the forms above, with its place or date readable."""
        q = _TRAIL.sub("", unicodedata.normalize("NFKC", question).strip())
        today = self._today_cheap()
        for ask, form in _FORMS:
            m = form.match(q)
            if not m:
                continue
            args = ClockArgs(ask=ask, place=_group(m, "place"), other_place=_group(m, "other_place"),
                             date=_group(m, "date"), other_date=_group(m, "other_date"))
            if ask in ("now", "difference"):
                places = [args.place] + ([args.other_place] if ask == "difference" else [])
                if all(_HERE.match(p) or self.gazetteer.resolve(p) is not None for p in places):
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
        if not _TIME_WORDS.search(question):
            return None
        args = self.parse(question)
        return [args] if args else None

    def grounding(self, question: str) -> Grounding:
        return "grounded" if _TIME_WORDS.search(question) else "ungrounded"

    def check(self, question: str, args: ClockArgs, result: ToolResult) -> Verdict | None:  # type: ignore[override]
        if not result.ok:
            return super().check(question, args, result)
        asked = self.parse(question) if _TIME_WORDS.search(question) else None
        if asked is None:
            return None
        if asked.ask == args.ask and _same(asked.place, args.place) and _same(asked.other_place, args.other_place) \
                and _same(asked.date, args.date) and _same(asked.other_date, args.other_date):
            return Verdict(verdict="PASS", reason="the call asks what the user asked")
        return Verdict(verdict="FAIL", reason=f"the user asked for {asked.model_dump(exclude_defaults=True)}")

    def key_facts(self, args: ClockArgs, result: ToolResult) -> list[KeyFact]:  # type: ignore[override]
        data = result.data or {}
        facts = []
        if "days" in data:
            facts.append(KeyFact(label=f"{data['days']} days", number=data["days"]))
        if "hours" in data:
            facts.append(KeyFact(label=f"{abs(data['hours']):g} hours", number=abs(data["hours"]), tolerance=0.01))
        if "time" in data:
            facts.append(KeyFact(label=f"the time {data['time']}", words=[data["time"], data["time"].lstrip("0")]))
        if "weekday" in data and args.ask in ("weekday", "date"):
            wd = data["weekday"]
            facts.append(KeyFact(label=f"the weekday {_EN_WEEKDAYS[wd]}",
                                 words=[_EN_WEEKDAYS[wd], f"星期{_ZH_WEEKDAYS[wd]}", f"周{_ZH_WEEKDAYS[wd]}"]))
        return facts

    def render(self, question: str, args: ClockArgs, result: ToolResult) -> str | None:  # type: ignore[override]
        if not result.ok or not result.data:
            return None
        data, zh = result.data, language_of(question) == "zh"
        if args.ask == "now":
            d = date.fromisoformat(data["date"])
            where = "" if _HERE.match(args.place.strip()) else args.place
            if zh:
                return f"{where + '现在' if where else '现在'}是{zh_date(d)} {data['time']}({data['utc_offset']})。"
            return f"{'In ' + where + ' it' if where else 'It'} is {data['time']} on {en_date(d)} ({data['utc_offset']})."
        if args.ask == "difference":
            a, b, hours = args.place or data["place"], args.other_place or data["other_place"], data["hours"]
            if hours == 0:
                return f"{a}和{b}没有时差。" if zh else f"{a} and {b} have the same time."
            ahead, behind = (a, b) if hours > 0 else (b, a)
            span = hours_text(hours, "zh" if zh else "en")
            if zh:
                return f"{ahead}比{behind}快{span}({data['offsets'][0]} 与 {data['offsets'][1]})。"
            return f"{ahead} is {span} ahead of {behind} ({data['offsets'][0]} and {data['offsets'][1]})."
        d, today = date.fromisoformat(data["date"]), date.fromisoformat(data["today"])
        name = holiday_label(data["holiday"], "zh" if zh else "en") if data.get("holiday") else None
        if args.ask == "days_until":
            days = data["days"]
            plain = zh_date(d, today).replace("(", ",").rstrip(")")  # 2027年1月1日,星期五: no brackets in brackets
            what_zh, what_en = (f"{name}({plain})", f"{name} ({en_date(d, today)})") if name else \
                (zh_date(d, today), en_date(d, today))
            what_en = _capitalised(what_en)
            if days == 0:
                return f"今天就是{what_zh}。" if zh else f"{what_en} is today."
            if days < 0:
                return f"{what_zh}已经过去{-days}天了。" if zh else f"{what_en} was {-days} days ago."
            return f"距离{what_zh}还有{days}天。" if zh else f"{what_en} is in {days} day{'s' if days != 1 else ''}."
        if args.ask == "weekday":
            wd = d.weekday()
            if zh:
                written = str(d.day) in to_digits(args.date)  # the date as written, or a name that needs it said
                return f"{name or args.date}是星期{_ZH_WEEKDAYS[wd]}" + ("。" if written else f"({d.year}年{d.month}月{d.day}日)。")
            return f"{en_date(d).split(' ', 1)[1]} is a {_EN_WEEKDAYS[wd]}."
        if args.ask == "days_between":
            e = date.fromisoformat(data["other_date"])
            if zh:
                return f"从{zh_date(d)}到{zh_date(e)}共{data['days']}天。"
            return f"There are {data['days']} days from {en_date(d)} to {en_date(e)}."
        if zh:
            return f"{name or args.date}是{zh_date(d)}。"
        return f"{_capitalised(name or args.date)} is {en_date(d)}."


def _capitalised(text: str) -> str:
    """The start of an English sentence: 'next Friday' → 'Next Friday' (the rest as written)."""
    return text[:1].upper() + text[1:]


def _same(a: str, b: str) -> bool:
    def key(text: str) -> str:
        return re.sub(r"[\s的]", "", unicodedata.normalize("NFKC", text)).casefold()

    return key(a) == key(b)
