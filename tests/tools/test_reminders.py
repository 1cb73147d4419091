"""Reminders and timers set in words (English and Chinese), kept in the store, listed and cancelled, with no model
call; bad input said in one line with nothing stored. The daemon that fires them: tests/frontends/test_reminders_daemon.py."""

from __future__ import annotations

from dataclasses import replace
from zoneinfo import ZoneInfo
from datetime import datetime, timedelta, timezone

import pytest

from tools.reminders.book import MAX_PENDING, Book, Reminder, TooMany
from tools.reminders.due import due
from tools.reminders.reading import read

TZ = timezone(timedelta(hours=8))
NOW = datetime(2026, 11, 26, 14, 5, tzinfo=TZ)  # a Thursday, 14:05


@pytest.mark.parametrize("question, when, text, kind", [
    ("set a timer for ten minutes", NOW + timedelta(minutes=10), "", "timer"),
    ("remind me at 4 to call the dentist", NOW.replace(hour=16, minute=0), "call the dentist", "reminder"),
    ("提醒我半小时后关火", NOW + timedelta(minutes=30), "关火", "reminder"),
    ("remind me in 90 seconds", NOW + timedelta(seconds=90), "", "reminder"),
    ("remind me to call mum tomorrow at 9", NOW.replace(day=27, hour=9, minute=0), "call mum", "reminder"),
    ("wake me up tomorrow at 7", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("明天早上8点提醒我开会", NOW.replace(day=27, hour=8, minute=0), "开会", "reminder"),
    ("周五早上8点提醒我交报告", NOW.replace(day=27, hour=8, minute=0), "交报告", "reminder"),
    ("设一个10分钟的定时器", NOW + timedelta(minutes=10), "", "timer"),
    ("set a 25-minute timer for the pasta", NOW + timedelta(minutes=25), "pasta", "timer"),
    ("remind me in an hour and a half to stretch", NOW + timedelta(minutes=90), "stretch", "reminder"),
    ("set a timer for 1h30m", NOW + timedelta(minutes=90), "", "timer"),
    ("remind me at 16:30 to leave", NOW.replace(hour=16, minute=30), "leave", "reminder"),
    ("set an alarm for 7am", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("remind me tonight at 8 to call Bob", NOW.replace(hour=20, minute=0), "call Bob", "reminder"),
    ("call mom at 5pm, remind me", NOW.replace(hour=17, minute=0), "call mom", "reminder"),  # the ask said last
    ("i have an appointment tomorrow at 9 please remind me", NOW.replace(day=27, hour=9, minute=0), "i have an appointment",
     "reminder"),
    ("提醒我下午4点半去接孩子", NOW.replace(hour=16, minute=30), "去接孩子", "reminder"),
    ("remind me to call Sam in 2 hours", NOW + timedelta(hours=2), "call Sam", "reminder"),
    ("wake me up at 6:30 tomorrow", NOW.replace(day=27, hour=6, minute=30), "", "reminder"),
    ("提醒我明天上午9点去银行", NOW.replace(day=27, hour=9, minute=0), "去银行", "reminder"),
    ("两个半小时后提醒我拿衣服", NOW + timedelta(minutes=150), "拿衣服", "reminder"),
    ("set a reminder to book the dentist for tomorrow at 11", NOW.replace(day=27, hour=11, minute=0), "book the dentist",
     "reminder"),
    ("一个半小时后提醒我喝水", NOW + timedelta(minutes=90), "喝水", "reminder"),
    ("过二十分钟提醒我看一下汤", NOW + timedelta(minutes=20), "看一下汤", "reminder"),
    ("下周一上午10点提醒我开周会", NOW.replace(day=30, hour=10, minute=0), "开周会", "reminder"),
    ("提醒我3小时20分钟后收衣服", NOW + timedelta(hours=3, minutes=20), "收衣服", "reminder"),
    # the time said first; "tell me to"; a notification or an event's reminder is a reminder
    ("at 4 tomorrow afternoon, remind me to start the oven", NOW.replace(day=27, hour=16, minute=0), "start the oven",
     "reminder"),
    ("tomorrow at 9 remind me to send the report", NOW.replace(day=27, hour=9, minute=0), "send the report", "reminder"),
    ("in 10 minutes remind me to check the oven", NOW + timedelta(minutes=10), "check the oven", "reminder"),
    ("at 5pm set a reminder to call mom", NOW.replace(hour=17, minute=0), "call mom", "reminder"),  # was about ""
    ("tomorrow at 6 wake me up", NOW.replace(day=27, hour=6, minute=0), "", "reminder"),
    ("tell me to take out the trash in an hour", NOW + timedelta(hours=1), "take out the trash", "reminder"),
    ("new notification for meeting in two hours", NOW + timedelta(hours=2), "meeting", "reminder"),
    ("add an event reminder for the meeting at 3pm", NOW.replace(hour=15, minute=0), "the meeting", "reminder"),
    ("提醒我晚上记得穿正装", NOW.replace(hour=20, minute=0), "穿正装", "reminder"),  # a part of the day alone
    # the request's own words are not what it is about ("i want a" was a timer's subject, shown when it rang)
    ("i want a 10 minute timer", NOW + timedelta(minutes=10), "", "timer"),
    ("i wish to have a 10 minute timer", NOW + timedelta(minutes=10), "", "timer"),
    ("set a brand new timer for eight seconds", NOW + timedelta(seconds=8), "", "timer"),
    ("set up an alarm clock at one pm", NOW.replace(day=27, hour=13, minute=0), "", "reminder"),
    ("i need an alarm set for 10:00", NOW.replace(day=27, hour=10, minute=0), "", "reminder"),  # a morning's hour
    # an hour and its minutes typed as one number (was "at 63", "at 10" about "30 to call", "30 am")
    ("wake me up at 630", NOW.replace(day=27, hour=6, minute=30), "", "reminder"),
    ("remind me at 1030 to call the bank", NOW.replace(hour=22, minute=30), "call the bank", "reminder"),  # the next
    ("set an alarm for 630 am", NOW.replace(day=27, hour=6, minute=30), "", "reminder"),
    ("set an alarm for 1745", NOW.replace(hour=17, minute=45), "", "reminder"),
    ("set a timer for 1030 seconds", NOW + timedelta(seconds=1030), "", "timer"),
    ("wake me at 6h30", NOW.replace(day=27, hour=6, minute=30), "", "reminder"),  # was at 6, about "h30"
    ("remind me at 5.30pm to leave", NOW.replace(hour=17, minute=30), "leave", "reminder"),
    ("set a timer for 2.25 hours", NOW + timedelta(minutes=135), "", "timer"),
    # a day of the month said alone: this month's, or the next month's (was the next 3pm, about "on the 5th")
    ("remind me on the 5th at 3pm to pay rent", NOW.replace(month=12, day=5, hour=15, minute=0), "pay rent", "reminder"),
    ("remind me to pay rent on the 30th at 9am", NOW.replace(day=30, hour=9, minute=0), "pay rent", "reminder"),
    ("remind me to call the 5th caller at 3pm", NOW.replace(hour=15, minute=0), "call the 5th caller", "reminder"),
    ("5号下午3点提醒我交房租", NOW.replace(month=12, day=5, hour=15, minute=0), "交房租", "reminder"),
    ("提醒我去5号楼下午3点开会", NOW.replace(hour=15, minute=0), "去5号楼开会", "reminder"),  # a building, no day
    # a day of this month or the next, said with its month (was the next 9am, about "on the first of next month")
    ("remind me on the first of next month at 9am to pay rent", NOW.replace(month=12, day=1, hour=9, minute=0), "pay rent",
     "reminder"),
    ("remind me to pay rent on the 1st of next month at 9", NOW.replace(month=12, day=1, hour=9, minute=0), "pay rent",
     "reminder"),
    ("set an alarm for 7am on the 3rd of next month", NOW.replace(month=12, day=3, hour=7, minute=0), "", "reminder"),
    ("remind me on the 30th of this month at 8am to call", NOW.replace(day=30, hour=8, minute=0), "call", "reminder"),
    ("下个月1号早上9点提醒我交房租", NOW.replace(month=12, day=1, hour=9, minute=0), "交房租", "reminder"),
    ("本月30号下午3点提醒我开会", NOW.replace(day=30, hour=15, minute=0), "开会", "reminder"),
    # the alarm set to a time; the verb said before it is no subject (was "设个"); the weekdays said twice
    ("把闹钟设在下午三点", NOW.replace(hour=15, minute=0), "", "reminder"),
    ("帮我把闹钟设置为6点半", NOW.replace(day=27, hour=6, minute=30), "", "reminder"),
    ("明早七点设个闹钟", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("请帮我设一个明天早上7点的闹铃", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),  # the alarm's other word
    ("三分钟倒计时", NOW + timedelta(minutes=3), "", "timer"),  # the span said first
    ("记得提醒我明天下午两点交作业", NOW.replace(day=27, hour=14, minute=0), "交作业", "reminder"),  # not "记得 交作业"
    ("别让我忘了下午三点开会", NOW.replace(hour=15, minute=0), "开会", "reminder"),  # what not to forget
    ("don't let me forget to buy milk at 5pm", NOW.replace(hour=17, minute=0), "buy milk", "reminder"),
    ("set alarm for 8 on saturday", NOW.replace(day=28, hour=8, minute=0), "", "reminder"),  # was "on saturday" alone
    ("start a countdown of 90 seconds", NOW + timedelta(seconds=90), "", "timer"),  # was about "of"
    ("put a timer on for half an hour", NOW + timedelta(minutes=30), "", "timer"),
    ("set a wake up call for 6", NOW.replace(day=27, hour=6, minute=0), "", "reminder"),  # an alarm's other words
    ("帮我设置一个30秒的计时", NOW + timedelta(seconds=30), "", "timer"),  # 计时 said last
    ("闹钟明天六点", NOW.replace(day=27, hour=6, minute=0), "", "reminder"),  # the alarm and its time, no verb
    ("过十分钟叫我一下", NOW + timedelta(minutes=10), "", "reminder"),  # was about "一下"
    ("remind me that i have an appointment twelve o clock on saturday", NOW.replace(day=28, hour=12, minute=0),
     "i have an appointment", "reminder"),  # "o clock" written apart: the hour, not part of the subject
    # Chinese as requests translated from English are worded: a weekday's numeral before the hour is its own, the
    # minutes after 点 said without 分, the alarm set to its time with 为, the time first and the verb after it
    ("提醒我周六十二点有个预约", NOW.replace(day=28, hour=12, minute=0), "有个预约", "reminder"),  # not week 62
    ("星期五十点半提醒我开会", NOW.replace(day=27, hour=10, minute=30), "开会", "reminder"),
    ("帮我把闹钟定在六点四十五", NOW.replace(day=27, hour=6, minute=45), "", "reminder"),  # was 6:00 about "四十五"
    ("明天六点零五叫醒我", NOW.replace(day=27, hour=6, minute=5), "", "reminder"),
    ("七点一刻叫醒我", NOW.replace(day=27, hour=7, minute=15), "", "reminder"),
    ("设置闹钟为早上七点", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),  # was about "为"
    ("定个闹钟在明天早上7点", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("我想要一个明天早上七点的叫醒闹钟", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("我需要一个五分钟的计时器", NOW + timedelta(minutes=5), "", "timer"),
    ("开始一个十分钟的计时", NOW + timedelta(minutes=10), "", "timer"),  # was about "始一个"
    ("早上7点给我设个闹钟", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("为明天下午三点的会议设置一个提醒", NOW.replace(day=27, hour=15, minute=0), "会议", "reminder"),
    ("帮我设一个下午四点的提醒，内容是交报告", NOW.replace(hour=16, minute=0), "交报告", "reminder"),  # was "内容是交报告"
    ("我需要在下午四点半被提醒去接孩子", NOW.replace(hour=16, minute=30), "去接孩子", "reminder"),  # said in the passive
    ("下午三点半开会，提醒我一下", NOW.replace(hour=15, minute=30), "开会", "reminder"),  # was "开会," 
    ("remind me around 5ish to leave", NOW.replace(hour=17, minute=0), "leave", "reminder"),  # was about "ish to leave"
    # the weekend said with a time: its first day (was at 9 today, about "this weekend to call mom")
    ("remind me this weekend at 9 to call mom", NOW.replace(day=28, hour=9, minute=0), "call mom", "reminder"),
    ("wake me up at 8 on the weekend", NOW.replace(day=28, hour=8, minute=0), "", "reminder"),
    ("周末早上九点叫我", NOW.replace(day=28, hour=9, minute=0), "", "reminder"),
    ("下周末十点提醒我去爬山", NOW.replace(month=12, day=5, hour=10, minute=0), "去爬山", "reminder"),
    # a bare hour beside a day or a part of it, said with "for" or alone: its hour (the hour had been dropped: "for 7
    # tonight" set at 9 pm, "for 9 tomorrow to call bob" asked the hour and kept "9 to call bob" as its words)
    ("make a reminder for 7 tonight", NOW.replace(hour=19, minute=0), "", "reminder"),
    ("set a reminder for 7 tomorrow morning", NOW.replace(day=27, hour=7, minute=0), "", "reminder"),
    ("set a reminder for 9 tomorrow to call bob", NOW.replace(day=27, hour=9, minute=0), "call bob", "reminder"),
    ("remind me for 9 tomorrow that the car is due", NOW.replace(day=27, hour=9, minute=0), "the car is due", "reminder"),
    ("remind me on friday for 8 to water the plants", NOW.replace(day=27, hour=8, minute=0), "water the plants",
     "reminder"),
])
def test_a_reminder_in_words_is_read_with_its_time_and_what_it_is_about(question, when, text, kind):
    request = read(question, NOW)
    assert request is not None and request.action == "set" and request.kind == kind and request.text == text
    assert due(request.when, NOW).at == when


@pytest.mark.parametrize("question, action, target", [
    ("what reminders do I have?", "list", ""), ("我有哪些提醒", "list", ""), ("list my timers", "list", ""),
    ("cancel the dentist one", "cancel", "dentist"), ("取消提醒", "cancel", ""), ("cancel all my reminders", "cancel", "all"),
    ("cancel reminder 3", "cancel", "3"), ("取消所有提醒", "cancel", "all"),
    ("下午的日程是什么", "list", ""), ("查看最近的日程", "list", ""), ("本周还有什么待办事项", "list", ""),
    ("今天有什么日程", "list", ""), ("清空提醒", "cancel", "all"), ("清空闹钟", "cancel", "所有闹钟"),
    ("get rid of my eight am alarm", "cancel", "8 am"), ("please erase the dentist reminder", "cancel", "dentist"),
    ("switch off the 6:30 alarm", "cancel", "6:30"),
    # asked as what was set, or its hour; cancelled with 把 … 关掉
    ("我设了哪些闹钟", "list", ""), ("明天的闹钟是几点", "list", ""), ("我明早的闹钟设好了吗", "list", ""),
    ("我定了几个闹钟", "list", ""), ("把七点的闹钟关掉", "cancel", "7点"),
    ("看一下我的闹钟", "list", ""), ("我的闹钟", "list", ""), ("关闭闹钟", "cancel", "闹钟"), ("关闭所有闹钟", "cancel", "所有闹钟"),
    ("我明天有什么安排", "list", ""), ("我下午有什么安排", "list", ""), ("把所有提醒都删了", "cancel", "all"),
    ("把提醒全部删掉", "cancel", "all"), ("把闹钟都关了", "cancel", "闹钟"),  # 闹钟: the tool asks which when several
    ("我后天有什么提醒", "list", ""), ("下周有什么安排", "list", ""), ("取消买菜的那个提醒", "cancel", "买菜"),
    # whether one is set, when it rings, the next one, what is left of a timer, each asked in other words
    ("我设闹钟了吗", "list", ""), ("我有没有设早上叫我起床的闹钟", "list", ""),  # was a reminder set about "有没有设"
    ("明天的闹钟定了没有", "list", ""), ("我的起床闹钟定的是几点", "list", ""), ("闹钟响的时间是几点", "list", ""),
    ("下一个闹钟", "list", ""), ("下一个提醒是什么时候", "list", ""), ("请告诉我工作日早上的闹钟时间", "list", ""),
    ("你设了哪些闹钟时间", "list", ""), ("我现在设了哪些闹钟", "list", ""), ("我一共设了几个闹钟", "list", ""),
    ("我明天早上有闹钟吗", "list", ""), ("定时器还剩多久", "list", ""), ("计时器还有几分钟", "list", ""),
    ("删掉提醒2号", "cancel", "2"), ("去掉闹钟3", "cancel", "3"),
    ("我周五下午有什么安排", "list", ""), ("下周一有什么提醒", "list", ""),
])
def test_listing_and_cancelling_in_words(question, action, target):
    request = read(question)
    assert request is not None and request.action == action and request.target == target


@pytest.mark.parametrize("question, target, day", [
    ("please delete all reminder of sunday", "all", "sunday"), ("delete all reminders for monday", "all", "monday"),
    ("remove every alarm on friday", "all alarms", "friday"), ("cancel all of tomorrow's reminders", "all", "tomorrow"),
    ("cancel all my timers for today", "all timers", "today"), ("cancel tomorrow morning's alarm", "alarm",
                                                                 "tomorrow morning"),
    ("cancel the alarm for tomorrow", "alarm", "tomorrow"), ("cancel the dentist reminder on friday", "dentist reminder",
                                                              "friday"),
    ("删除周日的所有提醒", "all", "周日"), ("取消明天所有的提醒", "all", "明天"), ("把明天的闹钟都删了", "闹钟", "明天"),
    ("帮我把明天的提醒取消了", "", "明天"), ("不要明天早上的闹钟了", "闹钟", "明天早上"),
    ("cancel all my reminders", "all", ""), ("清空提醒", "all", ""), ("请删除我设置的所有闹钟", "所有闹钟", ""),
    ("delete all the alarms i have set", "all alarms", ""),
])
def test_a_day_named_in_a_cancel_keeps_to_that_day(question, target, day):
    """"all reminders for monday" is Monday's, not every one: the day is read apart from what is cancelled (it had
    been dropped, and every reminder cancelled)."""
    request = read(question, NOW)
    assert request is not None and request.action == "cancel" and (request.target, request.when) == (target, day)


@pytest.mark.parametrize("question", [
    "remove all reminders except the dentist", "delete every reminder about the party", "clear all reminders this week",
    "delete all alarms for the weekend", "cancel all my alarms on weekdays", "delete all reminders set for 5pm",
    "cancel all reminders but the last one", "删除除了开会以外的所有提醒", "取消这周所有的提醒",
    "turn off any morning alarms after friday", "delete the alarms before monday", "取消周五以后的闹钟",
])
def test_all_said_with_words_that_keep_some_is_never_every_one(question):
    """Words beside "all" that restrict it, or a day that bounds them another way than "on it", which the rules do
    not read, leave the request to the model: never every reminder cancelled by rule (each "all" here had cancelled
    every one)."""
    assert read(question, NOW) is None


@pytest.mark.parametrize("question", ["how do reminders work?", "I set a timer yesterday and it rang",
                                      "remind me what the capital of France is", "提醒是什么意思", "日程是什么意思",
                                      "什么是待办事项", "清空购物车", "日程表怎么做", "帮我安排一下明天的行程", "你有什么安排",
                                      "怎么设闹钟", "有没有设置闹钟的功能", "告诉我怎么设闹钟", "你会设闹钟吗", "我想要一个新闹钟",
                                      "你有闹钟吗",
                                      "my alarm didn't go off this morning", "what is 10 minutes in seconds?"])
def test_what_only_mentions_reminders_is_no_request(question):
    assert read(question) is None


@pytest.mark.parametrize("question", [
    "remind me next week at 10 to call bob", "remind me to call bob next week at 10", "remind me at 10 next month to pay rent",
    "remind me to call bob later this week at 5", "remind me in spring at 10 to plant the tomatoes",
    "remind me at 9 sometime next week to renew my passport", "明年五点提醒我", "月底十点提醒我交房租",
    # an occasion, a day counted in the month, a vague repeat or a condition the time did not read
    "remind me on christmas at 9 to call grandma", "remind me at 9 to call grandma on christmas",
    "remind me at 10 on new year's eve to open the champagne", "remind me at noon on my birthday",
    "remind me at 3 on the first monday of the month to pay rent", "remind me at 9 every now and then to stretch",
    "wake me at 6 unless it rains",
    # another time said beside it, an exception, a day counted from an event
    "remind me at 7 or 8 to call mom", "remind me at 5 pm tomorrow or the day after to call the bank",
    "remind me every morning except sunday at 7 to walk", "remind me at 6 the day before the party to buy ice",
])
def test_a_stretch_of_time_the_time_does_not_read_is_left_to_the_model(question):
    """A week, a month or a season said beside a time of day: the reminder would be set today at that hour about
    "next week to call bob"; the model reads it."""
    assert read(question) is None


@pytest.mark.parametrize("question", ["remind me this weekend at 9 to call mom", "周末早上九点叫我",
                                      "wake me up at 8 on the weekend", "remind me next weekend at 10 to mow the lawn"])
def test_the_weekend_said_on_a_weekend_day_is_the_model_s(question):
    """Said on a Sunday, this weekend may be today or next Saturday (and "next weekend" in English either): no rule
    picks one (on a weekday it is the coming Saturday)."""
    assert read(question, datetime(2026, 11, 29, 3, 30, tzinfo=TZ)) is None


@pytest.mark.parametrize("question", ["remind me next week to call bob", "remind me to pay rent next month",
                                      "下个月提醒我交房租", "remind me sometime this week to book the dentist"])
def test_a_stretch_of_time_with_no_hour_is_not_asked_its_hour(question):
    """Asked "When should I remind you?", "at 10" had set a reminder today at 22:00 about nothing."""
    from tools.reminders.reading import untimed

    assert read(question) is None and untimed(question) is None


@pytest.mark.parametrize("question", ["remind me at 5 to book next week's flights", "remind me at 5 to plan the summer holiday",
                                      "remind me at 5 to buy a gift for mom's birthday", "remind me at 5 to finish shopping by christmas",
                                      "remind me at 5 to turn on the lights"])
def test_a_stretch_of_time_inside_what_it_is_about_stays_its_words(question):
    request = read(question)
    assert request is not None and request.when == "at 5" and request.text.startswith(("book", "plan", "buy", "finish", "turn"))


@pytest.mark.parametrize("when, problem", [
    ("yesterday at 9", "already passed"), ("in 900 years", "more than a year"), ("on February 30 at 9", "no such date"),
    ("昨天9点", "already passed"), ("tomorrow", "not the time"),
])
def test_a_time_that_cannot_be_is_one_line(when, problem):
    read_due = due(when, NOW)
    assert read_due.at is None and problem in read_due.problem.en and read_due.problem.zh


def _book(tmp_path) -> Book:
    from assistant.store import Store

    store = Store(tmp_path / "assistant.db")  # made and migrated as the assistant makes it
    return Book(store.path)


def test_a_due_reminder_is_claimed_once_and_one_due_while_the_daemon_was_down_is_missed(tmp_path):
    book = _book(tmp_path)
    now = datetime.now(timezone.utc)
    soon = book.add("reminder", "soon", now + timedelta(seconds=1), "en", now)
    old = book.add("reminder", "old", now - timedelta(hours=1), "en", now - timedelta(hours=2))
    later = book.add("timer", "", now + timedelta(hours=1), "en", now)
    at_start = book.claim_due(now, missed=True)  # the daemon starting: what fell due while it was down
    assert [(r.id, r.state) for r in at_start] == [(old.id, "missed")]
    assert book.get(old.id).state == "due"  # claimed; shown only once a notification service takes it
    book.shown(at_start[0], now)
    claimed = book.claim_due(now + timedelta(seconds=2))
    assert [(r.id, r.state) for r in claimed] == [(soon.id, "fired")]
    assert book.claim_due(now + timedelta(seconds=3)) == []  # never claimed twice
    # a daemon killed before the notification service took it: the next start shows it, as missed, once
    assert [(r.id, r.state) for r in book.claim_due(now + timedelta(seconds=4), missed=True)] == [(soon.id, "missed")]
    book.shown(replace(claimed[0], state="missed"), now)
    assert book.claim_due(now + timedelta(seconds=5), missed=True) == []
    assert book.get(old.id).state == "missed" and book.get(soon.id).state == "missed"
    assert [r.id for r in book.listed()] == [later.id]


def test_the_pending_ones_are_capped(tmp_path):
    book = _book(tmp_path)
    now = datetime.now(timezone.utc)
    for i in range(MAX_PENDING):
        book.add("reminder", f"r{i}", now + timedelta(hours=1), "en", now)
    with pytest.raises(TooMany):
        book.add("reminder", "one more", now + timedelta(hours=1), "en", now)
    assert len(book.listed()) == MAX_PENDING


async def test_set_list_and_cancel_in_words_with_no_model_call(fake, make_app):
    app = make_app()
    set_ = await app.ask("remind me in 10 minutes to check the oven")
    assert set_.ok and set_.model_calls == 0 and set_.route == "reminders" and "check the oven" in set_.answer
    assert "It fires while the daemon runs: assistant daemon start" in set_.answer  # no daemon here
    timer = await app.ask("设一个5分钟的定时器")
    assert timer.ok and timer.model_calls == 0 and "计时 5分钟" in timer.answer
    listed = await app.ask("what reminders do I have?")
    assert listed.ok and "2 pending" in listed.answer and "check the oven" in listed.answer
    assert "timer" in listed.answer and "time's up" not in listed.answer  # still running: a timer, not up yet
    assert "timer (5 minutes)" in listed.answer  # with its length
    listed_zh = await app.ask("我有哪些提醒?")
    assert listed_zh.ok and "计时(5分钟)" in listed_zh.answer and "计时结束" not in listed_zh.answer
    gone = await app.ask("cancel the oven one")  # no word of reminders in it: "one" is the reminder
    assert gone.ok and gone.model_calls == 0 and "Cancelled" in gone.answer and "check the oven" in gone.answer
    assert [r.text for r in Book(app.store.path).listed()] == [""]  # the timer is left
    assert fake.requests == []


@pytest.mark.parametrize("question, said", [
    ("remind me in 900 years to check", "more than a year ahead"),
    ("remind me yesterday at 9 to pay", "already passed"),
    ("remind me on February 30 at 9 to pay", "no such date"),
    ("remind me in 5 minutes to \x1b[31mrun\x1b[0m", "control characters"),
])
async def test_bad_input_is_one_clear_line_and_nothing_is_stored(fake, make_app, question, said):
    app = make_app()
    result = await app.ask(question)
    assert not result.ok and said in result.answer and result.model_calls == 0
    assert Book(app.store.path).recent() == []


async def test_ten_thousand_reminders_stop_at_the_cap_with_one_line(fake, make_app):
    app = make_app()
    assert app.store.schema_version >= 17  # opened and migrated
    book, now = Book(app.store.path), datetime.now(timezone.utc)
    for i in range(MAX_PENDING):
        book.add("reminder", f"r{i}", now + timedelta(hours=1), "en", now)
    result = await app.ask("remind me in 2 hours to stretch")
    assert not result.ok and f"{MAX_PENDING} reminders pending" in result.answer
    assert len(book.listed()) == MAX_PENDING


@pytest.mark.parametrize("question, reply, text", [
    ("remind me to buy milk", "in 10 minutes", "buy milk"),
    ("提醒我买牛奶", "十分钟后", "买牛奶"),
    ("set a timer", "5 minutes", ""),
])
async def test_without_a_time_it_asks_when_and_the_answer_completes_it(fake, make_app, question, reply, text):
    app = make_app()
    session = app.store.create_session()
    asked = await app.ask(question, session_id=session)
    assert asked.route == "clarify" and ("When" in asked.answer or "How long" in asked.answer or "什么时候" in asked.answer)
    done = await app.ask(reply, session_id=session)
    assert done.ok and done.route == "reminders" and done.model_calls == 0
    assert [r.text for r in Book(app.store.path).listed()] == [text]


async def test_a_models_call_is_read_by_the_same_rules_and_held_to_the_questions_time(fake, make_app):
    """A wording no rule reads goes to the model; its call's time must be the question's own, read by the rules."""
    from fake_ollama import Script, tool_call

    fake.handler = Script(decide=[tool_call("reminders", action="set", when="in 20 minutes", text="the tea"),
                                  tool_call("reminders", action="set", when="in 5 minutes", text="the tea")],
                          executor=tool_call("reminders", action="set", when="in 5 minutes", text="the tea"),
                          responder="OK, I'll remind you about the tea in 5 minutes.")
    app = make_app()
    result = await app.ask("don't let me forget the tea, 5 minutes from now")
    kept = Book(app.store.path).listed()
    assert result.ok and [r.text for r in kept] == ["the tea"] and result.route == "reminders"
    assert abs((kept[0].due - datetime.now(timezone.utc)).total_seconds() - 300) < 5  # the question's 5, not 20


@pytest.mark.parametrize("question, said, span", [
    ("set a timer for 5 minutes", "timer set for 5 minutes:", 300),
    ("could you remind me to stretch in 15 minutes?", "in 15 minutes (", 900),
    ("帮我设一个五分钟的计时器", "计时 5分钟,", 300),
    ("remind me in 90 seconds", "in 1 minute 30 seconds (", 90),
])
async def test_a_span_is_said_back_as_asked_whatever_the_clocks_fraction(fake, make_app, question, said, span):
    """The due time is rounded up to a whole second (never early); what is said back is the span asked for, not
    that second more."""
    app = make_app(clock="2026-11-26T14:05:07.300+00:00")
    result = await app.ask(question)
    assert result.ok and said in result.answer, result.answer
    due = Book(app.store.path).listed()[0].due
    assert due.microsecond == 0 and (due - datetime(2026, 11, 26, 14, 5, 7, 300000, timezone.utc)).total_seconds() \
        == pytest.approx(span + 0.7)  # rounded up to the whole second, never early


async def test_the_last_one_and_the_next_one_are_read_and_nothing_pending_is_said_plainly(fake, make_app):
    app = make_app()
    for question in ("remind me in 2 hours to stretch", "remind me in 10 minutes to check the oven",
                     "remind me in an hour to call Sam"):
        assert (await app.ask(question)).ok
    gone = await app.ask("cancel my last reminder")  # the one set last, not the one due last
    assert gone.ok and "call Sam" in gone.answer
    gone = await app.ask("取消下一个提醒")  # the one due first
    assert gone.ok and "check the oven" in gone.answer
    assert [r.text for r in Book(app.store.path).listed()] == ["stretch"]
    assert (await app.ask("cancel all my reminders")).ok
    none = await app.ask("cancel all my reminders")
    assert not none.ok and "no reminders pending" in none.answer and none.model_calls == 0
    assert "现在没有待办的提醒" in (await app.ask("取消所有提醒")).answer
    assert "no timers pending" in (await app.ask("cancel my timer")).answer  # said by the kind asked for
    assert "no alarms pending" in (await app.ask("cancel all my alarms")).answer
    assert "现在没有待办的定时器" in (await app.ask("取消定时器")).answer


@pytest.mark.parametrize("question, at", [
    ("set an alarm for seven fifteen am", "2026-11-28T07:15"), ("wake me at seven thirty", "2026-11-28T07:30"),
    ("set an alarm for six forty five tomorrow morning", "2026-11-28T06:45"),
    ("set an alarm for seven o'clock this evening", "2026-11-27T19:00"),
    ("set an alarm at half past six tomorrow", "2026-11-28T06:30"), ("wake me up at nine", "2026-11-28T09:00"),
    ("set an alarm for 6:30", "2026-11-28T06:30"), ("wake me up at 9 tonight", "2026-11-27T21:00"),
    ("remind me at quarter to 8 to leave", "2026-11-27T19:45"), ("wake me up in 20 minutes", "2026-11-27T10:20"),
    ("remind me at 4 to call the dentist", "2026-11-27T16:00"), ("please set an alarm for mid day", "2026-11-27T12:00"),
    ("set an alarm for mid-day tomorrow", "2026-11-28T12:00"), ("remind me to call mom at one pm", "2026-11-27T13:00"),
    ("send me a reminder to pick up my dog from the groomer at one pm", "2026-11-27T13:00"),
    ("shoot me a reminder at 5pm to call mom", "2026-11-27T17:00"), ("set an alarm for one am", "2026-11-28T01:00"),
])
def test_hours_in_words_with_their_minutes_and_wake_me_as_a_morning_hour(question, at):
    """A time of day said in words is read whole, never its minutes left in the reminder's words; an alarm or
    "wake me" names the morning's hour unless the words say another part of the day."""
    from zoneinfo import ZoneInfo

    now = datetime(2026, 11, 27, 10, 0, tzinfo=ZoneInfo("Europe/London"))
    request = read(question)
    assert request is not None and not any(ch.isdigit() for ch in request.text), request
    assert due(request.when, now).at == datetime.fromisoformat(at).replace(tzinfo=ZoneInfo("Europe/London"))


@pytest.mark.parametrize("question, at", [
    ("晚上8:10的闹钟。", "2026-11-27T20:10"), ("明天早晨8:10的闹钟。", "2026-11-28T08:10"), ("明早8:10闹钟。", "2026-11-28T08:10"),
    ("帮我调明天早上8:10的闹钟。", "2026-11-28T08:10"), ("另一个7点的闹钟", "2026-11-28T07:00"),
])
def test_a_chinese_alarm_said_by_its_time_alone_is_set(question, at):
    """"明早8:10闹钟": an alarm named with its time and no verb, or with 调 ("set"), is one set at that time."""
    now = datetime(2026, 11, 27, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    request = read(question, now)
    assert request is not None and request.action == "set" and request.text == ""
    assert due(request.when, now).at == datetime.fromisoformat(at).replace(tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.mark.parametrize("question", ["我的闹钟坏了", "明天8点的闹钟取消", "我7点的闹钟没响", "3个闹钟", "闹钟几点响",
                                      "闹钟坏了3天了", "闹钟响了5分钟", "闹钟3点响了吗", "我用了10分钟计时", "有5分钟的计时"])
def test_an_alarm_talked_about_is_not_one_set(question):
    request = read(question)
    assert request is None or request.action != "set"


@pytest.mark.parametrize("question", [
    "what alarms have I got", "go through my reminders for me", "which reminders have I set", "are there any alarms set",
    "read me my alarms", "do I have alarms tomorrow", "tell me my reminders", "what did i ask to be reminded about",
    "what did i want to remember again", "what were those things i was trying to remember",
    "please go through my reminder list and tell me what's on it", "what did i put on my list of reminders",
    "tell me about the alarm timings", "at what time have you set alarm for me",
    "please give me a rundown of my reminder list", "what alarms are set for weekdays",
    "please let me know the morning alarm time for weekdays",
    "how many alarms do i have set for morning hours between six and nine am", "which alarms are set for 7 am tomorrow",
    "how long is left on my timer", "how long until my alarm goes off",  # the time left: the list says it
])
def test_listing_said_the_ways_people_say_it(question):
    request = read(question)
    assert request is not None and request.action == "list"


@pytest.mark.parametrize("question", ["go through my emails", "tell me a joke about alarms", "what alarms should I buy",
                                      "i want to remember to buy milk", "what is a good way to remember names",
                                      "what did i want to say", "i would like a timer set", "a timer set"])
def test_listing_words_about_something_else_are_no_listing(question):
    request = read(question)
    assert request is None or request.action != "list"


@pytest.mark.parametrize("question, at", [
    ("make a new alarm for 6 in the morning", "2026-11-28T06:00"), ("i need an alarm for 6am", "2026-11-28T06:00"),
    ("i'd like a new alarm set for 6am", "2026-11-28T06:00"), ("have an alarm set for three in the morning", "2026-11-28T03:00"),
    ("make sure my alarm is set for three thirty in the morning", "2026-11-28T03:30"),
    ("schedule an alarm for 7", "2026-11-28T07:00"), ("set an alarm for 7", "2026-11-28T07:00"),
    ("i need an alarm to go off tomorrow at five fifteen", "2026-11-28T05:15"),
])
def test_an_alarm_asked_for_in_other_frames_is_set(question, at):
    from zoneinfo import ZoneInfo

    now = datetime(2026, 11, 27, 10, 0, tzinfo=ZoneInfo("Europe/London"))
    request = read(question)
    assert request is not None and request.action == "set" and request.text == "", request
    assert due(request.when, now).at == datetime.fromisoformat(at).replace(tzinfo=ZoneInfo("Europe/London"))


@pytest.mark.parametrize("question, kind", [
    ("schedule an alarm", "reminder"), ("please turn on the alarm", "reminder"), ("set my alarm for getting up", "reminder"),
    ("you need to set alarm for me", "reminder"), ("i gotta set a timer", "timer"), ("how about a reminder", "reminder"),
    ("can i set a reminder", "reminder"), ("new reminder, please", "reminder"), ("set a weekly appointment reminder", "reminder"),
    # not a request to set one: no question back
    ("new timer app recommendations", None), ("turn on the lights", None), ("tell me to relax", None),
    ("remind me of the date", None), ("turn on notification for all news on the stock market", None),
    # the ask said last: asked when; a question or a complaint about one is not a request
    ("i need to take out the trash please remind me", "reminder"), ("buy milk, remind me", "reminder"),
    ("why didn't you remind me", None), ("you forgot to remind me", None), ("what did you remind me", None),
    ("if i forget at 5 remind me", None),  # what comes first says more than when: not a time said first
    ("帮我设个闹钟", "reminder"), ("给我定个倒计时", "timer"), ("提醒我买牛奶", "reminder"),
    # a time before an event the words do not time: asked when, never set that long from now
    ("remind me 10 minutes before the meeting", "reminder"), ("remind me an hour before my flight", "reminder"),
    ("please remind me one hour before the meeting i have tomorrow morning", "reminder"),
])
def test_a_request_to_set_one_with_no_time_is_asked_when(question, kind):
    from tools.reminders.reading import untimed

    assert untimed(question) == kind
    assert kind is None or read(question) is None  # asked, never set as said


@pytest.mark.parametrize("question, kind, when, text", [
    ("i'm making pasta, set a timer for 10 minutes", "timer", "10 minutes", ""),
    ("i'm baking bread. set a timer for 40 minutes", "timer", "40 minutes", ""),
    ("going for a run, remind me in 30 minutes to stretch", "reminder", "in 30 minutes", "stretch"),
    ("我在煮鸡蛋，设个3分钟的定时器", "timer", "3分钟", ""),
])
def test_a_request_after_a_clause_that_sets_the_scene_is_read_alone(question, kind, when, text):
    request = read(question)
    assert request is not None and (request.action, request.kind, request.when, request.text) == ("set", kind, when, text)


@pytest.mark.parametrize("question", [
    "is it raining, remind me in 5 minutes to check",  # a question first: two requests, not a scene
    "at 5 tomorrow, i need to call mum",  # a time first, no request after it
    "cancel the alarm, set a timer for 5 minutes",  # two requests: never one cancel of "alarm, set a timer for …"
])
def test_a_clause_that_asks_something_itself_is_no_scene(question):
    request = read(question)
    assert request is None or (request.action != "cancel" and "," not in request.target and request.text != "check")


@pytest.mark.parametrize("question", ["please set up an alarm to go off tomorrow at daybreak",
                                      "make an alarm for tomorrow at twilight", "remind me tomorrow at dawn to water the plants"])
def test_a_time_said_by_what_happens_then_is_not_read_as_the_day_alone(question):
    assert read(question) is None  # was tomorrow at the day's default hour, about "at daybreak"


@pytest.mark.parametrize("question", ["remind me at 9 to call mom every other day",
                                      "make reminder to pay rent on the 30th of every month",
                                      "remind me every hour from 9 to 5 to stand up", "remind me every few hours to drink water",
                                      "remind me every 2 hours until 6pm to drink water", "每隔两小时提醒我喝水,从9点开始",
                                      "remind me to pay rent on the first of every month", "remind me monthly to pay rent",
                                      "remind me every year on june 5 about mom's birthday", "每月1号提醒我交房租",
                                      "remind me every other week to water the cactus"])
def test_a_repeat_no_reminder_here_keeps_is_never_set_once(question):
    """Was one reminder, on the 30th about "pay rent of every month"; "every hour from 9 to 5" is an hour a day
    the words bound, and "every few hours" no span: the model reads them, and none is asked when (was "When should I
    remind you?" for "monthly", whose reply set it once)."""
    from tools.reminders.reading import untimed

    request = read(question)
    assert request is None or request.action != "set"
    assert untimed(question) is None


@pytest.mark.parametrize("question", ["my alarm didn't go off this morning", "the alarm is too loud",
                                      "alarm clocks for heavy sleepers", "what alarm sound is best at 6am",
                                      "have a good day", "i need a reminder"])
def test_alarm_words_that_ask_for_none_set_none(question):
    request = read(question)
    assert request is None or request.action != "set"


async def test_a_reminder_set_by_rule_reads_its_time_once(fake, make_app, monkeypatch):
    from tools.reminders import due as due_module, reading, repeats, times

    calls: list[str] = []

    def counted(when, now):
        calls.append(when)
        return due(when, now)

    for module in (due_module, reading, repeats, times):  # the rule's reading, the run's, every one that reads a time
        monkeypatch.setattr(module, "due", counted)
    app = make_app()
    result = await app.ask("remind me in 10 minutes to stretch")
    assert result.ok and result.model_calls == 0 and "stretch" in result.answer
    assert calls == ["in 10 minutes"]  # read by the rule, carried to the run: not read again


def test_whether_the_reminders_fire_is_asked_of_the_store(tmp_path):
    import os
    import subprocess
    import sys

    book = _book(tmp_path)
    now = datetime.now(timezone.utc)
    assert not book.firing()  # nothing holds them: a reminder set now says how to start the daemon
    book.hold_firer(os.getpid(), now)
    assert book.firing()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    book.hold_firer(int(gone.stdout), now)  # a daemon killed outright: its row stays, its process does not
    assert not book.firing()
    book.hold_firer(os.getpid(), now)
    book.release_firer(os.getpid() + 1)  # another process's release leaves the hold
    assert book.firing()
    book.release_firer(os.getpid())
    assert not book.firing()


async def test_the_daemons_firer_holds_the_reminders_while_it_runs(tmp_path):
    import asyncio

    from assistant.reminders import Firer

    book = _book(tmp_path)
    firer, stop = Firer(book.path), asyncio.Event()
    running = asyncio.ensure_future(firer.run(stop))
    for _ in range(200):
        if book.firing():
            break
        await asyncio.sleep(0.01)
    assert book.firing()
    stop.set()
    await running
    assert not book.firing()  # stopped: a reminder set now is told the daemon is not running


@pytest.mark.parametrize("question, repeat, when, text", [
    ("remind me every day at 9 to take my pills", "daily", "at 9", "take my pills"),
    ("remind me every weekday at 9 to stand up", "weekdays", "at 9", "stand up"),
    ("remind me every monday at 9 to call mum", "weekly", "monday at 9", "call mum"),
    ("remind me to water the plants on Saturdays at 10", "weekly", "saturday at 10", "water the plants"),
    ("remind me every evening at 6 to call mum", "daily", "at 6 in the evening", "call mum"),
    ("set a daily reminder at 8 to take vitamins", "daily", "at 8", "take vitamins"),
    ("每天早上8点提醒我吃药", "daily", "早上8点", "吃药"),
    ("每周一上午10点提醒我开周会", "weekly", "周一上午10点", "开周会"),
    ("每个工作日9点提醒我打卡", "weekdays", "9点", "打卡"),
    ("工作日每天早上7点叫我", "weekdays", "早上7点", ""),  # the weekdays said twice: no subject "每天"
    ("每个工作日早上七点设个闹钟", "weekdays", "早上7点", ""),  # was about "设个"
    ("i need a reminder every single day at nine am", "daily", "at 9 am", ""),
    ("set a reminder for wednesdays at two pm", "weekly", "wednesday at 2 pm", ""),  # was once, about "wednesdays"
    # how often and when, said first
    ("every weekday at 9 remind me to stand up", "weekdays", "at 9", "stand up"),
    ("every morning at 8 remind me to take my pills", "daily", "at 8 in the morning", "take my pills"),
    ("every monday at 10am remind me about the team meeting", "weekly", "monday at 10am", "the team meeting"),
    ("daily at 8am remind me to meditate", "daily", "at 8am", "meditate"),
    ("each evening at 10 remind me to read", "daily", "at 10 in the evening", "read"),
    # again each time a span has passed, first that long from now
    ("remind me every 2 hours to drink water", "interval", "in 2 hours", "drink water"),
    ("every 20 minutes remind me to look away from the screen", "interval", "in 20 minutes", "look away from the screen"),
    ("remind me hourly to check the oven", "interval", "in 1 hour", "check the oven"),
    ("remind me every half hour to check the soup", "interval", "in half an hour", "check the soup"),
    ("每隔两小时提醒我喝水", "interval", "2小时后", "喝水"),
    ("每半小时提醒我起来活动", "interval", "半小时后", "起来活动"),
    ("每小时提醒我喝水", "interval", "1小时后", "喝水"),
])
def test_a_reminder_that_comes_back_is_read_with_how_and_its_first_time(question, repeat, when, text):
    now = datetime(2026, 11, 27, 12, 10, tzinfo=ZoneInfo("Europe/London"))  # a Friday, past 9 in the morning
    request = read(question, now)
    assert request is not None and (request.repeat, request.when, request.text) == (repeat, when, text)
    first = request.due_read.at
    assert first > now and first.astimezone(now.tzinfo).weekday() < 5 if repeat == "weekdays" else first > now
    if repeat == "daily" and when == "at 9":
        assert first == datetime(2026, 11, 28, 9, 0, tzinfo=now.tzinfo)  # 9 in the morning, tomorrow: today's is gone


def test_the_first_weekday_is_the_user_s_own_weekday_not_the_machine_zone_s():
    sunday_evening = datetime(2026, 11, 22, 18, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # Sunday 10:00 in UTC
    request = read("每个工作日早上七点设个闹钟", sunday_evening)
    assert request is not None and request.due_read.at == datetime(2026, 11, 23, 7, 0, tzinfo=sunday_evening.tzinfo)


def test_a_reminder_that_comes_back_keeps_its_wall_time_across_a_daylight_saving_change():
    from tools.reminders.book import next_after

    london = ZoneInfo("Europe/London")
    saturday = datetime(2026, 10, 24, 9, 0, tzinfo=london)  # the clocks go back on the 25th
    assert next_after("daily", saturday) == datetime(2026, 10, 25, 9, 0, tzinfo=london)
    utc = timezone.utc  # the same 9:00, 25 hours later
    assert (next_after("daily", saturday).astimezone(utc) - saturday.astimezone(utc)).total_seconds() == 25 * 3600
    assert next_after("weekdays", datetime(2026, 11, 27, 9, 0, tzinfo=london)) == datetime(2026, 11, 30, 9, 0,
                                                                                         tzinfo=london)
    assert next_after("weekly", saturday) == datetime(2026, 10, 31, 9, 0, tzinfo=london)


class _Took:
    """A notification service that takes every notification."""

    why = ""

    async def send(self, title, body, buttons=()):
        return True

    def warn_once(self, key, line):
        pass


async def test_a_reminder_that_comes_back_is_kept_again_once_shown(tmp_path):
    from assistant.reminders import Firer

    book = _book(tmp_path)
    london = ZoneInfo("Europe/London")
    now = datetime(2026, 11, 27, 9, 0, 5, tzinfo=london)
    book.add("reminder", "take my pills", datetime(2026, 11, 27, 9, 0, tzinfo=london), "en", now, wall=True,
             repeat="daily")
    firer = Firer(book.path, notifier=_Took(), clock=lambda: now)  # type: ignore[arg-type]
    assert [r.text for r in await firer.fire_due()] == ["take my pills"]
    (again,) = book.listed()
    assert again.text == "take my pills" and again.repeat == "daily"
    assert again.due.astimezone(london) == datetime(2026, 11, 28, 9, 0, tzinfo=london)
    assert await firer.fire_due() == []  # shown once: the next is tomorrow's


async def test_a_reminder_every_two_hours_comes_back_two_hours_after_each_and_after_a_gap_at_the_next_ahead(tmp_path):
    from assistant.reminders import Firer

    book = _book(tmp_path)
    london = ZoneInfo("Europe/London")
    now = datetime(2026, 11, 27, 9, 0, 5, tzinfo=london)
    book.add("reminder", "drink water", datetime(2026, 11, 27, 9, 0, tzinfo=london), "en", now, wall=False,
             span=7200, repeat="interval")
    firer = Firer(book.path, notifier=_Took(), clock=lambda: now)  # type: ignore[arg-type]
    assert [r.text for r in await firer.fire_due()] == ["drink water"]
    (again,) = book.listed()
    assert again.due.astimezone(london) == datetime(2026, 11, 27, 11, 0, tzinfo=london)
    assert again.what(zh=False) == "drink water (every 2 hours)" and again.what(zh=True) == "drink water(每2小时)"
    hourly, ninety = replace(again, span=3600), replace(again, span=5400)  # one whole unit alone says no "1"
    assert hourly.what(zh=False) == "drink water (every hour)" and hourly.what(zh=True) == "drink water(每小时)"
    assert ninety.what(zh=False) == "drink water (every 1 hour 30 minutes)"  # was "every hour 30 minutes"
    assert ninety.what(zh=True) == "drink water(每1小时30分钟)"
    now = datetime(2026, 11, 27, 16, 30, tzinfo=london)  # the daemon was off from 10 to 16:30
    assert [r.text for r in await firer.fire_due()] == ["drink water"]
    (again,) = book.listed()
    assert again.due.astimezone(london) == datetime(2026, 11, 27, 17, 0, tzinfo=london)  # the next one still ahead


async def test_a_reminder_every_span_answers_with_its_span_and_its_first_time(tmp_path):
    from assistant.store import Store
    from tools.reminders.tool import Reminders, RemindersConfig

    path = tmp_path / "store.db"
    Store(path)
    tool = Reminders(RemindersConfig(store=str(path), clock=NOW.isoformat()))
    def at(minutes: int) -> str:  # as the machine's clock shows it
        return (tool.now() + timedelta(minutes=minutes)).strftime("%H:%M")

    for question, said in [("remind me every 2 hours to drink water",
                            f"OK, I'll remind you to drink water every 2 hours, first at {at(120)}"),
                           ("每隔45分钟提醒我休息", f"好的,每45分钟,第一次是今天 {at(45)},提醒你:休息")]:
        args = read(question, NOW)
        result = await tool.run(args)
        assert result.ok and tool.render(question, args, result).startswith(said)
    from tools.reminders.args import RemindersArgs

    result = await tool.run(RemindersArgs(action="set", when="at 9", text="stretch", repeat="interval"))  # a model's
    assert not result.ok and "how often" in result.message.en  # a time of day is no span to come back after


async def test_a_timer_keeps_the_length_said_however_long_the_run_waited(tmp_path):
    """Read at one moment and run a second and a half later (a busy machine): the timer is still the 2 seconds said,
    in its answer and its list, not the 1 second left."""
    from assistant.store import Store
    from tools.reminders.tool import Reminders, RemindersConfig

    path = tmp_path / "store.db"
    Store(path)
    args = read("set a timer for 2 seconds", NOW)
    later = NOW + timedelta(seconds=1.5)
    tool = Reminders(RemindersConfig(store=str(path), clock=later.isoformat()))
    result = await tool.run(args)
    assert result.ok and result.data["seconds"] == 2
    assert [r.span for r in Book(path).listed()] == [2]


@pytest.mark.parametrize("question, when, text", [
    ("remember me to meet reveca today at six pm", "today at 6 pm", "meet reveca"),  # "remember me to": remind me
    ("set a remainder at three pm to pick jo", "at 3 pm", "pick jo"),  # a slip of the keys
    ("set a notification for 6th march that there is a society meeting at eleven am", "6th march at 11 am",
     "there is a society meeting"),
])
def test_words_people_use_for_remind_me_are_read_as_it(question, when, text):
    request = read(question)
    assert request is not None and request.action == "set" and request.when == when and request.text == text


@pytest.mark.parametrize("question", ["what is the remainder of 17 divided by 5", "do you remember me",
                                      "the remainder is 3", "notifications are annoying"])
def test_remainder_and_remember_said_of_something_else_set_nothing(question):
    assert read(question) is None


@pytest.mark.parametrize("question, kind, span", [
    ("tell me when two minutes are up", "timer", 120), ("tell me when ninety minutes have passed", "timer", 5400),
    ("alert me in 20 minutes", None, 1200), ("notify me in 5 minutes", None, 300),
    ("please start counting down from 10 minutes", "timer", 600),
])
async def test_a_timer_said_as_its_end_or_an_alert_is_set_by_rule(fake, make_app, question, kind, span):
    app = make_app()
    result = await app.ask(question)
    assert result.ok and result.route == "reminders" and result.model_calls == 0
    kept = Book(app.store.path).listed()
    assert len(kept) == 1 and kept[0].span == span and (kind is None or kept[0].kind == kind)


async def test_a_day_and_an_hour_said_apart_are_one_alarm(fake, make_app):
    app = make_app(clock="2026-11-27T10:00:00+00:00")
    result = await app.ask("tomorrow i need the alarm to go off at 5")
    assert result.ok and result.route == "reminders" and result.model_calls == 0
    (kept,) = Book(app.store.path).listed()
    assert kept.due.astimezone(timezone.utc).day == 28 and kept.due.astimezone(timezone.utc).hour == 5


async def test_chinese_alarms_set_listed_and_cancelled_by_their_day_or_hour_in_other_words(fake, make_app):
    app = make_app()
    for question in ("把闹钟设在明天早上七点", "每个工作日晚上九点半设个闹钟", "周五晚上八点提醒我看球赛"):
        result = await app.ask(question)
        assert result.ok and result.model_calls == 0 and result.route == "reminders", question
    book = Book(app.store.path)
    assert sorted((r.text, r.repeat or "") for r in book.listed()) == [("", ""), ("", "weekdays"), ("看球赛", "")]
    listed = await app.ask("我设了哪些闹钟")
    assert listed.ok and listed.route == "reminders" and "看球赛" in listed.answer
    gone = await app.ask("取消明天早上的闹钟")  # the one due tomorrow morning; not Friday evening's
    assert gone.ok and gone.model_calls == 0 and "已取消" in gone.answer
    left = book.listed()
    tomorrow = (datetime.now().astimezone() + timedelta(days=1)).date()
    assert len(left) == 2 and all(r.due.astimezone().date() != tomorrow or r.repeat for r in left)
    gone = await app.ask("把周五晚上的提醒删掉")
    assert gone.ok and "看球赛" in gone.answer and [r.repeat for r in book.listed()] == ["weekdays"]
    assert fake.requests == []


def test_an_alarm_is_listed_and_shown_as_one_with_its_time():
    """A reminder set with no subject ("wake me up at 6:30", "明早七点设个闹钟") is an alarm: listed as one, and its
    notification says so and its time (not "Reminder", "Reminder")."""
    from assistant.reminders import said

    due = datetime(2026, 11, 30, 6, 30).astimezone()
    alarm = Reminder(1, "reminder", "", due, "en", "fired")
    assert alarm.what(False, fired=False) == "alarm" and alarm.what(True, fired=False) == "闹钟"
    assert said(alarm, due) == ("Alarm", "06:30")
    assert said(replace(alarm, lang="zh", repeat="weekdays"), due) == ("闹钟", "06:30(每个工作日)")
    assert said(replace(alarm, text="call mum"), due) == ("Reminder", "call mum")


@pytest.mark.parametrize("question, at, text", [
    ("remind me to call mom on saturday afternoon", "2026-11-28T14:00", "call mom"),
    ("remind me on saturday afternoon to call mom", "2026-11-28T14:00", "call mom"),
    ("set a reminder for saturday afternoon to call mom", "2026-11-28T14:00", "call mom"),
    ("remind me to water the plants on sunday morning", "2026-11-29T09:00", "water the plants"),
    ("remind me to call mom on friday evening", "2026-11-27T19:00", "call mom"),  # this Friday's
    ("remind me next monday morning to email bob", "2026-11-30T09:00", "email bob"),
    ("remind me to call mom in the afternoon", "2026-11-27T14:00", "call mom"),
    ("remind me this evening to call mom", "2026-11-27T19:00", "call mom"),
    ("remind me to take my pills at noon", "2026-11-27T12:00", "take my pills"),
    ("remind me first thing tomorrow to send the report", "2026-11-28T09:00", "send the report"),  # "first thing": the morning
])
def test_a_day_with_its_part_and_no_hour_is_read_whole(question, at, text):
    """A day said with its part ("saturday afternoon") is that part's usual hour on that day: never "noon" read
    inside "afternoon" with "after" left in the reminder's words, nor the day alone with "morning" left there."""
    now = datetime(2026, 11, 27, 10, 0, tzinfo=ZoneInfo("Europe/London"))  # a Friday morning
    request = read(question)
    assert request is not None and request.text == text, request
    assert due(request.when, now).at == datetime.fromisoformat(at).replace(tzinfo=ZoneInfo("Europe/London"))


def test_this_afternoon_when_it_has_passed_is_said_so_not_moved_to_tomorrow():
    evening = datetime(2026, 11, 27, 18, 0, tzinfo=ZoneInfo("Europe/London"))
    request = read("remind me this afternoon to call mom")
    assert request is not None and due(request.when, evening).at is None and due(request.when, evening).problem
    assert due(read("remind me to call mom in the afternoon").when, evening).at == \
        datetime(2026, 11, 28, 14, 0, tzinfo=ZoneInfo("Europe/London"))


@pytest.mark.parametrize("question, at", [
    ("remind me to call mom on saturday afternoon", "2026-12-05T14:00"),  # had been "that time has already passed"
    ("remind me on saturday at 10am to water the plants", "2026-12-05T10:00"), ("周六下午3点提醒我开会", "2026-12-05T15:00"),
    ("remind me on saturday at 9pm to lock up", "2026-11-28T21:00"),  # still ahead today: today's
])
def test_today_s_weekday_named_for_a_time_that_has_passed_is_next_week_s(question, at):
    now = datetime(2026, 11, 28, 20, 30, tzinfo=ZoneInfo("Europe/London"))  # a Saturday evening
    request = read(question, now)
    assert request is not None and request.due_read.at == datetime.fromisoformat(at).replace(tzinfo=ZoneInfo("Europe/London"))
    assert due("this saturday at 3pm", now).at is None  # "this Saturday": today's, said to have passed


def test_the_week_after_next_in_chinese_is_two_weeks_on():
    now = datetime(2026, 11, 27, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Friday
    request = read("下下周五下午3点提醒我开会", now)
    assert request is not None and request.text == "开会"  # had been "下开会", a week early
    assert request.due_read.at == datetime(2026, 12, 11, 15, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


async def test_all_of_a_day_cancels_that_day_s_own_and_no_other(fake, make_app):
    """"delete all reminders for monday" had cancelled every reminder pending, Monday's or not."""
    app = make_app(clock="2026-11-27T10:00:00+00:00")  # a Friday
    for question in ("remind me on monday at 9 to call the bank", "set an alarm for monday at 7",
                     "remind me tomorrow at 8 to water the plants", "set an alarm for tomorrow at 6:30",
                     "set a timer for 10 minutes"):
        assert (await app.ask(question)).ok
    book = Book(app.store.path)
    gone = await app.ask("delete all reminders for monday")
    assert gone.ok and gone.model_calls == 0 and "call the bank" in gone.answer
    assert [r.due.astimezone(timezone.utc).strftime("%a %H:%M") for r in book.listed()] == \
        ["Fri 10:10", "Sat 06:30", "Sat 08:00"]
    gone = await app.ask("把明天的闹钟删了")  # tomorrow's alarm, not tomorrow's reminder
    assert gone.ok and gone.model_calls == 0
    assert [r.text for r in book.listed()] == ["", "water the plants"]  # the timer and tomorrow's reminder
    none = await app.ask("cancel monday's alarm")
    assert not none.ok and "no pending reminder is due monday" in none.answer and len(book.listed()) == 2


async def test_a_models_cancel_names_the_day_of_those_it_cancels(fake, make_app):
    """A capable model's call for a wording no rule reads: every one of that day, no other."""
    from fake_ollama import Script, tool_call

    app = make_app(clock="2026-11-27T10:00:00+00:00")  # a Friday
    for question in ("remind me on monday at 9 to call the bank", "remind me on monday at 17 to pay rent",
                     "remind me tomorrow at 8 to water the plants"):
        assert (await app.ask(question)).ok
    call = tool_call("reminders", action="cancel", target="all", when="monday")
    fake.handler = Script(decide=[call], executor=call, responder="Done: Monday is clear.")
    result = await app.ask("wipe out all of my reminders on monday")
    assert result.ok and result.route == "reminders" and result.model_calls >= 1
    assert [r.text for r in Book(app.store.path).listed()] == ["water the plants"]


@pytest.mark.parametrize("question", [
    "cancel reminders 2 and 3", "delete reminder 2 and 4", "cancel the second and third alarm", "cancel both alarms",
    "cancel the first two reminders", "cancel the last 2 alarms", "cancel the meeting reminder and the gym one",
    "cancel my alarm and set a new one for 7", "cancel the timer, the alarm", "不要取消闹钟", "别删掉提醒",
    "取消开会、吃饭的提醒",
])
def test_several_named_or_a_cancel_said_not_to_is_the_model_s(question):
    """Several named at once, more asked beside the cancel, or "not" where the name stands ("不要取消闹钟": don't cancel
    the alarm) are no one reminder named: the model reads them (each had been a cancel of words such as "and",
    "取消", or of the reminders due at 2 or at 7)."""
    assert read(question, NOW) is None


async def test_don_t_cancel_the_alarm_cancels_nothing(fake, make_app):
    from fake_ollama import Script

    app = make_app()
    assert (await app.ask("set an alarm for tomorrow at 7")).ok
    fake.handler = Script(decide="好的,闹钟不取消。", responder="好的,闹钟不取消。")
    result = await app.ask("不要取消闹钟")  # a capable model answers; by rule it had cancelled the alarm
    assert result.model_calls >= 1 and len(Book(app.store.path).listed()) == 1


@pytest.mark.parametrize("question", ["remind me tomorrow 2 buy milk", "remind me on friday 3 times"])
def test_a_number_beside_a_day_that_is_no_hour_leaves_the_hour_to_ask(question):
    """"2 buy milk" (to buy milk), "3 times": no hour was said; the day is kept and its hour asked."""
    request = read(question, NOW)
    assert request is not None and request.due_read.at is None


@pytest.mark.parametrize("question", ["add 5 minutes to the timer", "put 5 more minutes on the timer",
                                      "take 2 minutes off the timer", "add 10 minutes to my alarm"])
async def test_a_span_given_to_the_timer_running_sets_no_other(fake, make_app, question):
    """A span added to or taken from the one set is a change of it, which the model reads; by rule each had set one
    more timer ("add 5 minutes to the timer": a new 5-minute timer about "add to the")."""
    from fake_ollama import Script

    app = make_app()
    assert (await app.ask("set a timer for 10 minutes")).ok
    fake.handler = Script(decide="I can't change a timer that is running yet.",
                          responder="I can't change a timer that is running yet.")
    result = await app.ask(question)
    assert result.model_calls >= 1 and len(Book(app.store.path).listed()) == 1


@pytest.mark.parametrize("question, span", [("put 10 minutes on the timer", "10 minutes"),
                                            ("add a 5 minute timer", "5 minute")])
def test_a_timer_put_on_or_added_is_set_with_no_words_of_the_request(question, span):
    request = read(question, NOW)
    assert request is not None and (request.action, request.kind, request.when, request.text) == \
        ("set", "timer", span, "")
