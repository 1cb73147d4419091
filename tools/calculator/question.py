"""Reading a calculator question: an expression that is certain from the words alone, a percentage, a
follow-up that continues the last result, arithmetic on earlier figures, and a number the model misread."""

from __future__ import annotations

import ast
import math
import re
import unicodedata


from tools.base import CJK, KeyFact
from tools.calculator.evaluator import CalcError, MAX_INPUT, format_number, normalize, parse
from tools.reading.numerals import EN_NUMBER, NUMERAL, en_value, to_digits
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Phrases


# Words around an arithmetic expression that do not change it ("123*456 是多少?").
_FILLER = lazy_compile(
    r"(?i)\b(?:what\s+is|what's|what’s|whats|how\s+much\s+is|calculate|compute|evaluate|please|pls|plz|tell\s+me|"
    r"(?:can|could)\s+(?:you|u)(?:\s+(?:do|solve|work\s+out))?|do|solve|work\s+out|figure\s+out|gimme|give\s+me|"
    r"quick\s+maths?|maths?|for\s+me|hey|yo|provide(?:\s+me\s+with|\s+me)?)\b"
    r"|请问|请|帮我|给我|麻烦|计算一下|计算|算一算|算一下|算算|算|的(?:答案|结果|得数)|(?:答案|得数)是|结果是|等于多少|等于几|是多少钱|是多少|得多少|等于|多少钱|多少|是几|你知不知道|你知道|你|您"
    # a price's words: "原价200元，打八折后多少钱" is 200打8折
    r"|原价|(?<=[\d零〇一二两三四五六七八九十百千万])\s*(?:块钱|块|元)|(?<=折)后|[,，]\s*(?=打)"
    r"|(?<=多少)啊|(?<=多少)呀"
    r"|[?？！。:：]|(?<![\d)])!"
)


# Things that look like arithmetic but are not: phone numbers, dates, year ranges.
_TRAPS = (
    lazy_compile(r"^\d{3,4}(?:-\d{3,4})+$"),  # 555-1234, 800-555-1234, 2020-2021
    lazy_compile(r"^\d-\d{3}-\d{3}-\d{4}$"),  # 1-800-555-1234
    lazy_compile(r"^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$"),  # 2026-11-22
    lazy_compile(r"^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$"),  # 11/22/2026
)


# "What percent is 30 of 200?", "30 is what percent of 200", "30是200的百分之几", "30占200的百分之多少"; a fraction as a
# percentage: "3/4 as a percentage", "what is 3 out of 4 as a percent", "convert 3/4 to a percentage", "3/4是百分之多少"
_PERCENT_OF = Forms([
    ("what <percent> of {b} is {a}", "{a} {b}"),
    ("what <percent> is {a} of {b}", "{a} {b}"),
    ("{a} is what <percent> of {b}", "{a} {b}"),
    ("{a} (是|占) {b} 的 <zh_percent>", "{a} {b}"),
    ("[(what is|express|convert|write)] {a} (/|out of|over) {b} (as|in|to|into) [a] <percent>", "{a} {b}"),
    ("{a} / {b} (是|等于|换算成|化成|写成|用) <zh_percent> [(表示|是多少)]", "{a} {b}"),
], slots={"a": "figure", "b": "figure"}, phrases={"percent": "(percent|percentage|%)",
                                                  "zh_percent": "(百分之几|百分之多少|百分比|多少百分比|几成)"})


_SPOKEN_ARITHMETIC = lazy_compile(r"[\d\s零〇一二两三四五六七八九十百千万亿点负+\-*/×÷^().%,.的平方立次幂百分之乘以上除加减去根号开"
                                  r"保留位小数舍入取整到把打折、，与及和总均值数半倍分之倒差积商下跟然后再阶]+")


def percent_question(question: str) -> tuple[str, str] | None:
    """(part, whole) when ``question`` asks what percent one number is of another."""
    q = to_digits(unicodedata.normalize("NFKC", question)).strip().rstrip("?？。.!！").strip()
    if q.startswith("请问"):
        q = q[2:].lstrip()
    elif q[:6].lower() == "what's":
        q = "what is " + q[6:].lstrip()
    if (said := _PERCENT_OF.read(q)) is not None:
        a, b = said.replace(",", "").split()
        return a, b
    return None


