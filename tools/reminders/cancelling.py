"""A request to cancel reminders read from words, without a model: by number ("cancel reminder 2", "取消提醒2号"),
by kind ("the timer", "闹钟"), every one ("all", "清空提醒") or every one of a kind ("all my alarms"), by what one is
about ("the dentist one", "买菜的那个"), and by the day they are due ("all reminders for monday", "明天的闹钟"). "All"
said with words that keep some ("all reminders except the dentist") is not read here: never every one by rule."""

from __future__ import annotations

import re
from datetime import datetime

from tools.reading.forms import Forms, Phrases
from tools.reading.reader import spaced
from tools.reminders.args import RemindersArgs
from tools.reminders.due import EN_DAY, PART_HOURS, ZH_DAY, day_said, last_word

# One cancelled: by its number ("cancel reminder 2", "取消提醒2号"), or by what it is about or its kind, in either
# language ("cancel the dentist reminder", "never mind the timer", "取消明天的闹钟", "删除开会那个")
_CANCELS = Forms([
    ("(cancel|delete|remove) [(reminder|timer)] [#] {n}", "number"),
    ("(取消|删除|删掉|去掉|关掉) [(提醒|闹钟|定时器)] [#] {n} [号]", "number"),
    ("[please] (cancel|delete|remove|clear|stop|dismiss|erase|disable|deactivate|unset|turn off|switch off|shut off|"
     "get rid of|forget [about]|scrap|kill|nix|drop|ditch|trash) {what} [(reminders|reminder|timers|timer|alarms|alarm|ones|one)]",
     "en"),
    ("(never mind|nevermind) [the] {what} (reminders|reminder|timers|timer|alarms|alarm)", "en"),
    ("[(帮我|请)] (取消|删除|删掉|去掉|关掉|关闭|不要|清空) [掉] {what} [的] (提醒|闹钟|定时器|计时器|倒计时) [(了|吧|了吧)]", "zh"),
    ("(取消|删除) [掉] {what:text} (那个|那条)", "zh"),
    ("[(帮我|请)] 把 {what} [的] (提醒|闹钟|定时器|计时器|倒计时) [(都|全部|全)] (取消|删除|删掉|去掉|关掉|关了|关闭|删了|删) [(掉|了)] [吧]",
     "zh"),
], types={"digits": r"\d+", "any": r"[^,;，；。]*?", "text": r"[^,;，；。]+?"}, slots={"n": "digits", "what": "any"})


_SELF_CORRECTION = ("i mean", "no wait", "sorry", "rather", "actually", "不对", "我是说", "我的意思是")


def _corrects_itself(words: str) -> bool:
    """Whether the words take back what they named ("the timer, I mean the reminder …")."""
    said = spaced(words)
    return any(f" {w} " in said if w.isascii() else w in said for w in _SELF_CORRECTION)


_DAY_JOINS = ("scheduled for", "set for", "due on", "due", "for", "on", "of", "from", "in the", "in")


_NOT_ON_THAT_DAY = ("after", "before", "until", "till", "except", "but", "not", "besides", "other than", "since", "除了")


def _day_apart(what: str, zh: bool, now: datetime) -> tuple[str, str] | None:
    """What a request to cancel names, and the day it names them by, when it names one ("all reminders for monday":
    ``("all reminders", "monday")``; "tomorrow morning's alarm", "周日的所有", "明天早上"); else ``(what, "")``;
    ``None`` when the day bounds them another way ("alarms after friday"), which is not read here."""
    m = (ZH_DAY if zh else EN_DAY).search(what)
    if m is None:
        return what, ""
    start, end = m.span()
    rest = what[end:]
    if part := next((p for p in PART_HOURS if rest.lstrip().casefold().startswith(p)), None):  # "tomorrow morning"
        end += len(rest) - len(rest.lstrip()) + len(part)
    day = what[start:end].strip().removeprefix("on ")
    if day_said(day, now) is None:
        return what, ""
    before, after = what[:start].rstrip(), what[end:].removeprefix("'s").removeprefix("’s")
    if before.casefold().endswith(_NOT_ON_THAT_DAY) or after.lstrip().startswith(("以后", "之后", "以前", "之前", "以外")):
        return None  # "any morning alarms after friday", "周五以后的闹钟": not that day's
    if zh:
        return (before + after).strip().removeprefix("的").strip(), day
    after_words = after.strip()
    if not after_words and (join := next((j for j in _DAY_JOINS if f" {before.casefold()}".endswith(f" {j}")), "")):
        before = before[:len(before) - len(join)].rstrip()  # "all reminders for [monday]"
    return f"{before} {after_words}".strip(), day


_THE = Phrases(("the", "my", "that", "this", "那个", "这个", "我的"), re.IGNORECASE)  # "cancel [the] dentist reminder"


_TIMER = Phrases(("timer", "timers", "定时器", "计时器", "倒计时"), re.IGNORECASE)


# The words that say "every one" and nothing more ("all of my pending reminders", "所有的提醒都"); any other word beside
# "all" restricts it ("all reminders except the dentist", "every reminder about the party", "全部工作的提醒"), and
# what it keeps is not read here: never every one.
_ALL_OF_THEM = frozenset({"all", "every", "each", "everything", "of", "my", "the", "your", "these", "those", "pending",
                          "current", "active", "existing", "scheduled", "set", "upcoming", "reminders", "reminder",
                          "alarms", "alarm", "timers", "timer", "ones", "one", "please", "now", "for", "me", "i", "have",
                          "that", "are"})


