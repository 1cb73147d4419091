"""The reminders tool: a reminder or a timer set in words, listed, or cancelled, kept in the user's store and fired by
the daemon (assistant/reminders.py). The first tool that keeps state: its ``run`` writes one table of the user's own
store (:mod:`.book`), so it runs in the assistant's process (``keeps_state``); it reaches no network and no other
file. Reading the request (:mod:`.reading`) is certain or silent; a model's call is read by the same rules."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from tools.base import CJK, Grounding, LocalText, PreviousTurn, Tool, ToolResult, Verdict, language_of
from tools.reminders.args import RemindersArgs, unread_when_unfit
from tools.reminders.book import MAX_PENDING, Book, Reminder, TooMany, repeat_said, span_said
from tools.reading.forms import Phrases
from tools.reading.numerals import ordinal
from tools.reading.reader import tokens, unexplained
from tools.reading.when import current_time, local_zone
from tools.lazy_re import lazy_compile

if TYPE_CHECKING:
    from tools.reminders.due import Due

# Verbs that set one, said with no time ("please run a timer for me", "initiate a new alarm", "set my alarm for
# getting up"): the question back for the time
_SET_VERBS = "run initiate start begin getting up"
# Words without which no request is one for reminders: checked first, so that a question of another kind does not
# pay for compiling the reading's patterns
_MAY_BE = lazy_compile(r"remind|timer|alarm|countdown|count(?:ing)? down|wake|ping me|nudge|alert|notif|remainder|tell\s+me\s+to\s|let me forget|"
                     r"remember|^\s*(?:cancel|delete|remove|clear|stop|dismiss|"
                     r"forget|never\s*mind)\b|提醒|定时|计时|闹钟|闹铃|倒计时|叫醒|叫我|喊我|通知我|取消|删除|清空|日程|待办|让我忘|安排", re.IGNORECASE)
# A time or a delay said in a request ("at 5", "5pm", "in 10 minutes", "tomorrow", "下午3点", "十分钟后"): a request
# without reminder words may still set one ("let me know at 5 to call mum")
_A_TIME = lazy_compile(r"\b(?:at|by|in|for|after)\s+(?:\d|an?\s|half|one|two|three|four|five|six|seven|eight|nine|ten|"
                       r"twenty|thirty|fifteen)|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:tomorrow|tonight|noon|"
                       r"midnight|morning|evening|later|soon)\b|\b(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
                       r"fifteen|twenty|thirty|forty|fifty|half|couple|few)\s*-?\s*(?:an?\s+)?(?:min(?:ute)?s?|hours?|hrs?|"
                       r"secs?|seconds?|days?|weeks?)\b|\d{1,2}:\d{2}|[点點]|分钟|小时|秒|明天|后天|今晚|早上|晚上|下午|上午|中午|"
                       r"待会|一会", re.IGNORECASE)
# The user's words asking to cancel: every verb the rules' forms cancel with (tools/reminders/cancelling.py, _CANCELS),
# and more a model's call may follow
_CANCEL_VERB = Phrases(("cancel", "delete", "remove", "clear", "stop", "dismiss", "erase", "disable", "deactivate", "unset",
                        "forget", "drop", "scrap", "kill", "(turn|switch|shut) off", "get rid of", "(never mind|nevermind)",
                        "undo", "(don't|dont) (need|want|bother)", "nix", "ditch", "trash", "wipe", "purge", "call off",
                        "axe", "取消", "删", "去掉", "关掉", "关了", "关闭", "撤销", "撤掉", "不要", "别", "算了", "不用", "清空"),
                       re.IGNORECASE)
_CHANGE_VERB = Phrases(("push", "move", "change", "make", "switch", "reschedule", "bump", "shift", "delay", "postpone",
                        "put off", "改", "推迟", "延后", "提前", "挪", "调到", "换成"), re.IGNORECASE)
_ASKS_TO_KNOW = Phrases(("forget", "let me know", "notify", "alert", "tell me when", "别忘", "忘了", "记得", "通知"),
                        re.IGNORECASE)
_CANCELLING = Phrases(("cancel", "delete", "remove", "clear", "stop", "dismiss", "forget", "(never mind|nevermind)", "取消",
                       "删除"), re.IGNORECASE)  # said first
_KIND_WORDS = ("remind", "timer", "alarm", "countdown", "提醒", "定时", "计时", "闹钟", "倒计时")  # in a word too: "reminders"
_ALL_WORD = Phrases(("all", "every", "everything", "each", "所有", "全部", "统统", "都", "清空"), re.IGNORECASE)


def _names_a_kind(question: str) -> bool:
    said = question.lower()
    return any(word in said for word in _KIND_WORDS)
# The question back for the time of one to set, by kind and language.
_WHEN = {"timer": {"zh": "计时多久?(例如“10分钟”)", "en": "How long should the timer run? (\"10 minutes\", \"90 seconds\")"},
         "reminder": {"zh": "什么时候提醒你?(例如“下午4点半”“明天早上9点”“10分钟后”)",
                      "en": "When should I remind you? (\"at 16:30\", \"tomorrow at 9\", \"in 10 minutes\")"}}
_AT_WHAT_TIME = {"zh": "几点提醒你?(例如“上午9点”“下午2点半”)", "en": "At what time? (\"at 9\", \"at 14:30\")"}
# A kind named alone ("cancel the timer"), and the words that name no reminder's subject ("my reminder to …").
_ASKS_AGAIN = Phrases(("remind", "提醒"), re.IGNORECASE)  # a reply that asks again is a request of its own
_ALL_OF_A_KIND = {"all timers": "timer", "所有定时器": "timer", "all alarms": "alarm", "所有闹钟": "alarm"}
_ALARM_WORDS = frozenset({"alarm", "alarms", "wake"})
_TIMER_WORDS = frozenset({"timer", "timers", "countdown"})
_KINDS = {"timer": "timer", "timers": "timer", "定时器": "timer", "计时器": "timer", "倒计时": "timer",
          "reminder": "reminder", "提醒": "reminder", "alarm": "reminder", "闹钟": "reminder"}
_NOT_ITS_WORDS = {"the", "one", "my", "that", "this", "reminder", "reminders", "timer", "timers", "alarm", "alarms",
                  "to", "about", "for", "of", "set", "called"}
_CONTROL = lazy_compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")



class RemindersConfig(BaseModel):
    store: str  # the store's file (its reminders table)
    clock: str | None = None  # "now" as ISO 8601 (tests, reproducible runs); None: the real time


def _clock(t: datetime) -> str:
    return t.strftime("%H:%M:%S") if t.second else t.strftime("%H:%M")  # "in 90 seconds": to the second


def when_said(at: datetime, now: datetime, zh: bool) -> str:
    """A due time as a person says it: "16:30", "tomorrow at 09:00", "Fri 28 Nov at 08:00" / "16:30", "明天 09:00"."""
    days = (at.date() - now.date()).days
    if zh:
        day = {0: "今天", 1: "明天", 2: "后天"}.get(days, f"{at.month}月{at.day}日")
        return f"{day} {_clock(at)}"
    day = {0: "", 1: "tomorrow "}.get(days, f"{at.strftime('%a')} {at.day} {at.strftime('%b')} ")
    return f"{day}at {_clock(at)}"


class Reminders(Tool[RemindersArgs]):
    name = "reminders"
    description = ("Reminders and timers: set one at a time or after a delay, list them, or cancel some. Copy the time "
                   "and what to remind of as the user wrote them.")
    Args = RemindersArgs
    Config = RemindersConfig
    title = LocalText(zh="提醒和定时器", en="reminders and timers")
    keeps_state = True
    renders_directly = True
    continues_by_substitution = False
    reads = (
        ("set a timer for ten minutes", {"action": "set", "kind": "timer"}),
        ("remind me at 4 to call the dentist", {"action": "set", "text": "call the dentist"}),
        ("提醒我半小时后关火", {"action": "set", "text": "关火"}),
        ("what reminders do I have?", {"action": "list"}),
        ("取消提醒", {"action": "cancel"}),
    )
    near_misses = ("how do reminders work?", "I set a timer yesterday and it rang", "remind me what the capital of "
                   "France is", "提醒是什么意思", "my alarm didn't go off this morning",
                   "明天 8:00 叫我起床的话要怎么设置闹钟?")

    def __init__(self, config: RemindersConfig) -> None:
        super().__init__(config)
        self.cfg = config

    @classmethod
    def from_settings(cls, settings: Any, paths: Any) -> Reminders:
        return cls(RemindersConfig(store=str(paths.database), clock=settings.clock))

    def now(self) -> datetime:
        """Now in the user's zone, with its rules: a wall time on another day gets that day's UTC offset."""
        return current_time(self.cfg.clock).astimezone(local_zone())

    @unread_when_unfit
    def from_reading(self, target: str, question: str) -> list[BaseModel] | str | None:
        """Asked in any words, with every other word one such requests are made of: the reminders and timers
        listed ("go through my reminders for me", "what alarms have I got"); an alarm or a timer set at each time
        said ("sound the alarm at 6 am tomorrow", "set up two alarms one for 10am and another for 2pm"), or, with
        none said, the question back for it ("i want to make an alarm", "new reminder, please")."""
        if target == "reminders.list":
            return [RemindersArgs(action="list")] if not unexplained(question, target) else None
        if target not in ("reminders.alarm", "reminders.timer", "reminders.set"):
            return None
        from tools.reminders.due import numbers_as_digits
        from tools.reminders.listing import SET_WORDS, changes_one_set
        from tools.reminders.times import times_said

        times = times_said(question, self.now())
        words = tokens(question)
        if _two_kinds(words) or changes_one_set(words):
            return None  # "wake me up at 7 and set a timer for 5 minutes": two kinds, the model sets each; "add 5
            # minutes to the timer": the one running changed
        counted = {1: "one", 2: "two", 3: "three"}.get(len(times), "")  # "two alarms, one at 12 pm and …"

        said_with = " ".join(SET_WORDS) if times else _SET_VERBS  # "sound the alarm at 6 am", "please run a timer"
        if unexplained(numbers_as_digits(question), target, " ".join([*times, counted, "one" if times else "", said_with])):
            return None  # what it is about, or a word no such request has: the rules or the model read it
        kind: Literal["reminder", "timer"] = "timer" if target == "reminders.timer" else "reminder"
        if not times:
            return _WHEN[kind]["zh" if language_of(question) == "zh" else "en"]
        if kind == "timer" and not _spans_only(times):
            return None  # a timer at a time of day: when it starts, the model reads
        return [RemindersArgs(action="set", when=when, kind=kind) for when in times]

    @unread_when_unfit
    def route(self, question: str) -> list[BaseModel] | None:
        if not _MAY_BE.search(question):
            return None
        from tools.reminders.reading import hourless, read  # its patterns compile when a question may be one

        request = read(question, self.now())  # a reminder set carries the time it read: the run does not read it again
        if hourless(request):
            return None  # "remind me on friday to …": its hour is asked (missing)
        if request is None:
            from tools.reminders.changes import named_change

            request = named_change(question, self.now())  # "move my dentist reminder to 4pm"
        if request is not None:
            return [request]
        return self._set_by_words(question) if language_of(question) != "zh" else None

    def _set_by_words(self, question: str) -> list[BaseModel] | None:
        """An alarm or a timer at each time said, asked in words the rules' forms do not have ("sound the alarm at 6
        am tomorrow", "count down 10 minutes"): every other word one such requests are made of."""
        from tools.reminders.listing import asks_to_set
        from tools.reminders.due import numbers_as_digits
        from tools.reminders.reading import in_the_morning
        from tools.reminders.times import times_said

        times = times_said(question, self.now())
        words = tokens(numbers_as_digits(question))
        kind = asks_to_set(words, times)
        if kind is None or _two_kinds(words):
            return None  # "an alarm for 7 and a timer for 10 minutes": two kinds, the model sets each
        if kind == "timer" and not _spans_only(times):
            return None  # "at noon set a timer for 10 minutes": a timer runs a span; when it starts, the model reads
        waking = kind == "reminder" and bool((_ALARM_WORDS | {"woken", "waking"}) & set(words))
        return [RemindersArgs(action="set", when=in_the_morning(when) if waking else when, kind=kind) for when in times]

    def missing(self, question: str) -> str | None:
        if not _MAY_BE.search(question):
            return None
        from tools.reminders.reading import hourless, read, untimed

        kind = untimed(question)
        zh = language_of(question) == "zh"
        if kind is not None and hourless(read(question, self.now())):
            return _AT_WHAT_TIME["zh" if zh else "en"]  # its day said: the hour
        return None if kind is None else _WHEN[kind]["zh" if zh else "en"]

    def grounding(self, question: str) -> Grounding:
        """A model's route here stands when the request speaks of reminders, timers or alarms, or says a time (a
        reminder said another way); a request with neither ("how do I cancel a task in asyncio?") is chat."""
        return "grounded" if _names_a_kind(question) or _CANCELLING.match(question.lstrip()) or _A_TIME.search(question) or \
            _ASKS_TO_KNOW.search(question) else "ungrounded"

    def own_word(self, value: str) -> bool:
        """A kind, or every one of a kind: "alarm", "all timers", "所有闹钟"."""
        return value in _KINDS or value in _ALL_OF_A_KIND or value == "all"

    def unasked_change(self, question: str, args: RemindersArgs, about_it: bool) -> LocalText | None:
        """A model's cancel runs only when the user's words ask to cancel and name what: a kind ("the timer"), all
        of them ("all"), words of one that are the user's own, or the reminder just talked about ("cancel it"
        after one was set or listed); a model's change only when they ask to move one so named."""
        if args.action == "change":  # a time changed: only when the words ask it of one named or just talked about
            if _CHANGE_VERB.search(question) and (about_it or _names_a_kind(question)):
                return None
            return LocalText(en="I did not change anything: your words do not say which reminder to move. Say it with "
                                "its words or its number (\"move the reminder to call mum to 6pm\").",
                             zh="我没有改任何提醒:你的话里没有说要改哪一个。请说出它的内容或编号(例如“把给妈妈打电话的提醒改到6点”)。")
        if args.action != "cancel":
            return None
        target = args.target.strip().lower()
        words = [w for w in re.findall(r"\w+", target) if (len(w) >= 2 or w.isdigit()) and
                 w not in ("the", "one", "my", "that", "all")]
        named = bool(_names_a_kind(question)) or about_it or \
            (bool(words) and all(w in question.lower() for w in words))
        all_said = target != "all" or bool(_ALL_WORD.search(question))
        if _CANCEL_VERB.search(question) and named and all_said:
            return None
        return LocalText(en="I did not cancel anything: your words do not say which reminder to cancel. Say it with "
                            "its words, its number or \"all\" (\"cancel the reminder to call mum\"); `assistant "
                            "reminders` lists them.",
                         zh="我没有取消任何提醒:你的话里没有说要取消哪一个。请说出它的内容、编号或“全部”(例如“取消给妈妈打电话的"
                            "提醒”);assistant reminders 可以列出来。")

    @unread_when_unfit
    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """Right after a reminders turn, what only makes sense after it: "cancel it", "never mind", "取消它" (the
        reminder that turn set, or the one it listed alone); "push it to 5pm", "make it 10 minutes later", "改成半小时"
        (the one it set: a new time); "another one at 5", "再来一个8点的" (one more like it). After any other turn
        these words are not about reminders at all."""
        if previous.route != self.name:
            return None
        from tools.reminders.follow_ups import anaphoric, another, changed
        from tools.reminders.times import reads_time
        from tools.reading.durations import seconds_of

        set_ = [data for _, data in previous.calls if isinstance(data, dict) and data.get("action") in ("set", "change")
                and data.get("id") is not None]
        if _CANCEL_VERB.search(question) and anaphoric(question):  # the verb first: the patterns compile only then
            listed = [r for _, data in previous.calls if isinstance(data, dict) and data.get("action") == "list"
                      for r in data.get("reminders", [])]
            target = str(set_[-1]["id"]) if set_ else str(listed[0]["id"]) if len(listed) == 1 else ""
            return [RemindersArgs(action="cancel", target=target)]
        if len(set_) != 1 or len(question) > 80:
            return None  # a change needs the one reminder just set
        last = set_[0]
        if (change := changed(question)) is not None:
            how, when = change
            if how == "count":  # "make it 15": 15 minutes after a timer of 10 minutes, 15:00 after a reminder at 5pm
                if last.get("kind") == "timer" or last.get("relative"):
                    how, when = "to", _in_units_of(when, last.get("seconds"))
                elif len(when) <= 2 and reads_time(f"at {when}"):
                    how, when = "to", f"at {when}"
                else:
                    return None
            if how != "to":  # a shift of its own time: "an hour later" is an hour after it was due
                span = timedelta(seconds=seconds_of(when) or 0) * (1 if how == "later" else -1)
                at = (datetime.fromisoformat(str(last["due"])) + span).astimezone(self.now().tzinfo)
                when = f"{at.date().isoformat()} at {at:%H:%M}"
            return [RemindersArgs(action="change", target=str(last["id"]), when=when)]
        if (again := another(question)) is not None:
            from tools.reminders.due import Due, due

            more = RemindersArgs(action="set", when=again, text=str(last.get("text") or ""),
                                 kind="timer" if last.get("kind") == "timer" else "reminder")
            now = self.now()
            if last.get("due") and last.get("kind") != "timer" and (next_at := due(again, now).at) is not None:
                # "another one at 7" after tomorrow's 6:45 alarm: 7 of that morning, not 19:00 today
                placed = _on_its_day(next_at, datetime.fromisoformat(str(last["due"])).astimezone(now.tzinfo), again,
                                     now)
                more.read_at(Due(at=placed))
            return [more]
        return None

    @unread_when_unfit
    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        from tools.reminders.times import times_said
        from tools.reminders.reading import untimed

        zh = language_of(question) == "zh"
        kind = untimed(question)
        if untimed(reply) is not None or self.route(reply) is not None or _ASKS_AGAIN.search(reply):
            return None  # "remind me about the meeting 15 minutes before": a request of its own, not the time asked for
        joined = f"{question}{reply}" if zh else f"{question} {'for ' if kind == 'timer' else ''}{reply}"
        if (read := self.route(joined)) is not None or zh:
            return read
        # asked back on the reader's reading ("i want to make an alarm"): the reply is the time, and all of it
        times = times_said(f"{'for ' if kind == 'timer' else ''}{reply}", self.now())
        return [RemindersArgs(action="set", when=times[0], kind=kind or "reminder")] if len(times) == 1 else None

    async def run(self, args: RemindersArgs) -> ToolResult:
        book, now = Book(self.cfg.store), self.now()
        zh = language_of(args.text + args.when + args.target) == "zh"
        if args.action == "list":
            return ToolResult.success(action="list", reminders=[r.as_json() for r in book.listed()],
                                      as_of=now.isoformat())
        if args.action == "cancel":
            return self._cancel(book, args)
        from tools.reminders.due import MAX_TEXT, due
        from tools.reminders.repeats import first_due

        read_due = args.due_read or (first_due(args.repeat, args.when, now) if args.repeat and args.action == "set"
                                     else due(args.when, now))
        if read_due.at is None:
            problem = read_due.problem or LocalText(en="I could not tell when.", zh="没听出是什么时候。")
            result = ToolResult.failure(f"cannot {args.action} it: {problem.en}", problem)
            result.fixable = "could not tell" in problem.en  # a model may write the time again; a past one stays past
            return result
        at = read_due.at if read_due.at.microsecond == 0 else \
            read_due.at.replace(microsecond=0) + timedelta(seconds=1)  # "in 90 seconds": a whole second, never early
        if args.action == "change":
            return self._change(book, args, at, read_due, now)
        text = args.text.strip()
        if _CONTROL.search(text):
            return ToolResult(ok=False, error="the reminder's text has control characters", fixable=False,
                              message=LocalText(en="the reminder's text has control characters; write it as plain text.",
                                                zh="提醒的内容里有控制字符;请用普通文字写。"))
        if len(text) > MAX_TEXT:
            return ToolResult(ok=False, error=f"the reminder's text is over {MAX_TEXT} characters", fixable=False,
                              message=LocalText(en=f"that is too long for a reminder (at most {MAX_TEXT} characters).",
                                                zh=f"提醒的内容太长了(最多 {MAX_TEXT} 个字符)。"))
        try:
            kept = book.add(args.kind, text, at, "zh" if zh or language_of(args.when) == "zh" else "en", now,
                            wall=not read_due.relative,
                            span=read_due.said_span(now) if read_due.relative else None,
                            repeat=args.repeat or None)
        except TooMany:
            return ToolResult(ok=False, error=f"{MAX_PENDING} reminders are pending already", fixable=False,
                              message=LocalText(en=f"you have {MAX_PENDING} reminders pending, the most kept; cancel "
                                                   "some first (assistant reminders).",
                                                zh=f"你已经有 {MAX_PENDING} 个待办提醒,已到上限;请先取消一些(assistant reminders)。"))
        return self._kept(book, "set", kept, read_due, now)

    def _kept(self, book: Book, action: str, kept: Reminder, asked: Due, now: datetime) -> ToolResult:
        """A reminder set or moved, as the answer says it: its span counted to the time ``asked`` ("in 5 minutes" is
        said back as 5 minutes, not with the second the due time was rounded up by)."""
        return ToolResult.success(action=action, id=kept.id, kind=kept.kind, text=kept.text, repeat=kept.repeat,
                                  due=kept.due.astimezone(now.tzinfo).isoformat(), as_of=now.isoformat(),
                                  seconds=asked.said_span(now), relative=asked.relative,
                                  daemon=book.firing())

    def _change(self, book: Book, args: RemindersArgs, at: datetime, asked: Due, now: datetime) -> ToolResult:
        """One pending reminder, named by ``args.target`` (or the only one), given the new time ``at``."""
        chosen = self._chosen(book, args)
        if isinstance(chosen, ToolResult):
            return chosen
        if len(chosen) != 1:
            return ToolResult(ok=False, error="change one reminder at a time", fixable=False,
                              message=LocalText(en="I can change one reminder at a time: say which.",
                                                zh="一次只能改一个提醒:请说是哪一个。"))
        if not asked.relative:
            at = _on_its_day(at, chosen[0].due.astimezone(at.tzinfo), args.when, now)
        moved = book.move(chosen[0].id, at, wall=not asked.relative, span=asked.said_span(now) if asked.relative else None)
        if moved is None:
            return ToolResult(ok=False, error="it is no longer pending", fixable=False,
                              message=LocalText(en="that one has already gone off or been cancelled.",
                                                zh="那个提醒已经响过或取消了。"))
        return self._kept(book, "change", moved, asked, now)

    def _cancel(self, book: Book, args: RemindersArgs) -> ToolResult:
        chosen = self._chosen(book, args)
        if isinstance(chosen, ToolResult):
            return chosen
        done = book.cancel([r.id for r in chosen])
        return ToolResult.success(action="cancel", cancelled=[r.as_json() for r in done])

    def _due_at(self, pending: list[Reminder], said: str) -> list[Reminder]:
        """The pending ones due at the time of day ``said`` names ("5pm", "下午5点"), or on the day and in the part of
        it it names ("tomorrow morning", "明天", "周五晚上"), or none."""
        from tools.reminders.due import day_said, due

        now = self.now()
        if (on := day_said(said, now)) is not None:
            day, (first, last) = on
            local = [(r, r.due.astimezone(now.tzinfo)) for r in pending]
            return [r for r, at in local if at.date() == day and first <= at.hour < last]
        at = due(said if CJK.search(said) else f"at {said}", now).at
        if at is None:
            return []
        return [r for r in pending if r.due.astimezone(at.tzinfo).strftime("%H:%M") == at.strftime("%H:%M")]

    def _chosen(self, book: Book, args: RemindersArgs) -> list[Reminder] | ToolResult:
        """The pending reminders ``args.target`` names (its number, words of it, "the last one", "all"; the only
        one when it names none), or the failure that says why none is."""
        pending = book.listed()
        target = args.target.strip().lower()
        if not pending:  # said by the kind asked for: "cancel my timer" → no timers
            kind = _KINDS.get(target) or _KINDS.get(target.removeprefix("all ").removeprefix("所有").rstrip("s"))
            alarm = "alarm" in target or "闹钟" in target
            return ToolResult(ok=False, error="no reminders are pending", fixable=False, message=LocalText(
                en=f"you have no {'alarms' if alarm else 'timers' if kind == 'timer' else 'reminders'} pending.",
                zh=f"现在没有待办的{'闹钟' if alarm else '定时器' if kind == 'timer' else '提醒'}。"))
        if args.action == "cancel" and (day := args.when.strip()):  # "all reminders for monday": Monday's, no other
            pending = self._due_at(pending, day)
            if not pending:
                return ToolResult(ok=False, error="no pending reminder is due then", fixable=False, message=LocalText(
                    en=f"no pending reminder is due {day} (assistant reminders lists them).",
                    zh=f"{day}没有待办的提醒(assistant reminders 可以列出来)。"))
        which = _ORDINAL.fullmatch(re.sub(r"^(?:my|the)\s+|^我的|(?:\s+(?:one|reminder|timer|alarm))+$|的$", "", target))
        if target == "all":
            chosen = pending
        elif target in _ALL_OF_A_KIND:  # "remove all my timers", "关闭所有闹钟": every one of that kind, no other
            kind = _ALL_OF_A_KIND[target]
            chosen = [r for r in pending if r.kind == "timer"] if kind == "timer" else [r for r in pending if r.is_alarm]
        elif which:  # "the last one": the one set last; "the next one", "the first": the one due first
            chosen = [max(pending, key=lambda r: r.id)] if which.group("last") else [min(pending, key=lambda r: r.due)]
        elif (place := _position(target)) is not None:  # "the second one", "第二个": as the list shows them
            listed = sorted(pending, key=lambda r: r.due)
            chosen = [listed[place - 1]] if place <= len(listed) else []
        elif target.isdigit() or target.lstrip("#").isdigit():
            chosen = [r for r in pending if r.id == int(target.lstrip("#"))]
        elif target in _KINDS:  # "the timer", "定时器": the one of that kind
            chosen = [r for r in pending if r.kind == _KINDS[target]]
            if target in ("alarm", "闹钟"):  # one about something is never taken for the alarm
                chosen = [r for r in chosen if r.is_alarm]
            if len(chosen) > 1:
                return ToolResult(ok=False, error=f"several {_KINDS[target]}s are pending: which one?", fixable=False,
                                  message=_which(chosen, bool(CJK.search(target)), self.now(),
                                                 args.action))
        elif target:
            # its words, the kind and the joining words set aside: "reminder to call mum" is the one to call mum
            words = [w for w in re.findall(r"\w+", target) if len(w) >= 2 and w not in _NOT_ITS_WORDS]
            chosen = [r for r in pending if words and all(w in r.text.lower() for w in words)] if words else []
            if not chosen and CJK.search(target):
                chosen = [r for r in pending if target.strip("的") in r.text]
            if not chosen:  # "my 5pm reminder": the one due then
                chosen = self._due_at(pending, target)
        elif len(pending) == 1:
            chosen = pending
        else:
            chosen = []
            if pending:
                return ToolResult(ok=False, error="several reminders are pending: which one?", fixable=False,
                                  message=_which(pending, language_of(args.target) == "zh" or
                                                 any(r.lang == "zh" for r in pending[:1]), self.now(), args.action))
        if not chosen:
            return ToolResult(ok=False, error="no pending reminder matches", fixable=False,
                              message=LocalText(en="no pending reminder matches that (assistant reminders lists them).",
                                                zh="没有对得上的待办提醒(assistant reminders 可以列出来)。"))
        return chosen

    def vet(self, question: str, args: RemindersArgs) -> Verdict | None:
        """A model's call: the time it sets must be the question's own (its numbers, or its words), never one it
        chose; a rule's call copies the question, so it always is."""
        if args.action != "set" or not args.when.strip():
            return None
        from tools.reminders.due import numbers_as_digits
        from tools.reminders.repeats import interval_said
        from tools.reading.durations import seconds_of
        from tools.reading.request import values

        if args.repeat == "interval" and (every := interval_said(question)) is not None and \
                seconds_of(args.when.strip().removeprefix("in ").removesuffix("后")) == every:
            return None  # "every hour": its first time is the span said ("in 1 hour"), whatever the words

        asked = numbers_as_digits(values(question)).casefold()
        when = numbers_as_digits(values(args.when)).casefold()
        numbers = re.findall(r"\d+(?:\.\d+)?", when)
        words = [w for w in re.findall(r"[a-z]+|[\u4e00-\u9fff]", when) if w not in ("in", "at", "on", "for", "after")]
        if all(n in re.findall(r"\d+(?:\.\d+)?", asked) for n in numbers) and \
                (numbers or all(w in asked for w in words)):
            return None
        return Verdict(verdict="FAIL", reason=f"the time '{args.when}' is not in the question: copy the time as the user "
                                              "wrote it", message=LocalText(en="the time it chose is not the one you asked for.",
                                                                            zh="它选的时间不是你说的时间。"))

    def check(self, question: str, args: RemindersArgs, result: ToolResult) -> Verdict | None:
        if not result.ok:
            return super().check(question, args, result)
        return Verdict(verdict="PASS", reason="kept in the store" if args.action == "set" else "read from the store")

    def render(self, question: str, args: RemindersArgs, result: ToolResult) -> str | None:
        data = result.data or {}
        zh = language_of(question) == "zh"
        now = datetime.fromisoformat(str(data.get("as_of"))) if data.get("as_of") else self.now()
        if data.get("action") == "list":
            return _listing([_from_json(r) for r in data.get("reminders", [])], now, zh)
        if data.get("action") == "cancel":
            gone = [_from_json(r) for r in data.get("cancelled", [])]
            if zh:
                return "已取消:" + ";".join(_line(r, now, zh) for r in gone) + "。"
            return "Cancelled: " + "; ".join(_line(r, now, zh) for r in gone) + "."
        at = datetime.fromisoformat(str(data["due"]))
        when = when_said(at, now, zh)
        what, kind = str(data.get("text") or ""), data.get("kind")
        seconds = float(data.get("seconds") or 0)
        if data.get("action") == "change":
            if zh:
                return ("好的,改好了:计时器" + (f"({what})" if what else "") + f"{when} 到点" if kind == "timer" else
                        f"好的,改好了:{when} 提醒你" + (f":{what}" if what else "")) + f"(#{data['id']})。"
            if kind == "timer":
                return "OK, moved: the timer" + (f" ({what})" if what else "") + f" goes off {when} (#{data['id']})."
            return f"OK, moved: I'll remind you{_of(what)} {when} instead (#{data['id']})."
        every = data.get("repeat") == "interval"  # "every 2 hours": its span, not a time of day
        if zh:
            again = f"{repeat_said('interval', at, True, seconds)},第一次是{when}," if every else \
                f"{repeat_said(str(data['repeat']), at, True)} {_clock(at)},第一次是{when}," if data.get("repeat") \
                else f"{when} "
            head = (f"好的,计时 {span_said(seconds, True)}" + (f"({what})" if what else "") + f",{when} 到点" if kind == "timer" else
                    f"好的,{again}提醒你".replace(" 提醒你", "提醒你") + (f":{what}" if what else "")) + f"(#{data['id']})。"
            tail = "" if data.get("daemon") else ("\n提醒在后台服务运行时才会弹出:assistant daemon start(或 assistant daemon "
                                                 "install 让它随登录启动)。")
            return head + tail
        if kind == "timer":
            head = f"OK, timer set for {span_said(seconds, False)}" + (f" ({what})" if what else "") + f": it goes off {when}"
        elif every:  # "every 2 hours, first at 12:00"
            head = f"OK, I'll remind you{_of(what)} {repeat_said('interval', at, False, seconds)}, first {when}"
        elif data.get("repeat"):  # "every weekday at 09:00, first on Mon 30 Nov"
            head = f"OK, I'll remind you{_of(what)} {repeat_said(str(data['repeat']), at, False)} at {_clock(at)}, " \
                   f"first {when}"
        else:
            head = f"OK, I'll remind you{_of(what)} {when}"
            if data.get("relative"):
                head += f", in {span_said(seconds, False)}"
        tail = "" if data.get("daemon") else ("\nIt fires while the daemon runs: assistant daemon start (or assistant "
                                              "daemon install to have it at login).")
        return head + f" (#{data['id']})." + tail


