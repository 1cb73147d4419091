"""Asking for the reminders, alarms and timers set, or for an alarm or a timer at the times said, in the words people
use: read by its words, not by a pattern per sentence.

Listing changes nothing, so a request that asks about them in any words may be answered with the list; one that
would set or change one never is.

A request asks for the list when
- it names reminders, alarms or timers, is said as a question or a request to be told, and every other word is one
  such requests are made of ("please go through my reminder list and tell me what's on it", "what alarms are
  upcoming", "tell me about the alarm timings"): no time, no number, no word of its own;
- or it asks whether something is among them ("is the company party on my list of reminders", "did i set up a
  reminder to clean the bathroom", "do i have a reminder for our neighbor's anniversary"): the list answers it.

It never starts with what sets or changes one ("set", "remind me", "cancel", "wake me") and never carries a time
or a number: those are requests the rules of :mod:`tools.reminders.reading` read."""

from __future__ import annotations

from tools.reading.reader import tokens

_KINDS = frozenset({"reminder", "reminders", "alarm", "alarms", "timer", "timers"})
# How a request for the list may open: a question, or a request to be told or shown.
_OPENERS = frozenset({"what", "what's", "whats", "which", "when", "do", "did", "is", "are", "have", "how", "any", "at",
                      "list", "show", "tell", "read", "go", "give", "provide", "report", "check", "let", "walk", "speak",
                      "iterate", "describe", "i", "can", "could", "would", "please", "my", "the", "next", "confirm",
                      "run", "look", "review", "see", "view", "display", "pull", "bring", "name", "say", "recite",
                      "remind", "reminders", "alarms", "timers", "all", "a", "everything"})
# How a question that counts them opens: it may name times ("how many alarms do i have between six and nine am").
_COUNTING = (["how", "many"], ["what", "alarms"], ["which", "alarms"], ["what", "reminders"], ["which", "reminders"])
_TIMES_COUNTED = frozenset("""
0 am pm o'clock oclock between and hours hour after before until till from one two three four five six seven eight
nine ten eleven twelve noon midnight
""".split())
_POLITE = frozenset({"i", "can", "could", "would", "please", "my", "the", "reminders", "alarms", "timers", "all", "a"})
# The words such requests are made of, besides the kind.
_WORDS = frozenset("""
what what's whats which when where do did does is are was were have has had got how many much any all every each the
a an my me i i'm i've you your of on in for to at about with from up there these those them they it that this
list lists show tell read go through over run give provide report check let see view walk speak iterate describe
state say recite review display pull bring name look confirm can could would will please kindly now currently
current pending upcoming coming next left active still already today tomorrow tonight week morning evening night
set setup made make created added put include included scheduled saved programmed entered asked told requested
items item things thing everything anything something time times timing timings settings setting wakeup wake
school work back out loud again before earlier rundown content contents overview summary know need want like to
be reminded remember remembering help different currently right us we our i'd think remind and ask wanted trying
showing shows those some were had weekday weekdays weekend weekends daily weekly later
long remaining goes going off until till rings
""".split())
# A request that opens so sets, changes or cancels one; never a request for the list.
_ACTIONS = frozenset({"set", "make", "create", "add", "new", "put", "cancel", "delete", "remove", "clear", "stop",
                      "turn", "snooze", "change", "move", "push", "wake", "reset", "schedule", "start", "begin",
                      "dismiss", "forget", "edit", "update", "modify", "replace", "switch", "disable", "enable",
                      "activate", "deactivate", "ring", "alert", "ping", "nudge"})
# Where a request asks whether something is among them: "... on my list of reminders", "... in my reminders".
_AMONG = (("on", "my", "list", "of", "reminders"), ("on", "my", "list", "of", "reminder"), ("on", "my", "reminder", "list"),
          ("on", "my", "reminders", "list"), ("in", "my", "reminders"), ("on", "my", "reminders"),
          ("in", "my", "reminder", "list"), ("on", "the", "reminder", "list"), ("on", "my", "list", "of", "things", "to",
                                                                                  "remember"))
