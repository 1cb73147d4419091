"""The third gate's measures: does an answer carry a tool result's key facts (numbers compared numerically), is it
in the user's language, is it our own markup or instructions, does it repeat itself, does it state a figure or a
conversion the evidence does not hold. Deterministic, no model. The streamed gate (``gate``) applies them to each
sentence as it arrives; the reasons are kept in the trace."""

from __future__ import annotations

import re
from typing import Iterable, Sequence
import unicodedata

from assistant.pipeline.language import is_chinese
from tools import CJK, KeyFact, Tool
from tools.lazy_re import lazy_compile
from tools.reading.forms import Phrases

MAX_TOOL_ANSWER = 1200  # characters: a grounded answer is a few sentences; more is a model that will not stop
MIN_REPEAT_UNIT, MAX_REPEAT_UNIT, REPEATS = 4, 200, 3

_NUMBER = lazy_compile(
    r"(?:(零下|负|minus\s+|negative\s+)\s*)?([-−–]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)", re.IGNORECASE)
_MARKUP = lazy_compile(
    r'\{\s*"|"\s*\}|\[\s*\{|\}\s*\]|"\s*:\s*[\[{"\d]|```|</?\s*(?:tool|think|function|result|json)|<\|[^|>]{1,30}\|>'
    r"|\b(?:tool_calls?|arguments)\b\s*[:=]",
    re.IGNORECASE)
_LATIN_WORD = lazy_compile(r"[A-Za-z\u00c0-\u024f]+")
_SENTENCE = lazy_compile(r"(?<=[.!?。!?\n])")


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


_FENCED = lazy_compile(r"```[^\n]*\n.*?(?:```|\Z)", re.S)
_INLINE_CODE = lazy_compile(r"`[^`\n]+`")


# Tool-call tags of the common model families and our own decision keys: never an answer, fenced or not.
_CALL_TAGS = lazy_compile(r"</?\s*(?:tool_calls?|tool_response|function_calls?|tools)\b|<function=|<\|python_tag\|>"
                        r"|<\|(?:tool_calls?|function|plugin)[^|>]{0,20}\|>", re.IGNORECASE)
# Asked for code, an example or a format (as part of a word too: "codes", "examples", "JSON-formatted").
_CODE_WORDS = ("json", "code", "script", "function", "program", "example", "snippet", "schema", "api", "syntax", "regex",
               "sql", "yaml", "python", "javascript", "bash", "shell", "代码", "示例", "例子", "格式", "函数", "程序", "脚本",
               "怎么写", "写一个")


def _ours(value: object, tool_names: set[str] | None) -> bool:
    """A JSON value of our own pipeline's shapes: a route, a verdict, a call of one of our tools (or a list of them)."""
    if isinstance(value, list):
        return bool(value) and all(_ours(v, tool_names) for v in value)
    if not isinstance(value, dict):
        return False
    if "route" in value and isinstance(value["route"], str) or value.get("verdict") in ("PASS", "FAIL"):
        return True
    name = value.get("name") or value.get("tool")
    if isinstance(value.get("function"), dict):
        name = value["function"].get("name")
    return (isinstance(name, str) and (tool_names is None or name in tool_names)
            and any(k in value for k in ("arguments", "parameters", "function")))


def own_markup(text: str, question: str, tool_names: set[str] | None = None) -> str | None:
    """Why ``text`` (a whole answer or one piece of it) is our own tool-call markup rather than an answer: tool-call
    tags, or JSON of our shapes (a route, a verdict, a call of one of our tools) written as prose, or as the only
    content of a code block the question did not ask for. Code, JSON examples and prose about arguments are
    answers."""
    from assistant.models.parsing import json_values

    outside = prose(text)
    if _CALL_TAGS.search(outside):
        return "it contains tool-call markup instead of an answer"
    if any(_ours(v, tool_names) for v in json_values(outside)):
        return "it writes a tool call instead of an answer"
    if not outside.strip() and not any(word in question.lower() for word in _CODE_WORDS):
        inside = "".join(m.group(0) for m in _FENCED.finditer(text))
        if any(_ours(v, tool_names) for v in json_values(inside)):
            return "it writes a tool call instead of an answer"
    return None


def prose(text: str) -> str:
    """``text`` without its code: fenced blocks and inline code."""
    return _INLINE_CODE.sub(" ", _FENCED.sub(" ", text))


def markup(text: str) -> str | None:
    """Why an answer from tool results is JSON or tool markup rather than plain sentences, or ``None``. (A
    conversation's answer may hold code and JSON: :func:`own_markup` judges it.)"""
    return "it contains JSON or tool markup; write plain sentences" if _MARKUP.search(text) else None


# Writing systems an answer in Chinese or English has no business switching to (Cyrillic, Hebrew, Arabic, kana,
# Hangul, Thai, Devanagari) unless the question used them, and U+FFFD, what is left of a token cut inside a character.
_OTHER_SCRIPT = lazy_compile("[\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff\u3040-\u30ff\uac00-\ud7af\u0e00-\u0e7f"
                           "\u0900-\u097f]")