def _spans_only(times: list[str]) -> bool:
    """Every time said is a span ("for 10 minutes", "5 minutes"), as a timer's are; "at noon" is none."""
    from tools.reminders.due import numbers_as_digits
    from tools.reading.durations import seconds_of

    return all(seconds_of(numbers_as_digits(t).removeprefix("for ").removeprefix("in ")) is not None for t in times)


def _two_kinds(words: list[str]) -> bool:
    """Whether a request names an alarm and a timer both: two requests, which no one reading sets."""
    said = set(words)
    return bool(_ALARM_WORDS & said and _TIMER_WORDS & said)


def _on_its_day(at: datetime, due: datetime, when: str, now: datetime) -> datetime:
    """A time of day said with no day for a reminder due on another day ("move the meeting reminder to 9" for
    tomorrow's at 8): that time on its own day, and a bare hour ("9", "9点") the one of its morning or evening
    nearest the time it had; ``at`` (the next such time) when the words name a day or it would be past."""
    from tools.reminders.times import names_a_day, said_bare

    if at.date() == due.date() or names_a_day(when):
        return at
    same = due.replace(hour=at.hour, minute=at.minute, second=0, microsecond=0)
    options = [same] + ([same + timedelta(hours=12 if at.hour < 12 else -12)] if said_bare(when) and at.hour % 12 else [])
    options = [o for o in options if o > now]
    return min(options, key=lambda o: abs(o - due)) if options else at


