"""Dates and holidays: reading a date or a holiday (春节, 中秋 and the other lunar ones through ``lunardate``),
and writing dates, offsets and hours in Chinese and English."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, timedelta
from typing import Callable, Literal

from tools.reading.numerals import ordinal, to_digits
from tools.reading.when import add_months, find_when, resolve
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases


Ask = Literal["now", "zone", "difference", "convert", "weekday", "days_until", "days_between", "date", "holiday", "lunar",
              "time_until", "calendar"]


# Holidays: (Chinese label, English label, calendar, month, day, names). Lunar ones follow the Chinese calendar.
HOLIDAYS: list[tuple[str, str, str, int, int, tuple[str, ...]]] = [
    ("元旦", "New Year's Day", "solar", 1, 1, ("元旦", "新年", "new year's day", "new year", "new years day", "new years")),
    ("春节", "Chinese New Year", "lunar", 1, 1, ("春节", "过年", "大年初一", "农历新年", "chinese new year", "lunar new year",
                                                 "spring festival")),
    ("除夕", "Chinese New Year's Eve", "lunar", 0, 0, ("除夕", "大年三十", "年三十", "chinese new year's eve")),
    ("元宵节", "the Lantern Festival", "lunar", 1, 15, ("元宵节", "元宵", "lantern festival")),
    ("情人节", "Valentine's Day", "solar", 2, 14, ("情人节", "valentine's day", "valentines day", "valentine's",
                                                  "valentines", "valentine day")),
    ("妇女节", "Women's Day", "solar", 3, 8, ("妇女节", "三八节", "women's day", "international women's day")),
    ("植树节", "Arbor Day", "solar", 3, 12, ("植树节",)),
    ("清明节", "the Qingming Festival", "qingming", 4, 0, ("清明节", "清明", "qingming", "qingming festival",
                                                       "tomb sweeping day", "tomb-sweeping day")),
    ("青年节", "Youth Day", "solar", 5, 4, ("青年节", "五四青年节")),
    ("建党节", "the Party's founding day", "solar", 7, 1, ("建党节",)),
    ("建军节", "Army Day", "solar", 8, 1, ("建军节",)),
    ("中元节", "the Ghost Festival", "lunar", 7, 15, ("中元节", "鬼节", "ghost festival")),
    ("教师节", "Teachers' Day", "solar", 9, 10, ("教师节",)),
    ("腊八节", "the Laba Festival", "lunar", 12, 8, ("腊八节", "腊八", "laba festival")),
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
    # Days people ask for by name whose date moves, by their rule (the United States' where countries differ; the
    # tool asks the country's own calendar first: Canada's Thanksgiving, another country's Independence Day)
    ("复活节", "Easter", "easter", 0, 0, ("复活节", "easter", "easter sunday", "easter day")),
    ("耶稣受难日", "Good Friday", "easter", 0, -2, ("good friday",)),
    ("复活节星期一", "Easter Monday", "easter", 0, 1, ("easter monday",)),
    ("母亲节", "Mother's Day", "nth", 5, 26, ("母亲节", "mother's day", "mothers day", "mother day")),
    ("父亲节", "Father's Day", "nth", 6, 36, ("父亲节", "father's day", "fathers day", "father day")),
    ("感恩节", "Thanksgiving", "nth", 11, 43, ("感恩节", "thanksgiving", "thanksgiving day")),
    ("阵亡将士纪念日", "Memorial Day", "nth", 5, -10, ("memorial day",)),
    ("马丁·路德·金纪念日", "Martin Luther King Jr. Day", "nth", 1, 30, ("martin luther king day", "martin luther king jr day",
                                                                  "mlk day")),
    ("总统日", "Presidents' Day", "nth", 2, 30, ("presidents day", "presidents' day", "president's day")),
    ("哥伦布日", "Columbus Day", "nth", 10, 20, ("columbus day", "indigenous peoples day", "indigenous peoples' day")),
    ("美国独立日", "Independence Day", "solar", 7, 4, ("independence day", "fourth of july", "the fourth of july",
                                                 "4th of july", "july fourth")),
    ("退伍军人节", "Veterans Day", "solar", 11, 11, ("veterans day", "veteran's day", "veterans' day")),
    ("六月节", "Juneteenth", "solar", 6, 19, ("juneteenth",)),
    ("圣帕特里克节", "St. Patrick's Day", "solar", 3, 17, ("st patrick's day", "st. patrick's day", "saint patrick's day",
                                                      "st patricks day", "st. patricks day", "saint patricks day")),
    ("愚人节", "April Fools' Day", "solar", 4, 1, ("愚人节", "april fools day", "april fools' day", "april fool's day")),
    ("地球日", "Earth Day", "solar", 4, 22, ("地球日", "earth day")),
    ("节礼日", "Boxing Day", "solar", 12, 26, ("boxing day",)),
]


_HOLIDAY = {name: h for h in HOLIDAYS for name in h[5]}


HOLIDAY_WORDS = tuple(sorted(_HOLIDAY, key=len, reverse=True))  # every name a holiday is called by, the longest first
HOLIDAY_NAMES = "|".join(re.escape(n) for n in HOLIDAY_WORDS)


_WITH_YEAR = lazy_compile(rf"^(?:(?P<y1>\d{{4}})\s*年?\s*(?:的)?)?(?:the\s+)?(?P<name>{HOLIDAY_NAMES})(?:\s*,?\s*(?:of\s+)?(?P<y2>\d{{4}})(?:年)?)?$",
                        re.IGNORECASE)


_EN_MONTHS = {m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                              "september", "october", "november", "december"))}


_EN_MONTHS |= {m[:3]: i for m, i in list(_EN_MONTHS.items())} | {"sept": 9}


_MONTH = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))


# A date with its year: "2027年1月1日", "2027-01-01", "January 1, 2027", "1st of Jan. 2027"
_FULL_DATES = Forms([
    ("{y} 年 {m} 月 {d} [(日|号)]", "date"),
    ("{y} (-|/|.) {m} (-|/|.) {d}", "date"),
    ("{mn} [.] {d} [(st|nd|rd|th)] [,] {y}", "date"),
    ("{d} [(st|nd|rd|th)] [of] {mn} [.] [,] {y}", "date"),
], slots={"y": "year", "m": "day", "d": "day"}, types={"year": r"\d{4}", "day": r"\d{1,2}"},
   kinds={"mn": tuple(_EN_MONTHS)})


ZH_WEEKDAYS = "一二三四五六日"


EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


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


def lunar_of(d: date) -> tuple[int, int, bool] | None:
    """The day ``d`` in the Chinese calendar: (month, day, a leap month), or ``None`` (lunardate missing, or a year
    outside 1900–2099)."""
    try:
        from lunardate import LunarDate
    except ImportError:
        return None
    try:
        read = getattr(LunarDate, "from_solar_date", None) or LunarDate.fromSolarDate  # the newer name, when it has it
        found = read(d.year, d.month, d.day)
    except ValueError:
        return None
    leap = found.is_leap_month if "is_leap_month" in dir(found) else found.isLeapMonth  # the older name warns
    return found.month, found.day, bool(leap)


_ZH_DIGITS = "一二三四五六七八九十"


def zh_lunar(month: int, day: int, leap: bool) -> str:
    """A Chinese calendar's day as it is said: 十月二十, 闰六月初三, 腊月廿九, 正月十五."""
    said = ("初" + _ZH_DIGITS[day - 1] if day <= 10 else "十" + _ZH_DIGITS[day - 11] if day < 20 else
            "二十" if day == 20 else "廿" + _ZH_DIGITS[day - 21] if day < 30 else "三十")
    return f"{'闰' if leap else ''}{'正二三四五六七八九十冬腊'[month - 1]}月{said}"


