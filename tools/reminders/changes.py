"""A pending reminder, alarm or timer moved to a new time by its name, without a model: "move my dentist reminder to
4pm", "change my 7am alarm to 7:30", "push the reminder about the dentist to 5pm", "change the timer to 10 minutes",
"把牙医的提醒改到下午4点", "把闹钟改成7点半". What is moved must be named by its kind (reminder, alarm, timer) and, when
several are pending, by its words, its time or its place in the list (the tool's own choice, as for a cancel); the new
time must be one the reminders read. A shift by a span ("push it back an hour") is the model's, or a follow-up's right
after one was set (:mod:`tools.reminders.follow_ups`)."""

from __future__ import annotations

from datetime import datetime

from tools.base import CJK
from tools.reading.forms import Forms
from tools.reminders.args import RemindersArgs
from tools.reminders.due import due, request_text
from tools.reminders.times import at_hour, reads_time, times_said
from tools.reminders.reading import in_the_morning, zh_in_the_morning

_EN = Forms([
    ("[please] [(can|could|would) you] [please] {verb} {rest}", "en"),
], slots={"rest": "text"}, types={"text": r".+?"},
   kinds={"verb": ("move", "change", "reschedule", "push", "shift", "postpone", "delay", "bump", "update", "adjust",
                   "modify", "edit", "switch")})
_ZH = Forms([
    ("[(帮我|请|麻烦)] [把] {what} [的] {kind} {to} {when} [(吧|呢)]", "zh"),
], slots={"what": "any", "when": "text"}, types={"any": r"[^,;，；。]*?", "text": r".+?"},
   kinds={"kind": ("提醒", "闹钟", "定时器", "计时器", "倒计时"),
          "to": ("改到", "改成", "改为", "推迟到", "推到", "挪到", "移到", "提前到", "调到", "调成", "定到", "设到", "换到",
                 "换成")})
# Where the new time starts ("... to 4pm"); the words before it name which one
_JOINS = (" to ", " for ", " until ", " till ", " at ")
_KIND_WORDS = {"reminder": "", "reminders": "", "alarm": "alarm", "alarms": "alarm", "timer": "timer", "timers": "timer"}
_ZH_ASKING = ("怎么", "怎样", "如何", "为什么", "为啥", "能不能", "可不可以", "是不是", "谁")
_POLITE = {"please", "instead", "then", "thanks", "thank", "you", "now"}
_LEADING = {"the", "my", "that", "this", "about", "for", "of", "to", "called"}
_SAID_AFTER = {"back", "forward", "ahead", "to", "go", "off", "ring", "sound", "wake", "me", "up"}


def named_change(question: str, now: datetime) -> RemindersArgs | None:
    """The change ``question`` asks of a pending reminder it names, with the due time read at ``now``; ``None``
    unless it is certainly one."""
    text = request_text(question)
    if not text or len(text) > 200:
        return None
    if CJK.search(text):
        return _zh(text, now)
    _, said = next(_EN.each(text), ("", {}))
    if not said:
        return None
    rest, lower = said["rest"], said["rest"].lower()
    joins = sorted((at, len(join)) for join in _JOINS for at in _where(lower, join))
    for at, size in joins:  # the first join after which a time is said whole: "for tomorrow at 10", "… the gym to 6pm"
        if (found := _en(rest[:at], at_hour(rest[at + size:].strip(" .!?")), now)) is not None:
            return found
    return None


def _said_whole(when: str, now: datetime) -> bool:
    """``when`` is one time the reminders read, and nothing more than a word of politeness ("6pm please"; not "6pm if
    the meeting ends early")."""
    times = times_said(when, now)
    return len(times) == 1 and set(when.replace(times[0], " ").lower().split()) <= _POLITE and reads_time(times[0])


def _where(text: str, join: str) -> list[int]:
    """Each place ``join`` is written in ``text``."""
    found, at = [], text.find(join)
    while at >= 0:
        found.append(at)
        at = text.find(join, at + 1)
    return found


def _en(named: str, when: str, now: datetime) -> RemindersArgs | None:
    words = named.lower().split()
    kinds = [_KIND_WORDS[w] for w in words if w in _KIND_WORDS]
    if len(kinds) != 1 or not _said_whole(when, now):
        return None  # no kind named ("move the meeting to 4pm"), or two ("the alarm and the timer"); a time with more
    kind = kinds[0]
    while words[-1:] and words[-1] in _SAID_AFTER:  # "push my alarm back to 8", "my alarm to go off at 6:30"
        words = words[:-1]
    if "from" in words:  # "change my alarm from 7 to 7:30": the one at 7
        target = " ".join(words[words.index("from") + 1:])
    else:
        named_words = [w for w in words if w not in _KIND_WORDS]
        while named_words[:1] and named_words[0] in _LEADING:
            named_words = named_words[1:]
        target = " ".join(named_words) or kind  # "move my alarm to 6": the alarm; "my reminder": the only one
    target = target.removeprefix("at ")  # "my alarm at 6"
    if kind == "alarm" and target.replace(":", "").isdecimal():
        target = f"{target}am"  # "my 6:30 alarm": the morning's
    if kind == "alarm":
        when = in_the_morning(when)  # "move my alarm to 6": six in the morning
    return RemindersArgs(action="change", target=target, when=when).read_at(due(when, now))


def _zh(text: str, now: datetime) -> RemindersArgs | None:
    _, said = next(_ZH.each(text), ("", {}))
    if not said or not _said_whole(said["when"], now) or said["when"].endswith(("了", "吗", "么")) \
            or any(word in said["what"] for word in _ZH_ASKING):
        return None  # "怎么把闹钟改到7点" (how), "为什么闹钟改到7点了" (why): asked about, not asked for
    kind = said["kind"]
    when = zh_in_the_morning(said["when"]) if kind == "闹钟" else said["when"]
    target = said["what"]
    for the in ("我的", "那个", "这个"):
        target = target.removeprefix(the)
    target = target.strip("的") or kind
    return RemindersArgs(action="change", target=target, when=when).read_at(due(when, now))