def _in_units_of(count: str, seconds: Any) -> str:
    """A bare number said for a timer or a delay just set ("make it 15" after "a timer for 10 minutes") in the unit
    its length was said in: 15 minutes, never 15:00."""
    span = float(seconds or 60)
    unit = "hours" if span % 3600 == 0 else "minutes" if span % 60 == 0 else "seconds"
    return f"{count} {unit}"


def _of(what: str) -> str:
    """What a reminder is about, as "I'll remind you …" goes on: " to call mum", " about the dentist", or nothing."""
    if not what:
        return ""
    return f" {what}" if what.lower().startswith(("to ", "about ")) else f" to {what}"


def _from_json(r: dict[str, Any]) -> Reminder:
    return Reminder(id=int(r["id"]), kind=str(r["kind"]), text=str(r["text"]), due=datetime.fromisoformat(str(r["due"])),
                    lang="", state=r["state"], span=r.get("span"), repeat=r.get("repeat"))


def _line(r: Reminder, now: datetime, zh: bool) -> str:
    return f"#{r.id} {when_said(r.due.astimezone(now.tzinfo), now, zh)} {r.what(zh, fired=False)}"


def _listing(reminders: list[Reminder], now: datetime, zh: bool) -> str:
    if not reminders:
        return "现在没有待办的提醒。" if zh else "You have no reminders pending."
    head = f"你有 {len(reminders)} 个待办提醒:" if zh else f"You have {len(reminders)} pending:"
    return head + "\n" + "\n".join(f"- {_line(r, now, zh)}" for r in reminders)


