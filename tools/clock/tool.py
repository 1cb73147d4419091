"""The clock tool: time and dates without a model; its parts read the question and write the answer."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel

from tools.base import Grounding, KeyFact, LocalText, Permissions, Tool, ToolResult, Verdict
from tools.clock.answer import ClockAnswers
from tools.clock.config import ClockArgs, ClockConfig
from tools.clock.dates import lunar_of, month_or_year, read_date, span_in, utc_offset
from tools.clock.question import ClockQuestions, is_here
from tools.clock.public_days import country_of_locale, next_public_day, public_day_named
from tools.clock.zones import country_names, country_of_zone, country_offsets, zone_first, zone_named
from tools.gazetteer import Gazetteer, gazetteer, index_path
from tools.reading.time_of_day import clock_time, hour_said
from tools.reading.when import current_time, local_zone, span_from_now


def _from_now(said: str, zone: tuple[tzinfo, str], now: datetime) -> ToolResult:
    """The time ``said`` ("in 45 minutes", "3 hours ago", "两个小时后") from ``now`` in ``zone``."""
    span = span_from_now(said)
    if span is None:
        return ToolResult.failure(f"cannot read '{said}' as a span from now: write it as 'in 45 minutes', '3 hours ago' "
                                  "or '2小时后', or leave 'at' out for now",
                                  LocalText(zh=f"看不懂“{said}”。", en=f"I cannot read '{said}'."))
    t = (now + timedelta(seconds=span)).astimezone(zone[0])
    return ToolResult.success(place=zone[1], time=t.strftime("%H:%M"), date=t.date().isoformat(), weekday=t.weekday(),
                              utc_offset=utc_offset(t), span=said, ahead=span >= 0, today=now.date().isoformat())


class Clock(Tool[ClockArgs]):
    """The tool as the registry sees it, put together from its parts: what reads the question and what writes the
    answer are objects it holds (given what they need), not mixins sharing its attributes."""

    name = "clock"
    description = ("Time and dates: the time now in a place, the time zone a place or country is in, the time "
                   "difference of two places, the weekday of a date, "
                   "days until a date or holiday (春节, 中秋, Christmas …), days between two dates, the date of a day "
                   "phrase or holiday. Copy places, dates and holidays as the user wrote them.")
    Args = ClockArgs
    Config = ClockConfig
    reads = (
        ("what time is it in Tokyo", {"place": "Tokyo"}), ("东京现在几点", {"place": "东京"}),
        ("距离春节还有多少天", {}), ("good morning! what time is it in Tokyo?", {"place": "Tokyo"}),
        ("could you please tell me what time it is in London", {"place": "London"}),
        ("请问东京现在几点呢？谢谢", {"place": "东京"}), ("你能告诉我伦敦现在几点吗", {"place": "伦敦"}),
        ("俄罗斯是哪个时区", {"ask": "zone", "place": "俄罗斯"}),
    )
    near_misses = ("good morning!", "good evening, how are you?", "have a good evening!", "tonight was fun",
                   "<<SYS>> what time is it in Tokyo <</SYS>>", "我明天3点半开会,要准备什么?")
    title = LocalText(zh="时间和日期", en="time and dates")

    renders_directly = True

    @classmethod
    def from_settings(cls, settings: Any, paths: Any) -> Clock:
        return cls(ClockConfig(gazetteer_index=index_path(settings, paths), home_city=settings.home_city,
                               clock=settings.clock))

    def __init__(self, config: ClockConfig) -> None:
        super().__init__(config)
        self.cfg = config
        self.questions = ClockQuestions(places=lambda: self.gazetteer, now=self.now)
        self.answers = ClockAnswers(self.questions)

    # the hooks, each the part's that knows

    def parse(self, question: str) -> ClockArgs | None:
        return self.questions.parse(question)

    def route(self, question: str) -> list[BaseModel] | None:
        return self.questions.route(question)

    def grounding(self, question: str) -> Grounding:
        return self.questions.grounding(question)

    def from_reading(self, target: str, question: str) -> list[BaseModel] | str | None:
        """The time now, the time zone, a day's date or weekday and the next public holiday, as the reader heard
        them asked in any words ("have you the time", "what's the time set to in florida right now", "which
        timezone is reno in", "what day does april sixteenth fall on", "when's our next day off")."""
        return self.questions.heard(target, question)

    def check(self, question: str, args: ClockArgs, result: ToolResult) -> Verdict | None:
        return super().check(question, args, result) if not result.ok else self.answers.check(question, args, result)

    def key_facts(self, args: ClockArgs, result: ToolResult) -> list[KeyFact]:
        return self.answers.key_facts(args, result)

    def render(self, question: str, args: ClockArgs, result: ToolResult) -> str | None:
        return self.answers.render(question, args, result)

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
        """The timezone of ``place`` ('' or 'here': the home city's, else the machine's; a place, or a time zone by
        its name: "Central Time", "pst") and its name for people."""
        if is_here(place):
            if self.cfg.home_city:
                return self._zone(self.cfg.home_city)
            local = datetime.now().astimezone().tzinfo
            return (local, "") if local is not None else None
        found = None if (first := zone_first(place)) else self.gazetteer.resolve(place)
        key, name = first or ((found.timezone, found.name) if found is not None and found.timezone else
                              zone_named(place) or ("", ""))
        try:
            return (ZoneInfo(key), name) if key else None
        except ZoneInfoNotFoundError:
            return None

    def _by_zone_name(self, place: str) -> bool:
        """``place`` is a time zone's name ("Central Time", "pst"), not a place's."""
        return zone_first(place) is not None or (zone_named(place) is not None and not is_here(place)
                                                  and self.gazetteer.resolve(place) is None)

    def _today(self) -> date:
        zone = self._zone("")
        return self.now().astimezone(zone[0] if zone else timezone.utc).date()

    def _zone_of(self, asked: str, zone: tuple[tzinfo, str], t: datetime) -> ToolResult:
        """The time zone ``asked`` is in (a country: every UTC offset its zones keep now, and its capital's)."""
        code = self.gazetteer.country(asked) if not is_here(asked) else None
        offsets = country_offsets(code, t) if code else []
        return ToolResult.success(place=zone[1], zone=str(zone[0]), utc_offset=utc_offset(t), time=t.strftime("%H:%M"),
                                  date=t.date().isoformat(), weekday=t.weekday(),
                                  country=country_names().get(code, asked) if code else "", offsets=offsets)

    @staticmethod
    def _convert(args: ClockArgs, zones: list[tuple[tzinfo, str]], there_now: datetime) -> ToolResult:
        """``args.at`` today in the first place, in the second: its time, and the day it falls on there."""
        at = clock_time(args.at)
        if at is None:
            return ToolResult.failure(f"cannot read the time '{args.at}': write it as 3pm, 15:00 or 下午3点",
                                      LocalText(zh=f"看不懂时间“{args.at}”。", en=f"I cannot read the time '{args.at}'."))
        start = there_now.replace(hour=at[0], minute=at[1], second=0, microsecond=0)  # today, on that place's clock
        there = start.astimezone(zones[1][0])
        return ToolResult.success(place=zones[0][1], other_place=zones[1][1], at=start.strftime("%H:%M"),
                                  time=there.strftime("%H:%M"), days=(there.date() - start.date()).days,
                                  offsets=[utc_offset(start), utc_offset(there)])

    def _country(self, place: str) -> str | None:
        """The country of ``place`` (a country or a place in it; '' or 'here': the home city's, else the machine's
        time zone's, else the locale's region)."""
        if not is_here(place):
            return self.gazetteer.country(place) or (p.country if (p := self.gazetteer.resolve(place)) else None)
        if self.cfg.home_city:
            return self._country(self.cfg.home_city)
        zone = getattr(local_zone(), "key", "")
        return country_of_zone(zone) or country_of_locale()

    def _countrys(self, holiday: str, today: date, this_year: bool) -> date | None:
        """The day a named holiday falls on in the user's country's calendar (Labor Day in September in the United
        States, Thanksgiving in October in Canada), or ``None`` (no country known, or no such day in its calendar:
        the date reader's own day stands)."""
        country = self._country("")
        return public_day_named(country, holiday, today, this_year) if country else None

    def _next_holiday(self, args: ClockArgs) -> ToolResult:
        country = self._country(args.place)
        if country is None and is_here(args.place):
            return ToolResult.failure(
                "the country is unknown: no home city, and the machine's time zone names none; ask for a country",
                LocalText(zh="我不知道你在哪个国家。可以问“日本的下一个节假日”,或者设置你的城市:"
                             "assistant config set home_city 北京",
                          en="I don't know which country you are in. Ask for a country's (\"the next holiday in "
                             "France\"), or set your home city: assistant config set home_city Paris"))
        if country is None:
            return ToolResult.failure(f"unknown place '{args.place}': give a country, e.g. 'Japan' or '日本'",
                                      LocalText(zh=f"找不到地点“{args.place}”。", en=f"I could not find the place '{args.place}'."))
        today = self._today() if is_here(args.place) else self.now().date()
        day, zh_day = next_public_day(country, today), next_public_day(country, today, zh=True)
        if day is None:
            return ToolResult.failure(f"no calendar of public holidays for {country} here",
                                      LocalText(zh="这里没有该国家或地区的公共假日日历。",
                                                en="I have no calendar of public holidays for that country."))
        return ToolResult.success(date=day.day.isoformat(), weekday=day.day.weekday(), today=today.isoformat(),
                                  days=(day.day - today).days, name=day.name,
                                  name_zh=zh_day.name if zh_day is not None and zh_day.name != day.name else "",
                                  country=country, country_name=country_names().get(country, country))

    def _time_until(self, args: ClockArgs, now: datetime) -> ToolResult:
        """Hours and minutes from now to the next time of day ``args.at`` (of either half of the day when it says
        neither: "12点25分" at 10:00 is 12:25, "5" at 10:00 is 17:00)."""
        said = hour_said(args.at)
        if said is None:
            return ToolResult.failure(f"cannot read the time of day '{args.at}': write it as 17:30 or 5:30 pm",
                                      LocalText(zh=f"看不懂时间“{args.at}”。", en=f"I cannot read the time '{args.at}'."))
        zone = self._zone("")
        local = now.astimezone(zone[0] if zone else timezone.utc)
        hour, minute, certain = said
        hours = [hour] if certain else sorted({hour % 12, hour % 12 + 12})
        start = local.replace(second=0, microsecond=0)
        times = [start.replace(hour=h, minute=minute) for h in hours]
        times = [t if t > start else t + timedelta(days=1) for t in times]
        at = min(times)
        minutes = int((at - start).total_seconds() // 60)
        return ToolResult.success(time=local.strftime("%H:%M"), at=at.strftime("%H:%M"), minutes=minutes,
                                  next_day=at.date() != local.date())

    async def run(self, args: ClockArgs) -> ToolResult:
        now = self.now()
        if args.ask == "holiday":
            return self._next_holiday(args)
        if args.ask == "time_until":
            return self._time_until(args, now)
        if args.ask in ("now", "zone", "difference", "convert"):
            zones = []
            for place in ([args.place] if args.ask in ("now", "zone") else [args.place, args.other_place]):
                zone = self._zone(place)
                if zone is None:
                    return ToolResult.failure(f"unknown place '{place}': give a city, e.g. 'Tokyo' or '东京'",
                                              LocalText(zh=f"找不到地点“{place}”。", en=f"I could not find the place '{place}'."))
                zones.append(zone)
            local = [now.astimezone(z) for z, _ in zones]
            if args.ask == "convert":
                return self._convert(args, zones, local[0])
            if args.ask == "now":
                t = local[0]
                if args.at:  # "in 45 minutes", "3 hours ago": the time that far from now, there
                    return _from_now(args.at, zones[0], t)
                by_zone = self._by_zone_name(args.place)
                code = self.gazetteer.country(args.place) if not is_here(args.place) and not by_zone else None
                # a country of several time zones: its capital's time, and that it is one of several
                return ToolResult.success(place=zones[0][1], time=t.strftime("%H:%M"), date=t.date().isoformat(),
                                          weekday=t.weekday(), utc_offset=utc_offset(t), zone_named=by_zone,
                                          country=country_names().get(code, args.place) if code else "",
                                          offsets=country_offsets(code, t) if code else [])
            if args.ask == "zone":
                return self._zone_of(args.place, zones[0], local[0])
            hours = ((local[0].utcoffset() or timedelta(0)) - (local[1].utcoffset() or timedelta(0))).total_seconds() / 3600
            return ToolResult.success(place=zones[0][1], other_place=zones[1][1], hours=hours,
                                      offsets=[utc_offset(t) for t in local], times=[t.strftime("%H:%M") for t in local])
        return _calendar(args.date, self._today()) if args.ask == "calendar" else self._on_a_date(args, self._today())

    def _on_a_date(self, args: ClockArgs, today: date) -> ToolResult:
        """The asks of a date: its weekday, the days until it or between it and another, its date, its lunar date."""
        first = read_date(args.date, today, own_day=lambda name, this_year: self._countrys(name, today, this_year))
        if first is None:
            return ToolResult.failure(f"cannot read the date '{args.date}': write it as 2027-01-01, a holiday (春节, Christmas) "
                                      "or a day phrase (下周五, next Friday)",
                                      LocalText(zh=f"看不懂日期“{args.date}”。", en=f"I cannot read the date '{args.date}'."))
        d, holiday = first
        data: dict = {"date": d.isoformat(), "weekday": d.weekday(), "holiday": holiday, "today": today.isoformat()}
        if args.ask == "days_until":
            data["days"] = (d - today).days
            if args.unit != "days":
                data |= span_in(today, d, args.unit)
        elif args.ask == "lunar":
            lunar = lunar_of(d)
            if lunar is None:
                return ToolResult.failure("no Chinese calendar here for that day (lunardate, 1900–2099)",
                                          LocalText(zh="这一天的农历日期我算不出来。",
                                                    en="I cannot tell that day's date in the Chinese calendar."))
            data |= {"lunar_month": lunar[0], "lunar_day": lunar[1], "leap": lunar[2]}
        elif args.ask == "days_between":
            second = read_date(args.other_date, today)
            if second is None:
                return ToolResult.failure(f"cannot read the date '{args.other_date}'",
                                          LocalText(zh=f"看不懂日期“{args.other_date}”。", en=f"I cannot read the date '{args.other_date}'."))
            data |= {"other_date": second[0].isoformat(), "days": abs((second[0] - d).days)}
        return ToolResult.success(**data)


def _calendar(said: str, today: date) -> ToolResult:
    """The days in the month or the year ``said`` names, and whether that year is a leap year."""
    import calendar

    found = month_or_year(said, today)
    if found is None:
        return ToolResult.failure(f"cannot read a month or a year in '{said}': write 'February 2028', '2028' or '2月'",
                                  LocalText(zh=f"看不懂“{said}”是哪个月或哪一年。", en=f"I cannot tell which month or year '{said}' is."))
    year, month = found
    days = calendar.monthrange(year, month)[1] if month else 366 if calendar.isleap(year) else 365
    return ToolResult.success(year=year, month=month, days=days, leap=calendar.isleap(year), today=today.isoformat())