# Arithmetic said as a verb, the order of its numbers as the verb has them: "multiply 12 by 7", "add 3 and 9
# together", "add 15 to 27", "subtract 5 from 20", "divide 100 by 4", "what do you get if you multiply 6 by 7",
# "what does 6 + 9 equal". The whole request must be the form (a word more and it is not certain).
_AN_OPERATION = lazy_compile(r"\d\s*[-+*/×÷^x]\s*-?\d|\d\s+(?:plus|minus|times)\s+-?\d")
_VERB_FORMS = Forms([
    ("[<asking>] multiply {a} (by|and|with|times) {b} [together]", "{a} * {b}"),
    ("[<asking>] divide {a} by {b}", "{a} / {b}"),
    ("[<asking>] divide {a} into {b}", "{b} / {a}"),
    ("[<asking>] add [up] {a} (and|plus|with) {b} [together]", "{a} + {b}"),
    ("[<asking>] add {a} to {b}", "{b} + {a}"),
    ("[<asking>] (subtract|take [away]|deduct) {a} [away] from {b}", "{b} - {a}"),
    ("how many times (does|can|will|would|do) {a} go into {b}", "{b} / {a}"),
    # an area said by its sides: "how many square feet is a 13 by 74 room", "what is the area of a 20 x 20 room"
    ("(how many square <length> (is|are|in) | what is the area of | what's the area of) [(a|an|the)] {a} (by|x|×) {b}"
     " [<length>] <space>", "{a} * {b}"),
    # a sum shared: "if i win 200000 how do i split it 7 ways", "split 120 4 ways", "divide 90 between 3 people"
    ("if (i|we) (win|have|get|got|make|made) {a:figure} how (do|can|should|would) (i|we) (split|divide|share) it {b}"
     " (ways|people|friends)", "{a} / {b}"),
    ("[<asking>] (split|divide|share) {a:figure} [dollars] (between|among|by|into|in) {b} [(ways|people|friends|parts)]",
     "{a} / {b}"),
    ("[<asking>] (split|divide|share) {a:figure} [dollars] {b} ways", "{a} / {b}"),
    ("[<asking>] (split|divide|share) [(a|the|our|my)] {a:figure} [(dollar|euro|pound)] (bill|check|cheque|tab|total) "
     "[(between|among|by|into|in)] {b} [(ways|people|friends)]", "{a} / {b}"),
    # a percentage added or taken off: "add 10% to 300", "take 15 percent off 80"
    ("[<asking>] add {p} (%|percent|per cent) (to|onto|on) {b}", "{b} + {p}%"),
    ("[<asking>] (take|knock) {p} (%|percent|per cent) off [of] {b}", "{p}% off {b}"),
    # a price said with its discount: "an 80 dollar jacket is 30% off, how much is it"
    ("[(a|an|the|my)] {a:figure} [(dollar|euro|pound|buck|yuan)] {thing:few} (is|was|are) [now] {p} (%|percent|per cent) "
     "off [[,] (how much (is it|is that|will it be|does it cost|do i pay)|what (is|'s) the (price|cost)|what do i pay)]",
     lambda v: None if {"year", "years", "old", "month", "months"} & set(v["thing"].split()) else f"{v['p']}% off {v['a']}"),
    # "what does 6 + 9 equal", "what will 3 times 4 come to": the sum in between, when it is one
    ("what (does|do|will|would) {e:text} (equal|make|come to|add up to)",
     lambda v: v["e"] if _AN_OPERATION.search(v["e"]) else None),
], types={"text": r".+?", "few": r"[a-z]+(?:\s+[a-z]+){0,2}?"}, phrases={"asking": "(what do (you|i|we) get (if|when) (you|i|we) | [(can|could|would) (you|u)] [please])",
            "length": "(feet|foot|ft|meters|metres|meter|metre|m|yards|yard|inches|inch)",
            "space": "(room|space|area|yard|garden|lot|floor|house|office|kitchen|bedroom|field|rug|carpet|wall|deck|patio)"})
