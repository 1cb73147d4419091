"""The safe evaluator on simpleeval, hardened: an AST whitelist first, then bounded operators, so no input can
reach Python objects or run for long; it speaks the notation people write (π, ^, ×, ÷, full-width digits,
万, fractions, degrees), so the model does not have to rewrite the user's expression."""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from typing import Any, Callable

import simpleeval

from tools.reading.numerals import to_digits
from tools.lazy_re import lazy_compile
from tools.reading.forms import Forms, Words


MAX_INPUT = 300  # characters of expression


MAX_NODES = 200  # AST nodes


MAX_INT_BITS = 4096  # about 1,233 decimal digits, for every intermediate result


MAX_FACTORIAL = 300


HOW_TO_FIX = (
    "Write a plain arithmetic expression using numbers, + - * / ^ ( ), pi, e and the functions "
    "sqrt, cbrt, sin, cos, tan, log, exp, abs, round, factorial, mean, total; for example 'pi * 3^2'."
)


class CalcError(Exception):
    """An expression we refuse or cannot evaluate; the message tells the caller how to fix it."""


def _num(x: Any) -> int | float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise CalcError("only numbers are allowed")
    if isinstance(x, int) and x.bit_length() > MAX_INT_BITS:
        raise CalcError(f"an intermediate result has more than {MAX_INT_BITS * 30103 // 100000} digits")
    if isinstance(x, float) and math.isnan(x):
        raise CalcError("the result is not a number (undefined)")
    if isinstance(x, float) and math.isinf(x):
        raise CalcError("the result is too large")
    return x


def _pow(a: Any, b: Any) -> int | float:
    a, b = _num(a), _num(b)
    if abs(a) > 1 and b > 0 and b * math.log2(abs(a)) > MAX_INT_BITS:
        raise CalcError(f"{a}^{b} is too large")
    try:
        r = a**b
    except ZeroDivisionError:
        raise CalcError("0 cannot be raised to a negative power") from None
    if isinstance(r, complex):
        raise CalcError("the result is not a real number (a negative base with a fractional exponent)")
    return _num(r)


MAX_SHIFT = 4096  # bits: 1 << 4096 has 1,234 digits, as much as a power may have


def _shift(a: Any, b: Any, left: bool) -> int:
    if not (isinstance(a, int) and isinstance(b, int)):
        raise CalcError("a shift needs whole numbers (1 << 8)")
    if b < 0:
        raise CalcError("a shift by a negative amount is not defined")
    if left and b > MAX_SHIFT:
        raise CalcError(f"the result is too large (a shift by more than {MAX_SHIFT} bits)")
    return a << b if left else a >> b


def _mul(a: Any, b: Any) -> int | float:
    a, b = _num(a), _num(b)
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise CalcError("the product is too large")
    return _num(a * b)


def _div(a: Any, b: Any) -> float:
    a, b = _num(a), _num(b)
    if b == 0:
        raise CalcError("division by zero")
    return _num(a / b)


