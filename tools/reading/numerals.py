"""Numbers written in words. Chinese numerals in questions, as digits: 一百二十三 → 123, 三点五 → 3.5, 百分之十五 → 15%,
两斤 → 2斤, through the maintained ``cn2an`` (without it installed the text is returned unchanged: the model then
reads it). English number words ("thirty-six", "one hundred twenty", "two thousand five hundred"), by the small
table below: :data:`EN_NUMBER` finds them, :func:`en_value` reads one."""

from __future__ import annotations

import re
import warnings
from tools.lazy_re import lazy_compile

_EN_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
_EN_DIGIT = "|".join(k for k, v in _EN_UNITS.items() if 0 < v < 10)
_EN_SMALL = (rf"(?:(?:{'|'.join(_EN_TENS)})(?:[\s-]+(?:{_EN_DIGIT}))?|"
             rf"{'|'.join(sorted(_EN_UNITS, key=len, reverse=True))})")
_EN_HUNDREDS = rf"{_EN_SMALL}(?:\s+hundred(?:\s+(?:and\s+)?{_EN_SMALL})?)?"
_EN_PART = r"\s+and\s+(?:a\s+)?(?:half|quarter)|\s+and\s+three\s+quarters"  # "seven and a half", "3 and a quarter"
EN_NUMBER = lazy_compile(rf"\b(?:(?:{_EN_HUNDREDS}|a\s+hundred(?:\s+(?:and\s+)?{_EN_SMALL})?|a(?=\s+thousand\b))"
                         rf"(?:\s+thousand(?:\s+(?:and\s+)?{_EN_HUNDREDS})?)?(?:{_EN_PART})?|(?<![\d.])\d+(?:{_EN_PART}))\b",
                         re.IGNORECASE)
_FRACTION = {"half": 0.5, "quarter": 0.25, "quarters": 0.75}


def en_value(words: str) -> int | float:
    """The value of an English number in words, as :data:`EN_NUMBER` finds it ("thirty-six" → 36, "seven and a
    half" → 7.5)."""
    words, _, fraction = words.lower().partition(" and a")
    if not fraction and " and three quarters" in words:
        words, fraction = words.replace(" and three quarters", ""), "quarters"
    whole = int(words) if words.strip().isdecimal() else _whole(words)  # "3 and a half": its figures
    part = _FRACTION.get(fraction.split()[-1], 0.0) if fraction.strip() else 0.0
    return whole + part if part else whole


def en_digits(text: str) -> str:
    """``text`` with every English number in words written in digits ("seven and a half times two" → "7.5 times 2")."""
    return EN_NUMBER.sub(lambda m: str(en_value(m.group())), text)


_EN_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                     "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
                     "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
                     "nineteenth": 19, "twentieth": 20, "thirtieth": 30}
_MONTH_NAMES = frozenset("january february march april may june july august september october november december jan feb "
                         "mar apr jun jul aug sept sep oct nov dec".split())
_PUNCT_END = "?.!,;:"


def _ordinal_at(words: list[str], i: int) -> tuple[int, int] | None:
    """The day an English ordinal starting at ``words[i]`` says and how many words it takes ("twenty second": 22,
    2; "twenty-first": 21, 1; "fifth": 5, 1), or ``None``."""
    w = words[i].lower().rstrip(_PUNCT_END)
    tens, _, unit = w.partition("-")
    if unit and tens in ("twenty", "thirty") and _EN_ORDINAL_UNITS.get(unit, 10) < 10:
        return _EN_TENS[tens] + _EN_ORDINAL_UNITS[unit], 1
    if w in ("twenty", "thirty") and i + 1 < len(words) and not words[i].endswith(tuple(_PUNCT_END)):  # "twenty, second"
        nxt = words[i + 1].lower().rstrip(_PUNCT_END)
        if _EN_ORDINAL_UNITS.get(nxt, 10) < 10:
            return _EN_TENS[w] + _EN_ORDINAL_UNITS[nxt], 2
    return (_EN_ORDINAL_UNITS[w], 1) if w in _EN_ORDINAL_UNITS else None


def ordinal(text: str) -> int | None:
    """The number an ordinal written alone says ("12th", "twelfth", "twenty second", "twenty-first"), or ``None``."""
    t = text.strip().lower()
    if t[:-2].isdigit() and t[-2:] in ("st", "nd", "rd", "th"):
        return int(t[:-2])
    words = t.split()
    found = _ordinal_at(words, 0) if words else None
    return found[0] if found is not None and found[1] == len(words) else None


def _suffixed(n: int) -> str:
    return f"{n}{'st' if n % 10 == 1 and n != 11 else 'nd' if n % 10 == 2 and n != 12 else 'rd' if n % 10 == 3 and n != 13 else 'th'}"


