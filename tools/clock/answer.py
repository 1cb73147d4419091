"""The answer from a clock result: the deterministic check, the key facts and the tool's own sentence."""

from __future__ import annotations

import unicodedata
from datetime import date
from typing import Any

from tools.base import KeyFact, ToolResult, Verdict, language_of
from tools.clock.config import ClockArgs
from tools.clock.dates import EN_WEEKDAYS, FROM_TODAY, ZH_WEEKDAYS, en_date, end_said, holiday_label, hours_text, without_spaces, zh_date, zh_lunar
from tools.clock.question import TIME_WORDS, ClockQuestions, is_here
from tools.clock.zones import zone_first
from tools.reading.numerals import to_digits


class ClockAnswers:
    """The answer from a clock result (the check of a successful call, its key facts, the tool's own sentence); a
    part of :class:`tools.clock.tool.Clock`, given the reader of questions it checks calls against."""

    def __init__(self, questions: ClockQuestions) -> None:
        self.questions = questions

    def check(self, question: str, args: ClockArgs, result: ToolResult) -> Verdict | None:
        """A successful call asks what the user asked, where a rule can read that; None where none can."""
        asked = self.questions.parse(question) if TIME_WORDS.search(question) else None
        if asked is None:
            return None
        if asked.ask == args.ask and _same(asked.place, args.place) and _same(asked.other_place, args.other_place) \
                and _same(asked.date, args.date) and _same(asked.other_date, args.other_date) and _same(asked.at, args.at):
            return Verdict(verdict="PASS", reason="the call asks what the user asked")
        return Verdict(verdict="FAIL", reason=f"the user asked for {asked.model_dump(exclude_defaults=True)}")

    def key_facts(self, args: ClockArgs, result: ToolResult) -> list[KeyFact]:
        data = result.data or {}
        facts = []
        if "minutes" in data:
            facts.append(KeyFact(label=f"{data['minutes']} minutes", number=data["minutes"]))
        if "days" in data and args.ask != "convert":
            facts.append(KeyFact(label=f"{data['days']} days", number=data["days"]))
        if "hours" in data:
            facts.append(KeyFact(label=f"{abs(data['hours']):g} hours", number=abs(data["hours"]), tolerance=0.01))
        if "time" in data:
            facts.append(KeyFact(label=f"the time {data['time']}", words=[data["time"], data["time"].lstrip("0")]))
        if "weekday" in data and args.ask in ("weekday", "date", "holiday"):
            wd = data["weekday"]
            facts.append(KeyFact(label=f"the weekday {EN_WEEKDAYS[wd]}",
                                 words=[EN_WEEKDAYS[wd], f"星期{ZH_WEEKDAYS[wd]}", f"周{ZH_WEEKDAYS[wd]}"]))
        return facts

    def render(self, question: str, args: ClockArgs, result: ToolResult) -> str | None:
        if not result.ok or not result.data:
            return None
        data, zh = result.data, language_of(question) == "zh"
        if args.ask == "now":
            return _now_said(args, data, zh)
        if args.ask == "zone":
            return _zone_said(args, data, zh)
        if args.ask == "convert":
            return _converted(args, data, zh)
        if args.ask == "difference":
            return _difference_said(args, data, zh)
        if args.ask == "time_until":
            return _time_left(data, zh)
        if args.ask == "calendar":
            return _calendar_said(question, data, zh)
        d, today = date.fromisoformat(data["date"]), date.fromisoformat(data["today"])
        if args.ask == "holiday":
            return _holiday_said(args, data, d, today, zh)
        name = holiday_label(data["holiday"], "zh" if zh else "en") if data.get("holiday") else None
        if args.ask == "days_until":
            # its end said by name: "the end of the year (Thursday 31 December)", "年底(12月31日,星期四)"
            return _days_until_said(data, d, today, args.date if end_said(args.date) else name, zh)
        if args.ask == "weekday":
            wd = d.weekday()
            if zh:
                written = str(d.day) in to_digits(args.date)  # the date as written, or a name that needs it said
                return f"{name or args.date}是星期{ZH_WEEKDAYS[wd]}" + ("。" if written else f"({d.year}年{d.month}月{d.day}日)。")
            near = {0: "Today", 1: "Tomorrow", -1: "Yesterday"}.get((d - today).days)
            if near:  # "what day is it?": the day named as asked, then its date
                return f"{near} {'is' if near != 'Yesterday' else 'was'} {en_date(d)}."
            return f"{en_date(d).split(' ', 1)[1]} {'was' if d < today else 'is'} a {EN_WEEKDAYS[wd]}."
        if args.ask == "lunar":
            month, day, leap = data["lunar_month"], data["lunar_day"], data["leap"]
            if zh:
                return f"{name or args.date}是{zh_date(d, today)},农历{zh_lunar(month, day, leap)}。"
            return (f"{_capitalised(name or args.date)} ({en_date(d)}) is day {day} of the {_ORDINALS[month - 1]}"
                    f"{' leap' if leap else ''} month of the Chinese calendar.")
        if args.ask == "days_between":
            e = date.fromisoformat(data["other_date"])
            if zh:
                return f"从{zh_date(d)}到{zh_date(e)}共{data['days']}天。"
            return f"There are {data['days']} days from {en_date(d)} to {en_date(e)}."
        if zh:
            return f"{name or args.date}是{zh_date(d)}。"
        if not name and _from_today(args.date):
            # "in 2 weeks", "3 weeks ago": an offset from today, said as the day it lands on
            return f"{_capitalised(args.date)} it {'was' if d < today else 'will be'} {en_date(d)}."
        day_said = _capitalised(name or args.date)
        date_said = en_date(d)
        if day_said.removeprefix("On ").casefold() == EN_WEEKDAYS[d.weekday()].casefold():  # "Sunday is 29 November"
            day_said, date_said = day_said.removeprefix("On "), date_said.split(" ", 1)[1]
        return f"{day_said} {'was' if d < today else 'is'} {date_said}."