def _floordiv(a: Any, b: Any) -> int | float:
    a, b = _num(a), _num(b)
    if b == 0:
        raise CalcError("division by zero")
    return _num(a // b)


def _mod(a: Any, b: Any) -> int | float:
    a, b = _num(a), _num(b)
    if b == 0:
        raise CalcError("modulo by zero")
    return _num(a % b)


def _unary(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda x: _num(f(_num(x)))


def _real(f: Callable[..., float], name: str) -> Callable[..., float]:
    def g(*args: Any) -> float:
        try:
            return _num(f(*(_num(a) for a in args)))
        except (ValueError, OverflowError) as e:
            shown = ", ".join(str(a) for a in args)
            raise CalcError(f"{name}({shown}) is undefined or too large ({e})") from None
        except TypeError:
            raise CalcError(f"{name} was called with the wrong number of arguments") from None

    return g


def _round(x: Any, ndigits: Any = 0) -> int | float:
    """Half away from zero, on the number as written (2.5 → 3, 2.675 → 2.68), as people and 四舍五入 round; Python's
    ``round`` rounds half to even, on the binary float (2.5 → 2, 2.675 → 2.67)."""
    from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

    x, ndigits = _num(x), _num(ndigits)
    if not isinstance(ndigits, int) or not -20 <= ndigits <= 20:
        raise CalcError("round(x, n) needs a whole number n between -20 and 20")
    if isinstance(x, int) and ndigits >= 0:
        return x
    try:
        rounded = Decimal(repr(x) if isinstance(x, float) else x).quantize(Decimal(1).scaleb(-ndigits), ROUND_HALF_UP)
    except InvalidOperation:  # more digits than a Decimal holds: the float is far past any decimal place
        return _num(round(x, ndigits) if ndigits > 0 else round(x))
    return _num(float(rounded) if ndigits > 0 else int(rounded))


def _mean(*xs: Any) -> int | float:
    if not xs:
        raise CalcError("mean needs at least one number")
    total = _total(*xs)
    return _num(total // len(xs) if isinstance(total, int) and total % len(xs) == 0 else total / len(xs))


def _total(*xs: Any) -> int | float:
    out: int | float = 0
    for x in xs:
        out = _num(out + _num(x))
    return out


def _factorial(n: Any) -> int:
    n = _num(n)
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or n < 0:
        raise CalcError("factorial needs a whole number ≥ 0")
    if n > MAX_FACTORIAL:
        raise CalcError(f"factorial is limited to n ≤ {MAX_FACTORIAL}")
    return math.factorial(n)


def _log(x: Any, base: Any = None) -> float:
    x = _num(x)
    if base is None:
        return _real(math.log, "log")(x)
    return _real(math.log, "log")(x, base)


OPERATORS = {
    ast.Add: lambda a, b: _num(_num(a) + _num(b)),
    ast.Sub: lambda a, b: _num(_num(a) - _num(b)),
    ast.Mult: _mul,
    ast.Div: _div,
    ast.FloorDiv: _floordiv,
    ast.Mod: _mod,
    ast.Pow: _pow,
    ast.LShift: lambda a, b: _shift(a, b, left=True),
    ast.RShift: lambda a, b: _shift(a, b, left=False),
    ast.USub: _unary(lambda x: -x),
    ast.UAdd: _unary(lambda x: +x),
}


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": _real(math.sqrt, "sqrt"),
    "cbrt": _real(math.cbrt, "cbrt"),
    "sin": _real(math.sin, "sin"),
    "cos": _real(math.cos, "cos"),
    "tan": _real(math.tan, "tan"),
    "log": _log,
    "ln": _real(math.log, "ln"),
    "exp": _real(math.exp, "exp"),
    "abs": _unary(abs),
    "round": _round,
    "factorial": _factorial,
    "mean": _mean,
    "total": _total,
}


NAMES = {"pi": math.pi, "e": math.e}


_SYMBOLS = {
    "×": "*", "✕": "*", "✖": "*", "∗": "*", "·": "*", "⋅": "*",
    "÷": "/", "∕": "/",
    "−": "-", "–": "-", "—": "-",
    "π": "pi", "Π": "pi",
    "√": "sqrt",
    "²": "^2", "³": "^3",
}


_IMPLICIT_MUL = lazy_compile(r"(?<=[\d)])\s*(?=pi\b|sqrt\b|\()")


_SQRT_NO_PARENS = lazy_compile(r"sqrt\s*(\d+(?:\.\d+)?|pi\b)")


_FRACTIONS = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5", "⅗": "3/5",
              "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8"}


_MIXED = lazy_compile(r"(\d+)\s*([" + "".join(_FRACTIONS) + r"])")


_FRACTION = lazy_compile("[" + "".join(_FRACTIONS) + "]")


_THOUSANDS = lazy_compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d*,)")


_FACTORIAL = lazy_compile(r"(?<![\w.])(\d+)\s*!(?!=)")