def holiday_date(name: str, year: int) -> date | None:
    zh, en, calendar, month, day, _ = _HOLIDAY[name.casefold()]
    if calendar == "solar":
        return date(year, month, day)
    if calendar == "easter":  # Western Easter (dateutil's, which ``holidays`` brings), and days ``day`` from it
        from dateutil.easter import easter

        return easter(year) + timedelta(days=day)
    if calendar == "nth":  # the ``day // 10``-th ``day % 10`` weekday of the month; -10 + w: its last one
        return _nth_weekday(year, month, day)
    if calendar == "qingming":  # the solar term: 4 or 5 April (the 21st century's rule, 2000–2099)
        y = year % 100
        return date(year, 4, int(y * 0.2422 + 4.81) - y // 4) if 2000 <= year <= 2099 else None
    return _lunar(year, month, day)


def _nth_weekday(year: int, month: int, code: int) -> date:
    """The n-th weekday ``w`` (Monday 0) of ``month`` for ``code`` = 10n + w (26: the second Sunday), or its last
    one for ``code`` = -10 + w."""
    if code < 0:
        w = code + 10
        last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1))
        return last - timedelta(days=(last.weekday() - w) % 7)
    n, w = divmod(code, 10)
    first = date(year, month, 1)
    return first + timedelta(days=(w - first.weekday()) % 7 + 7 * (n - 1))