_WHETHER = (("is",), ("are",), ("if",), ("whether",), ("did", "i"), ("do", "i", "have"), ("have", "i"), ("check", "if"), ("check", "whether"),
            ("check", "to", "see", "if"), ("to", "see", "if"), ("see", "if"), ("tell", "me", "if"), ("confirm", "that"), ("confirm",), ("is", "there"),
            ("please", "check", "if"), ("please", "look", "to", "see", "if"), ("look", "to", "see", "if"))


def asks_list(text: str) -> bool:
    """Whether ``text`` (a request with its wrapper set aside) asks for the reminders, alarms or timers set."""
    words = tokens(text)
    if not words or words[0] in _ACTIONS or words[:2] in (["remind", "me"], ["wake", "me"]) and "what" not in words:
        return False
    if words[0] == "a" and not {"rundown", "list", "overview", "summary"} & set(words):
        return False  # "(i would like) a timer set": one asked for; "(give me) a rundown of my reminders": the list
    if any(w == "0" or w in ("am", "pm", "o'clock", "oclock") for w in words) and words[:2] not in _COUNTING:
        return False  # a time or a number: a request the rules read (set at it, cancel that one); not "how many alarms
        # do i have between six and nine am", which counts them
    if (any(_ends_with(words, among) for among in _AMONG) or _names_one(words)) \
            and any(tuple(words[:len(w)]) == w for w in _WHETHER):
        return True  # whether one is among them; else asked as any other request for them ("what's on my reminder list")
    if words[:3] in _ADDED and any(_within(words, among) for among in _ADDED_TO):
        return True  # "did i add to my reminder list that i need to take the car in": whether it is among them
    remembered = {"remember", "reminded"} & set(words) and {"what", "i"} <= set(words) \
        or _within(words, ("things", "to", "remember"))  # "what did i want to remember", "my list of things to remember"
    if not (set(words) & _KINDS or remembered) or words[0] not in _OPENERS \
            or (set(words) & _KINDS and _wants_one(words)):  # "what did i want to remember" wants none set
        return False
    if not set(words) & (_OPENERS - _POLITE | {"upcoming", "pending", "left", "set", "on", "timings", "times", "time"}) \
            and not set(words) <= _KINDS | {"my", "all", "the", "any", "?"}:
        return False  # "can you please the timer": asks nothing; "all my alarms" names them
    if "long" in words and words[:2] != ["how", "long"]:
        return False  # "how long is left on my timer" asks the time left; "is my list of reminders long" does not
    counted = _TIMES_COUNTED if words[:2] in _COUNTING else frozenset()
    return all(w in _WORDS or w in _KINDS or w in counted or w == "?" for w in words)


def _wants_one(words: list[str]) -> bool:
    """Said before the kind, what asks for a new one ("i need to set a timer", "i want an alarm set", "i would like a
    timer set", "can i set a reminder", "how do i set the alarm", "how about a reminder"), unless it asks whether one was set ("did i set an
    alarm …") or to know them ("i need to know the content of my list of reminders")."""
    first = next((i for i, w in enumerate(words) if w in _KINDS), len(words))
    before = words[:first]
    if words[:2] in (["how", "do"], ["how", "about"], ["how", "can"]):
        return True
    if any(w in _ACTIONS or w == "run" for w in before) and "what" not in before \
            and words[:2] not in (["did", "i"], ["have", "i"], ["did", "you"], ["have", "you"]):  # "at what time have you set"
        return True
    if before[-1:] in (["a"], ["an"]) and {"like", "love", "want", "need"} & set(before):
        return True  # "i would like a timer set", "i'd love an alarm"
    return any(w in ("want", "need") for w in before) and not {"know", "see", "hear"} & set(before)


# Whether one was added, said before where: "did i add to my reminder list that …", "have i put on my reminders …"
_ADDED = (["did", "i", "add"], ["did", "i", "put"], ["did", "i", "include"], ["have", "i", "added"], ["have", "i", "put"])
_ADDED_TO = (("to", "my", "reminder", "list"), ("to", "my", "reminders"), ("to", "my", "list", "of", "reminders"),
             ("on", "my", "reminder", "list"), ("on", "my", "reminders"), ("in", "my", "reminders"))