_MYRIAD = lazy_compile(r"(\d+(?:\.\d+)?)\s*([万亿])")


_DEGREES = lazy_compile(r"(\d+(?:\.\d+)?)\s*(?:°|deg\b|degrees?\b)(?!\s*[CFcf]\b)")


_TIMES_X = lazy_compile(r"(?<![\w.])(?!0[xX]\w)(\d+(?:\.\d+)?)\s*[xX]\s*(?=\d|\()")  # 3x4, 3 x 4; never 0x10 (hex)


# Word operators between numbers, in English, German and Chinese: "10 mod 3", "3 mal 4", "3乘以4"; roots and rounding
# said in words: "the square root of 2025", "2025的平方根", "根号2", "round 3.14159 to 2 decimal places", "保留两位小数".
_PARTS = {"third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "eighth": 8, "tenth": 10}
_PLACE_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}
# Rounding said in words, the whole request: "round 3.14159 to 2 decimal places", "round 7.5 to the nearest whole
# number", "把3.14159保留2位小数", "2.5四舍五入"
_ROUNDING = Forms([
    ("round [off] {x} [off] to [the nearest] {places:places} <places>",
     lambda v: f"round({v['x']}, {_PLACE_WORDS.get(v['places'].casefold(), v['places'])})"),
    ("round [off] {x} [off] to [the] nearest (integer|whole number|one|unit)", "round({x})"),
    ("[把] {x} [四舍五入] (保留|取|到) {n:digits} 位 [小数]", "round({x}, {n})"),
    ("[把] {x} 四舍五入 [(到整数|取整)]", "round({x})"),
], phrases={"places": "(decimal (places|place)|decimals|decimal|dp|places|place|(digits|digit) after the [decimal] point)"},
   types={"digits": r"\d+", "places": "|".join((r"\d+", *_PLACE_WORDS))}, whole=True)
# The operators said as words, in English, German and Chinese: "10 mod 3", "3 mal 4", "3乘以4", "5 squared".
_OPERATORS = Words({"mod": "%", "modulo": "%", "times": "*", "multiplied by": "*", "mal": "*", "divided by": "/", "divided buy": "/",
                    "plus": "+", "minus": "-", "乘以": "*", "乘上": "*", "乘": "*", "除以": "/", "加上": "+", "加": "+",
                    "减去": "-", "减": "-"})
_POWERS = Words({"squared": "^2", "cubed": "^3"}, around="{}")
_Rewrite = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]
# Parts and multiples: "half of 250", "a third of 90", "3/4 of 18", "two thirds of 120" (two as 2 already).
_PARTS_OF = Forms([
    ("[(a|one)] half [of] {x}", "(1/2)*{x}"),
    ("({n}|a|one) {part} of", lambda v: f"({v.get('n', '1')}/{_PARTS[v['part'].casefold().rstrip('s')]})*"),
    ("{n}/{d} of {x}", "({n}/{d})*{x}"),
], slots={"x": "operand", "n": "amount", "d": "amount"}, kinds={"part": (*_PARTS, *(p + "s" for p in _PARTS))})
# Said so alone, a part is a number: "1 fifth times 2 fifths".
_PART_ALONE: _Rewrite = (
    lazy_compile(r"(?i)\b(?P<n>\d+)\s+(?P<part>thirds|quarters|fourths|fifths|sixths|eighths|tenths|third|quarter|fourth|"
                 r"fifth|sixth|eighth|tenth)\b(?!\s+of)"),
    lambda m: f"({m.group('n')}/{_PARTS[m.group('part').casefold().rstrip('s')]})")
