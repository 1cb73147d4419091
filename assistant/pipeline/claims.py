"""What an answer claims, held to what supports it. A figure, a phone number, a URL or an e-mail address in an
answer must come from the evidence (the question, the conversation, the tool results), from an arithmetic
statement the answer itself makes and that is true, or from a short table of common knowledge this check can
verify (``common_facts.json``). Code is illustration, not a claim: what is inside a code block or `inline code`
is not held to the evidence; a figure the table of known figures shows true (``known_figures``) is supported too.
No model is asked."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Sequence
from functools import lru_cache
from pathlib import Path

from assistant.pipeline.answer_check import _FENCED, _INLINE_CODE, _UNIT_AFTER, _numbers, near, numbers_in, prose
from tools import Tool
from tools.reading.request import MARKUP, unwrapped  # noqa: F401 - unwrapped: where the turn reads it
from tools.lazy_re import lazy_compile

# Chat-template markers and role tokens of the common model families (tools/reading/request.py, where a question is read):
# never part of an answer. Text from the first one on is a model that started writing the next turn (or its own
# prompt) and is never shown.
TEMPLATE_MARKER = MARKUP


_URL = lazy_compile(r"\bhttps?://[^\s<>()\"'`]+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>()\"'`]*", re.IGNORECASE)
_EMAIL = lazy_compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_YEAR_RANGE = lazy_compile(r"(?:1[0-9]{3}|20[0-9]{2})\s?[-–]\s?(?:1[0-9]{3}|20[0-9]{2})")
_PHONE = lazy_compile(r"(?<![\w.])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)[\s-]?)?\d{3,4}[\s-]\d{3,4}(?:[\s-]\d{2,4})?(?!\w|\.\d)"
                    r"|(?<!\d)1[3-9]\d{9}(?!\d)")
# A number that is part of a name (Python 3, H2O, MP3, COVID-19, Windows 11, 5G, iPhone 15) is not a figure.
_NAME_NUMBER = lazy_compile(r"[A-Za-z][A-Za-z]*[-‐]?\d+[A-Za-z]*|(?<!\d)\d+(?!(?-i:[KCF]|km|kg|mg|g|m|cm|mm|mph|kmh|ms|s|h|min|"
                          r"MB|GB|KB|TB|MHz|GHz|kW|W|V|ml|l|lbs?|ft|in)\b)[A-Za-z]+\d*|(?:Python|Windows|iPhone|Java|PHP|HTTP|"
                          r"IPv|Android|iOS|macOS|Ubuntu|Debian|Fedora|version|v)\s?\d+(?:\.\d+)*", re.IGNORECASE)
_LIST_MARKER = lazy_compile(r"^\s*(?:\d{1,2}[.)、]|[-*•])\s", re.MULTILINE)
_ORDINAL = lazy_compile(r"(?<!\d)\d+(?:st|nd|rd|th)\b|第\s*\d+", re.IGNORECASE)
_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "−": lambda a, b: a - b, "*": lambda a, b: a * b,
        "×": lambda a, b: a * b, "x": lambda a, b: a * b, "/": lambda a, b: a / b if b else None,
        "÷": lambda a, b: a / b if b else None}
_NUM = r"-?(?<![\d.])\d+(?:,\d{3})*(?:\.\d+)?"  # from where its digits start (see tools/reading/forms.py: _AT)
_EQUATION = lazy_compile(rf"({_NUM})\s*([-+*/×x÷−])\s*({_NUM})\s*(?:=|＝|equals|is|等于|得)\s*({_NUM})", re.IGNORECASE)


@lru_cache(maxsize=1)
def common_facts() -> list[tuple[float, re.Pattern[str]]]:
    """(value, the words that must be near it) for figures anyone may state: 100 °C for boiling water, 365 days."""
    rows = json.loads((Path(__file__).with_name("common_facts.json")).read_text(encoding="utf-8"))["facts"]
    return [(float(v), lazy_compile(row["near"], re.IGNORECASE)) for row in rows for v in row["values"]]


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def checked_arithmetic(text: str) -> tuple[set[float], list[str]]:
    """The results of the answer's own arithmetic statements (``3 × 12 = 36``) that are true, and the false ones."""
    true: set[float] = set()
    false: list[str] = []
    for m in _EQUATION.finditer(text):
        a, op, b, c = _value(m.group(1)), m.group(2), _value(m.group(3)), _value(m.group(4))
        got = _OPS[op.lower()](a, b)
        if got is None:
            continue
        places = len(m.group(4).split(".")[1]) if "." in m.group(4) else 0
        if abs(got - c) <= max(0.5 * 10 ** -places, 1e-9 * abs(got)) or abs(round(got, places) - c) < 1e-9:
            true.add(c)
        else:
            false.append(m.group(0).strip())
    return true, false


MAX_DERIVED_FROM = 24  # evidence numbers combined pairwise: a question holds a few; a long document is not mined


