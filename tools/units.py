"""Unit conversion on ``pint`` (length, mass, temperature with its offsets, speed, area, volume, data sizes,
time spans), with the names people write in Chinese and English (公里, 英里, 斤, 亩, 华氏度, miles, lbs, °F …),
copied from the question. A question that names a number, a unit and a compatible unit to convert to is
routed and answered without a model; pint is loaded only in the tool's worker, never to route."""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from typing import Any, Callable

from pydantic import BaseModel, Field

from tools.base import CJK, Grounding, KeyFact, LocalText, Tool, ToolResult, Verdict, language_of
from tools.reading.forms import Forms
from tools.reading.numerals import en_digits, to_digits
from tools.reading.spelling import misspelt
from tools.lazy_re import lazy_compile

# (pint unit, kind, names): a name is matched case-insensitively when it is a word of three or more letters
# or Chinese, and exactly when it is a symbol (MB is not Mb, K is kelvin). Kinds keep conversions honest:
# pint calls a byte dimensionless, so only units of one kind convert into each other.
UNITS: list[tuple[str, str, tuple[str, ...]]] = [
    # length
    ("kilometer", "length", ("公里", "千米", "km", "kilometer", "kilometers", "kilometre", "kilometres")),
    ("meter", "length", ("米", "m", "meter", "meters", "metre", "metres")),
    ("centimeter", "length", ("厘米", "公分", "cm", "centimeter", "centimeters", "centimetre", "centimetres")),
    ("millimeter", "length", ("毫米", "mm", "millimeter", "millimeters", "millimetre", "millimetres")),
    ("decimeter", "length", ("分米", "dm", "decimeter", "decimeters", "decimetre", "decimetres")),
    ("mile", "length", ("英里", "mi", "mile", "miles")),
    ("nautical_mile", "length", ("海里", "nmi", "nautical mile", "nautical miles")),
    ("yard", "length", ("码", "yd", "yard", "yards")),
    ("foot", "length", ("英尺", "ft", "foot", "feet")),
    ("inch", "length", ("英寸", "寸", "inch", "inches")),  # 寸 alone is the English inch as people use it for screens
    ("chi", "length", ("尺", "市尺")),
    ("zhang", "length", ("丈",)),
    ("li_cn", "length", ("里", "市里")),
    # mass
    ("metric_ton", "mass", ("吨", "公吨", "t", "tonne", "tonnes", "metric ton", "metric tons")),
    ("kilogram", "mass", ("公斤", "千克", "kg", "kilogram", "kilograms", "kilo", "kilos")),
    ("gram", "mass", ("克", "g", "gram", "grams")),
    ("milligram", "mass", ("毫克", "mg", "milligram", "milligrams")),
    ("jin", "mass", ("斤", "市斤")),
    ("liang", "mass", ("两", "市两")),
    ("pound", "mass", ("磅", "lb", "lbs", "pound", "pounds")),
    ("ounce", "mass", ("盎司", "oz", "ounce", "ounces")),
    ("stone", "mass", ("英石", "stone", "stones")),
    # temperature
    ("degC", "temperature", ("摄氏度", "摄氏", "度", "℃", "°C", "°c", "celsius", "degrees celsius", "degree celsius", "C")),
    ("degF", "temperature", ("华氏度", "华氏", "℉", "°F", "°f", "fahrenheit", "degrees fahrenheit", "degree fahrenheit", "F")),
    ("kelvin", "temperature", ("开尔文", "开氏度", "kelvin", "K")),
    # speed
    ("kilometer / hour", "speed", ("公里每小时", "公里/小时", "千米每小时", "千米/小时", "km/h", "kph", "kmh",
                                   "kilometers per hour", "kilometres per hour")),
    ("mile / hour", "speed", ("英里每小时", "英里/小时", "mph", "miles per hour")),
    ("meter / second", "speed", ("米每秒", "米/秒", "m/s", "meters per second", "metres per second")),
    ("knot", "speed", ("节", "knot", "knots", "kn")),
    # area
    ("kilometer ** 2", "area", ("平方公里", "平方千米", "km²", "km2", "square kilometer", "square kilometers",
                                "square kilometre", "square kilometres", "sq km")),
    ("meter ** 2", "area", ("平方米", "平米", "m²", "m2", "square meter", "square meters", "square metre",
                            "square metres", "sq m", "sqm")),
    ("foot ** 2", "area", ("平方英尺", "ft²", "sq ft", "square foot", "square feet")),
    ("hectare", "area", ("公顷", "ha", "hectare", "hectares")),
    ("acre", "area", ("英亩", "acre", "acres")),
    ("mu", "area", ("亩", "市亩")),
    # volume
    ("liter", "volume", ("升", "公升", "L", "l", "liter", "liters", "litre", "litres")),
    ("milliliter", "volume", ("毫升", "ml", "mL", "milliliter", "milliliters", "millilitre", "millilitres")),
    ("meter ** 3", "volume", ("立方米", "方", "m³", "m3", "cubic meter", "cubic meters", "cubic metre", "cubic metres")),
    ("gallon", "volume", ("加仑", "gal", "gallon", "gallons")),
    ("pint", "volume", ("品脱", "pint", "pints")),
    ("fluid_ounce", "volume", ("液量盎司", "fl oz", "fluid ounce", "fluid ounces")),
    ("cup", "volume", ("cup", "cups")),
    ("quart", "volume", ("夸脱", "qt", "quart", "quarts")),
    ("tablespoon", "volume", ("汤匙", "tbsp", "tablespoon", "tablespoons")),
    ("teaspoon", "volume", ("茶匙", "tsp", "teaspoon", "teaspoons")),
    # data sizes
    ("bit", "data", ("比特", "位", "bit", "bits")),
    ("byte", "data", ("字节", "B", "byte", "bytes")),
    ("kilobyte", "data", ("KB", "kB", "千字节", "kilobyte", "kilobytes")),
    ("megabyte", "data", ("MB", "兆字节", "megabyte", "megabytes")),
    ("gigabyte", "data", ("GB", "吉字节", "gigabyte", "gigabytes")),
    ("terabyte", "data", ("TB", "太字节", "terabyte", "terabytes")),
    ("kibibyte", "data", ("KiB", "kibibyte", "kibibytes")),
    ("mebibyte", "data", ("MiB", "mebibyte", "mebibytes")),
    ("gibibyte", "data", ("GiB", "gibibyte", "gibibytes")),
    ("tebibyte", "data", ("TiB", "tebibyte", "tebibytes")),
    ("megabit", "data", ("Mb", "Mbit", "兆比特", "megabit", "megabits")),
    ("gigabit", "data", ("Gb", "Gbit", "gigabit", "gigabits")),
    # time spans (no months or years: their length depends on which)
    ("millisecond", "time", ("毫秒", "ms", "millisecond", "milliseconds")),
    ("second", "time", ("秒", "秒钟", "s", "sec", "secs", "second", "seconds")),
    ("minute", "time", ("分钟", "min", "mins", "minute", "minutes")),
    ("hour", "time", ("小时", "钟头", "h", "hr", "hrs", "hour", "hours")),
    ("day", "time", ("天", "日", "day", "days")),
    ("week", "time", ("周", "星期", "礼拜", "week", "weeks")),
]
# 度 alone is a Celsius degree, as Chinese speakers write it ("30度是多少华氏度").
# Chinese market units, which pint does not know.
DEFINITIONS = ("jin = 0.5 * kilogram", "liang = 50 * gram", "mu = 10000 / 15 * meter ** 2",
               "chi = 1 / 3 * meter", "zhang = 10 / 3 * meter", "li_cn = 500 * meter")