# Operations said in words: "double 37", "5 factorial", "raise 80 by 15%", "250的一半", "90的1/3" (to_digits has read
# 三分之一), "37的两倍", "the square root of 2025", "sqrt of 81" (never "log of": natural or common?), "the cube root of
# 27"; the Chinese names of a result: "45的倒数", "5的阶乘", "4的2次方根", "3次根号19", "2025的平方根", "27开立方".
_SAID_OPERATIONS = Forms([
    ("(double|twice) [of] {x}", "2*{x}"), ("(triple|thrice) [of] {x}", "3*{x}"),
    ("{n} factorial", "factorial({n})"), ("{n} 的 阶乘", "factorial({n})"), ("{n} 阶乘", "factorial({n})"),
    ("(increase|raise) {a} by {b} <percent>", "({a}*(1+{b}/100))"),
    ("(decrease|reduce|lower|cut) {a} by {b} <percent>", "({a}*(1-{b}/100))"),
    ("{x} 的 (一半|1半)", "({x}/2)"), ("{x} 的 {a}/{b}", "({x}*{a}/{b})"), ("{x} 的 {a} 倍", "({x}*{a})"),
    ("[the] square root of", "sqrt "), ("{fn} of [the number] {x}", "{fn}({x})"), ("[the] cube root of {x}", "cbrt({x})"),
    ("{x} 的 {a} 次 [方] 根", "({x}^(1/{a}))"), ("{a} 次根号 {x}", "({x}^(1/{a}))"), ("{x} 的 倒数", "(1/{x})"),
    ("{x} (的平方根|开平方根|开平方|开根号|开方)", "sqrt({x})"), ("{x} (的立方根|开立方根|开立方)", "cbrt({x})"),
    ("(平方根|根号|根下)", "sqrt "),
], slots={"x": "operand", "n": "amount", "a": "amount", "b": "amount"}, phrases={"percent": "(%|percent|per cent)"},
    kinds={"fn": ("sqrt", "cbrt", "exp", "abs", "sin", "cos", "tan", "factorial")})
_WORD_OPERATORS: list[_Rewrite | Forms] = [
    _PARTS_OF, _PART_ALONE, _SAID_OPERATIONS,
    _ROUNDING,
    (_OPERATORS.pattern(), _OPERATORS.replacement),
    (lazy_compile(r"(?<=[\d)])\s*(?:的)?平方(?![根米厘公千英分毫])"), "^2"),  # "2平方", "5的平方"; never 平方米
    (lazy_compile(r"(?<=[\d)])\s*(?:的)?立方(?![根米厘公千英分毫])"), "^3"),
    (lazy_compile(r"\s*的\s*(\d+)\s*次(?:方|幂)"), r"^\1"),
    (lazy_compile(r"([\d.]+(?:\^[\d.]+)?|\([^()]*\))\s*(?:和|与|跟)\s*([\d.]+(?:\^[\d.]+)?|\([^()]*\))\s*的\s*(和|差|积|商)"),
     lambda m: f"({m.group(1)} {dict(和='+', 差='-', 积='*', 商='/')[m.group(3)]} {m.group(2)})"),
    (lazy_compile(r"\s*的\s*(?:和|差|积|商)\s*$"), ""),  # "3的平方除以2的立方的商": the result named, said already
    (lazy_compile(r"(?i)\s*to\s+the\s+(\d+)(?:st|nd|rd|th)(?:\s+power)?"), r"^\1"),  # "2 to the 10th (power)"
    (lazy_compile(r"(?i)\s*(?:to\s+the\s+power(?:\s+of)?|raised\s+to(?:\s+the\s+power(?:\s+of)?)?)\s*"), "^"),
    (_POWERS.pattern(), _POWERS.replacement),
]


_N = r"(\d+(?:\.\d+)?|\([^()]*\))"
_SIGNED = r"((?<![\d.])-?\d+(?:\.\d+)?|\([^()]*\))"  # an amount with its sign, where none can be an operator