def _days_until_said(data: dict, d: date, today: date, name: str | None, zh: bool) -> str:
    """"Christmas (Friday 25 December) is in 33 days.", "距离春节(2027年2月6日,星期六)还有76天。", in weeks or months
    when asked so."""
    days = data["days"]
    plain = zh_date(d, today).replace("(", ",").rstrip(")")  # 2027年1月1日,星期五: no brackets in brackets
    what_zh, what_en = (f"{name}({plain})", f"{name} ({en_date(d, today)})") if name else \
        (zh_date(d, today), en_date(d, today))
    what_en = _capitalised(what_en)
    if days == 0:
        return f"今天就是{what_zh}。" if zh else f"{what_en} is today."
    if days < 0:
        return f"{what_zh}已经过去{-days}天了。" if zh else f"{what_en} was {-days} days ago."
    if data.get("unit") in ("weeks", "months"):  # "how many weeks until Christmas": weeks, then the days left
        return _span_said(data, what_zh if zh else what_en, zh)
    return f"距离{what_zh}还有{days}天。" if zh else f"{what_en} is in {days} day{'s' if days != 1 else ''}."


_EN_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                   "November", "December")


def _calendar_said(question: str, data: dict, zh: bool) -> str:
    """"February 2028 has 29 days.", "Yes: 2028 is a leap year (366 days).", "2028年2月有29天。", "是的,2028年是闰年(366天)。"""
    year, month, days, leap = data["year"], data.get("month"), data["days"], data["leap"]
    if month:
        return f"{year}年{month}月有{days}天。" if zh else f"{_EN_MONTH_NAMES[month - 1]} {year} has {days} days."
    if "闰" in question or "leap" in question.casefold():
        if zh:
            return f"是的,{year}年是闰年(366天,2月有29天)。" if leap else f"不是,{year}年不是闰年(365天,2月有28天)。"
        return f"Yes: {year} is a leap year (366 days; February has 29)." if leap else \
            f"No: {year} is not a leap year (365 days; February has 28)."
    return f"{year}年有{days}天{'(闰年)' if leap else ''}。" if zh else f"{year} has {days} days{' (a leap year)' if leap else ''}."


