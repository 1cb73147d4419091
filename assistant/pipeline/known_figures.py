"""Figures a sentence may contradict: the boiling point of water, the speed of light, the bones of an adult, the
year of the Moon landing, when Einstein was born, the digits of π (:mod:`assistant.pipeline.known_table`). A sentence about one of
them (every pattern of its subject, none of its exceptions) whose every figure of one form (a temperature in °C,
a count of bones, a year) disagrees with the known value is refuted, for every model, trusted or not. A figure is
read only where it is bound to what it measures (the unit or the noun after it, the words before it), so a
sentence about the subject that states another quantity is let be. No model is asked.

Each row of the table says the fact in English (the reason the trace keeps), the patterns its sentence must hold,
the exceptions that make another figure true (altitude for boiling, babies for bones, "one of" for planets), and its
forms: ``after`` (the unit or noun right after the number), ``before`` (the words right before it), both, or
``year`` (a year anywhere in the sentence), each with the ranges that are true. ``exact``: the digits of a constant,
right when rounded or cut at the places written. ``scripts/eval_known_figures.py`` measures both ways (true
sentences never refuted, false ones refuted) on sentences written apart from the table."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from assistant.pipeline.answer_check import prose
from tools.reading.numerals import EN_NUMBER, NUMERAL, en_digits, to_digits
from tools.lazy_re import lazy_compile

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "千": 1e3, "万": 1e4, "百万": 1e6,
           "千万": 1e7, "亿": 1e8, "万亿": 1e12}
_NUMBER = lazy_compile(
    r"(?P<sign>(?<![A-Za-z0-9.])[-−–]|零下\s*)?(?<![\d.])(?P<n>\d+(?:\.\d+)?)"
    r"(?:\s*(?:[×xX*]|times)\s*10\s*(?:\^|\*\*)\s*(?P<exp>[-−]?\d+)|[eE](?P<e>[-+]?\d+)(?![a-zA-Z])"
    r"|\s*(?P<scale>trillion|billion|million|thousand|万亿|千万|百万|亿|万|千(?![米克瓦卡焦字兆]))(?![a-zA-Z]))?")
_TOKEN = "\ue000{}\ue001"
_NUM_TOKEN = r"\ue000\d+\ue001"
# A figure said as a bound, not a value ("over 200 bones", "不到 8 分钟", "200多块"), or part of a fraction (22/7):
# neither true nor false here.
_COMPARED = lazy_compile(r"(?:more than|over|under|less than|fewer than|at least|at most|(?<!add\s)up to|above|below|nearly|almost|"
                       r"beyond|exceeds?|超过|不到|多于|少于|至少|最多|将近|接近|不足|高于|低于)\s*$", re.IGNORECASE)
_BOUND_AFTER = lazy_compile(r"\s*(?:多|余|以上|以下|\+|/\s*(?:\d|\ue000))")
_BELOW_ZERO = lazy_compile(r"\s*below\s+(?:zero|freezing)", re.IGNORECASE)
# After a year, nothing that makes it a quantity (1969 km, 2000 元) or a decade (the 1960s, 1960年代).
_YEAR_NEXT = lazy_compile(r"(?:[%°$]|s\b|'s\b|\s?(?:km|m|kg|g|mi|ft|lbs?|mph|ms|h|k|ml|l)\b|\s?(?:万|亿|元|米|公里|人|个|号|年代|多))",
                        re.IGNORECASE)


@dataclass(frozen=True)
class Number:
    value: float
    written: float  # the digits as written (150 of "150 million")
    step: float  # half a unit of the last place written (times its scale)
    places: int
    plain: bool  # written as digits alone (no scale, no exponent): may be a year
    start: int  # its token's span in the read text
    end: int


def read(text: str) -> tuple[str, list[Number]]:
    """``text`` with each number replaced by a token, and the numbers: Chinese numerals and English number words
    as digits, thousands separators dropped, "1.5 billion", "3×10^8", "3e8", a minus sign or 零下 before it."""
    text = re.sub(r"10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", lambda m: "10^" + m.group(1).translate(_SUPERSCRIPT), text)
    text = unicodedata.normalize("NFKC", text).replace("零下", "−").replace("二次方", "²").replace("平方秒", "²秒")
    if NUMERAL.search(text):
        text = to_digits(text)
    text = en_digits(text)
    text = re.sub(r"(?<=[A-Za-z])\^?([23])(?!\d|\.\d)", lambda m: "²" if m.group(1) == "2" else "³", text)  # m/s², km², CO²
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    out: list[str] = []
    numbers: list[Number] = []
    at = 0
    for m in _NUMBER.finditer(text):
        digits = m.group("n")
        places = len(digits.split(".")[1]) if "." in digits else 0
        value, step = float(digits), 0.5 * 10 ** -places
        exp = m.group("exp") or m.group("e")
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        factor = 10 ** int(exp.replace("−", "-")) if exp else scale
        if m.group("sign"):
            value = -value
        out.append(text[at:m.start()])
        start = sum(len(p) for p in out)
        token = _TOKEN.format(len(numbers))
        out.append(token)
        numbers.append(Number(value * factor, value, step * factor, places, factor == 1.0 and not exp, start,
                              start + len(token)))
        at = m.end()
    out.append(text[at:])
    return "".join(out), numbers


@dataclass(frozen=True)
class Form:
    """How one kind of figure of a fact is written, and the values that are true."""

    values: tuple[tuple[float, float], ...]
    after: re.Pattern[str] | None = None
    before: re.Pattern[str] | None = None
    year: bool = False
    exact: bool = False

    def judged(self, text: str, numbers: list[Number]) -> list[tuple[Number, bool]]:
        """Each figure of this form in ``text`` (as :func:`read` gives it), and whether it is true."""
        out = []
        for n in numbers:
            end = n.end
            if self.after is not None:
                m = self.after.match(text, n.end)
                if m is None:
                    continue
                end = m.end()
            if self.before is not None and self.before.search(text, max(0, n.start - 80), n.start) is None:
                continue
            earliest = 1 if self.before is not None or self.after is not None else 1000  # bound to a birth: 701
            if self.year and not (n.plain and n.places == 0 and earliest <= n.value <= 2099
                                  and not _YEAR_NEXT.match(text, n.end)):
                continue
            if _COMPARED.search(text, max(0, n.start - 24), n.start) or _BOUND_AFTER.match(text, n.end) \
                    or _BOUND_AFTER.match(text, end):
                continue
            value = -n.value if _BELOW_ZERO.match(text, end) else n.value
            out.append((n, self._true(value, n)))
        return out

    def _true(self, value: float, n: Number) -> bool:
        if self.exact:
            cut = 10 ** n.places
            return any(math.isclose(value, round(k, n.places)) or math.isclose(value, math.trunc(k * cut) / cut)
                       for k, _ in self.values)
        return any(lo - n.step - 1e-9 * abs(value) <= value <= hi + n.step + 1e-9 * abs(value) for lo, hi in self.values)


@dataclass(frozen=True)
class Known:
    say: str
    subject: tuple[re.Pattern[str], ...]
    unless: re.Pattern[str] | None
    forms: tuple[Form, ...]

    def about(self, text: str) -> bool:
        return all(p.search(text) for p in self.subject) and not (self.unless and self.unless.search(text))


def _pattern(text: str, macros: dict[str, str], anchored: str = "X") -> re.Pattern[str]:
    for name, body in macros.items():
        text = text.replace(f"<{name}>", f"(?:{body})")
    text = text.replace("<N>", _NUM_TOKEN)
    return lazy_compile(anchored.replace("X", text), re.IGNORECASE | re.DOTALL)


def _words(pattern: str) -> str:
    """An exception list with its English words bound at the start ("oil" is not in "boils", "ear" not in
    "year"); a short one may take a plural ending and no more ("cat", "cats", never "category")."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(pattern):
        if ch == "(" and (i == 0 or pattern[i - 1] != "\\"):
            depth += 1
        elif ch == ")" and (i == 0 or pattern[i - 1] != "\\"):
            depth -= 1
        elif ch == "|" and depth == 0 and (i == 0 or pattern[i - 1] != "\\"):
            parts.append(pattern[start:i])
            start = i + 1
    parts.append(pattern[start:])

    def bound(word: str) -> str:
        if not re.fullmatch(r"[A-Za-z][A-Za-z' -]*", word):
            return word
        return rf"\b{word}(?:s|es)?\b" if len(word) <= 4 else rf"\b{word}"
    return "|".join(bound(p) for p in parts)