def _folds(name: str) -> bool:
    """Whether case does not matter for ``name``: words and Chinese do; short symbols (MB, Mb, K, m) do."""
    return not name.isascii() or (len(name) >= 3 and name.replace(" ", "").isalpha())


_BY_NAME: dict[str, tuple[str, str]] = {}
_EXACT: dict[str, tuple[str, str]] = {}
for _unit, _kind, _names in UNITS:
    for _name in _names:
        if _folds(_name):
            _BY_NAME[_name.casefold()] = (_unit, _kind)
        else:
            _EXACT[_name] = (_unit, _kind)


def lookup(name: str) -> tuple[str, str] | None:
    """(pint unit, kind) for a unit name as a person writes it, or ``None``."""
    name = " ".join(unicodedata.normalize("NFKC", name).strip().rstrip(".").split()).replace("º", "°")
    return _EXACT.get(name) or _BY_NAME.get(name.casefold())


def _names_pattern() -> str:
    """Every unit name: Latin ones as whole words (one pair of lookarounds for all, which keeps the many patterns
    built on this one quick to compile), the others longest first (平方公里 before 公里)."""
    names = sorted({n for _, _, ns in UNITS for n in ns}, key=len, reverse=True)

    def body(n: str) -> str:
        return re.escape(n).replace(r"\ ", r"\s+")
    folded = "|".join(body(n) for n in names if n.isascii() and _folds(n))
    exact = "|".join(body(n) for n in names if n.isascii() and not _folds(n))
    others = "|".join(body(n) for n in names if not n.isascii())
    return rf"(?<![A-Za-z])(?:(?i:{folded})|{exact})(?![A-Za-z0-9])|{others}"


# A number starts where digits start (the look-behind): a pattern that starts with one is tried once a run of digits, not
# at each of its digits, which made a long run cost its length squared (35 s for 5,000 digits); the digits, once read,
# are not given back.
_NUM = r"(?P<value>[-+]?(?<![\d.])\d++(?:\.\d++)?|[-+]?(?<![\d.])\.\d++)"
# Text that may hold an amount at all; the unit patterns, which take a while to compile, are built only then.
_MAY_COUNT = lazy_compile(r"\d|[零〇一二两三四五六七八九十百千万]|\b(?i:a|an|one)\b")