def _from_today(said: str) -> bool:
    """A day said by how far it is from today: "in 2 weeks", "3 weeks ago", "100 days from now"."""
    words = said.casefold().split()
    if said[:2].casefold() == "in" and said[2:3].isspace():
        return True
    return not said[-1:].isspace() and any(words[-len(w.split()):] == w.split() for w in FROM_TODAY)


def _difference_said(args: ClockArgs, data: dict, zh: bool) -> str:
    """'Tokyo is 9 hours ahead of London (UTC+9 and UTC+0).', the offsets in the order the places are said."""
    a, b, hours = _said(args.place, data["place"]), _said(args.other_place, data["other_place"]), data["hours"]
    b = b or ("这里" if zh else "here")  # one place asked of: against the time here ("is the time different in moscow")
    if hours == 0:
        return f"{a}和{b}没有时差。" if zh else f"{a} and {b} have the same time."
    if hours < 0 and not args.other_place.strip():  # "New York City is 5 hours behind here", never "here is … ahead"
        span = hours_text(-hours, "zh" if zh else "en")
        first, second = data["offsets"]
        return f"{a}比{b}慢{span}({first} 与 {second})。" if zh else f"{a} is {span} behind {b} ({first} and {second})."
    ahead, behind = (a, b) if hours > 0 else (b, a)
    first, second = data["offsets"] if hours > 0 else data["offsets"][::-1]
    span = hours_text(hours, "zh" if zh else "en")
    if zh:
        return f"{ahead}比{behind}快{span}({first} 与 {second})。"
    return f"{ahead} is {span} ahead of {behind} ({first} and {second})."


def _holiday_said(args: ClockArgs, data: dict, d: date, today: date, zh: bool) -> str:
    """The next public holiday: 'The next public holiday in the United States is Christmas Day, Friday 25 December,
    in 28 days.'"""
    days = data["days"]
    where = args.place.strip() if not is_here(args.place) else ""
    if zh:
        name = data.get("name_zh") or data["name"]
        when = {1: "明天"}.get(days, f"{days}天后")
        return f"{where + '的' if where else ''}下一个公共假日是{name},{zh_date(d, today)},{when}。"
    when = {1: "tomorrow"}.get(days, f"in {days} days")
    there = f" in {_name_cased(where) if len(where) > 3 else data['country_name']}" if where else ""
    return f"The next public holiday{there} is {data['name']}, {en_date(d)}, {when}."


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth")


def _said(written: str, name: str) -> str:
    """A place as the user wrote it; a time zone by its name for people ("pst": "Pacific Time"); a place written in
    lower case by its own name, with where it is when that was said ("sacramento california": "Sacramento,
    California"; "paris texas": "Paris, Texas", never a bare "Paris")."""
    if zone_first(written) or not written:
        return name
    if not (written.islower() and written.isascii() and name):
        return written
    return _with_where(_name_cased(written), name) or name


def _with_where(cased: str, name: str) -> str | None:
    """``name`` with where it is, when ``cased`` (a place as written, its name cased) is that name and a qualifier
    ("Paris Texas": "Paris, Texas"; "Glenwood Springs, CO"); ``None`` when it is not."""
    if not cased or key_of(cased) == key_of(name) or not key_of(cased).startswith(key_of(name)):
        return None
    qualifier = cased[len(name):].strip(" ,")
    return f"{name}, {qualifier}" if qualifier else name


