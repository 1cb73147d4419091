"""The third gate: is an answer fit to be shown? Deterministic, no model: it must carry every key fact of
the tool results (numbers compared numerically), be in the user's language, and be free of JSON, tool
markup, prompt echoes and runaway repetition. The reasons are written for the responder's retry."""

from __future__ import annotations

import re
import unicodedata

from assistant.pipeline.language import is_chinese
from tools import CJK, KeyFact, Verdict
from tools.units import wrong_conversions

MAX_TOOL_ANSWER = 1200  # characters: a grounded answer is a few sentences; more is a model that will not stop
MIN_REPEAT_UNIT, MAX_REPEAT_UNIT, REPEATS = 4, 200, 3

_NUMBER = re.compile(
    r"(零下|负|minus\s+|negative\s+)?\s*([-−–]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)", re.IGNORECASE)
_MARKUP = re.compile(
    r'\{\s*"|"\s*\}|\[\s*\{|\}\s*\]|"\s*:\s*[\[{"\d]|```|</?\s*(?:tool|think|function|result|json)|<\|[^|>]{1,30}\|>'
    r"|\b(?:tool_calls?|arguments)\b\s*[:=]",
    re.IGNORECASE)
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_ENGLISH_WORDS = frozenset(
    "the a an is it in and of to with at are be for on now currently today tonight degrees its it's there this "
    "that was will feels about around rain snow sunny cloudy clear result answer equals".split())
_SENTENCE = re.compile(r"(?<=[.!?。!?\n])")


def _numbers(text: str) -> list[tuple[float, int, re.Match[str]]]:
    """Every number in ``text`` (already NFKC) as (value, decimals shown, where it is written)."""
    out = []
    for m in _NUMBER.finditer(text):
        digits = m.group(3).replace(",", "")
        value = -float(digits) if m.group(1) or m.group(2) else float(digits)
        out.append((value, len(digits.split(".")[1]) if "." in digits else 0, m))
    return out


def numbers_in(text: str) -> list[tuple[float, int]]:
    """Every number written in ``text`` as (value, decimals shown); ``零下 3``, ``minus 3``, ``−3`` are negative."""
    return [(value, decimals) for value, decimals, _ in _numbers(unicodedata.normalize("NFKC", text))]


def number_matches(fact: KeyFact, written: float, decimals: int) -> bool:
    """``written`` (shown with ``decimals`` places) states ``fact.number``: exactly, within the fact's tolerance,
    or rounded to the places shown while staying within 1% (so 28.3 and 28 state 28.2743, but 0 does not state 0.4)."""
    v = fact.number
    if v is None:
        return False
    if abs(written - v) <= fact.tolerance + 1e-9:
        return True
    rounded = round(v, decimals)
    return abs(rounded - written) < 10 ** -(decimals + 3) and abs(written - v) <= 0.01 * abs(v)


def carries(answer: str, fact: KeyFact) -> bool:
    if fact.number is not None and any(number_matches(fact, n, d) for n, d in numbers_in(answer)):
        return True
    folded = unicodedata.normalize("NFKC", answer).casefold()
    return any(w and unicodedata.normalize("NFKC", w).casefold() in folded for w in fact.words)