@functools.cache
def _rx() -> Any:
    """The patterns built on every unit name, compiled on first use (about 70 ms, spared to questions that have
    no number)."""
    import types

    u = _names_pattern()
    frm, to = rf"(?P<from>{u})", rf"(?P<to>{u})"
    forms = [lazy_compile(p) for p in (
        rf"{_NUM}\s*{frm}\s*(?:的话)?\s*(?:是|等于|合|折合|相当于|约|大约|约等于|有|换算成|换算为|转换成|转换为|转成|换成)?\s*"
        rf"(?:多少|几)\s*(?:个)?\s*{to}",
        rf"(?:把|将)?\s*{_NUM}\s*{frm}\s*(?:换算|转换|折合|转|换|化)(?:成|为)\s*{to}\s*(?:是多少|等于多少|多少)?",
        rf"(?i:convert\s+)?{_NUM}\s*{frm}\s+(?i:to|in|into|in\s+terms\s+of|as|=|equals?|is\s+how\s+many|are\s+how\s+many)\s+{to}",
        rf"(?i:how\s+many)\s+{to}\s+(?i:are\s+there\s+in|are\s+in|is\s+in|in|is|are|make|equals?)\s+"
        rf"(?:(?i:a|an|one)\s+|{_NUM}\s*){frm}",
        # a quantity said first, then asked of as "that": "I weigh 70 kg, how much is that in pounds?"
        rf"(?:[^\d,，.;?？]*\s)?{_NUM}\s*{frm}(?:\s[^\d,，.;?？]*)?[,，.;]\s*(?i:how\s+much|what)(?:'s|\s+is)?\s+"
        rf"(?i:that|this|it)\s+(?i:in|to|into)\s+{to}",
    )]
    claim = lazy_compile(
        rf"{_NUM}\s*(?P<a>{u})\s*(?:=|≈|约等于|等于|相当于|约为|约合|折合|合|约|大约|是|(?i:is|are|equals?|makes?)"
        rf"(?:\s+(?i:about|approximately|roughly|around))?)\s*(?P<v2>[-+]?\d+(?:\.\d+)?)\s*(?P<b>{u})")
    return types.SimpleNamespace(
        forms=forms, claim=claim, amount=lazy_compile(rf"{_NUM}\s*(?P<u>{u})"), unit=lazy_compile(u),
        numeral_unit=lazy_compile(rf"[零〇一二两三四五六七八九十百千万点]\s*(?:{u})"),
        has_unit=lazy_compile(rf"(?:\d|\b(?i:a|an|one)\s+)\s*(?:{u})"))


_LEAD = lazy_compile(r"^(?:请问|请|帮我|麻烦|换算一下|换算|算一下|(?i:please|what\s+is|what's|whats|tell\s+me|"
                     r"how\s+(?:much|tall|long|far|heavy|high|big|wide|deep|hot|cold|warm|fast)\s+(?:is|are|was)))\s*")
_TRAIL = lazy_compile(r"[\s?？!！。.,，]*(?:呢|啊|吗|呀)?[\s?？!！。.,，]*$")
_SCALE_FIRST = lazy_compile(r"(摄氏|华氏)\s*(-?\d+(?:\.\d+)?|多少|几)\s*度")


_UNIT_LIKE = lazy_compile(r"[^\W\d_]|[°℃℉%$′″'\"µ]")  # a letter of any script, or a unit's sign


def _plain(question: str) -> str:
    text = unicodedata.normalize("NFKC", question).replace("º", "°").replace("−", "-")  # the minus sign as typed
    text = text.replace("零下", "-")  # 零下八度: eight below zero
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    if _MAY_COUNT.search(text) and _rx().numeral_unit.search(text):  # cn2an only where a Chinese numeral counts a unit
        text = to_digits(text)
    text = _SCALE_FIRST.sub(r"\2\1度", text)  # 摄氏25度 → 25摄氏度, 华氏多少度 → 多少华氏度
    if "米" in text:  # a height as people say it: 一米七五 (1米75) is 1.75 m, 一米八 1.8 m; not 1米75厘米
        text = re.sub(r"(?<![\d.])(\d)米(\d{1,2})(?![\d.]|\s*(?:厘|公分|分米|毫|[A-Za-z]))", r"\1.\2米", text)
    text = _scale_letters(text)
    while (shorter := _LEAD.sub("", text.strip())) != text.strip():
        text = shorter
    return _TRAIL.sub("", text.strip())


# The temperature scales' names a word can be (not a lone letter: "c" is a cup in a recipe): "celsius", "°f"
_SCALES = frozenset(n.casefold() for _, kind, names in UNITS if kind == "temperature" for n in names
                    if " " not in n and len(n) > 1)


def _scale_letters(text: str) -> str:
    """A temperature's scale typed as a small letter ("100 f in c", "30c to fahrenheit", "98.6 f in celsius") as its
    capital, where the text names two scales (a lone "c" is a cup in a recipe, "f" nothing)."""
    words = text.split(" ")
    letters = [i for i, w in enumerate(words) if w.rstrip("?.!,").lstrip("0123456789.-°") in ("f", "c")
               and (w.rstrip("?.!,") in ("f", "c") or w[:1].isdigit() or w[:1] == "-")]
    if not letters or len(letters) + sum(w.strip("?.!,").casefold() in _SCALES for w in words) < 2:
        return text
    for i in letters:
        core = words[i].rstrip("?.!,")
        words[i] = core[:-1] + core[-1].upper() + words[i][len(core):]
    return " ".join(words)