def _converted(args: ClockArgs, data: dict, zh: bool) -> str:
    """A time of day in one place, in another: '15:00 in London is 00:00 the next day in Tokyo (UTC+0 and UTC+9).'"""
    a, b, shift = _said(args.place, data["place"]), _said(args.other_place, data["other_place"]), data["days"]
    if zh:
        day = {1: "次日", -1: "前一天"}.get(shift, "")
        return f"{a}{data['at']}是{b}{day}{data['time']}({data['offsets'][0]} 与 {data['offsets'][1]})。"
    day = {1: " the next day", -1: " the day before"}.get(shift, "")
    return f"{data['at']} in {a} is {data['time']}{day} in {b} ({data['offsets'][0]} and {data['offsets'][1]})."


def _capitalised(text: str) -> str:
    """The start of an English sentence, and the names of days in it: 'next friday' → 'Next Friday' (the rest as
    written)."""
    text = " ".join(w.capitalize() if w.casefold() in _DAY_NAMES else w for w in text.split(" "))
    return text[:1].upper() + text[1:]


_DAY_NAMES = frozenset(d.casefold() for d in EN_WEEKDAYS)


def key_of(text: str) -> str:
    return without_spaces(unicodedata.normalize("NFKC", text)).casefold()


def _same(a: str, b: str) -> bool:
    return key_of(a) == key_of(b)


def _now_said(args: ClockArgs, data: dict, zh: bool) -> str:
    """The time now, here or in a place ("In Tokyo it is 19:00 on …"), or in a time zone named ("It is 04:00
    Central Time on …")."""
    d = date.fromisoformat(data["date"])
    where = "" if is_here(args.place) else _name_cased(args.place)
    where = _with_where(where, data["place"]) or where  # "tokyo japan", "paris texas": the place, and where it is
    if data.get("span"):  # "in 45 minutes it will be 10:45 (Friday 27 November, UTC+0)"
        today = date.fromisoformat(data["today"])
        if zh:
            return f"{where}{data['span']}是{zh_date(d, today)} {data['time']}({data['utc_offset']})。"
        there = f" in {where}" if where else ""
        return (f"{_capitalised(data['span'])} it {'will be' if data['ahead'] else 'was'} {data['time']}{there} on "
                f"{en_date(d, today)} ({data['utc_offset']}).")
    if data.get("zone_named"):
        where = data["place"]
        if zh:
            return f"{where}现在是{zh_date(d)} {data['time']}({data['utc_offset']})。"
        return f"It is {data['time']} {where} on {en_date(d)} ({data['utc_offset']})."
    offsets = data.get("offsets") or []
    if len(offsets) > 1:  # "russia": its capital's time, said as one of the several its zones keep
        if zh:
            return (f"{where}现在有 {len(offsets)} 个不同的时区偏移,从 {offsets[0]} 到 {offsets[-1]};首都现在是"
                    f"{zh_date(d)} {data['time']}({data['utc_offset']})。")
        country = _country_said(_country_written(args.place, data["country"]))
        return (f"{country} keeps {len(offsets)} UTC offsets now, from {offsets[0]} to {offsets[-1]}; in its capital, "
                f"{data['place']}, it is {data['time']} on {en_date(d)} ({data['utc_offset']}).")
    if zh:
        return f"{where + '现在' if where else '现在'}是{zh_date(d)} {data['time']}({data['utc_offset']})。"
    where = _country_said(where, start=False) if data.get("country") else where
    return f"{'In ' + where + ' it' if where else 'It'} is {data['time']} on {en_date(d)} ({data['utc_offset']})."