# A list's average or sum said in words: "the average of 3, 5 and 10", "mean of 2 and 4", "the sum of 1, 2, 3",
# "3、5、10的平均数", "4和6的平均值", "1、2、3的总和". A comma with three digits after it groups thousands (1,000).
_ITEM = r"(?>-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?)"  # atomic: one reading of each number, no backtracking
_LIST = rf"{_ITEM}(?:(?>\s*(?:,(?!\d{{3}}(?!\d))\s*(?:and\s+)?|、|，|&|\band\b|和|与|及)\s*){_ITEM})++"  # a comma before
# three digits is a thousands separator, never the list's; separators and the list possessive (one reading, linear)
_AGGREGATES = [
    lazy_compile(rf"(?i)\b(?:the\s+)?(?P<fn>average|mean|sum|total)\s+of\s+(?:the\s+numbers\s+)?(?P<items>{_LIST})"),
    lazy_compile(rf"(?P<items>{_LIST})\s*(?:的|这几个数的|这些数的)?\s*(?P<fn>平均数|平均值|平均|总和|之和)"),
]


def _aggregate(m: re.Match[str]) -> str:
    items = re.findall(_ITEM, m.group("items"))
    fn = "mean" if m.group("fn").casefold() in ("average", "mean", "平均数", "平均值", "平均") else "total"
    return f"{fn}({', '.join(i.replace(',', '') for i in items)})"


def _discount(m: re.Match[str]) -> str:
    """打八折 (to_digits: 打8折): 80% of the price; 打八五折 (85): 85%; 打7.5折: 75%."""
    n = float(m.group(2))
    return f"({m.group(1)}*{m.group(2)}/{10 if n < 10 else 100})"


# Percentages as people write them; a % followed by a number stays the modulo operator (10 % 3).
_PERCENTAGES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (lazy_compile(r"(?i)\s*\b(?:percent|per\s+cent)\b"), "%"),
    (lazy_compile(_N + r"\s*的\s*" + _N + r"\s*%(?!\s*[\d(])"), r"(\1*\2/100)"),  # 200的15%
    (lazy_compile(_N + r"\s*%\s*(?i:off)\s*(?:(?i:of)\s+)?" + _N), r"(\2*(1-\1/100))"),  # 20% off 59.99
    (lazy_compile(_N + r"\s+(?i:with|at|minus|less)\s+(?:(?i:a)\s+)?" + _N + r"\s*%\s*(?i:off|discount)"),
     r"(\1*(1-\2/100))"),  # 59.99 with 20% off
    (lazy_compile(_N + r"\s*(?:打|的)\s*(\d+(?:\.\d+)?)\s*折"), _discount),  # 59.99打8折
    (lazy_compile(_N + r"\s*%\s*(?i:of)\s*" + _SIGNED), r"(\1/100*\2)"),  # 15% of 200, 10% of -50
    (lazy_compile(_N + r"\s*([+-])\s*" + _N + r"\s*%(?!\s*[\d(])"), r"(\1*(1\2\3/100))"),  # 200 + 10%
    (lazy_compile(_N + r"\s*%(?!\s*[\d(])"), r"(\1/100)"),  # 15% * 200
]


def _notation(s: str) -> str:
    """Averages and sums of lists, fractions, thousands separators, n!, degrees, 3x4 and word operators as Python
    arithmetic."""
    if _worded(s):
        for pattern in _AGGREGATES:
            s = pattern.sub(_aggregate, s)
    s = _MIXED.sub(lambda m: f"({m.group(1)}+{_FRACTIONS[m.group(2)]})", s)
    s = _FRACTION.sub(lambda m: f"({_FRACTIONS[m.group()]})", s)
    s = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), s)
    s = _MYRIAD.sub(lambda m: f"({m.group(1)}*{10000 if m.group(2) == '万' else 100000000})", s)
    s = _FACTORIAL.sub(r"factorial(\1)", s)
    s = _DEGREES.sub(r"(\1*pi/180)", s)
    s = _TIMES_X.sub(r"\1*", s)
    if _worded(s):
        for step in _WORD_OPERATORS:
            s = step.sub(s) if isinstance(step, Forms) else step[0].sub(step[1], s)
    return s