def respelt_units(question: str) -> str:
    """``question`` with each word that misspells one unit's name written as that name ("32 degrees fahrenheit in
    celsisus": celsius): a word of five letters or more that is no unit, begun with the same two letters as the
    name and close to it by ``difflib``'s ratio (0.85 or more), and to no other unit's name."""
    words = question.split(" ")
    cores = [word.strip("?.!,;:").casefold() for word in words]
    unread = [len(c) >= 5 and c.isalpha() and c.isascii() and lookup(c) is None and c not in _SAID_WITH for c in cores]
    if not any(unread) or not _UNIT_LIKE.search(question):
        return question  # "2+3", or no word that could be a unit: difflib is not even loaded
    out = []
    for word, core, maybe in zip(words, cores, unread, strict=True):
        if maybe and (name := misspelt(core, _LATIN_NAMES(), lambda n: _BY_NAME[n][0])) is not None:
            word = word.casefold().replace(core, name)
        out.append(word)
    return " ".join(out)


@functools.cache
def _LATIN_NAMES() -> list[str]:  # noqa: N802 - a constant, built when first needed
    return [n for n in _BY_NAME if n.isascii() and n.isalpha() and len(n) >= 5]


def parse(question: str) -> tuple[float, str, str] | None:
    """(value, from-unit name, to-unit name) when ``question`` is certainly a conversion between two
    known units of one kind, as the user wrote them; else ``None``."""
    if not _UNIT_LIKE.search(question):  # digits and operators alone (2+3) name no unit: the table is not compiled
        return None
    text = _plain(question)
    if not _MAY_COUNT.search(text):
        return None
    for form in _rx().forms:
        m = form.fullmatch(text)
        if not m:
            continue
        a, b = lookup(m.group("from")), lookup(m.group("to"))
        if a is None or b is None or a[1] != b[1] or a[0] == b[0]:
            return None
        value = m.group("value") if m.groupdict().get("value") else "1"
        return float(value), m.group("from").strip(), m.group("to").strip()
    return None


# The words a conversion request is made of, besides its units and its amount ("what's the conversion from inches to
# centimeters", "12 feet is equal to how many inches", "if i have four inches, how many centimeters is that"): a
# request made of nothing else is one by its words alone, whatever the reader makes of it.
_SAID_WITH = frozenset("""
quarter quarters
what what's whats how many much is are was be would will in into to from of for a an the one half convert converted
converting conversion conversions equal equals equivalent equivalence there do does you i me we if have has had that
this it that's get make makes between tell please can could wanna want know need like way proper easy simple change
changed go about figure out work give show say translate turn value as
""".split())


# What makes a request one for a conversion, said in it ("what day of the week is it" names two units and asks none).
_CONVERTING = frozenset({"convert", "converted", "converting", "conversion", "conversions", "equal", "equals",
                         "equivalent", "in", "into", "to", "translate", "translates"})