# "what is the answer to two plus two", "the sum of 3 plus 5", "what's the result of 8 * 7": what follows is the sum
_ANSWER_TO = lazy_compile(r"(?i)^(?:what(?:'s|’s|\s+is|\s+was)\s+)?the\s+(?:(?:answer|result|solution|total)\s+(?:to|of|for)"
                          r"|sum\s+of(?=\s*-?\d[\d.]*\s*(?:\+|plus)\s*-?\d))\s+")


def _verb_form(question: str) -> str | None:
    """The expression of arithmetic said as a verb, or ``None``."""
    q = question.strip().rstrip("?？.!！ ").strip()
    if (m := _ANSWER_TO.match(q)) and any(c.isdecimal() for c in q[m.end():]):
        q = q[m.end():].rstrip("= ").strip()
        return _verb_form(q) or q
    return _VERB_FORMS.read(q)


_THEN = ("然后再", "然后", "再")
_OPERATOR_WORDS = ("乘以", "乘上", "乘", "除以", "加上", "加", "减去", "减", "的")


def _in_turn(text: str) -> str:
    """Steps said one after another ("4乘6然后再乘7再除以2", "54的立方再加上35"): each applied to the result so
    far, in brackets, whatever the operators' precedence."""
    cut = text
    for then in _THEN:  # the longest first: "然后再" before "然后" and "再"
        cut = cut.replace(then, "\x00")
    parts = cut.split("\x00")
    if len(parts) < 2 or not all(p.strip().startswith(_OPERATOR_WORDS) for p in parts[1:]):
        return text
    out = parts[0].strip()
    for part in parts[1:]:
        out = f"({out}){part.strip()}"
    return out


def certain_expression(question: str) -> str | None:
    """The expression when ``question`` is unmistakably pure arithmetic, else ``None``."""
    if (ratio := percent_question(question)) is not None:
        return f"{ratio[0]} / {ratio[1]} * 100"
    rest = " ".join(_FILLER.sub(" ", _verb_form(question) or question).split()).rstrip("=").strip()
    if NUMERAL.search(rest):  # Chinese numerals: only in a message that is nothing but arithmetic (三点五加二)
        if not _SPOKEN_ARITHMETIC.fullmatch(rest):
            return None
        rest = to_digits(rest)
    rest = _in_turn(rest)
    if not rest or len(rest) > MAX_INPUT or re.search(r"%\s*[\d(]", rest):
        return None
    if any(p.match(rest) for p in _TRAPS):
        return None
    try:
        tree = parse(rest)
    except CalcError:
        return None
    if not any(isinstance(n, (ast.BinOp, ast.Call)) for n in ast.walk(tree)):
        return None  # a lone number ("3.11", "1999") is not a calculation
    # Certain even when it cannot be evaluated (9^99999, 1/0): the calculator says why, no model is needed for that.
    return rest


# A step said after a result ("再乘以2", "times 2", "* 2"): the operator it applies, and its number.
_SYMBOLS = str.maketrans({"×": "*", "÷": "/", "−": "-"})
_CONTINUE = Forms([
    ("[<zh_it>] [(再|然后|接着)] (乘以|乘上|乘|×) {n}", "* {n}"),
    ("[<zh_it>] [(再|然后|接着)] 除以 {n}", "/ {n}"),
    ("[<zh_it>] [(再|然后|接着)] (加上|加) {n}", "+ {n}"),
    ("[<zh_it>] [(再|然后|接着)] (减去|减) {n}", "- {n}"),
    ("[(and then|and now|and|then|now)] (times|multiplied by|multiply [(it|that|the result)] by|x) {n}", "* {n}"),
    ("[(and then|and now|and|then|now)] (divided by|divide [(it|that|the result)] by|over) {n}", "/ {n}"),
    ("[(and then|and now|and|then|now)] (plus|add) {n} [(to (it|that|the result))]", "+ {n}"),
    ("[(and then|and now|and|then|now)] (minus|subtract|take away) {n} [(from (it|that|the result))]", "- {n}"),
    ("[(再|然后)] {op:symbol} {n}", lambda v: f"{v['op'].translate(_SYMBOLS)} {v['n']}"),
    ("[(and|then|now)] (square it|square that)", "^ 2"),
    ("[(and|then|now)] (cubed|cube it|cube that)", "^ 3"), ("[(再|然后)] [的] 立方", "^ 3"),
    ("[(and|then|now)] (double it|double that|doubled|twice that)", "* 2"), ("[(再|然后)] 翻倍", "* 2"),
    ("[(and|then|now)] (halve it|halve that|halved|half of (it|that))", "/ 2"), ("[(再|然后)] 减半", "/ 2"),
], slots={"n": "wide"}, phrases={"zh_it": "(结果|这个数|这个结果|得数|它|那) [再]"})