def _values(row: list[float | list[float]]) -> tuple[tuple[float, float], ...]:
    return tuple((float(v[0]), float(v[1])) if isinstance(v, list) else (float(v), float(v)) for v in row)


def _form(row: dict[str, Any], macros: dict[str, str]) -> Form:
    after, before = row.get("after"), row.get("before")
    return Form(values=_values(row["values"]),
                after=_pattern(str(after), macros, r"\s*(?:X)") if after else None,
                before=_pattern(str(before), macros, r"(?:X)\s*$") if before else None,
                year=bool(row.get("year")), exact=bool(row.get("exact")))


def _fact(row: dict[str, Any], macros: dict[str, str]) -> Known:
    subject = row["subject"]
    return Known(say=str(row["say"]),
                 subject=tuple(_pattern(str(p), macros) for p in (subject if isinstance(subject, list) else [subject])),
                 unless=_pattern(_words(str(row["unless"])), macros) if row.get("unless") else None,
                 forms=tuple(_form(f, macros) for f in row["forms"]))


def _person(row: dict[str, Any], macros: dict[str, str]) -> Known:
    """A person's years of birth and death, each read only where the sentence binds it to that person being born
    or dying ("Einstein was born in 1879", "爱因斯坦1879年出生", "Einstein (1879–1955)"): a sentence that names two
    people binds each year to its own ("Galileo died in 1642, the year Newton was born")."""
    who = str(row["who"])
    forms = [dict(f, values=row[event]) for event in ("born", "died") if event in row for f in _life_forms(who, event)]
    return _fact({"say": row["say"], "subject": who, "unless": macros["KIN"], "forms": forms}, macros)