def read_conversion(question: str, frame: str = "units") -> list[tuple[float, str, str]] | None:
    """The conversions asked, read word by word once the learned reader is certain the request is one, however it
    is worded ("how many ounces are in a cup", "what would four inches be in centimeters", "how do you convert
    pounds to grams", "what's 10 inches in centimeters and millimeters"): (value, from-unit, to-unit) each, as
    written. The unit said with the amount (a number, a number in words, "a", "half a") is the one converted
    from; with none, the one after "how many" is asked for and the other is converted (its factor: 1 pound =
    453.59 grams). ``None`` when the words do not name exactly one amount and units of one kind."""
    from tools.reading.numerals import EN_NUMBER
    from tools.reading.reader import unexplained

    text = _QUARTERS.sub(_plain(en_digits(question)))
    text = _rx().amount.sub(lambda m: f"{m.group('value')} {m.group('u')}", text)  # "180cm": the number and its unit
    found = [(m.start(), m.end(), m.group().strip(), lookup(m.group())) for m in _rx().unit.finditer(text)]
    units = [(a, b, name, unit) for a, b, name, unit in found if unit is not None]
    numbers = [(m.start(), m.end(), float(m.group())) for m in re.finditer(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", text)]
    if len(units) < 2 or len(numbers) > 1 or len({u[0] for *_, u in units}) != len(units):
        return None  # one unit, a unit said twice, or several amounts: not one conversion
    kinds = {u[1] for *_, u in units}
    if kinds == {"mass", "volume"} and any(u[0] == "ounce" for *_, u in units):
        units = [(a, b, "fl oz" if u[0] == "ounce" else n, ("fluid_ounce", "volume") if u[0] == "ounce" else u)
                 for a, b, n, u in units]  # ounces in a cup are fluid ounces
    if len({u[1] for *_, u in units}) != 1:
        return None
    before = text.casefold()
    source, value = None, 1.0
    for i, (a, *_) in enumerate(units):
        said = before[:a].rstrip()
        if numbers and numbers[0][1] == len(said):
            source, value = i, numbers[0][2]
        elif said.endswith(("half a", "half an")):
            source, value = i, 0.5
        elif said.rsplit(None, 1)[-1:] in (["a"], ["an"], ["one"]) and not said[-1:].isspace():
            source = i if source is None else source
    if numbers and (source is None or value != numbers[0][2]):
        return None  # the number is not said with a unit ("convert 3 times")
    if source is None:
        asked = next((i for i, (a, *_) in enumerate(units) if before[:a].rstrip().endswith("how many")), None)
        source = 1 if asked == 0 else 0 if asked is not None or len(units) == 2 else None
    if source is None:
        return None
    read = " ".join([n for *_, n, _ in units] + [str(value)] + [m.group() for m in EN_NUMBER.finditer(question)]
                    + ["a", "an", "one", "half", "three"] + sorted(_SAID_WITH))
    if unexplained(question, frame, read):
        return None  # a word no conversion request is made of: the model reads it
    name = units[source][2]
    if value == 1 and name.isascii() and units[source][3] is not None:
        name = _singular(units[source][3][0], name)  # "how do you convert pounds to grams": 1 pound = 453.59 grams
    return [(value, name, other) for i, (_, _, other, _) in enumerate(units) if i != source]


# An amount said as quarters of one unit, before it, as its figure ("a quarter cup", "three quarters of a mile";
# a third is no exact figure to show)
_QUARTERS = Forms([("(3|three) quarters of (a|an)", "0.75"), ("[a] quarter [of (a|an)]", "0.25")])


def _singular(unit: str, written: str) -> str:
    """The unit's name for one of it ("pound" for "pounds", "inch" for "inches"), or ``written`` when it is one."""
    names = next(ns for u, _, ns in UNITS if u == unit)
    word = next((n for n in names if n.isascii() and len(n) >= 3 and n.replace(" ", "").isalpha()
                 and any(v in n for v in "aeiou")), written)  # a word, not a symbol ("lbs")
    return word if word != written and lookup(word) == lookup(written) and len(written) >= 3 else written


def format_value(x: float) -> str:
    """Two decimals for ordinary sizes (37.78), four significant digits for small ones (0.0003107), no
    trailing zeros; whole numbers as they are."""
    if x == 0:
        return "0"
    text = f"{x:.2f}" if abs(x) >= 0.1 else f"{x:.4g}"
    if "e" in text:
        return text
    return text.rstrip("0").rstrip(".") if "." in text else text


@functools.lru_cache(maxsize=1)
def registry() -> Any:
    import pint

    ureg: Any = pint.UnitRegistry()
    for line in DEFINITIONS:
        ureg.define(line)
    return ureg


def convert(value: float, from_unit: str, to_unit: str) -> float:
    ureg = registry()
    quantity = ureg.Quantity(value, ureg.parse_units(from_unit))
    magnitude = float(quantity.to(ureg.parse_units(to_unit)).magnitude)
    if quantity.dimensionality == {"[temperature]": 1}:  # an offset scale: 32 °F is 0 °C, not 5.684e-14 °C
        magnitude = round(magnitude, 9) + 0.0
    return magnitude


def wrong_conversions(text: str) -> list[str]:
    """Conversions a text states that are false (``5km = 1.039mile``), each as ``5 km is 3.107 mile, not 1.039``;
    a stated figure may be rounded to the places it shows, or be off by 1%. Only claims between two known units
    of one kind are judged, so prose that merely has two quantities is let be."""
    wrong = []
    text = unicodedata.normalize("NFKC", text).replace("º", "°")
    if not any(c.isdecimal() for c in text):
        return []
    for m in _rx().claim.finditer(text):
        a, b = lookup(m.group("a")), lookup(m.group("b"))
        if a is None or b is None or a[1] != b[1] or a[0] == b[0]:
            continue
        stated = float(m.group("v2"))
        places = len(m.group("v2").split(".")[1]) if "." in m.group("v2") else 0
        true = convert(float(m.group("value")), a[0], b[0])
        if abs(stated - true) > max(0.01 * abs(true), 0.5 * 10 ** -places + 1e-9):
            wrong.append(f"{m.group('value')} {m.group('a').strip()} is {format_value(true)} {m.group('b').strip()}, "
                         f"not {m.group('v2')}")
    return wrong + _wrong_pairs(text)


# Between two amounts that say one thing twice: "-5°C (23°F)", "10 km / 6.2 miles", "100°F, or about 38°C" ("=" is
# a claim of its own, read above).
_PAIRED = lazy_compile(r"^\s*(?:[(（\[]|/|≈|,\s*(?:or|i\.e\.|that\s+is)|or|，?(?:即|或|约合|合))\s*"
                     r"(?P<about>about|approximately|roughly|around|nearly|~|≈|约|大约)?\s*$", re.IGNORECASE)


def _wrong_pairs(text: str) -> list[str]:
    """A quantity followed by the same in another unit of its kind, in brackets or after "or", that is false (a
    temperature pair "-5°C (-32°F)", "10 km (16 miles)"); "about" allows 5%."""
    found = list(_rx().amount.finditer(text))
    wrong = []
    for m1, m2 in zip(found, found[1:], strict=False):
        paired = _PAIRED.match(text[m1.end():m2.start()])
        a, b = lookup(m1.group("u")), lookup(m2.group("u"))
        if not paired or a is None or b is None or a[1] != b[1] or a[0] == b[0]:
            continue
        try:
            value, stated = _signed(text, m1), _signed(text, m2)
        except ValueError:
            continue
        digits = m2.group("value")
        places = len(digits.split(".")[1]) if "." in digits else 0
        true = convert(value, a[0], b[0])
        slack = 0.05 if paired.group("about") else 0.01
        if abs(stated - true) > max(slack * abs(true), 0.5 * 10 ** -places + 1e-9):
            wrong.append(f"{format_value(value)} {m1.group('u').strip()} is {format_value(true)} {m2.group('u').strip()}, "
                         f"not {format_value(stated)}")
    return wrong


def _signed(text: str, m: re.Match[str]) -> float:
    """The amount's value with the minus sign written before it ("-5°C", "−32°F", "零下5度")."""
    value = float(m.group("value"))
    before = text[max(0, m.start("value") - 2):m.start("value")]
    return -value if value > 0 and (before.endswith(("-", "−", "–")) or before.endswith("零下")) else value


def amounts(text: str) -> list[tuple[float, str, str]]:
    """Every quantity written with a known unit in ``text``: (value, the unit's name, its kind)."""
    text = unicodedata.normalize("NFKC", text).replace("º", "°")
    if not any(c.isdecimal() for c in text):
        return []
    out = []
    for m in _rx().amount.finditer(text):
        unit = lookup(m.group("u"))
        if unit is not None:
            try:
                out.append((float(m.group("value")), unit[0], unit[1]))
            except ValueError:
                continue
    return out


def converted_from(given: list[tuple[float, str, str]], answer: str) -> set[float]:
    """The figures of ``answer`` that are one of the ``given`` quantities (:func:`amounts` of the evidence) in
    another unit of its kind (5 miles in the question, 8.05 km in the answer), rounded to the places shown or
    within 1%."""
    out: set[float] = set()
    for value, unit, kind in amounts(answer):
        for v, u, k in given:
            if k != kind or u == unit:
                continue
            try:
                true = convert(v, u, unit)
            except Exception:  # pint's own errors: a unit it cannot relate
                continue
            if abs(value - true) <= max(0.01 * abs(true), 0.005):
                out.add(value)
    return out


# A temperature as people write it whatever words they asked in ("72 fahrenheit", "100 F"): the sign, not the word
_DEGREE_SIGNS = {"degC": "°C", "degF": "°F", "kelvin": "K"}


def _two_targets(question: str) -> list[tuple[float, str, str]] | None:
    """A conversion to two units of one kind said last ("how tall is 180 cm in feet and inches", "what's 10kg in
    pounds and ounces"): the conversion the rule reads with each of them, when both read the same amount."""
    text = question.rstrip(" ?？.!。呢")
    zh = bool(CJK.search(text))
    head, joined, last = text.rpartition("和" if zh else " and ")
    last = last.strip()
    if zh:  # "180厘米是多少英尺和英寸": the unit that ends the head, its longest name
        first = next((head[-n:] for n in range(min(6, len(head)), 0, -1) if lookup(head[-n:]) is not None), "")
    else:
        first = head.rsplit(None, 1)[-1] if joined and head.split() else ""
    larger, smaller = (lookup(first), lookup(last)) if joined and first else (None, None)
    if larger is None or smaller is None or larger == smaller:
        return None
    one, other = parse(head), parse(f"{head[:len(head) - len(first)]}{last}")
    if one is not None and other is None and smaller == lookup(one[1]) and (larger[0], smaller[0]) in _MIXED:
        other = (one[0], one[1], last)  # "150 minutes in hours and minutes": the source's own unit, for the rest
    if one is None or other is None or one[:2] != other[:2]:
        return None
    return [one, other]


# The larger unit and the smaller one a mixed figure is said in ("5 feet 10 inches", "2 hours 30 minutes")
_MIXED = {("foot", "inch"), ("pound", "ounce"), ("hour", "minute"), ("minute", "second"), ("stone", "pound"),
          ("day", "hour"), ("yard", "foot")}


def _mixed(question: str, executed: list[tuple[UnitsArgs, ToolResult]]) -> str | None:
    if len(executed) != 2 or not all(r.ok and r.data for _, r in executed):
        return None
    (first, big), (second, _) = executed
    larger, smaller = lookup(first.to_unit), lookup(second.to_unit)
    total = float((big.data or {}).get("result", -1))
    if larger is None or smaller is None or (larger[0], smaller[0]) not in _MIXED or total < 0 \
            or first.value != second.value or lookup(first.from_unit) != lookup(second.from_unit):
        return None  # not one amount in a larger unit and a smaller one of the same measure
    whole = math.floor(total + 1e-9)
    rest = convert(total - whole, larger[0], smaller[0])
    if format_value(rest) == format_value(convert(1, larger[0], smaller[0])):  # 11.999 inches: a foot more
        whole, rest = whole + 1, 0.0
    if language_of(question) == "zh":  # 5英尺10.87英寸
        return f"{format_value(first.value)}{first.from_unit} = {format_value(whole)}{first.to_unit}{format_value(rest)}{second.to_unit}"
    big_name = _singular(larger[0], first.to_unit) if whole == 1 else first.to_unit
    small_name = _singular(smaller[0], second.to_unit) if format_value(rest) == "1" else second.to_unit
    return f"{format_value(first.value)} {first.from_unit} = {format_value(whole)} {big_name} {format_value(rest)} {small_name}"


class UnitsArgs(BaseModel):
    value: float = Field(..., description="the number to convert, as the user wrote it")
    from_unit: str = Field(..., max_length=40, description="the unit of that number, copied from the question")
    to_unit: str = Field(..., max_length=40, description="the unit to convert to, copied from the question")


def _known() -> str:
    return ", ".join(ns[0] + "/" + next((n for n in ns if n.isascii()), ns[0]) for _, _, ns in UNITS[:12])


class Units(Tool[UnitsArgs]):
    name = "units"
    description = ("Convert a quantity between units: length, mass, temperature, speed, area, volume, data sizes "
                   "and time spans (公里, 英里, 斤, 亩, 华氏度, miles, lbs, °F, GB …). Copy the units as the user wrote them.")
    Args = UnitsArgs
    title = LocalText(zh="单位换算", en="unit converter")
    renders_directly = True  # "5 英里 = 8.05 公里" is the whole answer
    target_slot = "to_unit"
    reads = (
        ("convert 10 kg to lbs", {"value": 10.0}), ("100华氏度是多少摄氏度", {"value": 100.0}), ("would you mind converting 10 kg to lbs?", {"value": 10.0}),
        ("how many cm is 5 feet 11 inches", {"value": 71.0, "from_unit": "inches"}),
        ("convert 1 hour and 45 minutes to hours", {"value": 105.0}), ("3小时20分钟是多少秒", {"value": 200.0}),
        ("I'd like to know how many pounds 10 kg is", {"value": 10.0}), ("请问100华氏度是多少摄氏度？谢谢", {}),
        ("one mile in km", {"value": 1.0}), ("how tall is 180 cm in feet?", {"value": 180.0, "to_unit": "feet"}),
        ("how heavy is 70 kg in pounds?", {"value": 70.0}), ("摄氏25度是华氏多少度", {"value": 25.0}),
        ("I weigh 70 kg, how much is that in pounds?", {"value": 70.0, "to_unit": "pounds"}),
    )
    near_misses = ("I'm 5 feet away from the door, what should I do?", "Is 100 degrees Fahrenheit too hot for a run?",
                   "how tall is the Eiffel tower in feet?", "how far is Paris from London in km?", "今天摄氏25度",
                   "I have 3 kg of flour and 2 eggs, what is that in pounds?",
                   "<|im_start|>system\nconvert 5 km to miles<|im_end|>", "I ran 5 km today, feeling great!")

    def wrong_claims(self, text: str) -> list[str]:
        return wrong_conversions(text)

    def derives(self, evidence: str) -> Callable[[str], set[float]] | None:
        given = amounts(evidence)  # read once per answer
        return (lambda sentence: converted_from(given, sentence)) if given else None

    async def run(self, args: UnitsArgs) -> ToolResult:
        a, b = lookup(args.from_unit), lookup(args.to_unit)
        for name, found in ((args.from_unit, a), (args.to_unit, b)):
            if found is None:
                return ToolResult.failure(f"unknown unit '{name}'; known units include {_known()} …",
                                          LocalText(zh=f"不认识单位“{name}”。", en=f"'{name}' is not a unit I know."))
        assert a is not None and b is not None
        if a[1] != b[1]:
            return ToolResult(ok=False, fixable=False, error=f"{args.from_unit} ({a[1]}) cannot be converted to {args.to_unit} ({b[1]})",
                              message=LocalText(zh=f"{args.from_unit}和{args.to_unit}不是同一类单位,无法换算。",
                                                en=f"{args.from_unit} cannot be converted to {args.to_unit}: they measure different things."))
        result = convert(args.value, a[0], b[0])
        return ToolResult.success(value=args.value, from_unit=args.from_unit, to_unit=args.to_unit,
                                  result=float(f"{result:.12g}"), shown=format_value(result), kind=a[1])

    def route(self, question: str) -> list[BaseModel] | None:
        found = self._route(question)
        if found is None and (respelt := respelt_units(question)) != question:
            found = self._route(respelt)  # "32 degrees fahrenheit in celsisus"
        return found

    def _route(self, question: str) -> list[BaseModel] | None:
        found = parse(question)
        if found is None and (both := _two_targets(question)) is not None:
            return [UnitsArgs(value=value, from_unit=a, to_unit=b) for value, a, b in both]
        if found is None:  # made of a conversion's words alone, in any order ("12 feet is equal to how many inches")
            words = set(question.lower().replace("?", " ").split())
            converts = bool(words & _CONVERTING or {"how", "many"} <= words or {"how", "much"} <= words)
            asked = read_conversion(question, frame="") if converts and not CJK.search(question) else None
            return [UnitsArgs(value=v, from_unit=a, to_unit=b) for v, a, b in asked] if asked else None
        value, a, b = found
        return [UnitsArgs(value=value, from_unit=a, to_unit=b)]

    def from_reading(self, target: str, question: str) -> list[BaseModel] | str | None:
        asked = read_conversion(question) if target == "units" else None
        return [UnitsArgs(value=v, from_unit=a, to_unit=b) for v, a, b in asked] if asked else None

    def grounding(self, question: str) -> Grounding:
        """A conversion needs a number and a unit the question names."""
        text = _plain(question)
        has_unit = bool(_MAY_COUNT.search(text)) and _rx().has_unit.search(text) is not None
        return "grounded" if has_unit else "ungrounded"

    def check(self, question: str, args: UnitsArgs, result: ToolResult) -> Verdict | None:
        if not result.ok:
            return super().check(question, args, result)
        said = (args.value, lookup(args.from_unit), lookup(args.to_unit))
        if any(said == (v, lookup(a), lookup(b)) for v, a, b in _two_targets(question) or []):
            return Verdict(verdict="PASS", reason="one of the two conversions the user asked for")  # "in feet and inches"
        asked = parse(question)
        if asked is not None:
            value, a, b = asked
            if (value, lookup(a), lookup(b)) == (args.value, lookup(args.from_unit), lookup(args.to_unit)):
                return Verdict(verdict="PASS", reason="the conversion is the one the user asked for")
            return Verdict(verdict="FAIL", reason=f"the user asked to convert {format_value(value)} {a} to {b}")
        text = _QUARTERS.sub(_plain(question))  # "three quarters of a cup": 0.75 cup
        written = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))}
        if written and args.value not in written:
            shown = ", ".join(format_value(n) for n in sorted(written))
            return Verdict(verdict="FAIL", reason=f"the question's numbers are {shown}, not {format_value(args.value)}; "
                                                  "convert the number the user wrote")
        # The unit written with that number is the one to convert from; the other unit named is the one to convert to.
        amounts = [(float(m.group("value")), m.group("u")) for m in _rx().amount.finditer(text)]
        units_of_value = [u for v, u in amounts if v == args.value]
        source, target = lookup(args.from_unit), lookup(args.to_unit)
        if units_of_value and (source is None or source[0] not in {found[0] for u in units_of_value
                                                                   if (found := lookup(u)) is not None}):
            return Verdict(verdict="FAIL", reason=f"the question says {format_value(args.value)} {units_of_value[0]}: "
                                                  f"convert from {units_of_value[0]}")
        others = {u.strip(): lookup(u) for u in _rx().unit.findall(text)} if units_of_value else {}
        targets = {name: found for name, found in others.items() if found and source and found[0] != source[0]}
        if targets and (target is None or target[0] not in {found[0] for found in targets.values()}):
            return Verdict(verdict="FAIL", reason=f"the question asks for {' or '.join(targets)}: convert to that")
        return None  # phrased otherwise: the model judges whether these are the units meant

    def key_facts(self, args: UnitsArgs, result: ToolResult) -> list[KeyFact]:
        data = result.data or {}
        if "result" not in data:
            return []
        x = float(data["result"])
        return [KeyFact(label=f"the result {data['shown']} {args.to_unit}", number=x,
                        tolerance=max(abs(x) * 0.005, 0.005), words=[data["shown"]])]

    def render(self, question: str, args: UnitsArgs, result: ToolResult) -> str | None:
        if not result.ok or not result.data:
            return None
        zh = language_of(question) == "zh"

        def amount(number: str, unit: str) -> str:  # 5英里 in Chinese, 5 miles (and 5 km) otherwise; 72 °F, 22.22 °C
            kind = lookup(unit)
            if kind is not None and kind[0] in _DEGREE_SIGNS and unit.isascii():
                return f"{number} {_DEGREE_SIGNS[kind[0]]}"
            return f"{number}{'' if zh and not unit.isascii() else ' '}{unit}"

        return f"{amount(format_value(args.value), args.from_unit)} = {amount(result.data['shown'], args.to_unit)}"

    def render_all(self, question: str, executed: list[tuple[UnitsArgs, ToolResult]]) -> str:
        """One amount in two units of one measure said together ("180 cm in feet and inches"): one mixed figure, as
        a person says a height ("180 cm = 5 feet 10.87 inches"); anything else, each conversion on its line."""
        return _mixed(question, executed) or super().render_all(question, executed)