def holiday_label(name: str, language: str) -> str:
    h = _HOLIDAY[name.casefold()]
    return h[0] if language == "zh" else h[1]


_EN_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
# What counts a day from today, said after the span: "2 weeks from now", "3 months ago"
FROM_TODAY = ("from now", "from today", "later", "hence", "ago", "before today")
# A day said by how far it is from today: "in 100 days", "2 weeks from now", "3 months ago", "100天后", "3个月前"
_OFFSETS = Forms([
    ("[{in}] {n:digits} {unit} [{dir}]", "en"), ("[{in}] {n:count} {unit} [{dir}]", "en"),
    ("[(再过|过)] {n:digits} [个] {unit:zh_unit} {dir:zh_dir}", "zh"),
], types={"digits": r"\d+"},
   kinds={"in": ("in",), "count": tuple(_EN_COUNT), "unit": ("days", "day", "weeks", "week", "months", "month", "years",
                                                            "year"),
          "dir": FROM_TODAY,
          "zh_unit": ("天", "日", "周", "星期", "礼拜", "月", "年"), "zh_dir": ("后", "以后", "之后", "前", "以前", "之前")})
_THIS = Phrases(("[the] (next|this)", "今年的", "今年"), re.IGNORECASE)
_MAX_OFFSET_DAYS = 366 * 200  # a date two centuries either way: past that, no calendar we print is meant


def _offset(text: str, today: date) -> date | None:
    """``in 100 days``, ``2 weeks from now``, ``3 months ago``, ``100天后``, ``两周后``, ``3个月前``: today moved by it
    (a month later on the 31st is the month's last day)."""
    if (said := next((v for how, v in _OFFSETS.each(text) if how == "en"), None)) is not None:
        if not (said.get("in") or said.get("dir")) or (said.get("in") and said.get("dir")):
            return None  # "3 days" alone is a span, not a date; "in 3 days ago" is neither
        n = int(said["n"]) if said["n"].isdigit() else _EN_COUNT[" ".join(said["n"].casefold().split())]
        unit, back = said["unit"].casefold().rstrip("s"), said.get("dir", "").casefold() in ("ago", "before today")
    elif (said := next((v for how, v in _OFFSETS.each(to_digits(text)) if how == "zh"), None)) is not None:
        n, back = int(said["n"]), said["dir"].endswith("前")
        unit = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}[said["unit"]]
    else:
        return None
    n = -n if back else n
    if unit in ("day", "week"):
        days = n * (7 if unit == "week" else 1)
        return today + timedelta(days=days) if abs(days) <= _MAX_OFFSET_DAYS else None
    months = n * (12 if unit == "year" else 1)
    return add_months(today, months) if abs(months) <= 12 * 200 else None


def _ending_in(text: str, words: str) -> tuple[str, bool]:
    """``text`` without ``words`` said last, after a word of its own, and whether they were."""
    said = text.rsplit(None, len(words.split()))
    if len(said) > len(words.split()) and [w.casefold() for w in said[1:]] == words.split() and not text[-1:].isspace():
        return said[0], True
    return text, False


# The last day of this year or this month, said as its end ("the end of the year", "年底", "月底")
_END_OF = {**{said: "year" for said in ("end of the year", "end of this year", "end of year", "year end", "year's end",
                                        "年底", "年末", "今年年底", "今年年末", "今年底")},
           **{said: "month" for said in ("end of the month", "end of this month", "end of month", "month end",
                                         "月底", "月末", "这个月底", "本月底", "这个月月底", "本月月底", "这月底")}}