def _ordinals(text: str, beside_a_month: bool) -> str:
    words = text.split(" ")
    out: list[str] = []
    i = 0
    while i < len(words):
        found = _ordinal_at(words, i)
        if found is not None and beside_a_month:
            after = [w.lower().rstrip(_PUNCT_END) for w in words[i + found[1]:i + found[1] + 2]]
            before = out[-1].lower().rstrip(".") if out else ""
            compound = found[1] > 1 or "-" in words[i]  # "the twenty second": a rank, never 20 seconds
            if not (before in _MONTH_NAMES or after[:1] and after[0] in _MONTH_NAMES
                    or after[:1] == ["of"] and after[1:2] and after[1] in _MONTH_NAMES
                    or before in ("the", "on") and compound):
                found = None
        if found is None:
            out.append(words[i])
            i += 1
            continue
        last = words[i + found[1] - 1]
        out.append(_suffixed(found[0]) + last[len(last.rstrip(_PUNCT_END)):])
        i += found[1]
    return " ".join(out)


def en_ordinals(text: str) -> str:
    """``text`` with the English ordinals of a month's days written in digits ("the twenty second" → "the 22nd",
    "fifth" → "5th"): for reading a day, where "second" is a day and not a unit."""
    return _ordinals(text, beside_a_month=False)


def en_ordinal_dates(text: str) -> str:
    """``text`` with the ordinals said beside a month written in digits ("the twenty second of may" → "the 22nd of
    may", "april sixteenth" → "april 16th") or said in two words after "the" ("the twenty second" → "the 22nd"); any
    other ordinal ("a third of 90", "the second one", "a twenty second timer") as it was."""
    return _ordinals(text, beside_a_month=True)


def _whole(words: str) -> int:
    total, current = 0, 0
    for word in re.split(r"[\s-]+", words.lower()):
        if word in _EN_UNITS:
            current += _EN_UNITS[word]
        elif word == "a":  # "a hundred"
            current += 1
        elif word in _EN_TENS:
            current += _EN_TENS[word]
        elif word == "hundred":
            current *= 100
        elif word == "thousand":
            total, current = total + current * 1000, 0
    return total + current


NUMERAL = lazy_compile(r"[零〇一二两三四五六七八九十百千万亿点负]")
_PERCENT_DIGITS = lazy_compile(r"百分之\s*(\d+(?:\.\d+)?)")
_UNIT_TWO = lazy_compile(r"(?<=\d)两")  # 1两 is a unit (50 g), not "two"
_IDIOMS = ("四舍五入", "一半")  # rounding, and a half: said with numerals that are no numbers


_RUN = lazy_compile(r"[零〇一二两三四五六七八九十百千万亿点负分之]+")
# a weekday's numeral before an hour is its own: 周六十二点 is Saturday at 12, not week 62
_WEEKDAY_HOUR = lazy_compile(r"(?<=周|期|拜)([一二三四五六])(?=[一二两三四五六七八九十]{1,3}[点时])")
_KEPT = {c: chr(0x11 + i) for i, c in enumerate("一二三四五六")}  # kept out of the run as a character no numeral is
_RESTORED = {ord(v): k for k, v in _KEPT.items()}
MAX_RUN = 24  # characters: no number is written longer in Chinese; a longer run is left as it is (and keeps this linear)


def to_digits(text: str) -> str:
    """``text`` with its Chinese numerals written in digits; everything else as it was. Each run of numeral
    characters is converted on its own, so the time is linear in the text's length (cn2an's patterns, run over a
    whole text of thousands of numerals, are not)."""
    text = _PERCENT_DIGITS.sub(r"\1%", text)
    if not NUMERAL.search(text):
        return text
    try:
        import cn2an
    except ImportError:
        return text
    guarded = _WEEKDAY_HOUR.sub(lambda m: _KEPT[m.group(1)], _UNIT_TWO.sub("\x00", text))
    for i, idiom in enumerate(_IDIOMS):
        guarded = guarded.replace(idiom, chr(1 + i))

    def convert(m: re.Match[str]) -> str:
        run = m.group(0)
        if len(run) > MAX_RUN:
            return run
        if run == "两":  # 两斤, 两个: two (cn2an reads it so only with what follows)
            return "2"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # cn2an warns on every character it leaves alone
            try:
                return cn2an.transform(run, "cn2an")
            except Exception:  # a run it cannot read is left for the model, never an error here
                return run

    out = _RUN.sub(convert, guarded).replace("\x00", "两").translate(_RESTORED)
    for i, idiom in enumerate(_IDIOMS):
        out = out.replace(chr(1 + i), idiom)
    return out
