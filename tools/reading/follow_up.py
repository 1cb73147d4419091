"""Follow-ups that ask the last question again with one part changed, for any tool with a certain rule:
"and 20 kg?" after a conversion, "what about Paris?" after the time in Tokyo, "and 20%?" after a percentage,
"那伦敦呢?" / "换成克呢?" in Chinese. The new part is put in the place of the part of the last question it stands
for, and the tool's own rule must then be certain of the new question: no model is asked, and a continuation the
rule cannot read is left to the router.

Which part it replaces: a number after the same word ("of 300" → the number after "of"), with the same sign
("20%" → the percentage), the only number, or beside a percentage the other one ("那300呢?" after "200的20%"; with
two plain numbers, "and 789?" could mean either: left to the router); a unit
or place the last arguments copied from the question, the target one first when the new part says "in" / "to" /
"换成" (a target). The router tries it where a tool's own :meth:`~tools.base.Tool.follow_up` reads nothing."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases
from tools.reading.numerals import NUMERAL, to_digits

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tools.base import PreviousTurn, Tool

MAX_PART = 40  # characters: a follow-up is a few words, not a question of its own
# A follow-up that names only its new part: "and in grams?", "what about Paris", "换成千克呢", "那北京呢"
_FOLLOW_UPS = Forms([
    ("(and|what about|how about|and what about|and how about|same for|and for|now|make it|change it to) {x}", "en"),
    ("[(那么|那|还有|再问一下)] {x} (呢|怎么样|又是多少|是多少|多少)", "zh"),
], types={"text": r"[^,，;:\s].*?"}, slots={"x": "text"})  # never ", …": "now, question" is no follow-up
# A new target and nothing else: "in ounces?", "换成千克呢"
_TARGET_ALONE = Forms([("(in|into|as|换成|换算成|转换成|转成) {x} [(呢|吧)]", "target")], types={"unit": r"[^\d,，.。!！]{1,24}?"},
                      slots={"x": "unit"})
_TARGET = Phrases(("in", "into", "to", "as", "换成", "换算成", "转换成", "转成", "折合成", "折算成", "用"), re.IGNORECASE)
_PLACE_WORD = Phrases(("in", "at", "for", "在"), re.IGNORECASE)
_NUMBER = lazy_compile(r"\d+(?:[.,]\d+)*")
_WORD_AFTER = lazy_compile(r"\s*[A-Za-z°]+\.?")


# A percentage written in words, as the follow-ups compare it: "20 percent" and "百分之20" are "20%".
_PERCENT_WORDS = lazy_compile(r"((?<![\d.])\d+(?:\.\d+)?)\s*(?:percent|per\s+cent)\b|百分之\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def percent_signs(text: str) -> str:
    """``text`` with its percentages written with the sign ("20 percent of 300" → "20% of 300")."""
    text = to_digits(text) if "百分之" in text else text
    return _PERCENT_WORDS.sub(lambda m: f"{m.group(1) or m.group(2)}%", text)


def asked_part(question: str) -> tuple[str, bool] | None:
    """The new part of a follow-up and whether it names a target ("in grams", "换成克"); ``None`` otherwise."""
    q = unicodedata.normalize("NFKC", question).strip().rstrip("?？。.!！").strip()
    alone = next(_TARGET_ALONE.each(q), None)
    if alone is not None:
        return alone[1]["x"], True
    m = next(_FOLLOW_UPS.each(q), None)
    if m is None:
        return None
    part = m[1]["x"]
    said = _TARGET.match(part)  # "in pounds"
    target = said is not None
    part = part[said.end():].strip() if said else part.strip()
    if not target and (place := _PLACE_WORD.match(part)):  # "in Paris"
        part = part[place.end():].strip()
    return (part, target) if part and len(part) <= MAX_PART else None


def _by_number(previous: str, part: str) -> list[str]:
    new = _NUMBER.search(part)
    if new is None:
        return []
    before, after = part[:new.start()].strip(), part[new.end():].strip()
    spots = list(_NUMBER.finditer(previous))
    ranked = []
    if before:  # "of 300": the number after the same word
        ranked += [m for m in spots if previous[:m.start()].rstrip().lower().endswith(before.lower())]
    if after[:1] in ("%", "％"):  # "20%": the percentage
        ranked += [m for m in spots if previous[m.end():m.end() + 1] in ("%", "％")]
    elif not before and len(spots) == 1:  # the only number (with two, "and 789?" could mean either)
        ranked += spots
    elif not before:  # "那300呢?" after "200的20%": the one number that is not the percentage
        plain = [m for m in spots if previous[m.end():m.end() + 1] not in ("%", "％")]
        ranked += plain if len(plain) == 1 and len(spots) == 2 else []
    out = []
    for m in dict.fromkeys(ranked):
        rest = previous[m.end():]
        if _has_letters(after) and not rest.lstrip().lower().startswith(after.lower()):
            unit = _WORD_AFTER.match(rest)  # "20 pounds" after "10 kg": the number and its unit change
            if unit:
                out.append(previous[:m.start()] + new.group(0) + " " + after + rest[unit.end():])
            continue
        out.append(previous[:m.start()] + new.group(0) + rest)
    return out


def _has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _by_argument(previous: str, part: str, target: bool, args: dict[str, Any]) -> list[str]:
    found = [(previous.rfind(v), v) for v in args.values() if isinstance(v, str) and len(v) >= 1 and v in previous]
    found.sort(reverse=target)  # a target: the last one written first
    # a number put right after another would be read as one with it ("5" and "10公里": 510)
    return [previous[:i] + part + previous[i + len(v):] for i, v in found
            if not (part[:1].isdigit() and previous[i - 1:i].isdigit())]


def substitute(tool: "Tool", question: str, previous: "PreviousTurn") -> "tuple[list[BaseModel], str] | None":
    """``previous``'s question asked again with the part ``question`` changes, when ``tool``'s rule is certain of it
    and its arguments differ from the last ones: those arguments, and the request they answer ("convert 20 kg to
    lbs" for "and 20 kg?"), which the turn keeps so that the next follow-up continues from it."""
    if not tool.continues_by_substitution or previous.route != tool.name or not previous.calls:
        return None
    asked = asked_part(question)
    if asked is None:
        return None
    part, target = asked
    part = percent_signs(part)
    before = percent_signs(previous.question)  # "40%" replaces the percentage of "20 percent of 300"
    if NUMERAL.search(part) or NUMERAL.search(before):  # "那十公里呢" after "五公里是多少英里": 10 km, never 五十
        part, before = to_digits(part), to_digits(before)
    args = previous.calls[-1][0]
    slot = args.get(tool.target_slot) if target and tool.target_slot else None
    if isinstance(slot, str) and slot in before:  # a new target replaces the target, wherever it was written
        i = before.rfind(slot)
        candidates = [before[:i] + part + before[i + len(slot):]]
    else:
        candidates = ([] if target else _by_number(before, part)) + _by_argument(before, part, target, args)
    for candidate in candidates:
        if candidate in (previous.question, before):
            continue
        got = tool.route(candidate)
        if got and [a.model_dump() for a in got] != [args]:
            return got, candidate
    return None