_PLACES_ZH = {f"第{c}": i + 2 for i, c in enumerate("二三四五六七八九十")} | {f"第{n}": n for n in range(2, 11)}


def _position(target: str) -> int | None:
    """A place in the list said as an ordinal past the first ("the second one", "3rd", "第二个", "第3条"): the
    first is the soonest, read by ``_ORDINAL``."""
    words = [w for w in target.replace("的", " ").split() if w not in ("the", "my", "one", "reminder", "timer", "alarm")]
    if len(words) != 1:
        return None
    word = words[0]
    for tail in ("个提醒", "个闹钟", "个定时器", "个", "条", "项"):
        word = word.removesuffix(tail)
    place = _PLACES_ZH.get(word) or ordinal(word)
    return place if place is not None and 2 <= place <= 10 else None


_ORDINAL = lazy_compile(r"(?P<last>last|latest|newest|most\s+recent|最后一个|最后那个|最新的?|刚才那个|刚才的|刚刚那个|刚设的|上一个)"
                      r"|next|soonest|first|earliest|下一个|最近的?|第一个|最早的?")


def _which(pending: list[Reminder], zh: bool, now: datetime, action: str = "cancel") -> LocalText:
    listed = "; ".join(_line(r, now, zh) for r in pending[:5])
    if action == "change":
        return LocalText(en=f"which one? You have {len(pending)} pending: {listed}. Say its number or words of it.",
                         zh=f"改哪一个?你有 {len(pending)} 个待办提醒:{listed}。请说它的编号或内容里的词。")
    first = pending[0].id  # an example of one listed: "cancel 2" named a reminder the list did not show
    return LocalText(en=f"which one? You have {len(pending)} pending: {listed}. Say \"cancel {first}\", words of it, or "
                        "\"cancel all\".",
                     zh=f"取消哪一个?你有 {len(pending)} 个待办提醒:{listed}。可以说“取消 {first}”、提醒里的词,或“取消所有提醒”。")