def _worded(s: str) -> bool:
    """Whether ``s`` holds a word (a letter, or a 汉字), which every aggregate and word operator needs: a sum
    written in symbols skips their fifty searches."""
    return any(c.isalpha() for c in s)


def _percentages(s: str) -> str:
    if "%" not in s and "折" not in s and "cent" not in s.lower():  # what each of them needs
        return s
    for pattern, op in _PERCENTAGES:
        s = pattern.sub(op, s)
    return s


def normalize(expression: str) -> str:
    """Turn the notation people write into Python syntax: π→pi, ^→**, ×→*, full-width forms→ASCII, ½, 1,000,
    5!, 30°, 3x4 and word operators (mod, times, 乘以)."""
    s = "".join(_SYMBOLS.get(c, c) for c in expression)
    s = _notation(to_digits(s))
    s = _percentages(unicodedata.normalize("NFKC", s))
    s = "".join(_SYMBOLS.get(c, c) for c in s)
    s = s.strip().rstrip("=").strip()
    s = _SQRT_NO_PARENS.sub(r"sqrt(\1)", s)
    s = _IMPLICIT_MUL.sub("*", s)
    s = _LEADING_ZEROS.sub("", s)  # "098098" is 98098 (Python reads no such literal)
    return s.replace("^", "**")


_LEADING_ZEROS = lazy_compile(r"(?<![\w.])0+(?=\d)")


_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Call, ast.Load)


def parse(expression: str) -> ast.Expression:
    """Parse and whitelist: numbers, the listed operators, names and plain calls of the listed functions."""
    if len(expression) > MAX_INPUT:
        raise CalcError(f"the expression is longer than {MAX_INPUT} characters")
    source = normalize(expression)
    if not source:
        raise CalcError("the expression is empty")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise CalcError(f"'{expression}' is not a valid expression") from None
    count = 0
    for node in ast.walk(tree):
        count += 1
        if count > MAX_NODES:
            raise CalcError("the expression is too long")
        if not isinstance(node, _ALLOWED_NODES + tuple(OPERATORS)):
            if isinstance(node, ast.Attribute):
                raise CalcError("attribute access is not allowed")
            if isinstance(node, ast.operator | ast.unaryop):
                raise CalcError(f"the operator {type(node).__name__} is not allowed")
            raise CalcError(f"'{ast.unparse(node) if hasattr(node, 'lineno') else type(node).__name__}' is not allowed")
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
            raise CalcError("only numbers are allowed")
        if isinstance(node, ast.Name) and node.id not in NAMES and node.id not in FUNCTIONS:
            raise CalcError(f"unknown name '{node.id}'")
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id not in FUNCTIONS:
                raise CalcError(f"unknown function '{node.func.id}'")
            if not isinstance(node.func, ast.Name) or node.keywords:
                raise CalcError("only the listed functions can be called, with plain arguments")
            if any(isinstance(a, ast.Starred) for a in node.args):
                raise CalcError("only plain arguments are allowed")
    return tree


def evaluate(expression: str) -> int | float:
    """Evaluate ``expression`` or raise :class:`CalcError` with a message that says how to fix it. Line breaks and
    tabs are spaces (a long formula a model wrote over two lines is still the formula)."""
    expression = " ".join(expression.split())
    parse(expression)
    evaluator = simpleeval.SimpleEval(operators=OPERATORS, functions=FUNCTIONS, names=NAMES)
    try:
        return _num(evaluator.eval(normalize(expression)))
    except CalcError:
        raise
    except ZeroDivisionError:
        raise CalcError("division by zero") from None
    except OverflowError:
        raise CalcError("the result is too large") from None
    except (simpleeval.InvalidExpression, SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as e:
        raise CalcError(f"'{expression}' cannot be evaluated ({type(e).__name__})") from None


def format_number(x: int | float) -> str:
    if isinstance(x, float):
        if x.is_integer() and abs(x) < 1e15:
            return str(int(x))
        return f"{x:.12g}"
    return str(x)