_WEEKEND = frozenset({"weekend", "周末", "这周末", "本周末", "这个周末"})

_YEARS_SAID = {"this year": 0, "it": 0, "": 0, "next year": 1, "last year": -1, "今年": 0, "本年": 0, "明年": 1, "去年": -1}
_MONTHS_SAID = {"this month": 0, "next month": 1, "last month": -1, "这个月": 0, "本月": 0, "这月": 0, "下个月": 1, "下月": 1,
                "上个月": -1, "上月": -1}


def month_or_year(text: str, today: date) -> tuple[int, int | None] | None:
    """The month or the year ``text`` names, as (year, month) or (year, None): "February 2028", "feb", "this month",
    "2028", "next year", "2028年2月", "二月份", "今年", "下个月". A month said without its year is this year's."""
    t = " ".join(to_digits(unicodedata.normalize("NFKC", text)).casefold().split()).removesuffix("份")
    if t in _MONTHS_SAID:
        month = today.month - 1 + _MONTHS_SAID[t]
        return today.year + month // 12, month % 12 + 1
    if t in _YEARS_SAID:
        return today.year + _YEARS_SAID[t], None
    if (digits := t.removesuffix("年")).isdecimal() and len(digits) == 4:
        return int(digits), None
    year_said, said_in, month_said = t.partition("年")  # "2028年2月", "今年2月"
    if t[:2] in _YEARS_SAID and len(t) > 2:
        year_said, said_in, month_said = t[:2], "年", t[2:].removeprefix("的")
    if not said_in:
        year_said, month_said = "", t
    year_said = year_said.strip()
    year = today.year + _YEARS_SAID[year_said] if year_said in _YEARS_SAID else \
        int(year_said) if year_said.isdecimal() and len(year_said) == 4 else None
    if year is None:
        return None
    if month_said.endswith("月") and month_said[:-1].strip().isdecimal():
        month = int(month_said[:-1])
        return (year, month) if 1 <= month <= 12 else None
    name, _, rest = month_said.partition(" ")  # "february 2028", "february of next year"
    rest = rest.removeprefix("of ").strip()
    if name not in _EN_MONTHS or (said_in and rest):
        return None
    if rest in _YEARS_SAID:
        return today.year + _YEARS_SAID[rest], _EN_MONTHS[name]
    return (int(rest), _EN_MONTHS[name]) if rest.isdecimal() and len(rest) == 4 else None


def end_said(text: str) -> bool:
    """``text`` names the end of this year or month ("the end of the year", "年底"): said by that name."""
    return " ".join(text.casefold().removeprefix("the ").split()) in _END_OF