_SQUARED = Phrases(("[(再|然后)] (平方|的平方)", "[(and|then)] squared"), re.IGNORECASE)  # said first


def continued_expression(question: str, previous_value: str) -> str | None:
    """``再乘以2`` / ``times 2`` / ``* 2`` after a result: the expression that continues from it."""
    q = unicodedata.normalize("NFKC", question).strip().rstrip("?？。.!！=").strip()
    q = next((q[:-len(end)] for end in ("是多少", "等于多少", "呢") if q.endswith(end)), q).strip()
    q = to_digits(q) if NUMERAL.search(q) else q  # "再乘以二"
    base = previous_value if not previous_value.startswith("-") else f"({previous_value})"
    if _SQUARED.match(q) and len(q) <= 12:
        return f"{base}^2"
    step = _CONTINUE.read(q)
    return f"{base} {step}" if step is not None else None


def _converted_to(zh: str, en: str, symbol: str) -> Phrases:
    """The words that ask for a temperature in a scale: "换算成华氏", "in degrees fahrenheit", "to °F"."""
    return Phrases((f"(换算|转换|转|换|折合|变) [成] {zh}", f"(in|to|into) [degrees] {en}", f"in °{symbol}"), re.IGNORECASE)


_CONVERT_F = _converted_to("华氏", "fahrenheit", "F")
_CONVERT_C = _converted_to("摄氏", "celsius", "C")
_DIFFERENCE = Phrases(("温差", "相差", "差多少", "差几度", "[the] difference", "how much (warmer|colder|hotter)"), re.IGNORECASE)


_THAT = lazy_compile(r"^(?:把|将)?(?:温度|气温|它|这个|那个)?|(?i:\b(?:the\s+temperature|it|that)\b)")


def derived_expression(question: str, figures: list[KeyFact]) -> str | None:
    """Arithmetic on an earlier result's figures that ``question`` certainly asks for, or ``None``."""
    temps = [f for f in figures if f.unit in ("°C", "°F")]
    if _DIFFERENCE.search(question) and len(temps) >= 2:
        high, low = max(temps, key=lambda f: f.number or 0), min(temps, key=lambda f: f.number or 0)
        return f"{format_number(high.number or 0)} - {_signed(low.number or 0)}"
    if len(temps) == 1:
        t = temps[0]
        if _CONVERT_F.search(question) and t.unit == "°C":
            return f"{_signed(t.number or 0)} * 9 / 5 + 32"
        if _CONVERT_C.search(question) and t.unit == "°F":
            return f"({format_number(t.number or 0)} - 32) * 5 / 9"
    if len(figures) == 1 and figures[0].number is not None:
        return continued_expression(_THAT.sub("", question).strip(), format_number(figures[0].number))
    return None


def _signed(x: float) -> str:
    text = format_number(x)
    return f"({text})" if text.startswith("-") else text


_HAS_NUMBER = lazy_compile(
    r"[0-9０-９½¼¾⅓π]|[零一二两三四五六七八九十百千万亿半]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty"
    r"|ninety|hundred|thousand|million|billion|half|dozen|pi|twice|double|triple)\b"
    r"|\bhow many (?:seconds|minutes|hours|days|weeks|months|years|millimeters|centimeters|meters|inches|feet|grams"
    r"|ounces|pounds)\b.*\b(?:in|per) (?:a|an|one)\b", re.IGNORECASE)


