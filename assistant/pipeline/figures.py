"""What a tool result's figures mean, so that an answer is held to meaning and not to digits: a date or a time is
one figure (its parts state nothing: "2026 11 25" is not the date 2026-11-25, and "11" is no figure of a report
observed on it); a figure written with a unit is a quantity of a kind (a temperature, a share, a speed, a
length), and the results' 80% is no temperature. Deterministic, read once per answer."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from assistant.pipeline.answer_check import _numbers, near
from tools.lazy_re import lazy_compile

_MONTHS = {m: i + 1 for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december"))}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?" \
         r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
_ORD = r"(?:st|nd|rd|th)?"
# (kind, pattern): the groups name year, month, day or hour, minute, half of the day
_DATES = (
    lazy_compile(r"\b(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
    lazy_compile(r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?:(?P<d>\d{1,2})\s*[日号])?"),
    lazy_compile(r"(?P<y>\d{4})\s*年"),
    lazy_compile(rf"\b(?P<mn>{_MONTH})\s+(?P<d>\d{{1,2}}){_ORD}\b(?:,?\s+(?P<y>\d{{4}})\b)?", re.IGNORECASE),
    lazy_compile(rf"\b(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mn>{_MONTH})(?:,?\s+(?P<y>\d{{4}})\b)?", re.IGNORECASE),
    lazy_compile(rf"\b(?P<mn>{_MONTH})\s+(?P<y>\d{{4}})\b", re.IGNORECASE),
    lazy_compile(r"\b(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE),
)
_TIMES = (
    lazy_compile(r"(?P<half>上午|早上|凌晨|中午|下午|傍晚|晚上)?\s*(?<![\d.])(?P<h>\d{1,2}):(?P<mi>\d{2})(?::\d{2}(?:\.\d+)?)?"
               r"(?:\s*(?P<ap>[ap])\.?\s?m\b\.?)?", re.IGNORECASE),
    lazy_compile(r"(?<![\d.:])(?P<h>\d{1,2})\s*(?P<ap>[ap])\.?\s?m\b\.?", re.IGNORECASE),
    lazy_compile(r"(?P<half>上午|早上|凌晨|中午|下午|傍晚|晚上)?\s*(?<![\d.])(?P<h>\d{1,2})\s*[点點时]\s*(?:(?P<mi>\d{1,2})\s*分|(?P<x>半))?"),
)
_AFTERNOON = ("下午", "傍晚", "晚上")


@dataclass(frozen=True)
class _Date:
    year: int | None
    month: int | None
    day: int | None

    def agrees(self, other: _Date) -> bool:
        return all(a is None or b is None or a == b for a, b in
                   ((self.year, other.year), (self.month, other.month), (self.day, other.day)))


def _month(m: re.Match[str]) -> int | None:
    if m.groupdict().get("mn"):
        name = m.group("mn").rstrip(".").casefold()
        return next(n for full, n in _MONTHS.items() if full.startswith(name[:3]))
    return int(m.group("m")) if m.groupdict().get("m") else None


def _int(m: re.Match[str], name: str) -> int | None:
    value = m.groupdict().get(name)
    return int(value) if value else None


def _spans(text: str) -> list[tuple[int, int, object]]:
    """Every date and time written in ``text``: (start, end, what), longest first where two overlap."""
    found: list[tuple[int, int, object]] = []
    taken = [False] * (len(text) + 1)

    def add(m: re.Match[str], what: object) -> None:
        if m.end() > m.start() and not any(taken[m.start():m.end()]):
            found.append((m.start(), m.end(), what))
            for i in range(m.start(), m.end()):
                taken[i] = True

    for pattern in _DATES:
        for m in pattern.finditer(text):
            month, day = _month(m), _int(m, "d")
            if (month is not None and not 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
                continue
            add(m, _Date(_int(m, "y"), month, day))
    for pattern in _TIMES:
        for m in pattern.finditer(text):
            hour, minute = int(m.group("h")), _int(m, "mi") or (30 if m.groupdict().get("x") else 0)
            if hour > 24 or minute > 59:
                continue
            ap = (m.groupdict().get("ap") or "").casefold()
            half = m.groupdict().get("half") or ""
            if (ap == "p" or half in _AFTERNOON) and hour < 12:
                hour += 12
            elif (ap == "a" or half in ("上午", "早上", "凌晨")) and hour == 12:
                hour = 0
            add(m, (hour % 24, minute, bool(ap or half)))
    return sorted(found, key=lambda s: s[0])


def _blanked(text: str, spans: list[tuple[int, int, object]]) -> str:
    out = list(text)
    for start, end, _ in spans:
        out[start:end] = " " * (end - start)
    return "".join(out)


_KINDS = (  # a unit written after a figure, and the kind of quantity it makes it
    ("a speed", lazy_compile(r"\s*(?:km\s*/\s*h|mp\s*/\s*h|kmh\b|km/hr|kph\b|mph\b|m\s*/\s*s\b|knots?\b|kn\b|公里\s*/\s*小时|千米\s*/\s*小时"
                           r"|公里每小时|千米每小时|米每秒|米/秒)", re.IGNORECASE)),
    ("a temperature", lazy_compile(r"\s*(?:°|℃|℉|度|degrees?\b)", re.IGNORECASE)),
    ("a share", lazy_compile(r"\s*(?:%|percent\b|per\s*cent\b)", re.IGNORECASE)),
    ("a length", lazy_compile(r"\s*(?:km\b|kilomet(?:re|er)s?\b|mm\b|cm\b|miles?\b|公里|千米|毫米|厘米)", re.IGNORECASE)),
)


def _kind(text: str, end: int) -> str | None:
    return next((kind for kind, unit in _KINDS if unit.match(text, end)), None)


class ToolFigures:
    """The figures of a tool answer's evidence (the question, the results, their rendering), read once: the dates
    and times whole, the other numbers with the kind their unit gives them."""

    def __init__(self, evidence: str) -> None:
        text = unicodedata.normalize("NFKC", evidence)
        spans = _spans(text)
        self.dates = [w for _, _, w in spans if isinstance(w, _Date)]
        self.times = [w for _, _, w in spans if isinstance(w, tuple)]
        rest = _blanked(text, spans)
        self.kinds: dict[float, set[str | None]] = {}
        for value, _, m in _numbers(rest):
            self.kinds.setdefault(value, set()).add(_kind(rest, m.end()))
        self.numbers = list(self.kinds) + [float(d.year) for d in self.dates if d.year]

    def problem(self, piece: str) -> str | None:
        """Why one sentence of a tool answer gives figures the results do not hold, or gives them a meaning they do
        not have; ``None`` if it does not. Small whole numbers without a unit (list markers, "two places") are let
        be."""
        text = unicodedata.normalize("NFKC", piece)
        spans = _spans(text)
        bad = []
        for start, end, what in spans:
            if isinstance(what, _Date):
                if not any(what.agrees(d) for d in self.dates) and not (
                        what.month is None and what.day is None and near(float(what.year or 0), self.numbers, 0.5)):
                    bad.append(text[start:end].strip())
            elif isinstance(what, tuple) and not any(self._same_time(what, t) for t in self.times):
                bad.append(text[start:end].strip())
        rest = _blanked(text, spans)
        misused = []
        for value, decimals, m in _numbers(rest):
            kind = _kind(rest, m.end())
            if kind is None and decimals == 0 and 0 <= value <= 10:
                continue
            step = 0.5 * 10 ** -decimals + 1e-9
            if not near(value, self.numbers, step):
                bad.append(m.group(0).strip())
                continue
            kinds = set().union(*(k for v, k in self.kinds.items() if near(value, [v], step))) if kind else set()
            if kind and kinds and None not in kinds and kind not in kinds:
                misused.append(f"it gives {m.group(0).strip()} as {kind}; in the results it is "
                               + " or ".join(sorted(k for k in kinds if k)))
        reasons = (["it gives figures the results do not have: " + ", ".join(dict.fromkeys(bad))] if bad else []) + misused
        return "; ".join(reasons) if reasons else None

    @staticmethod
    def _same_time(said: tuple[int, int, bool], known: tuple[int, int, bool]) -> bool:
        hour, minute, definite = said
        if minute != known[1]:
            return False
        return hour == known[0] or (not definite and hour < 12 and hour + 12 == known[0])