def read_date(text: str, today: date, own_day: Callable[[str, bool], date | None] | None = None
              ) -> tuple[date, str | None] | None:
    """The date ``text`` names, and the holiday's name when it is one: ``2027年1月1日``, ``2027-01-01``,
    ``January 1, 2027``, ``春节``, ``2027年春节``, ``Christmas 2027``, ``下周五``, ``明天``, ``11月28日``. A holiday or a
    date without a year is the next one, today included. ``own_day(name, this_year)``: a holiday said without a
    year's number and not next year's, as the user's country has it (Labor Day, Thanksgiving), before the rule's."""
    t = unicodedata.normalize("NFKC", text).strip().strip("?？。.!！").strip()
    said_this_year = t.startswith("今年")
    if (this := _THIS.match(t)) and "next" not in this.group():  # "this christmas", "今年的春节": the next one
        t = t[this.end():].lstrip()
    if t[:4].lower() == "the " and t[4:5].isdigit():  # "the 22nd of may"
        t = t[4:]
    t, this_year = _ending_in(t, "this year")  # "Christmas this year": this year's, even past
    t, next_year = _ending_in(t, "next year")  # "Easter next year": next year's
    if not next_year and t.startswith("明年"):  # "明年的春节"
        t, next_year = t.removeprefix("明年").removeprefix("的"), True
    if (moved := _offset(t, today)) is not None:
        return moved, None
    if (end := _END_OF.get(" ".join(t.casefold().removeprefix("the ").split()))) is not None:  # "the end of the year"
        last = date(today.year, 12, 31) if end == "year" else \
            date(today.year + today.month // 12, today.month % 12 + 1, 1) - timedelta(days=1)
        return last, None
    if " ".join(t.casefold().removeprefix("the ").split()) in _WEEKEND:  # "how many days until the weekend": its Saturday
        return today + timedelta(days=(5 - today.weekday()) % 7), None
    if m := _WITH_YEAR.match(t):
        if own_day is not None and not (m.group("y1") or m.group("y2") or next_year) and \
                (own := own_day(m.group("name"), bool(this_year) or said_this_year)) is not None:
            return own, m.group("name")
        name, year = m.group("name"), m.group("y1") or m.group("y2") or (str(today.year) if this_year else None) \
            or (str(today.year + 1) if next_year else None)
        if year:
            found = holiday_date(name, int(year))
        else:
            found = holiday_date(name, today.year)
            if found is not None and found < today:
                found = holiday_date(name, today.year + 1)
        return (found, name) if found else None
    for _, said in _FULL_DATES.each(to_digits(t)):  # 二〇二七年一月一日 too
        month = int(said["m"]) if "m" in said else _EN_MONTHS[said["mn"].casefold()]
        try:
            return date(int(said["y"]), month, int(said["d"])), None
        except ValueError:
            return None
    if (day := _day_of_month(t, today)) is not None:
        return day, None
    period = resolve(t, datetime.combine(today, datetime.min.time()))
    if period is not None and period.start == period.end and _only_a_day(t):
        return period.start, None
    return None


_MONTH_SAID = (" of this month", " this month", " of the month")


def _day_of_month(text: str, today: date) -> date | None:
    """A day of the month said alone ("the 12th", "the twelfth", "the twenty second", "the 22nd of this month"):
    this month's, or next month's once this month's has passed (said with "this month": this month's)."""
    t = " ".join(text.casefold().split())
    the = t.startswith("the ")
    t = t.removeprefix("the ")
    this_month = t.endswith(_MONTH_SAID)
    for said in _MONTH_SAID:
        t = t.removesuffix(said)
    n = ordinal(t) if the or t not in ("first", "second") else None  # "the second", never "a second"
    if n is None or not 1 <= n <= 31:
        return None
    year, month = today.year, today.month
    for _ in range(2 if this_month else 3):  # "the 31st" after a month of 30 days: the next month that has one
        if this_month or n >= today.day or (year, month) != (today.year, today.month):
            try:
                return date(year, month, n)
            except ValueError:
                if this_month:
                    return None
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def _only_a_day(text: str) -> bool:
    """``resolve`` reads a phrase inside any text; here the text must be nothing but the day phrase."""
    phrase = find_when(text)
    return phrase is not None and without_spaces(phrase.casefold()) == without_spaces(text.casefold())


def without_spaces(text: str) -> str:
    """``text`` with no spaces and no 的 ("11月 28日", "今年的 春节" are "11月28日", "今年春节")."""
    return "".join(c for c in text if not c.isspace() and c != "的")


def zh_date(d: date, today: date | None = None) -> str:
    year = f"{d.year}年" if today is None or d.year != today.year else ""
    return f"{year}{d.month}月{d.day}日(星期{ZH_WEEKDAYS[d.weekday()]})"


def en_date(d: date, today: date | None = None) -> str:
    year = f" {d.year}" if today is None or d.year != today.year else ""
    return f"{EN_WEEKDAYS[d.weekday()]} {d.day} {_EN_MONTH_NAMES[d.month - 1]}{year}"


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


def span_in(today: date, d: date, unit: str) -> dict[str, int | str]:
    """The span from ``today`` to ``d`` in whole weeks or calendar months and the days left over ("3 weeks and 6
    days", "2 months and 3 days"); a day past counts back."""
    later, earlier = (d, today) if d >= today else (today, d)
    if unit == "weeks":
        whole, rest = divmod((later - earlier).days, 7)
    else:
        whole = (later.year - earlier.year) * 12 + later.month - earlier.month
        if add_months(earlier, whole) > later:
            whole -= 1
        rest = (later - add_months(earlier, whole)).days
    return {"unit": unit, "whole": whole, "rest_days": rest}