def runaway(text: str) -> str | None:
    """Why ``text`` is a model that will not stop (the same piece over and over), or ``None``.
    Cheap enough to run on every streamed piece."""
    tail = text[-(MAX_REPEAT_UNIT * REPEATS):]
    n = len(tail)
    for unit in range(MIN_REPEAT_UNIT, n // REPEATS + 1):
        piece = tail[n - unit:]
        if piece.strip() and all(tail[n - unit * (k + 1): n - unit * k] == piece for k in range(1, REPEATS)):
            return f"it repeats itself ({piece.strip()[:40]!r} over and over)"
    counts: dict[str, int] = {}
    for sentence in _SENTENCE.split(text):
        s = sentence.strip()
        if len(s) >= 12:
            counts[s] = counts.get(s, 0) + 1
            if counts[s] >= REPEATS:
                return f"it repeats the sentence {s[:40]!r}"
    return None


_FENCED = re.compile(r"```[^\n]*\n.*?(?:```|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
# Markup that is never an answer, fenced or not: tool-call syntax, special tokens, our own decision keys.
_TOOL_MARKUP = re.compile(r'</?\s*(?:tool|think|function|result)\b|<\|[^|>]{1,30}\|>|\b(?:tool_calls?|arguments)\b\s*[:=]'
                          r'|"(?:route|tool|tool_calls?|verdict|arguments|parameters)"\s*:', re.IGNORECASE)


def prose(text: str) -> str:
    """``text`` without its code: fenced blocks and inline code."""
    return _INLINE_CODE.sub(" ", _FENCED.sub(" ", text))


def markup(text: str, code: bool = False) -> str | None:
    """Why ``text`` is JSON or tool markup rather than an answer, or ``None``. ``code``: a conversation may show code
    (a fenced block, `inline`), JSON included, around sentences of its own; tool-call markup never."""
    if code and prose(text).strip() and not _TOOL_MARKUP.search(text):
        text = prose(text)
    return "it contains JSON or tool markup; write plain sentences" if _MARKUP.search(text) else None


def before_repetition(text: str) -> str:
    """``text`` with a runaway repetition taken out: one copy of the repeated piece is kept, and a partial copy
    after it is dropped."""
    t = text.rstrip()
    kept, seen = [], set()
    sentences = _SENTENCE.split(t)
    for i, sentence in enumerate(sentences):  # a sentence again (and again): keep the text before its second time
        s = sentence.strip()
        last_fragment = i == len(sentences) - 1 and s and any(prior.startswith(s) for prior in seen)
        if s in seen or last_fragment:
            return "".join(kept).rstrip()
        seen.add(s)
        kept.append(sentence)
    # A loop without sentence ends ("上海上海上海…"): drop the trailing copies of the repeated piece.
    unit = next((p for p in range(MIN_REPEAT_UNIT, min(MAX_REPEAT_UNIT, len(t) // 2) + 1) if t[-p:] == t[-2 * p:-p]), 0)
    while unit and len(t) >= 2 * unit and t[-unit:] == t[-2 * unit:-unit]:
        t = t[:-unit]
    return t.rstrip()


def language_problem(question: str, answer: str) -> str | None:
    cjk = len(CJK.findall(answer))
    latin_words = _LATIN_WORD.findall(answer)
    latin = sum(len(w) for w in latin_words)
    if is_chinese(question):
        if cjk < 2 or cjk < 0.3 * (cjk + latin):
            return "it is not in Chinese, the language of the question; answer in Chinese"
        return None
    if cjk > 0.1 * (cjk + latin) + 2:
        return "it is not in English, the language of the question; answer in English"
    if len(latin_words) >= 6 and not any(w.casefold() in _ENGLISH_WORDS for w in latin_words):
        return "it is not in English, the language of the question; answer in English"
    return None


_CLAUSE = re.compile(r"[:;,，：；]\s*")


def echo_problem(answer: str, prompts: list[str]) -> str | None:
    """Whole sentences or long clauses of our own instructions (and feedback) repeated back."""
    for prompt in prompts:
        for sentence in _SENTENCE.split(prompt):
            for part in (sentence, *_CLAUSE.split(sentence)):
                s = part.strip()
                if len(s) >= 24 and s in answer:
                    return "it repeats the instructions instead of answering"
    if re.search(r"(?i)\btool results?\s*:|\buser request\s*:", answer):
        return "it repeats the instructions instead of answering"
    return None


_ABOUT_LANGUAGE = re.compile(
    r"翻译|英文|英语|中文|汉语|日语|法语|怎么说|怎么读|\b(?:translate|translation|english|chinese|mandarin|japanese|french"
    r"|german|spanish|in \w+ language)\b", re.IGNORECASE)


def about_language(question: str) -> bool:
    """A question about words or languages, whose right answer may well be in another language."""
    return bool(_ABOUT_LANGUAGE.search(question))


def unshowable(answer: str, prompts: list[str], code: bool = False) -> str | None:
    """What makes a text unfit to show at all, whatever the question: empty, JSON or markup (``code``: code in a
    conversation is not markup), our own instructions, a unit conversion that is false."""
    if not answer.strip():
        return "the answer is empty"
    return markup(answer, code) or echo_problem(answer, prompts) or false_conversion(answer)


def false_conversion(answer: str) -> str | None:
    """A conversion between known units that the answer states wrongly (``5km = 1.039mile``), checked with the
    units tool's tables: a chat answer has no tool result to hold it to, but this figure can be computed."""
    wrong = wrong_conversions(answer)
    return "it states a wrong conversion: " + "; ".join(wrong) if wrong else None


_UNIT_AFTER = re.compile(r"\s*(?:°|℃|℉|%|度|km|mph|m/s|mm|cm|kg|公里|厘米|毫米)")
_FAHRENHEIT = re.compile(r"°\s*F\b|℉|fahrenheit|华氏", re.IGNORECASE)
_CELSIUS = re.compile(r"°\s*C\b|℃|celsius|摄氏", re.IGNORECASE)


def invented_figures(answer: str, evidence: str) -> str | None:
    """Figures the answer gives that the evidence (the question and the tool results) does not hold: a temperature
    the report never had, a wind speed made up, a year out of nowhere, °F for a report in °C. ``None`` if none.
    Small whole numbers without a unit (list markers, "two places") are let be."""
    supported = [v for v, _ in numbers_in(evidence)]
    answer = unicodedata.normalize("NFKC", answer)
    bad = []
    for value, decimals, m in _numbers(answer):
        has_unit = bool(_UNIT_AFTER.match(answer, m.end()))
        if not has_unit and decimals == 0 and 0 <= value <= 10:
            continue
        step = 0.5 * 10 ** -decimals + 1e-9
        if not any(abs(value - v) <= step or abs(abs(value) - abs(v)) <= step for v in supported):
            bad.append(m.group(0).strip())
    if bad:
        return "it gives figures the results do not have: " + ", ".join(dict.fromkeys(bad))
    if _FAHRENHEIT.search(answer) and not _FAHRENHEIT.search(evidence):
        return "it writes °F; the results are in °C"
    if _CELSIUS.search(answer) and not _CELSIUS.search(evidence) and _FAHRENHEIT.search(evidence):
        return "it writes °C; the results are in °F"
    return None


def check_answer(question: str, answer: str, facts: list[KeyFact], prompts: list[str] = (),  # type: ignore[assignment]
                 limit: int | None = MAX_TOOL_ANSWER, language: bool = True, evidence: str | None = None,
                 code: bool = False) -> Verdict:
    """PASS when ``answer`` may be shown for ``question``; FAIL with a reason the responder can act on.
    ``language``: also require the question's language. ``evidence``: the question and the tool results, when
    every figure of the answer must come from them. ``code``: code blocks are part of a conversation's answer (not
    markup, and not held to the question's language)."""
    if not answer.strip():
        return Verdict(verdict="FAIL", reason="the answer is empty")
    problems = []
    why = runaway(answer)
    if why:
        problems.append(why)
    elif limit and len(answer) > limit:
        problems.append(f"it is far too long ({len(answer)} characters); two or three sentences are enough")
    if markup(answer, code):
        problems.append(markup(answer, code))  # type: ignore[arg-type]
    echo = echo_problem(answer, prompts)
    if echo:
        problems.append(echo)
    lang = language_problem(question, prose(answer) if code else answer) if language else None
    if lang:
        problems.append(lang)
    missing = [f.label for f in facts if not carries(answer, f)]
    if missing:
        problems.append("it does not state " + ", ".join(missing))
    invented = invented_figures(answer, evidence) if evidence is not None else None
    if invented:
        problems.append(invented)
    conversion = false_conversion(answer)
    if conversion:
        problems.append(conversion)
    if problems:
        return Verdict(verdict="FAIL", reason="; ".join(problems))
    return Verdict(verdict="PASS", reason="the answer carries every key fact" if facts else "the answer is clean")