def _zone_said(args: ClockArgs, data: dict, zh: bool) -> str:
    """The time zone of a place ("Miami is on America/New_York time: UTC-5 now"), of a country that keeps several
    ("Russia keeps 11 UTC offsets now, from UTC+2 to UTC+12; its capital, Moscow, …"), or here."""
    zone, offset, time = data["zone"], data["utc_offset"], data["time"]
    offsets = data.get("offsets") or []
    written = args.place.strip()
    if is_here(written):
        return f"这里用的是 {zone} 时间,现在是 {offset},{time}。" if zh else f"You are on {zone} time: {offset} now, and it is {time}."
    if zh:
        where = written  # as the user wrote it: 俄罗斯, 纽约
    elif data.get("country"):  # a country as written ("scotland": Scotland), by its name when abbreviated ("usa")
        where = _country_said(_country_written(written, data["country"]))
    else:
        where = data["place"]
    if len(offsets) > 1:
        if zh:
            return (f"{where}现在有 {len(offsets)} 个不同的时区偏移,从 {offsets[0]} 到 {offsets[-1]};"
                    f"首都用的是 {zone} 时间,现在是 {offset}({time})。")
        return (f"{where} keeps {len(offsets)} UTC offsets now, from {offsets[0]} to {offsets[-1]}; its capital, "
                f"{data['place']}, is on {zone} time, {offset} now (it is {time} there).")
    if zh:
        return f"{where}用的是 {zone} 时间,现在是 {offset}({time})。"
    return f"{where} is on {zone} time: {offset} now (it is {time} there)."


def _country_written(written: str, country: str) -> str:
    """A country as the user wrote it ("scotland": Scotland), by its name when abbreviated ("usa": United States)."""
    return country if len(written.strip()) <= 3 else _name_cased(written)


def _country_said(name: str, start: bool = True) -> str:
    """A country's name with the article it takes: "The United States" (a sentence's start), "the Netherlands",
    "Russia"."""
    plural = name.endswith(("Islands", "Republic", "Emirates", "States", "Kingdom", "Netherlands", "Philippines",
                            "Bahamas", "Maldives", "Gambia", "Comoros", "Seychelles", "Rep."))
    if name.casefold().startswith("the "):
        name = name[4:]
    elif not plural:
        return name
    return f"{'The' if start else 'the'} {name}"


def _name_cased(name: str) -> str:
    """A name written in lower case, as names are written ("costa rica": Costa Rica, "nyc": NYC); otherwise as
    written."""
    if not name.islower() or not name.isascii():
        return name
    if len(name) <= 3 and name.isalpha():
        return name.upper()
    return " ".join(w.upper() if len(w) == 2 and i else w[:1].upper() + w[1:] for i, w in enumerate(name.split()))


def _span_said(data: dict[str, Any], what: str, zh: bool) -> str:
    """The span in weeks or months, then the days left: "Christmas (Friday 25 December) is in 3 weeks and 6 days (27
    days).", "距离元宵节还有3周又2天(共23天)。"."""
    whole, rest, days, weeks = data["whole"], data["rest_days"], data["days"], data["unit"] == "weeks"
    if zh:
        span = f"{whole}{'周' if weeks else '个月'}" if whole else ""
        span += (f"又{rest}天" if span else f"{rest}天") if rest else ""
        return f"距离{what}还有{span}(共{days}天)。"
    unit = "week" if weeks else "month"
    span = f"{whole} {unit}{'s' if whole != 1 else ''}" if whole else ""
    if rest:
        span += f"{' and ' if span else ''}{rest} day{'s' if rest != 1 else ''}"
    return f"{what} is in {span} ({days} days)."


def _time_left(data: dict[str, Any], zh: bool) -> str:
    """"It is 10:00; 12:25 is in 2 hours and 25 minutes (145 minutes).", "现在是10:00,距离12:25还有2小时25分钟(共145分钟)。"."""
    hours, minutes, total = data["minutes"] // 60, data["minutes"] % 60, data["minutes"]
    if zh:
        span = (f"{hours}小时" if hours else "") + (f"{minutes}分钟" if minutes or not hours else "")
        day = "明天" if data["next_day"] else ""
        return f"现在是{data['time']},距离{day}{data['at']}还有{span}(共{total}分钟)。"
    parts = [f"{hours} hour{'s' if hours != 1 else ''}"] if hours else []
    if minutes or not hours:
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    day = " tomorrow" if data["next_day"] else ""
    return f"It is {data['time']}; {data['at']}{day} is in {' and '.join(parts)} ({total} minutes)."
