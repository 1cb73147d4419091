"""Time and dates with an injected clock: places on both sides of the date line, time differences, weekdays,
days until holidays (the lunar ones for the next three years), days between dates, and the traps."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from tools.clock import Clock, ClockArgs, ClockConfig, read_date


@pytest.fixture
def clock(gazetteer_index):
    def make(now: str = "2026-11-22T10:00:00+00:00", home: str | None = "北京") -> Clock:
        return Clock(ClockConfig(gazetteer_index=gazetteer_index, clock=now, home_city=home))
    return make


async def answer(tool: Clock, question: str) -> str:
    args = tool.parse(question)
    assert args is not None, question
    result = await tool.run(args)
    assert result.ok, result.error
    check = tool.check(question, args, result)
    assert check is not None and check.passed
    return tool.render(question, args, result) or ""


@pytest.mark.parametrize("now, question, expected", [
    ("2026-11-22T10:00:00+00:00", "东京现在几点", "东京现在是2026年11月22日(星期日) 19:00(UTC+9)。"),
    ("2026-11-22T10:00:00+00:00", "What time is it in Honolulu?", "In Honolulu it is 00:00 on Sunday 22 November 2026 (UTC-10)."),
    ("2026-11-22T10:00:00+00:00", "what's the time over in Sydney", "In Sydney it is 21:00 on Sunday 22 November 2026 (UTC+11)."),
    ("2026-11-22T10:00:00+00:00", "what time is it back home in London?", "In London it is 10:00 on Sunday 22 November 2026 (UTC+0)."),
    # across the date line: Auckland is already on Monday while Honolulu is still on Sunday
    ("2026-11-22T20:30:00+00:00", "奥克兰现在几点了?", "奥克兰现在是2026年11月23日(星期一) 09:30(UTC+13)。"),
    ("2026-11-22T20:30:00+00:00", "What's the time in Honolulu", "In Honolulu it is 10:30 on Sunday 22 November 2026 (UTC-10)."),
    ("2026-11-22T10:00:00+00:00", "印度现在几点", "印度现在是2026年11月22日(星期日) 15:30(UTC+5:30)。"),
    ("2026-11-22T10:00:00+00:00", "现在几点了?", "现在是2026年11月22日(星期日) 18:00(UTC+8)。"),  # here: the home city
    ("2026-11-22T10:00:00+00:00", "现在东京几点?", "东京现在是2026年11月22日(星期日) 19:00(UTC+9)。"),
    ("2026-11-22T10:00:00+00:00", "目前伦敦的时间", "伦敦现在是2026年11月22日(星期日) 10:00(UTC+0)。"),
])
async def test_the_time_now_in_a_place(clock, now, question, expected):
    assert await answer(clock(now), question) == expected


@pytest.mark.parametrize("question, expected", [
    ("what time will it be in 45 minutes", "In 45 minutes it will be 18:45 on Sunday 22 November (UTC+8)."),
    ("what time was it 3 hours ago", "3 hours ago it was 15:00 on Sunday 22 November (UTC+8)."),
    ("what's the time 7 hours from now", "7 hours from now it will be 01:00 on Monday 23 November (UTC+8)."),
    ("in 2 hours what time will it be", "In 2 hours it will be 20:00 on Sunday 22 November (UTC+8)."),
    ("两个小时后是几点", "两个小时后是11月22日(星期日) 20:00(UTC+8)。"), ("半小时前是几点", "半小时前是11月22日(星期日) 17:30(UTC+8)。"),
    ("过一个半小时是几点", "过一个半小时是11月22日(星期日) 19:30(UTC+8)。"),
])
async def test_the_time_a_span_from_now(clock, question, expected):
    """The time that far from now, here (it had been the model's, or the time now)."""
    assert await answer(clock(), question) == expected


@pytest.mark.parametrize("question", ["what time is it in 3 days", "what time was it in tokyo", "两天后是几点"])
def test_a_span_that_is_no_hours_or_minutes_is_not_read_as_one(clock, question):
    args = clock().parse(question)
    assert args is None or not args.at


@pytest.mark.parametrize("question, expected", [
    ("北京和纽约的时差", "北京比纽约快13小时(UTC+8 与 UTC-5)。"),
    ("time difference between London and Tokyo", "Tokyo is 9 hours ahead of London (UTC+9 and UTC+0)."),
    ("德里和伦敦差几个小时?", "德里比伦敦快5小时30分钟(UTC+5:30 与 UTC+0)。"),
    ("上海和北京的时差", "上海和北京没有时差。"),
])
async def test_time_differences(clock, question, expected):
    assert await answer(clock(), question) == expected


@pytest.mark.parametrize("question, expected", [
    ("is the time different in moscow", "Moscow is 5 hours behind Beijing (UTC+3 and UTC+8)."),
    ("how many hours ahead is tokyo?", "Tokyo is 1 hour ahead of Beijing (UTC+9 and UTC+8)."),
    ("what's the time difference with London", "London is 8 hours behind Beijing (UTC+0 and UTC+8)."),
    ("how far behind is new york from here", "New York City is 13 hours behind Beijing (UTC-5 and UTC+8)."),
    ("is shanghai in a different time zone", "Shanghai and Beijing have the same time."),
])
async def test_a_place_against_the_time_here(clock, question, expected):
    """One place asked of: against the home city (named), the place asked of said first, ahead or behind."""
    assert await answer(clock(), question) == expected


async def test_a_place_against_this_machine_when_no_home_is_set(clock):
    said = await answer(clock(home=None), "how many hours ahead is tokyo")  # this machine's zone, whatever it is
    assert said.startswith("Tokyo ") and "here" in said and "  " not in said, said


@pytest.mark.parametrize("question", ["is the time different in my dream", "how far ahead is the project",
                                      "what's the time difference with my last job"])
def test_a_difference_with_no_place_is_not_read_as_one(clock, question):
    assert clock().parse(question) is None


@pytest.mark.parametrize("question, expected", [
    ("when it's 3pm in London what time is it in Tokyo?", "15:00 in London is 00:00 the next day in Tokyo (UTC+0 and UTC+9)."),
    ("if it is 9am in New York, what time is it in Beijing?", "09:00 in New York is 22:00 in Beijing (UTC-5 and UTC+8)."),
    ("3pm London time in Tokyo", "15:00 in London is 00:00 the next day in Tokyo (UTC+0 and UTC+9)."),
    ("what's 8:30 pm Paris time in Sydney time", "20:30 in Paris is 06:30 the next day in Sydney (UTC+1 and UTC+11)."),
    ("伦敦下午3点是北京几点", "伦敦15:00是北京23:00(UTC+0 与 UTC+8)。"),
    ("北京时间晚上8点是纽约几点", "北京20:00是纽约07:00(UTC+8 与 UTC-5)。"),
    ("东京早上7点是洛杉矶几点", "东京07:00是洛杉矶前一天14:00(UTC+9 与 UTC-8)。"),
])
async def test_a_time_of_day_in_one_place_in_another(clock, question, expected):
    assert await answer(clock(), question) == expected


@pytest.mark.parametrize("question, expected", [
    ("please convert nine am cst to est time", "09:00 in Central Time is 10:00 in Eastern Time (UTC-6 and UTC-5)."),
    ("what is 3pm est in pst", "15:00 in Eastern Time is 12:00 in Pacific Time (UTC-5 and UTC-8)."),
    ("what is the time difference between eastern and pacific",
     "Eastern Time is 3 hours ahead of Pacific Time (UTC-5 and UTC-8)."),
    ("if it's eight pm on the east coast what time is it in sacramento california",
     "20:00 in Eastern Time is 17:00 in Sacramento, California (UTC-5 and UTC-8)."),
    ("convert new york time to london", "London is 5 hours ahead of New York City (UTC+0 and UTC-5)."),
])
async def test_time_zones_by_their_names_are_converted_and_compared(clock, question, expected):
    assert await answer(clock(), question) == expected


@pytest.mark.parametrize("question, said", [
    ("清明节是什么时候", "2027年4月5日"), ("哪天清明节", "2027年4月5日"), ("植树节是什么时候", "2027年3月12日"),
    ("日期植树节", "2027年3月12日"), ("腊八节是什么时候", "2027年1月15日"), ("明年春节是什么时候", "2027年2月6日"),
])
async def test_a_chinese_holiday_asked_when(clock, question, said):
    """"X是什么时候", "哪天X": the day a holiday falls on, the Qingming solar term's (4 or 5 April) among them."""
    assert said in await answer(clock(), question)


@pytest.mark.parametrize("question, said", [
    ("明天是农历几号", "明天是11月23日(星期一),农历十月十五。"), ("今天农历是多少", "农历十月十四"),
    ("今天是农历几月几号", "农历十月十四"), ("春节是农历几号", "农历正月初一"), ("腊八节是农历几号", "农历腊月初八"),
])
async def test_the_chinese_calendar_s_date_of_a_day(clock, question, said):
    assert said in await answer(clock(), question)


@pytest.mark.parametrize("question", [
    "tell me how to go bali without airplane with lowest cost option time doesn't matter i have two hundred days "
    "travel time and only dollars to spend",
    "I want to book a restaurant with creamed eggs on toast on Kansas Day within walking distance of British Indian "
    "Ocean Territory",
])
def test_a_long_sentence_in_the_shape_of_a_conversion_raises_nothing(clock, question):
    assert clock().route(question) is None  # its "places" are longer than any place: no question of the clock


@pytest.mark.parametrize("question, said", [
    ("what year is it", "22 November 2026"), ("what month is it", "22 November 2026"),
    ("what's the current date, month and year", "22 November 2026"), ("in six days, what will it be", "28 November 2026"),
    ("what day is it gonna be in twenty-one days", "13 December 2026"), ("please share today's date", "22 November 2026"),
    ("what is the date and time", "22 November 2026"), ("tell me the time and date", "22 November 2026"),
])
async def test_the_date_asked_in_more_words(clock, question, said):
    said_now = await answer(clock(), question)
    assert said in said_now and (":" in said_now) == ("time" in question)  # the date and the time: both said


@pytest.mark.parametrize("question, ask, place", [
    ("i wanna know what timezone spain is in", "zone", "spain"), ("please search for portland's timezone", "zone", "portland"),
    ("when do i have some time off next", "holiday", ""), ("when will i get the next holiday with pay", "holiday", ""),
    ("what's the time period till our next day off", "holiday", ""),
    # a zone by its people's name or a region's side; the time asked in idioms; holidays asked as "any"
    ("what is the time right now in the peruvian time zone", "now", "peru"),
    ("what time is it in the mexican time zone", "now", "mexico"),
    ("the current time in southern california", "now", "california"), ("what time is it in northern italy", "now", "italy"),
    ("what time is it on the pacific coast right now", "now", "Pacific Time"),
    ("what time is it getting to be", "now", ""), ("what time do you have on your watch", "now", ""),
    ("are there any holidays this month", "holiday", ""), ("are there any holiday's comming up", "holiday", ""),
    ("when is my next vacation day", "holiday", ""), ("how much longer until my next day off", "holiday", ""),
    # the zone of a place one may be in
    ("if i'm in japan, what time zone am i in", "zone", "japan"),
    ("if you're in melbourne, what timezone are you in", "zone", "melbourne"),
    ("what timezone would i be in if i traveled to moscow", "zone", "moscow"),
    ("what time is it in the french time zone", "now", "france"),  # a people's word with no regular ending
])
def test_zones_and_holidays_asked_in_more_words(clock, question, ask, place):
    args = clock().parse(question)
    assert args is not None and (args.ask, args.place) == (ask, place)


@pytest.mark.parametrize("question", [
    "what time is it in the west",  # no zone: "west" is no abbreviation of Western European Time here
    "what time do i have my meeting", "i don't have any holidays left", "do you have any holiday plans",
    "what day of the week does the 22nd fall on next month",  # the month said apart, not read: never the next 22nd
    "if i was in my bed what timezone am i in",  # no place
    "what week of the year is it", "what day of the year is it",  # a count today's date does not say
])
def test_near_misses_of_zones_idioms_and_holidays(clock, question):
    assert clock().parse(question) is None


async def test_a_day_of_this_month_said_apart_from_its_month_is_this_month_s(clock):
    tool = clock("2026-11-27T10:00:00+00:00")
    args = tool.parse("what day of the week does the twenty second fall on this month")
    assert args is not None and args.ask == "weekday"
    assert "Sunday" in await answer(tool, "what day of the week does the twenty second fall on this month")


@pytest.mark.parametrize("question", ["what hour and minute is it", "what time is it in of"])
def test_a_word_is_no_place_whatever_else_it_names(clock, question):
    """"and" is Andorra's three letters, "of" a town in Turkey: as words of a question, neither is a place."""
    args = clock().parse(question)
    assert args is None or args.place == "", args


def test_am_is_a_word_not_armenia(clock):
    args = clock().parse("what is the next day i am off")
    assert args is not None and args.ask == "holiday" and args.place == ""  # here: not the country whose letters are AM
    assert clock().questions.heard("clock.holiday", "when am i off next") == [ClockArgs(ask="holiday", place="")]


@pytest.mark.parametrize("question", ["什么时候下雨", "明天什么时候", "我们什么时候出发", "can you tell me what the next day is",
                                      "what year was i born", "how many days are in a year", "how many days in paris",
                                      "how many days are left in my trip", "is 2028 a good year"])
def test_when_said_of_no_holiday_is_not_a_date_asked(clock, question):
    assert clock().route(question) is None


@pytest.mark.parametrize("question", ["伦敦3点是北京几点", "when it's 3 in London what time is it in Tokyo?"])
def test_a_time_whose_hour_is_not_certain_is_not_converted_by_rule(clock, question):
    assert clock().route(question) is None  # 3 in the morning or the afternoon: the model asks, or the user says


async def test_summer_time_changes_the_difference(clock):
    july = clock("2026-07-01T12:00:00+00:00")
    assert await answer(july, "time difference between London and Tokyo") == \
        "Tokyo is 8 hours ahead of London (UTC+9 and UTC+1)."


@pytest.mark.parametrize("year, spring, mid_autumn", [
    (2027, date(2027, 2, 6), date(2027, 9, 15)),
    (2028, date(2028, 1, 26), date(2028, 10, 3)),
    (2029, date(2029, 2, 13), date(2029, 9, 22)),
])
def test_lunar_holidays_of_the_next_three_years(year, spring, mid_autumn):
    today = date(2026, 11, 22)
    assert read_date(f"{year}年春节", today) == (spring, "春节")
    assert read_date(f"Mid-Autumn Festival {year}", today) == (mid_autumn, "Mid-Autumn Festival")
    assert read_date(f"{year}年除夕", today) == (spring - timedelta(days=1), "除夕")


@pytest.mark.parametrize("question, expected", [
    ("离元旦还有几天?", "距离元旦(2027年1月1日,星期五)还有40天。"),
    ("距离春节还有多少天", "距离春节(2027年2月6日,星期六)还有76天。"),
    ("国庆节还有多少天?", "距离国庆节(2027年10月1日,星期五)还有313天。"),
    ("how many days until Christmas", "Christmas (Friday 25 December) is in 33 days."),
    ("how many weeks are left for christmas", "Christmas (Friday 25 December) is in 4 weeks and 5 days (33 days)."),
    ("how many months until the fourth of july", "Independence Day (Sunday 4 July 2027) is in 7 months and 12 days (224 days)."),
    ("元宵节还有几个星期", "距离元宵节(2027年2月20日,星期六)还有12周又6天(共90天)。"),
    ("多少月之后就是过年了", "距离春节(2027年2月6日,星期六)还有2个月又15天(共76天)。"),
    ("how long until christmas", "Christmas (Friday 25 December) is in 33 days."),
    # the days left in this year or month, by the name of its end
    ("how many days are left in the year", "The end of the year (Thursday 31 December) is in 39 days."),
    ("days remaining in this month", "The end of the month (Monday 30 November) is in 8 days."),
    ("how many days until the end of the year", "The end of the year (Thursday 31 December) is in 39 days."),
    ("今年还剩多少天", "距离年底(12月31日,星期四)还有39天。"), ("这个月还有几天", "距离月底(11月30日,星期一)还有8天。"),
    ("离年底还有多少天", "距离年底(12月31日,星期四)还有39天。"),
    ("今年还剩几个星期", "距离年底(12月31日,星期四)还有5周又4天(共39天)。"),
    # the days of a month or a year, and a leap year
    ("how many days are in february 2028", "February 2028 has 29 days."),
    ("how many days in february", "February 2026 has 28 days."),
    ("how many days does this month have", "November 2026 has 30 days."),
    ("how many days does february have in 2027", "February 2027 has 28 days."),
    ("how many days left in 2026", "Thursday 31 December is in 39 days."),
    ("is 2028 a leap year", "Yes: 2028 is a leap year (366 days; February has 29)."),
    ("will next year be a leap year", "No: 2027 is not a leap year (365 days; February has 28)."),
    ("how many days are there in 2028", "2028 has 366 days (a leap year)."),
    ("2028年2月有多少天", "2028年2月有29天。"), ("二月份有几天", "2026年2月有28天。"),
    ("今年是闰年吗", "不是,2026年不是闰年(365天,2月有28天)。"), ("这个月有多少天", "2026年11月有30天。"),
    # the time left until a time of day (18:00 here): the next to come, of either half of the day when none is said
    ("how many minutes until 5 pm", "It is 18:00; 17:00 tomorrow is in 23 hours (1380 minutes)."),
    ("how long until 7:30", "It is 18:00; 19:30 is in 1 hour and 30 minutes (90 minutes)."),
    ("还有多少分钟12点", "现在是18:00,距离明天00:00还有6小时(共360分钟)。"),
    ("查询距离18点25分还有多少分钟", "现在是18:00,距离18:25还有25分钟(共25分钟)。"),
    ("2027年春节是几号?", "春节是2027年2月6日(星期六)。"),
    ("when is Chinese New Year 2028", "Chinese New Year is Wednesday 26 January 2028."),
    ("2027年1月1日是星期几", "2027年1月1日是星期五。"),
    ("what day of the week is 2027-01-01", "1 January 2027 is a Friday."),
    ("下周五是几号", "下周五是2026年11月27日(星期五)。"),
    ("what is the date next Friday", "Next Friday is Friday 27 November 2026."),
    ("what's the date on wednesday", "Wednesday is 25 November 2026."),  # was "Wednesday is Wednesday …"
    ("what is the date next friday", "Next Friday is Friday 27 November 2026."),  # the day's name as a name
    ("今天几号", "今天是2026年11月22日(星期日)。"),
    ("从2026年1月1日到2026年3月1日有多少天", "从2026年1月1日(星期四)到2026年3月1日(星期日)共59天。"),
    ("how many days between 2024-01-01 and 2024-03-01", "There are 60 days from Monday 1 January 2024 to Friday 1 March 2024."),
    # the weekday asked the ways people ask it
    ("what day is it today?", "Today is Sunday 22 November 2026."),
    ("what day is it?", "Today is Sunday 22 November 2026."),
    ("what weekday is it", "Today is Sunday 22 November 2026."),
    ("what day is tomorrow?", "Tomorrow is Monday 23 November 2026."),
    ("what day is Christmas", "25 December 2026 is a Friday."),
    ("which day does Christmas fall on this year?", "25 December 2026 is a Friday."),
    ("what day of the week is New Year's Day this year?", "1 January 2026 was a Thursday."),  # this year's, though past
    ("what day was July 4 1776?", "4 July 1776 was a Thursday."),
    # a day counted from today
    ("what's the date 100 days from now?", "100 days from now it will be Tuesday 2 March 2027."),
    ("100天后是几号", "100天后是2027年3月2日(星期二)。"),
    ("what date is it in 2 weeks", "In 2 weeks it will be Sunday 6 December 2026."),
    ("what date was it 3 weeks ago", "3 weeks ago it was Sunday 1 November 2026."),
    ("两周后是星期几", "两周后是星期日(2026年12月6日)。"),
    ("what day will it be in 3 days?", "25 November 2026 is a Wednesday."),
    ("what day of the week was it 100 days ago?", "14 August 2026 was a Friday."),
    ("三个月后是几月几号", "三个月后是2027年2月22日(星期一)。"),
    ("what day of the week is the 12th", "12 December 2026 is a Saturday."),  # the next 12th
    # a day of this month, the next or the last, said with its month (never the next day of that number)
    ("what day of the week is the first of next month", "1 December 2026 is a Tuesday."),
    ("what day is the 1st of next month", "1 December 2026 is a Tuesday."),
    ("what's the date on the 15th of this month", "On the 15th of this month was Sunday 15 November 2026."),
    ("下个月一号是星期几", "下个月一号是星期二。"), ("下个月15号是几号", "下个月15号是2026年12月15日(星期二)。"),
    ("本月1号是周几", "本月1号是星期日。"), ("上个月1号是星期几", "上个月1号是星期四。"),
])
async def test_dates(clock, question, expected):
    assert await answer(clock(), question) == expected


@pytest.mark.parametrize("question", [
    "3点半开会", "明天几点出发?", "离我生日还有几天", "What time does the store open?", "Time flies", "几点起床比较好",
    "I had a great time in Paris", "what day is it going to rain", "春节快乐", "time and again",
    "假期还有几天", "我还有几天时间准备?", "what day is good for a picnic?", "what day is it in your story?",
    "which day is best for shopping?", "3 days", "I did it 3 days ago", "100天后再说吧",
])
def test_traps_are_not_time_questions(clock, question):
    assert clock().route(question) is None


async def test_the_model_asking_about_another_place_is_corrected(clock):
    tool = clock()
    wrong = ClockArgs(ask="now", place="Beijing")
    result = await tool.run(wrong)
    check = tool.check("东京现在几点", wrong, result)
    assert check is not None and not check.passed and "东京" in check.reason


async def test_an_unknown_place_is_feedback(clock):
    result = await clock().run(ClockArgs(ask="now", place="Xyzzyville"))
    assert not result.ok and result.fixable and "Xyzzyville" in result.error


async def test_a_clock_question_costs_no_model_call(fake, make_app):
    app = make_app(clock="2026-11-22T10:00:00+00:00", home_city="北京")
    result = await app.ask("东京现在几点?")
    assert result.ok and result.route == "clock" and result.model_calls == 0
    assert result.answer == "东京现在是2026年11月22日(星期日) 19:00(UTC+9)。"


@pytest.mark.parametrize("text, expected", [
    ("in a month", date(2026, 2, 28)), ("1 month later", date(2026, 2, 28)), ("3个月前", date(2025, 10, 31)),
    ("5 years ago", date(2021, 1, 31)), ("three days from now", date(2026, 2, 3)), ("两周后", date(2026, 2, 14)),
    ("3 days", None), ("in 3 days ago", None), ("in 999999 days", None),
])
def test_a_day_counted_from_today(text, expected):
    """A month later on the 31st is the month's last day; a span alone is no date."""
    found = read_date(text, date(2026, 1, 31))
    assert (found[0] if found else None) == expected


@pytest.mark.parametrize("text, expected", [
    ("the 12th", date(2026, 12, 12)), ("the twelfth", date(2026, 12, 12)), ("the twenty second", date(2026, 12, 22)),
    ("the twenty-fourth", date(2026, 12, 24)), ("the 27th", date(2026, 11, 27)), ("the 22nd of this month", date(2026, 11, 22)),
    ("the 31st", date(2026, 12, 31)), ("the 31st of this month", None), ("the second", date(2026, 12, 2)),
    ("second", None), ("the 32nd", None),
])
def test_a_day_of_the_month_said_alone_is_the_next_one(text, expected):
    """Said alone, the 12th is the next 12th (today's included), or this month's when "this month" is said; a month
    that lacks the day passes to the next that has it; "second" alone is no day ("a second")."""
    found = read_date(text, date(2026, 11, 27))
    assert (found[0] if found else None) == expected


@pytest.mark.parametrize("question, expected", [
    ("俄罗斯是哪个时区", "俄罗斯现在有 11 个不同的时区偏移,从 UTC+2 到 UTC+12;首都用的是 Europe/Moscow 时间,现在是 UTC+3(13:00)。"),
    ("纽约的时区", "纽约用的是 America/New_York 时间,现在是 UTC-5(05:00)。"),
    ("美国用的是什么时区", "美国现在有 6 个不同的时区偏移,从 UTC-10 到 UTC-5;首都用的是 America/New_York 时间,现在是 UTC-5(05:00)。"),
    ("这里是什么时区", "这里用的是 Asia/Shanghai 时间,现在是 UTC+8,18:00。"),  # here: the home city
])
async def test_the_time_zone_a_place_or_a_country_is_in(clock, question, expected):
    assert await answer(clock(), question) == expected


async def routed(tool: Clock, question: str) -> str:
    """The answer of the rule that reads ``question`` (its forms, or its words alone)."""
    args = tool.route(question)
    assert args is not None, question
    result = await tool.run(args[0])
    assert result.ok, result.error
    return tool.render(question, args[0], result) or ""


@pytest.mark.parametrize("question, expected", [
    # made only of the words such questions are asked with, and a value: read with no reader and no model
    ("current date", "Today is Sunday 22 November 2026."),
    ("what's today", "Today is Sunday 22 November 2026."),
    ("what is the day", "Today is Sunday 22 November 2026."),
    ("is it monday today", "Today is Sunday 22 November 2026."),
    ("what day of the week is the twenty second of may", "22 May 2027 is a Saturday."),
    ("what day is april sixteenth", "16 April 2027 is a Friday."),
    ("what time is it exactly", "It is 18:00 on Sunday 22 November 2026 (UTC+8)."),
    ("what time is it currently in istanbul", "In Istanbul it is 13:00 on Sunday 22 November 2026 (UTC+3)."),
    # a place qualified by its state or country with no comma, or a state's two letters that are also a country's
    ("what time is it in tokyo japan", "In Tokyo, Japan it is 19:00 on Sunday 22 November 2026 (UTC+9)."),
    ("what time is it in paris texas", "In Paris, Texas it is 04:00 on Sunday 22 November 2026 (UTC-6)."),  # not France
    ("what time is it in glenwood springs, co", "In Glenwood Springs, CO it is 03:00 on Sunday 22 November 2026 (UTC-7)."),
    ("what is the time now in california", "In California it is 02:00 on Sunday 22 November 2026 (UTC-8)."),
    ("what's chicago's time zone", "Chicago is on America/Chicago time: UTC-6 now (it is 04:00 there)."),
    ("reno's timezone is what", "Reno is on America/Los_Angeles time: UTC-8 now (it is 02:00 there)."),
    ("what time is it in the central timezone", "It is 04:00 Central Time on Sunday 22 November 2026 (UTC-6)."),
    ("tell me the timezone that spain is in", "Spain keeps 2 UTC offsets now, from UTC+0 to UTC+1; its capital, Madrid, "
                                              "is on Europe/Madrid time, UTC+1 now (it is 11:00 there)."),
    # a country of several time zones: its capital's time, said as one of them ("in russia" is no town named "In")
    ("what time is it in russia", "Russia keeps 11 UTC offsets now, from UTC+2 to UTC+12; in its capital, Moscow, it "
                                  "is 13:00 on Sunday 22 November 2026 (UTC+3)."),
    ("what time is it in usa", "The United States keeps 6 UTC offsets now, from UTC-10 to UTC-5; in its capital, "
                               "Washington, it is 05:00 on Sunday 22 November 2026 (UTC-5)."),
    ("俄罗斯现在几点", "俄罗斯现在有 11 个不同的时区偏移,从 UTC+2 到 UTC+12;首都现在是2026年11月22日(星期日) 13:00(UTC+3)。"),
    ("what time is it in japan", "In Japan it is 19:00 on Sunday 22 November 2026 (UTC+9)."),
    ("what time is it in the netherlands", "In the Netherlands it is 11:00 on Sunday 22 November 2026 (UTC+1)."),
    # a country by its people's word, its name in two words, a place asked against here in other words
    ("french time zone", "France is on Europe/Paris time: UTC+1 now (it is 11:00 there)."),
    ("what time is it in viet nam", "In Viet Nam it is 17:00 on Sunday 22 November 2026 (UTC+7)."),
    ("does phoenix have a different timezone", "Phoenix is 15 hours behind Beijing (UTC-7 and UTC+8)."),
    ("how many hours ahead is london from new york", "London is 5 hours ahead of New York City (UTC+0 and UTC-5)."),
    ("i need to know what timezone chicago is in", "Chicago is on America/Chicago time: UTC-6 now (it is 04:00 "
                                                   "there)."),
    # a time of day in one place asked in another, the place asked about first
    ("what time is it in sydney when it is 9 am in london", "09:00 in London is 20:00 in Sydney (UTC+0 and UTC+11)."),
    ("what is the time in india when the time in the uk is twelve pm", "12:00 in UK time is 17:30 in New Delhi (UTC+0 "
                                                                        "and UTC+5:30)."),
    ("if the time in paris is 3pm, what time is it in tokyo", "15:00 in Paris is 23:00 in Tokyo (UTC+1 and UTC+9)."),
    ("what day of the week is it", "Today is Sunday 22 November 2026."),
    ("what day of the week is New Year's Day this year?", "1 January 2026 was a Thursday."),
    ("纽约的时区", "纽约用的是 America/New_York 时间,现在是 UTC-5(05:00)。"),
    ("现在星期几", "今天是星期日(2026年11月22日)。"),
    ("旧金山几点几分", "旧金山现在是2026年11月22日(星期日) 02:00(UTC-8)。"),
    ("武汉的精确时间是", "武汉现在是2026年11月22日(星期日) 18:00(UTC+8)。"),
    ("明天什么日子", "明天是2026年11月23日(星期一)。"),
    ("还有多少天过年", "距离春节(2027年2月6日,星期六)还有76天。"),
    ("距离春节还有多久", "距离春节(2027年2月6日,星期六)还有76天。"),
    # the time asked with 什么, the year or the month asked (today's date says them), a time of day in numerals
    ("纽约现在是什么时间", "纽约现在是2026年11月22日(星期日) 05:00(UTC-5)。"),
    ("现在是什么时间", "现在是2026年11月22日(星期日) 18:00(UTC+8)。"),
    ("今年是哪一年", "今天是2026年11月22日(星期日)。"),
    ("现在是几月份", "今天是2026年11月22日(星期日)。"),
    ("北京时间下午三点是纽约几点", "北京15:00是纽约02:00(UTC+8 与 UTC-5)。"),
    ("北京时间晚上八点，纽约是几点", "北京20:00是纽约07:00(UTC+8 与 UTC-5)。"),
    ("三亚下午两点是伦敦几点", "三亚14:00是伦敦06:00(UTC+8 与 UTC+0)。"),
    # as requests translated from English word them: a place's time changed into another's, now or at a time said,
    # "X 比 Y 快几个小时", whether two places have a difference, whether today is a given weekday
    ("把纽约时间换算成伦敦时间", "伦敦比纽约快5小时(UTC+0 与 UTC-5)。"),
    ("东部时间和太平洋时间相差多少", "东部时间比太平洋时间快3小时(UTC-5 与 UTC-8)。"),
    ("请把北京时间早上九点换算成东京时间", "北京09:00是东京10:00(UTC+8 与 UTC+9)。"),
    ("如果伦敦是晚上十点，东京是几点", "伦敦22:00是东京次日07:00(UTC+0 与 UTC+9)。"),
    ("悉尼比北京快几个小时", "悉尼比北京快3小时(UTC+11 与 UTC+8)。"),
    ("纽约比北京慢多久", "北京比纽约快13小时(UTC+8 与 UTC-5)。"),
    ("东京和北京有时差吗", "东京比北京快1小时(UTC+9 与 UTC+8)。"),
    ("今天是星期一吗", "今天是星期日(2026年11月22日)。"), ("明天是不是周五", "明天是星期一(2026年11月23日)。"),
    # the weekend as a day: its Saturday (on a Sunday, the next one)
    ("还有几天到周末", "距离11月28日(星期六)还有6天。"), ("how many days until the weekend", "Saturday 28 November is in 6 days."),
    ("周末是几号", "周末是2026年11月28日(星期六)。"),
])
async def test_questions_in_other_words(clock, question, expected):
    assert await routed(clock(), question) == expected


@pytest.mark.parametrize("home, question, expected", [
    ("Paris", "when is the next holiday", "The next public holiday is Christmas Day, Friday 25 December 2026, in 33 days."),
    ("Paris", "how many more weeks until the next holiday", "The next public holiday is Christmas Day, Friday 25 December "
                                                            "2026, in 33 days."),
    ("Paris", "when is the next holiday in japan", "The next public holiday in Japan is Labor Thanksgiving Day, Monday "
                                                    "23 November 2026, tomorrow."),
    ("北京", "when will we have another day off", "The next public holiday is New Year's Day, Friday 1 January 2027, in "
                                                  "40 days."),
    ("北京", "下一个节假日是什么时候", "下一个公共假日是元旦,2027年1月1日(星期五),40天后。"),
    ("北京", "how long until the next bank holiday in the uk", "The next public holiday in Britain (UK) is Christmas "
                                                               "Day, Friday 25 December 2026, in 33 days."),
    ("北京", "最近什么时候放假", "下一个公共假日是元旦,2027年1月1日(星期五),40天后。"),
    ("New York", "when's the next federal holiday", "The next public holiday is Thanksgiving Day, Thursday 26 November "
                                                    "2026, in 4 days."),
    ("New York", "when is the next office holiday", "The next public holiday is Thanksgiving Day, Thursday 26 November "
                                                    "2026, in 4 days."),
])
async def test_the_next_public_holiday_where_the_user_is(clock, home, question, expected):
    assert await routed(clock(home=home), question) == expected


async def test_the_next_holiday_without_a_home_city_is_the_time_zone_s_country(clock, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    assert await routed(clock(home=None), "when is the next public holiday") == \
        "The next public holiday is Christmas Day, Friday 25 December 2026, in 33 days."


async def test_the_next_holiday_with_no_country_known_says_how_to_name_one(clock, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("LANG", "C.UTF-8")
    for var in ("LC_ALL", "LC_TIME"):
        monkeypatch.delenv(var, raising=False)
    tool = clock(home=None)
    result = await tool.run(tool.route("when is the next holiday")[0])
    assert not result.ok and "home_city" in result.message.en and "home_city" in result.message.zh


@pytest.mark.parametrize("question", [
    "tell me about my day", "do i have a date friday", "let me know what i have to do today", "how is the day today",
    "is it time to go", "what time is the game on", "today is my birthday", "放假了", "假期去哪玩", "放假了好开心",
    "时间过得真快", "现在是什么时代", "我还有多久才能下班", "holidays are fun", "i am taking a holiday next week",
    "plan my holiday in japan",
])
def test_words_of_time_that_ask_no_time_or_date(clock, question):
    assert clock().route(question) is None


@pytest.mark.parametrize("home, question, expected", [
    # a day asked for by name whose date moves, by its rule; the user's country's own day of that name first
    ("New York", "when is thanksgiving", "Thanksgiving is Thursday 26 November 2026."),
    ("Toronto", "when is thanksgiving", "Thanksgiving is Monday 11 October 2027."),  # Canada's, October's
    ("Chicago", "when is labor day", "Labour Day is Monday 6 September 2027."),  # the United States': September's
    ("北京", "劳动节是哪天", "劳动节是2027年5月1日(星期六)。"),  # China's: May's
    ("New York", "what day of the week is memorial day this year", "25 May 2026 was a Monday."),
    ("London", "when is easter this year", "Easter was Sunday 5 April 2026."),
    ("New York", "what date is mother's day", "Mother's Day is Sunday 9 May 2027."),
    ("New York", "how many days until the fourth of july", "Independence Day (Sunday 4 July 2027) is in 224 days."),
    ("New York", "what day of the week is valentine's on", "14 February 2027 is a Sunday."),
])
async def test_a_holiday_asked_for_by_name_is_the_user_s_country_s_day(clock, home, question, expected):
    assert await routed(clock(home=home), question) == expected


def test_a_holiday_next_year_is_next_year_s():
    today = date(2026, 11, 27)
    assert read_date("easter next year", today) == (date(2027, 3, 28), "easter")
    assert read_date("christmas next year", today) == (date(2027, 12, 25), "christmas")  # not this December's
    assert read_date("明年的春节", today) == (date(2027, 2, 6), "春节")


@pytest.mark.parametrize("question", ["what is the date and time", "tell me the time and date",
                                      "what is the date and time for today"])
async def test_the_date_and_the_time_asked_together_are_the_time_here(fake, make_app, question):
    """Heard by the learned reader as the time or the date, and read by its words: the time here, which says the date
    ("and" is no place: it had been read as Andorra's)."""
    result = await make_app().ask(question)
    assert result.model_calls == 0 and result.route == "clock" and result.answer.startswith("It is "), result.answer