def _within(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i:i + n]) == phrase for i in range(len(words) - n + 1))


def _ends_with(words: list[str], tail: tuple[str, ...]) -> bool:
    n = len(tail)
    return any(tuple(words[i:i + n]) == tail for i in range(len(words) - n + 1) if i + n >= len(words) - 2)


def _names_one(words: list[str]) -> bool:
    """"a reminder to clean the bathroom", "a reminder for my aa meeting", "an alarm to wake up": one named by its
    words, after "is there", "do i have", "did i set (up)"."""
    for i, w in enumerate(words[:-2]):
        after = words[i + 3:i + 4] if words[i + 2] == "set" else words[i + 2:i + 3]  # "a reminder set to …"
        if w in ("a", "an", "any") and words[i + 1] in ("reminder", "reminders", "alarm", "alarms") and after and after[0] in ("to", "for", "about"):
            return True
    return False


# The words a request to set an alarm or a timer is made of, besides the kind and the times said ("sound the alarm
# at 6 am tomorrow", "i need one alarm to go off at 6:30 am and a second alarm set for 8:00 am", "let's get a timer
# going for 10 minutes", "count down 10 minutes"). A word outside them (what it is about: "for my meeting", a
# question: "how do i set …") leaves the request to the rules that read a reminder's words, or to the model.
_SET_KINDS = frozenset({"alarm", "alarms", "timer", "timers", "countdown"})
SET_WORDS = frozenset("""
set setting up make create start starting put on get going go off ring sound play initiate schedule new add turn
i i'd i'll i'm me my you your we us let's lets please can could would will should need want like must gotta have
got to be a an the one another second first and also then just for at in by from of with please kindly quickly now
right alarm alarms timer timers countdown clock count counting down wake woken waking call help assist alert notify
tell when are is have has up passed over done gone elapsed
""".split())
# "tell me when 2 minutes are up", "tell me when ninety minutes have passed": a timer said as its end
_ENDS = frozenset({"up", "passed", "over", "done", "gone", "elapsed"})


def changes_one_set(words: list[str]) -> bool:
    """Whether ``words`` (a request's) speak of a span given to or taken from one already set ("add 5 minutes to the
    timer", "take 2 minutes off my alarm"): the one running changed, never one more set."""
    more = bool({"more", "extra", "additional"} & set(words))  # "5 more minutes on the timer"; "10 minutes on the
    # timer" sets one, as a kitchen timer is set
    return any((a in ("to", "off", "from") or (a == "on" and more)) and b in ("the", "my", "this", "that")
               and c in _SET_KINDS and _SPAN_UNITS & set(words[:i])  # a span, then where it goes ("set off the alarm":
               for i, (a, b, c) in enumerate(zip(words, words[1:], words[2:], strict=False)))  # none)


_SPAN_UNITS = frozenset({"second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs"})


def asks_to_set(words: list[str], times: list[str]) -> str | None:
    """The kind ("timer" or "reminder", an alarm being a reminder at a time) that ``words`` (a request's, numbers as
    digits) ask to set at the ``times`` said, when every other word is one such requests are made of; ``None``
    when they ask anything else or name no time."""
    if not times or words[:1] in (["how"], ["what"], ["when"], ["is"], ["did"], ["do"], ["why"], ["cancel"], ["stop"]):
        return None
    taken = {w for t in times for w in tokens(t)}
    said = set(words)
    ending = words[:3] == ["tell", "me", "when"] and bool(said & _ENDS)  # the time said as a span that ends
    kinds = _SET_KINDS | {"count", "counting", "wake", "woken", "alert", "notify"}
    if not (said & kinds or ending) or not all(w in SET_WORDS or w in taken for w in words):
        return None
    if not ending and said & ({"tell", "when"} | _ENDS - {"up"}):
        return None  # "tell" and "when" only in "tell me when …"; "passed", "over", "done" only as its end
    if changes_one_set(words):
        return None
    return "timer" if said & {"timer", "timers", "countdown", "count", "counting"} or ending else "reminder"