# Numbers that name something rather than count it.
_IDENTIFIERS = lazy_compile(
    r"(?:订单号?|单号|快递单?号?|运单号?|编号|工号|学号|账号|号码|电话|手机号?|房间?号?|航班号?|车次|版本号?|邮编|验证码)\s*[:：#]?\s*[\w-]+"
    r"|(?i:\b(?:order|ticket|invoice|tracking|case|room|flight|version|phone|tel|no\.?|id|pin|zip|code)\s*(?:number|no\.?|#)?\s*[:#]?\s*[\w-]*\d[\w-]*)"
    r"|#\s*\d+|\b\d{7,}\b|\b\d{3,4}[-\s]\d{3,4}(?:[-\s]\d{3,4})+\b|\b(?:19|20)\d{2}\s*年|\b(?:19|20)\d{2}[-/.]\d{1,2}[-/.]\d{1,2}\b"
    r"|\bv\d+(?:\.\d+)*\b")


def compact(s: str) -> str:
    return "".join(normalize(s).split()).lower()


_LITERAL = lazy_compile(r"(?<![A-Za-z0-9_.])(\d*\.\d+|\d+(?:\.\d+)?)(?![A-Za-z0-9_.])", re.ASCII)


def _says_percent(question: str) -> bool:
    """A percentage said in any form ("15%", "15 percent", "a percentage", "百分之十五", "打八折")."""
    said = question.lower()
    return any(word in said for word in ("%", "percent", "per cent", "百分", "折"))


def _digits(literal: str) -> str:
    return literal.replace(".", "").lstrip("0") or "0"


def misread_number(question: str, expression: str) -> tuple[str, str] | None:
    """A number in the formula that is one the user wrote with its point moved (``.12`` for 12, ``4.7`` for 47),
    and that the user did not write as such, as (what the user wrote, what the formula has); ``None`` when there is
    none. Percentages (12% → 0.12) are not misreadings."""
    asked = {m.group(1) for m in _LITERAL.finditer(unicodedata.normalize("NFKC", question).replace(",", ""))}
    values = {float(a) for a in asked}
    by_digits = {_digits(a): a for a in asked}
    percent = _says_percent(question)
    for m in _LITERAL.finditer(normalize(expression)):
        literal = m.group(1)
        value = float(literal)
        written = by_digits.get(_digits(literal))
        if written is None or value in values or (percent and math.isclose(value * 100, float(written))):
            continue
        return written, literal
    return None


def works_on_earlier_figures(question: str) -> bool:
    """A question that calculates with an earlier step's figures: converts or compares temperatures, or continues
    a result (``then double it``)."""
    return bool(_CONVERT_F.search(question) or _CONVERT_C.search(question) or _DIFFERENCE.search(question)
                or continued_expression(_THAT.sub("", question), "1") is not None)


def has_numbers(question: str) -> bool:
    """Digits or number words to calculate with; an order, phone, room or version number is a name."""
    return bool(_HAS_NUMBER.search(_IDENTIFIERS.sub(" ", question)))


_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
          "hundred": 100, "thousand": 1000, "dozen": 12, "half": 0.5, "twice": 2, "double": 2, "triple": 3}
_NUMBER_WORDS = Phrases(tuple(_WORDS), re.IGNORECASE)


def _raised(before: str) -> bool:
    """Whether what follows ``before`` is an exponent ("3^", "2 **")."""
    return before.rstrip().endswith(("^", "**"))


def number_words(text: str) -> list[float]:
    """The numbers ``text`` writes in English words: "thirty-six" 36, "one hundred twenty" 120, "twelve" 12."""
    return [float(en_value(m.group(0))) for m in EN_NUMBER.finditer(text)]