def _life_forms(who: str, event: str) -> list[dict[str, object]]:
    verb, zh_before, zh_after = (
        ("born", "生于|出生于|诞生于|出生在|生在", "出生|生|诞生") if event == "born" else
        ("died|passed away", "卒于|逝世于|去世于|死于|病逝于", "去世|逝世|病逝|死|卒"))
    name = rf"(?:{who})(?:'s)?\s+(?:[A-Z][a-z]+\s+)?"
    forms: list[dict[str, object]] = [
        {"before": rf"(?:{who})\S{{0,2}}\s+(?:[A-Z][a-z]+\s+)?(?:was\s+|had\s+been\s+)?(?:{verb})\s*(?:in|on)?\s*<DATE>?",
         "year": True},
        {"before": rf"(?:{who})\s*(?:{zh_before})\s*(?:公元)?", "year": True},
        {"before": rf"(?:{who})\s*(?:于|在)?\s*(?:公元)?", "after": rf"年?\s*(?:<N>\s*月\s*(?:<N>\s*日)?)?"
                                                        rf"[^,，。;；、\d\ue000]{{0,8}}?(?:{zh_after})", "year": True}]
    if event == "born":
        forms.append({"before": rf"{name}?[(（]\s*(?:born\s*|b\.\s*)?", "after": r"年?\s*[–—-]", "year": True})
    else:
        forms.append({"before": rf"{name}?[(（]\s*<N>\s*年?\s*[–—-]+\s*", "year": True})
    return forms


def _element(row: dict[str, Any], macros: dict[str, str]) -> Known:
    name = str(row["name"])
    forms = [{"before": rf"(?:{name})\S{{0,3}}\s*(?:\([A-Z][a-z]?\)\s*)?,?\s*(?:has|with|is)?\s*(?:an?\s+|the\s+|its\s+)?"
                        r"atomic\s+number(?:\s+of)?\s*(?:is|=|:|of)?", "values": [row["number"]]},
             {"before": rf"atomic\s+number\s+of\s+(?:{name})\S{{0,3}}\s*(?:is|=|:)?", "values": [row["number"]]},
             {"before": rf"(?:{name})(?:元素)?(?:的)?原子序数(?:是|为|=|:)?", "values": [row["number"]]}]
    return _fact({"say": f"the atomic number of {row['say']} is {row['number']}", "subject": name, "forms": forms},
                 macros)


@lru_cache(maxsize=1)
def table() -> tuple[tuple[Known, ...], re.Pattern[str]]:
    """Every known fact, and one pattern that any sentence about one of them holds (a quick test first)."""
    from assistant.pipeline import known_table as data

    macros = data.UNITS
    facts = [_fact(row, macros) for row in data.FACTS]
    facts += [_person(row, macros) for row in data.PEOPLE]
    facts += [_element(row, macros) for row in data.ELEMENTS]
    anyone = lazy_compile("|".join(f"(?:{f.subject[0].pattern})" for f in facts), re.IGNORECASE | re.DOTALL)
    return tuple(facts), anyone


@lru_cache(maxsize=256)
def _judged(sentence: str) -> tuple[tuple[Known, tuple[tuple[Number, bool], ...]], ...]:
    """Every figure of ``sentence`` that a known fact reads, per fact and form, and whether it is true."""
    text = unicodedata.normalize("NFKC", prose(sentence))
    if not any(c.isdecimal() for c in text) and not NUMERAL.search(text) and not EN_NUMBER.search(text):
        return ()
    facts, anyone = table()
    if not anyone.search(text):
        return ()
    about = [f for f in facts if f.about(text)]
    if not about:
        return ()
    read_text, numbers = read(text)
    return tuple((fact, tuple(judged)) for fact in about for form in fact.forms
                 if (judged := form.judged(read_text, numbers)))


def contradicted(sentence: str) -> str | None:
    """What ``sentence`` states against a known figure, as the reason the check gives; ``None`` if nothing."""
    for fact, judged in _judged(sentence):
        if not any(ok for _, ok in judged):
            return f"it contradicts a known figure: {fact.say}"
    return None


def confirmed(sentence: str) -> set[float]:
    """The figures of ``sentence`` that the table shows true (as written and as meant: 150 and 150 million), which
    an answer may state with nothing else to support them."""
    return {v for _, judged in _judged(sentence) for n, ok in judged if ok for v in (n.value, n.written)}