_ZH_ALL_OF_THEM = ("所有", "全部", "都", "的", "提醒", "闹钟", "定时器", "计时器", "倒计时", "我", "把", "了", "吧", "掉", "全", "个", "条",
                   "设置", "设定", "设好", "设", "定好", "现有", "目前", "现在", "已经", "待办", "请", "帮")  # "我设置的所有闹钟"


def _more_than_all(what: str, zh: bool) -> bool:
    """Whether ``what`` ("all reminders except …") says more than every one (of a kind)."""
    if zh:
        for word in _ZH_ALL_OF_THEM:
            what = what.replace(word, "")
        return bool(what.strip())
    return any(w.strip(".,!?") not in _ALL_OF_THEM for w in what.casefold().replace("'s", "").split())


def _cancelled(what: str, text: str, zh: bool) -> str | None:
    """What a request to cancel names, from the words said after its verb: "all", every one of a kind ("all timers",
    "所有闹钟"), a kind ("timer", "alarm"), or words of one ("dentist", "买菜"); ``None`` when "all" is said with words
    that keep some ("all reminders except the dentist"), which are not read here."""
    every = what.casefold().startswith(("all", "every", "each")) or (zh and ("所有" in what or "全部" in what)) or (
        zh and not what and ("全部" in text or "都" in text) and "提醒" in text and not _TIMER.search(text)
        and "闹钟" not in text)  # "把提醒全部删掉": every one; "把闹钟都关了": of a kind said, the tool asks which
    if every or (not what and "清空" in text):
        if _more_than_all(what, zh):
            return None
        what = "all"  # "清空提醒", "把提醒全部删掉", "提醒都删了": every one of them
        if _TIMER.search(text):
            what = "所有定时器" if zh else "all timers"  # "remove all my timers": the timers, not every reminder
        elif ("闹钟" if zh else "alarm") in text.casefold():
            what = "所有闹钟" if zh else "all alarms"
    if the := _THE.match(what):
        what = what[the.end():].strip()
    what = {"reminders": "", "reminder": "", "alarms": "alarm", "timers": "timer"}.get(what.casefold(), what)  # a kind
    if zh:  # "买菜的那个提醒": the one about 买菜
        for that in ("的那个", "那个", "的那条", "那条", "的这个", "这个"):
            what = what.removesuffix(that)
        what = what.removesuffix("的")
    if not what and _TIMER.search(text):
        what = "定时器" if zh else "timer"  # "cancel the timer": the kind is what it names
    elif not what and ("闹钟" if zh else "alarm") in text.casefold():
        what = "闹钟" if zh else "alarm"  # "cancel my alarm": an alarm, not any reminder
    return what


_SEVERAL = frozenset({"both", "first", "last", "next", "top", "previous", "two", "three", "four", "five"})
_ZH_NOT_NAMED = ("取消", "删", "关", "不要", "别", "不用")  # a verb or a "not" where the name stands: "不要取消闹钟"


def _not_one_named(what: str, zh: bool) -> bool:
    """Whether ``what`` names several ("reminders 2 and 3", "the meeting one and the gym one", "the first two", "both
    alarms"), or more than what to cancel ("my alarm and set a new one for 7"; "不要取消闹钟": not to cancel): which
    the model reads."""
    if zh:
        return what.startswith(_ZH_NOT_NAMED) or "、" in what or "还有" in what
    words = what.casefold().replace(",", " , ").split()
    return bool({"and", "or", ",", "both"} & set(words)) or \
        (bool(_SEVERAL & set(words)) and any(w.isdecimal() for w in words))


def read_cancel(text: str, zh: bool, now: datetime) -> tuple[bool, RemindersArgs | None]:
    """Whether ``text`` (a request as :func:`tools.reminders.reading.read` reads it) asks to cancel, and what, when
    these rules read it whole (else ``None``: the model reads which)."""
    how, cancel = next(((how, said) for how, said in _CANCELS.each(text) if how in ("number", "zh" if zh else "en")),
                       ("", None))
    if cancel is None:
        return False, None
    if how == "number":
        return True, RemindersArgs(action="cancel", target=cancel["n"])
    # what is cancelled must be named: a kind ("the timer"), or "the dentist one" (a reminder by its words, said
    # alone); "it", "that", "the next one" name nothing by themselves ("forget it", "stop this song and go to the
    # next one"): they act only after a reminders turn (:func:`tools.reminders.follow_ups.anaphoric`)
    what_said = cancel.get("what", "")
    if _corrects_itself(what_said):
        return True, None  # "cancel the timer… I mean the reminder about the dentist": the model reads which
    if not (zh or any(kind in text.casefold() for kind in ("reminder", "timer", "alarm")) or
            (last_word(text) in ("one", "ones") and " and " not in what_said and len(what_said.split()) <= 3
             and last_word(what_said) not in ("next", "previous", "other", "same"))):
        return False, None
    if _not_one_named(what_said, zh):
        return True, None  # "reminders 2 and 3", "不要取消闹钟": the model reads which, or whether
    if (apart := _day_apart(what_said, zh, now)) is None:  # "all reminders for monday": Monday's, no other
        return True, None
    target = _cancelled(apart[0], text, zh)
    return True, None if target is None else RemindersArgs(action="cancel", target=target, when=apart[1])