# Factors a conversion is made with, each with the units it converts: a formula that uses one for a question about
# those units converts as asked, with the user's numbers. Small whole numbers (3 feet a yard, 7 days a week) are
# left out: they are as often a number the model worked out (a radius from a diameter) as a factor.
_FACTORS = [
    (r"inch|inches|feet|foot|ft|dozen|英寸|英尺|打", (12.0,)), (r"inch|inches|cm|centimet|厘米|英寸", (2.54, 0.3937)),
    (r"feet|foot|ft|met(?:er|re)s?\b|英尺|米", (0.3048, 3.28084, 3.2808)), (r"miles?|feet|foot|英里", (5280.0,)),
    (r"miles?|km|kilomet|英里|公里", (1.609, 1.60934, 1.609344, 0.621371, 0.6214, 0.62137)),
    (r"pounds?|lbs?|kg|kilo|磅|公斤|千克", (0.453592, 0.4536, 2.20462, 2.2046, 2.205)),
    (r"ounces?|oz|pounds?|lbs?|盎司|磅", (16.0,)), (r"ounces?|oz|grams?|盎司|克", (28.3495, 28.35)),
    (r"gallons?|lit(?:er|re)s?|加仑|升", (3.78541, 3.785, 0.264172)),
    (r"fahrenheit|celsius|°|华氏|摄氏", (32.0, 1.8)), (r"hours?|minutes?|seconds?|小时|分钟|秒", (60.0, 3600.0)),
    (r"days?|hours?|天|小时", (24.0,)), (r"years?|days?|年|天", (365.0,)), (r"years?|weeks?|年|周|星期", (52.0,)),
    (r"km|kilo|met(?:er|re)|grams?|lit(?:er|re)|mm|cm|公里|千米|千克|公斤|米|克|升", (1000.0, 100.0)),
]
_FACTOR_RULES = [(lazy_compile(units, re.IGNORECASE), values) for units, values in _FACTORS]


def _factors(question: str) -> set[float]:
    return {v for pattern, values in _FACTOR_RULES if pattern.search(question) for v in values}


_SENTENCE_END = lazy_compile(r"(\d)\.(?=\s|$)")  # "packs of 12. I bought 4": 12, not "12." (which reads as no number)
# Where a number may be used more often than the question writes it: a square's side, "twice", "each", "both".
_REPEATS = lazy_compile(r"squared?|cubed?|cube|\bpower\b|\bsame\b|\beach\b|\bboth\b|\bevery\b|\bper\b|"
                      r"twice|double|triple|again|平方|立方|次方|每|都|各|正方", re.IGNORECASE)
# Numbers that name a time, a date or an order, not an amount to calculate with.
_NOT_AMOUNTS = lazy_compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock)\b|\b\d{1,2}:\d{2}\b|"
                          r"\d{1,2}[点時时](?:\d{1,2}分)?|\b\d+(?:st|nd|rd|th)\b|第\s*\d+|\b(?:19|20)\d{2}\b|"
                          r"\d+\s*(?:号|日|月|年)", re.IGNORECASE)


def _given(question: str) -> list[float]:
    """The amounts ``question`` gives, each as often as it gives it: digits (in Chinese numerals too) and English
    number words; a time, a date, an ordinal or an identifier is no amount."""
    text = _SENTENCE_END.sub(r"\1 ", to_digits(unicodedata.normalize("NFKC", question)).replace(",", ""))
    text = _IDENTIFIERS.sub(" ", _NOT_AMOUNTS.sub(" ", text))
    values = [float(m.group(1)) for m in _LITERAL.finditer(text)]
    return values + number_words(text)