def garbled(question: str, piece: str) -> str | None:
    """Why one sentence is garbage whatever its words: broken characters, or a writing system from nowhere."""
    text = prose(piece)
    if "\ufffd" in text:
        return "it contains broken characters (U+FFFD)"
    found = {c for c in _OTHER_SCRIPT.findall(text)} - set(question)
    if found:
        return "it switches to another writing system (" + "".join(sorted(found)[:5]) + ")"
    return None


def piece_language(question: str, piece: str) -> str | None:
    """One sentence of a streamed answer is not in the question's language, judged by script (Han characters
    against Latin letters, no word list): only a sentence long enough to tell, and only when it is mostly the other
    script (a Chinese answer may name Python; an English one may quote 你好)."""
    text = prose(piece)
    cjk = len(CJK.findall(text))
    latin = sum(len(w) for w in _LATIN_WORD.findall(text))
    if cjk + latin < 16:
        return None
    if is_chinese(question):
        return "it is not in Chinese, the language of the question; answer in Chinese" if cjk < 0.15 * (cjk + latin) else None
    if cjk > 0.5 * (cjk + latin):
        return "it is not in English, the language of the question; answer in English"
    from assistant.pipeline.language_id import other_language

    other = other_language(text) if cjk == 0 else None
    return f"it is in another language ({other}), not English, the language of the question; answer in English" \
        if other else None


_CLAUSE = lazy_compile(r"[:;,，：；]\s*")


ECHO_WORDS = 5  # a run of this many words of our instructions, in order, is them repeated back
_WORD = lazy_compile(r"[a-z']+")


def _runs(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.casefold())
    return {tuple(words[i:i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}


def echo_problem(answer: str, prompts: list[str]) -> str | None:
    """Whole sentences or long clauses of our own instructions (and feedback) repeated back, or reworded around a
    run of their words ("My previous answer could not be shown… Write the answer again")."""
    for prompt in prompts:
        for sentence in _SENTENCE.split(prompt):
            for part in (sentence, *_CLAUSE.split(sentence)):
                s = part.strip()
                if len(s) >= 24 and s in answer:
                    return "it repeats the instructions instead of answering"
        if _runs(prose(answer)) & _runs(prompt):
            return "it repeats the instructions instead of answering"
    if re.search(r"(?i)\btool results?\s*:|\buser request\s*:", answer):
        return "it repeats the instructions instead of answering"
    return None


_ABOUT_LANGUAGE = lazy_compile(
    r"翻译|英文|英语|中文|汉语|日语|法语|怎么说|怎么读|\b(?:translate|translation|english|chinese|mandarin|japanese|french"
    r"|german|spanish|in \w+ language)\b", re.IGNORECASE)


def about_language(question: str) -> bool:
    """A question about words or languages, whose right answer may well be in another language."""
    return bool(_ABOUT_LANGUAGE.search(question))


def refuted(answer: str, tools: Sequence[Tool]) -> str | None:
    """A claim that a tool can compute and finds false (the units tool: ``5km = 1.039mile``): an answer that has
    no tool result to hold it to is still held to what can be computed."""
    wrong = [claim for tool in tools for claim in tool.wrong_claims(answer)]
    return "it states a wrong conversion: " + "; ".join(wrong) if wrong else None


_UNIT_AFTER = lazy_compile(r"\s*(?:°|℃|℉|%|度|km\b|mph|m/s|mm\b|cm\b|kg\b|g\b|lbs?\b|miles?\b|metres?\b|meters?\b|feet\b|"
                         r"foot\b|inch(?:es)?\b|hours?\b|minutes?\b|seconds?\b|years?\b|days?\b|公里|厘米|毫米|米|公斤|千克|斤|"
                         r"克|英里|小时|分钟|秒|年|天|元|块|美元|dollars?\b|yuan\b|\$)", re.IGNORECASE)
_FAHRENHEIT = Phrases(("° F", "℉", "fahrenheit", "华氏"), re.IGNORECASE)
_CELSIUS = Phrases(("° C", "℃", "celsius", "摄氏"), re.IGNORECASE)


def near(value: float, pool: Iterable[float], step: float) -> bool:
    """``value`` is one of ``pool`` (or its magnitude is) to within ``step``, the half-unit of the places shown."""
    return any(abs(value - v) <= step or abs(abs(value) - abs(v)) <= step for v in pool)


def wrong_scale(answer: str, evidence: str) -> str | None:
    """A temperature in the other scale than the results': °F for a report in °C, or °C for one in °F."""
    answer = unicodedata.normalize("NFKC", answer)
    if _FAHRENHEIT.search(answer) and not _FAHRENHEIT.search(evidence):
        return "it writes °F; the results are in °C"
    if _CELSIUS.search(answer) and not _CELSIUS.search(evidence) and _FAHRENHEIT.search(evidence):
        return "it writes °C; the results are in °F"
    return None
