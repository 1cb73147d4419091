"""Follow-ups to the reminder or timer just set, read without a model: a word that only makes sense after it
("cancel it", "never mind", "算了"), a new time for it ("push it to 5pm", "make it 15 minutes", "改成半小时",
"推迟半小时"), another like it ("another one at 5", "再来一个明早7点的"). Acted on only after a turn that set one
(:meth:`tools.reminders.tool.Reminders.follow_up`); an interjection before them ("oh wait,", "算了，") is set aside."""

from __future__ import annotations

import re

from tools.reading.forms import Forms, Phrases
from tools.reminders.due import request_text
from tools.reminders.times import at_hour, reads_time
from tools.reading.durations import seconds_of

# A cancel that names nothing but what was just talked about: "cancel it", "forget it", "never mind", "stop that",
# "actually don't", "取消它", "不要了", "算了"
_ANAPHORIC = Forms([
    ("[please] (cancel|delete|remove|forget|stop|scrap|drop|kill|undo) (it|that|this|that one|this one|the last one) "
     "[please]", "it"),
    ("(never mind|nevermind|(don't|dont) bother|forget about it)", "it"),
    ("[那] (取消|删掉|删除|不要) [(它|这个|那个|掉吧|掉)] [了] [吧]", "it"), ("算了 [吧]", "it"), ("不用了 [吧]", "it"),
])
# Words a follow-up may open with, any number of them, each followed by a space or a comma ("oh wait, cancel it")
_INTERJECTIONS = Phrases(("ok", "okay", "actually", "oh", "wait", "no", "hmm", "sorry", "um", "sure", "and", "also",
                          "算了", "嗯", "哦", "唉", "好吧", "不对", "等等", "还是"), re.IGNORECASE)


def _after_interjections(text: str) -> str:
    while (m := _INTERJECTIONS.match(text)) and (after := text[m.end():m.end() + 1]) and (after.isspace() or after in ",，"):
        text = text[m.end():].lstrip(" ,，\t\n")
    return text


def anaphoric(question: str) -> bool:
    """Whether ``question`` cancels "it" and nothing more (acted on only after a turn about reminders)."""
    return _ANAPHORIC.read(_after_interjections(request_text(question))) is not None


# The reminder or timer just set, changed: "push it to 5pm", "make it 15 minutes", "move that to tomorrow at 9",
# "push it back by an hour", "make it 10 minutes later", "改成半小时", "推迟半小时", "提前10分钟"; and another like it:
# "another one at 5", "one more for 6:45 in the evening", "再来一个明天8点的". Acted on only after a turn that set one.
_CHANGES = Forms([
    ("[(please|(can|could|would) you)] {verb} <it> [{dir}] [{by}] [(to|for|until|till|at|in|on)] {when} [{after}] [instead] "
     "[please]", "en"),
    ("<before> (改成|改到|改为|换成|换到|推迟到|推到|挪到|提前到|调到|定到|设到|改) {when} <end>", "to"),
    ("<before> {later} {span} <end>", "later"),
    ("<before> {earlier} {span} <end>", "earlier"),
], slots={"when": "text", "span": "text"}, types={"text": r".+?"},
   phrases={"it": "(it|that|this|that one|this one|the last one|the (reminder|timer|alarm)|my (reminder|timer|alarm))",
            "before": "[(那|还是|要不|算了)] [就] [把] [(它|这个|那个|提醒|闹钟|定时器|计时器)]", "end": "[(吧|好了|呢|的)]"},
   kinds={"verb": ("push", "move", "change", "make", "set", "switch", "reschedule", "bump", "shift", "put", "delay",
                   "postpone"), "dir": ("back", "forward", "later", "earlier"), "by": ("by",),
          "after": ("later", "earlier", "sooner"), "later": ("推迟", "延后", "往后推", "往后挪", "晚"), "earlier": ("提前", "早")})
_ANOTHER = Forms([
    ("[please] [(set|make|add|give me)] (another|one more) [(one|reminder|timer|alarm)] {when} [(too|as well)] [please]",
     "en"),
    ("[那] (再|还要) [(来|设|定|加|设置|订)] (一个|个) {when} [的] [(提醒|闹钟|定时器)] [吧]", "zh"),
], slots={"when": "text"}, types={"text": r".+?"})


def changed(question: str) -> tuple[str, str] | None:
    """How a request changes the reminder just set: ``("to", when)`` a new time ("push it to 5pm"), ``("count", n)`` a
    bare number ("make it 15": a timer's length in its unit, else an hour), or ``("later", span)`` / ``("earlier",
    span)`` a shift of its time ("push it back by an hour", "提前10分钟"); ``None`` when it is no such change or the
    time is not one :func:`due` or :func:`seconds_of` reads."""
    text = _after_interjections(request_text(question))
    how, said = next(_CHANGES.each(text), ("", {}))
    if how == "to":
        return ("to", said["when"]) if reads_time(said["when"]) else None  # 改成8点
    if how in ("later", "earlier"):
        return (str(how), said["span"]) if seconds_of(said["span"]) else None  # 推迟半小时
    if how != "en":
        return None
    if said["when"].isdecimal() and not said.get("by") and not said.get("dir") and not said.get("after"):
        return ("count", said["when"])  # "make it 15": of the timer's unit, or the hour (the tool knows which)
    when, direction = at_hour(said["when"]), (said.get("after") or said.get("dir") or "").lower()
    shift = said.get("by") or direction or said["verb"].lower() in ("delay", "postpone")
    if shift and seconds_of(when):
        return ("earlier" if direction in ("forward", "earlier", "sooner") else "later", when)
    return ("to", when) if not said.get("by") and not direction and reads_time(when) else None


def another(question: str) -> str | None:
    """The time of another reminder like the one just set ("another one at 5": "at 5"), or ``None``."""
    text = _after_interjections(request_text(question))
    _, said = next(_ANOTHER.each(text), ("", {}))
    when = at_hour(said["when"]) if said else ""
    return when if when and reads_time(when) else None