def _percent_forms(p: float, question: str) -> set[float]:
    """The ways a formula writes a percentage ``p``: as it is, a fraction, the rest of 100, a growth factor; and, for
    a Chinese discount (八折: 80%), a tenth."""
    forms = [p, p / 100, 100 - p, (100 - p) / 100, 1 + p / 100]
    if "折" in question:
        forms += [p / 10, 1 - p / 10]
    return {round(v, 10) for v in forms}


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def formula_problem(question: str, expression: str) -> str | None:
    """Why a formula cannot be the calculation the question asks, when its numbers say so for certain: it uses an
    amount more often than the question gives it (unless the question says so: a square's side, "each", "twice"),
    or it leaves out an amount the question gives. ``None`` when neither is certain."""
    from collections import Counter

    given = Counter(_given(question))
    if not given:
        return None
    formula = normalize(expression)
    used: Counter[float] = Counter()
    for m in _LITERAL.finditer(formula):
        if float(m.group(1)) in (2.0, 3.0) and _raised(formula[:m.start()]):
            continue  # an exponent
        negative = formula[:m.start()].replace(" ", "").endswith("(-")  # "(-2) * 2": an earlier result, -2, then 2
        used[-float(m.group(1)) if negative else float(m.group(1))] += 1
    percent = _says_percent(question)
    # repeats are certain only in a formula made of the question's own amounts (4/3 in a sphere's volume is a constant)
    if all(v in given for v in used) and not _REPEATS.search(question):
        for value, n in used.items():
            # a percentage's base may be written twice (50 - 50*0.2)
            if value in given and n > given[value] + (1 if percent else 0):
                return (f"the formula uses {format_number(value)} {_times(n)}, but the question gives it "
                        f"{_times(given[value])}; use each of the user's numbers as often as the question does")
    forms = {round(v, 10) for v in used}
    left = [format_number(v) for v in given
            if v not in (0.0, 1.0) and v not in used and not (percent and _percent_forms(v, question) & forms)]
    if left and used and numbers_are_the_users(question, expression):  # a derived number (6 across: radius 3) is
        return (f"the formula leaves out {', '.join(left)}, which the question gives; write the calculation with every "
                "number of the question that it needs")
    return None


def numbers_are_the_users(question: str, expression: str) -> bool:
    """Every number of ``expression`` is one the user gave (as digits, Chinese numerals or a number word), or a
    square's or cube's exponent, or 100 in a percentage. A formula made of the user's numbers needs no model to
    judge it: the one a small model copies from an example, or invents, has a number the user never gave."""
    text = _SENTENCE_END.sub(r"\1 ", to_digits(unicodedata.normalize("NFKC", question)).replace(",", ""))
    given = {float(m.group(1)) for m in _LITERAL.finditer(text)}
    given |= {float(_WORDS[m.group().casefold()]) for m in _NUMBER_WORDS.finditer(text)}
    given |= set(number_words(text))
    if _says_percent(question):
        given.add(100.0)
        given |= {f for v in list(given) if 0 < v < 100 for f in _percent_forms(v, question)}  # 20% off: 0.8, 80, 1.2
    given |= _factors(question)  # a conversion's own factors count as the user's
    formula = normalize(expression)
    literals = list(_LITERAL.finditer(formula))
    if not literals:
        return False
    for m in literals:
        value = float(m.group(1))
        if value in given or round(value, 10) in given:
            continue
        if value in (2.0, 3.0) and _raised(formula[:m.start()]):
            continue
        return False
    return True


# A request for maths with nothing to calculate yet ("can you help me solve a math problem", "help me with math",
# "帮我算个数"): its words, as sets. One word outside them ("i hate math", "what is algebra") is no such request.
_MATHS = frozenset({"math", "maths", "mathematics", "calculation", "calculations", "calculate", "calculator",
                    "arithmetic", "algebra", "equation", "equations", "sum", "sums", "compute", "computation"})
_MATHS_SAID_WITH = frozenset("""
help helping me with my a an the some problem problems question questions solve solving do doing can you could would
please i need want to for will this that figure out work quick simple little bit get have got assist assistance your
use let's lets us am stuck on make run up few kindly now if how
""".split())
_ZH_MATHS_SAID_WITH = ("帮我", "帮忙", "请", "你", "能", "可以", "给我", "一下", "一个", "个", "点", "东西", "算数", "算术",
                       "数学", "计算", "算", "数", "做", "道", "题", "吗", "呢", "我想", "我要", "我", "来")


def asks_for_maths(question: str) -> bool:
    """Whether ``question`` asks for a calculation and says none ("help me with a math problem"): what to calculate
    is asked back."""
    from tools.reading.reader import tokens

    if CJK.search(question):  # (一 of 一下 is no number: what is left once its words go is)
        text = question.strip().rstrip("?？。.!！")
        if not ("算" in text or "数学" in text):
            return False
        for said in sorted(_ZH_MATHS_SAID_WITH, key=len, reverse=True):
            text = text.replace(said, "")
        return not text.strip()
    words = [w for w in tokens(question) if w != "?"]
    return bool(words) and not has_numbers(question) and bool(_MATHS.intersection(words)) and all(w in _MATHS or w in _MATHS_SAID_WITH for w in words)