def derivable(numbers: list[float]) -> list[float]:
    """The evidence's numbers, and what one step of arithmetic on two of them gives (3 apples and 5 more: 8; 15% of
    80: 12), which an answer may state without writing the sum out."""
    base = list(dict.fromkeys(numbers))
    few = base[:MAX_DERIVED_FROM]
    out = base + [a * a for a in few]
    for i, a in enumerate(few):
        for b in few[i + 1:]:
            out += [a + b, abs(a - b), a * b, a * b / 100]
            if 0 < a <= 24 and 0 < b <= 24:  # hours on a clock: 11 pm to 7 am is 8 hours
                out += [(b - a) % 12, (a - b) % 12, (b - a) % 24, (a - b) % 24]
            out += [a / b] if b else []
            out += [b / a] if a else []
    return out


_SCALES = {"万": 1e4, "亿": 1e8, "千": 1e3, "百万": 1e6, "thousand": 1e3, "million": 1e6, "billion": 1e9, "k": 1e3}
_SCALE = lazy_compile(r"\s*(百万|万|亿|千|thousand\b|million\b|billion\b|k\b)", re.IGNORECASE)


def _code_parts(text: str) -> list[str]:
    fenced = [m.group(0) for m in _FENCED.finditer(text)]
    return fenced + [m.group(0) for m in _INLINE_CODE.finditer(_FENCED.sub(" ", text))]


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


class Evidence:
    """What an answer's claims are held to (the question and the conversation), read once per answer rather than
    once per sentence: a long document pasted into the question is scanned one time."""

    def __init__(self, text: str, tools: Sequence[Tool] = ()) -> None:
        self.text = unicodedata.normalize("NFKC", text)
        self.folded = self.text.casefold()
        self.digits = re.sub(r"\D", "", self.text)
        self.numbers = [v for v, _ in numbers_in(self.text)]
        # figures a tool derives from it (the units tool: 5 miles asked, 8.05 km answered)
        self.derived = [derive for tool in tools if (derive := tool.derives(self.text)) is not None]


def unsupported(sentence: str, evidence: Evidence, whole: str = "") -> list[str]:
    """What ``sentence`` claims that nothing supports: figures, phone numbers, URLs, e-mail addresses. ``whole``:
    the answer so far (its true arithmetic supports its results)."""
    text = unicodedata.normalize("NFKC", prose(sentence))
    if not text.strip():
        return []
    bad: list[str] = []
    for pattern in (_URL, _EMAIL):
        for m in pattern.finditer(text):
            if m.group(0).rstrip(".,;:!?").casefold() not in evidence.folded:
                bad.append(m.group(0).rstrip(".,;:!?"))
        text = _blank(text, pattern)
    for m in _PHONE.finditer(text):
        if _YEAR_RANGE.fullmatch(m.group(0).strip()):
            continue  # 1939-1945: years, not a number to call (a figure, held to the evidence below)
        if re.sub(r"\D", "", m.group(0)) not in evidence.digits:
            bad.append(m.group(0).strip())
    text = _PHONE.sub(lambda m: m.group(0) if _YEAR_RANGE.fullmatch(m.group(0).strip()) else " " * len(m.group(0)), text)
    text = _blank(_blank(_blank(text, _NAME_NUMBER), _LIST_MARKER), _ORDINAL)
    quantities = bool(evidence.numbers)  # a question about quantities: every figure of the answer counts, small ones too
    given = evidence.numbers + [v for v, _ in numbers_in(" ".join(_code_parts(whole or sentence)))]  # an example's
    supported = derivable(given)
    arithmetic, _ = checked_arithmetic(unicodedata.normalize("NFKC", prose(whole or sentence)))
    for derive in evidence.derived:
        arithmetic |= derive(text)
    from assistant.pipeline.known_figures import confirmed  # loaded when an answer is checked, not at start

    known = confirmed(sentence)
    for value, decimals, m in _numbers(text):
        if decimals == 0 and 0 <= value <= 10 and not quantities and not _UNIT_AFTER.match(text, m.end()):
            continue  # small whole numbers without a unit, where nothing was counted: steps, "two places"
        scale = _SCALE.match(text, m.end())
        values = [value * _SCALES[scale.group(1).casefold()], value] if scale else [value]
        step = 0.5 * 10 ** -decimals + 1e-9
        if any(near(x, supported, step) or near(x, arithmetic, step) for x in values):
            given.append(values[0])  # a figure shown true supports the next step (80, 15% of it: 12, in all 92)
            supported = derivable(given)
            continue
        if any(abs(x - v) <= max(step, 1e-6 * abs(v)) and near.search(text) for x in values for v, near in common_facts()) \
                or any(abs(x - v) <= step for x in values for v in known):
            continue
        bad.append(m.group(0).strip())
    return list(dict.fromkeys(bad))


def claim_problem(sentence: str, evidence: Evidence, whole: str, figures: bool = True) -> str | None:
    """Why a conversation's sentence may not be shown for what it claims: wrong arithmetic, or something nothing
    supports; ``None`` if neither. ``figures=False`` (a trusted model): a figure no table lists is let through;
    false arithmetic and contacts or links the question did not give are still held."""
    wrong = checked_arithmetic(unicodedata.normalize("NFKC", prose(sentence)))[1]
    if wrong:
        return "it states wrong arithmetic: " + "; ".join(wrong)
    claims = unsupported(sentence, evidence, whole)
    if not figures:
        claims = [c for c in claims if _URL.fullmatch(c) or _EMAIL.fullmatch(c) or _PHONE.fullmatch(c)]
    return "it states what nothing here supports: " + ", ".join(claims) if claims else None
