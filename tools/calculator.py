"""A safe calculator on simpleeval, hardened: an AST whitelist first, then bounded operators, so no
input can reach Python objects or run for long. It speaks the notation people write (π, ^, ×, ÷,
full-width digits) so the model does not have to rewrite the user's expression."""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from typing import Any, Callable

import simpleeval
from pydantic import BaseModel, Field

from tools.base import Grounding, KeyFact, LocalText, PreviousTurn, Tool, ToolResult, Verdict
from tools.formulas import formula
from tools.numerals import NUMERAL, to_digits

MAX_INPUT = 300  # characters of expression
MAX_NODES = 200  # AST nodes
MAX_INT_BITS = 4096  # about 1,233 decimal digits, for every intermediate result
MAX_FACTORIAL = 300

HOW_TO_FIX = (
    "Write a plain arithmetic expression using numbers, + - * / ^ ( ), pi, e and the functions "
    "sqrt, sin, cos, tan, log, exp, abs, round, factorial; for example 'pi * 3^2'."
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
    x, ndigits = _num(x), _num(ndigits)
    if not isinstance(ndigits, int) or not -20 <= ndigits <= 20:
        raise CalcError("round(x, n) needs a whole number n between -20 and 20")
    return _num(round(x, ndigits) if ndigits else round(x))


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
    "sin": _real(math.sin, "sin"),
    "cos": _real(math.cos, "cos"),
    "tan": _real(math.tan, "tan"),
    "log": _log,
    "ln": _real(math.log, "ln"),
    "exp": _real(math.exp, "exp"),
    "abs": _unary(abs),
    "round": _round,
    "factorial": _factorial,
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
_IMPLICIT_MUL = re.compile(r"(?<=[\d)])\s*(?=pi\b|sqrt\b|\()")
_SQRT_NO_PARENS = re.compile(r"sqrt\s*(\d+(?:\.\d+)?|pi\b)")


_FRACTIONS = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5", "⅗": "3/5",
              "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8"}
_MIXED = re.compile(r"(\d+)\s*([" + "".join(_FRACTIONS) + r"])")
_FRACTION = re.compile("[" + "".join(_FRACTIONS) + "]")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d*,)")
_FACTORIAL = re.compile(r"(?<![\w.])(\d+)\s*!(?!=)")
_MYRIAD = re.compile(r"(\d+(?:\.\d+)?)\s*([万亿])")
_DEGREES = re.compile(r"(\d+(?:\.\d+)?)\s*(?:°|deg\b|degrees?\b)(?!\s*[CFcf]\b)")
_TIMES_X = re.compile(r"(?<![\w.])(?!0[xX]\w)(\d+(?:\.\d+)?)\s*[xX]\s*(?=\d|\()")  # 3x4, 3 x 4; never 0x10 (hex)
# Word operators between numbers, in English, German and Chinese: "10 mod 3", "3 mal 4", "3乘以4".
_WORD_OPERATORS = [
    (re.compile(r"(?i)\s*\b(?:mod|modulo)\b\s*"), " % "),
    (re.compile(r"(?i)\s*\b(?:times|multiplied\s+by|mal)\b\s*"), " * "),
    (re.compile(r"(?i)\s*\bdivided\s+by\b\s*"), " / "),
    (re.compile(r"(?i)\s*\bplus\b\s*"), " + "),
    (re.compile(r"(?i)\s*\bminus\b\s*"), " - "),
    (re.compile(r"\s*(?:乘以|乘上|乘)\s*"), " * "),
    (re.compile(r"\s*除以\s*"), " / "),
    (re.compile(r"\s*(?:加上|加)\s*"), " + "),
    (re.compile(r"\s*(?:减去|减)\s*"), " - "),
    (re.compile(r"\s*的平方"), "^2"),
    (re.compile(r"\s*的立方"), "^3"),
    (re.compile(r"\s*的\s*(\d+)\s*次(?:方|幂)"), r"^\1"),
    (re.compile(r"(?i)\s*(?:to\s+the\s+power\s+of|raised\s+to(?:\s+the\s+power\s+of)?)\s*"), "^"),
    (re.compile(r"(?i)\s*\bsquared\b"), "^2"),
    (re.compile(r"(?i)\s*\bcubed\b"), "^3"),
]


_N = r"(\d+(?:\.\d+)?|\([^()]*\))"
# Percentages as people write them; a % followed by a number stays the modulo operator (10 % 3).
_PERCENTAGES = [
    (re.compile(r"(?i)\s*\b(?:percent|per\s+cent)\b"), "%"),
    (re.compile(_N + r"\s*的\s*" + _N + r"\s*%(?!\s*[\d(])"), r"(\1*\2/100)"),  # 200的15%
    (re.compile(_N + r"\s*%\s*(?i:of)\s*" + _N), r"(\1/100*\2)"),  # 15% of 200
    (re.compile(_N + r"\s*([+-])\s*" + _N + r"\s*%(?!\s*[\d(])"), r"(\1*(1\2\3/100))"),  # 200 + 10%
    (re.compile(_N + r"\s*%(?!\s*[\d(])"), r"(\1/100)"),  # 15% * 200
]


def _notation(s: str) -> str:
    """Fractions, thousands separators, n!, degrees, 3x4 and word operators as Python arithmetic."""
    s = _MIXED.sub(lambda m: f"({m.group(1)}+{_FRACTIONS[m.group(2)]})", s)
    s = _FRACTION.sub(lambda m: f"({_FRACTIONS[m.group()]})", s)
    s = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), s)
    s = _MYRIAD.sub(lambda m: f"({m.group(1)}*{10000 if m.group(2) == '万' else 100000000})", s)
    s = _FACTORIAL.sub(r"factorial(\1)", s)
    s = _DEGREES.sub(r"(\1*pi/180)", s)
    s = _TIMES_X.sub(r"\1*", s)
    for pattern, op in _WORD_OPERATORS:
        s = pattern.sub(op, s)
    return s


def _percentages(s: str) -> str:
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
    return s.replace("^", "**")


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
    """Evaluate ``expression`` or raise :class:`CalcError` with a message that says how to fix it."""
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


class CalculatorArgs(BaseModel):
    expression: str = Field(
        ...,
        description="the arithmetic expression to evaluate, e.g. 'pi * 3^2' or '123 * 456'",
        max_length=MAX_INPUT,
    )


# Words around an arithmetic expression that do not change it ("123*456 是多少?").
_FILLER = re.compile(
    r"(?i)\b(?:what\s+is|what's|whats|how\s+much\s+is|calculate|compute|evaluate|please|tell\s+me)\b"
    r"|请问|请|帮我|麻烦|计算一下|计算|算一下|算算|算|结果是|等于多少|等于几|是多少|得多少|等于|多少|是几"
    r"|[?？！。:：]|(?<![\d)])!"
)
# Things that look like arithmetic but are not: phone numbers, dates, year ranges.
_TRAPS = (
    re.compile(r"^\d{3,4}(?:-\d{3,4})+$"),  # 555-1234, 800-555-1234, 2020-2021
    re.compile(r"^\d-\d{3}-\d{3}-\d{4}$"),  # 1-800-555-1234
    re.compile(r"^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$"),  # 2026-11-22
    re.compile(r"^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$"),  # 11/22/2026
)


# "What percent is 30 of 200?", "30 is what percent of 200", "30是200的百分之几", "30占200的百分之多少"
_PERCENT_OF = [
    re.compile(r"(?i)^what\s+(?:percent|percentage|%)\s+(?:of\s+(?P<b>\S+)\s+is\s+(?P<a>\S+)|is\s+(?P<a2>\S+)\s+of\s+(?P<b2>\S+))$"),
    re.compile(r"(?i)^(?P<a>\S+)\s+is\s+what\s+(?:percent|percentage|%)\s+of\s+(?P<b>\S+)$"),
    re.compile(r"^(?P<a>[^是占]+?)\s*(?:是|占)\s*(?P<b>[^的]+?)\s*的\s*(?:百分之几|百分之多少|百分比|多少百分比|几成)$"),
]


_SPOKEN_ARITHMETIC = re.compile(r"[\d\s零〇一二两三四五六七八九十百千万亿点负+\-*/×÷^().%,.的平方立次幂百分之乘以上除加减去]+")


def percent_question(question: str) -> tuple[str, str] | None:
    """(part, whole) when ``question`` asks what percent one number is of another."""
    q = to_digits(unicodedata.normalize("NFKC", question)).strip().rstrip("?？。.!！").strip()
    q = re.sub(r"^(?:请问|(?i:what's))\s*", lambda m: "what is " if m.group().lower().startswith("what") else "", q)
    for form in _PERCENT_OF:
        m = form.match(q)
        if m:
            a, b = m.group("a") or m.group("a2"), m.group("b") or m.group("b2")
            if all(re.fullmatch(r"-?\d+(?:\.\d+)?|-?\d{1,3}(?:,\d{3})+", x) for x in (a, b)):
                return a.replace(",", ""), b.replace(",", "")
    return None


def certain_expression(question: str) -> str | None:
    """The expression when ``question`` is unmistakably pure arithmetic, else ``None``."""
    if (ratio := percent_question(question)) is not None:
        return f"{ratio[0]} / {ratio[1]} * 100"
    rest = _FILLER.sub(" ", question).strip().rstrip("=").strip()
    if NUMERAL.search(rest):  # Chinese numerals: only in a message that is nothing but arithmetic (三点五加二)
        if not _SPOKEN_ARITHMETIC.fullmatch(rest):
            return None
        rest = to_digits(rest)
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


_NUMBER = r"(-?\d+(?:\.\d+)?|[０-９]+)"
_CONTINUE = [
    (re.compile(r"^(?:再|然后|接着)?(?:乘以|乘上|乘|×)\s*" + _NUMBER), "*"),
    (re.compile(r"^(?:再|然后|接着)?(?:除以)\s*" + _NUMBER), "/"),
    (re.compile(r"^(?:再|然后|接着)?(?:加上|加)\s*" + _NUMBER), "+"),
    (re.compile(r"^(?:再|然后|接着)?(?:减去|减)\s*" + _NUMBER), "-"),
    (re.compile(r"(?i)^(?:and\s+|then\s+|now\s+)?(?:times|multiplied\s+by|multiply\s+(?:it|that)\s+by|x)\s*" + _NUMBER), "*"),
    (re.compile(r"(?i)^(?:and\s+|then\s+|now\s+)?(?:divided\s+by|divide\s+(?:it|that)\s+by|over)\s*" + _NUMBER), "/"),
    (re.compile(r"(?i)^(?:and\s+|then\s+|now\s+)?(?:plus|add)\s*" + _NUMBER), "+"),
    (re.compile(r"(?i)^(?:and\s+|then\s+|now\s+)?(?:minus|subtract)\s*" + _NUMBER), "-"),
    (re.compile(r"^(?:再|然后)?(?:[*×/÷+\-−^])\s*" + _NUMBER), None),
]
_SQUARED = re.compile(r"(?i)^(?:再|然后)?(?:平方|的平方)|^(?:and\s+|then\s+)?squared")


def continued_expression(question: str, previous_value: str) -> str | None:
    """``再乘以2`` / ``times 2`` / ``* 2`` after a result: the expression that continues from it."""
    q = unicodedata.normalize("NFKC", question).strip().rstrip("?？。.!！=").strip()
    q = re.sub(r"(?:是多少|等于多少|呢)$", "", q).strip()
    base = previous_value if not previous_value.startswith("-") else f"({previous_value})"
    if _SQUARED.match(q) and len(q) <= 12:
        return f"{base}^2"
    for pattern, op in _CONTINUE:
        m = pattern.match(q)
        if m and m.end() == len(q):
            if op is None:
                op = q[:m.start(1)].strip().lstrip("再然后").strip().replace("×", "*").replace("÷", "/").replace("−", "-")
            return f"{base} {op} {m.group(1)}"
    return None


_CONVERT_F = re.compile(r"(?:换算|转换|转|换|折合|变)成?华氏|(?:in|to|into)\s+(?:degrees\s+)?fahrenheit|in\s+°F", re.IGNORECASE)
_CONVERT_C = re.compile(r"(?:换算|转换|转|换|折合|变)成?摄氏|(?:in|to|into)\s+(?:degrees\s+)?celsius|in\s+°C", re.IGNORECASE)
_DIFFERENCE = re.compile(r"温差|相差|差多少|差几度|(?:the\s+)?difference\b|how\s+much\s+(?:warmer|colder|hotter)",
                         re.IGNORECASE)
_THAT = re.compile(r"^(?:把|将)?(?:温度|气温|它|这个|那个)?|(?i:\b(?:the\s+temperature|it|that)\b)")


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


_HAS_NUMBER = re.compile(
    r"[0-9０-９½¼¾⅓π]|[零一二两三四五六七八九十百千万亿半]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty"
    r"|ninety|hundred|thousand|million|billion|half|dozen|pi|twice|double|triple)\b"
    r"|\bhow many (?:seconds|minutes|hours|days|weeks|months|years|millimeters|centimeters|meters|inches|feet|grams"
    r"|ounces|pounds)\b.*\b(?:in|per) (?:a|an|one)\b", re.IGNORECASE)


# Numbers that name something rather than count it.
_IDENTIFIERS = re.compile(
    r"(?:订单号?|单号|快递单?号?|运单号?|编号|工号|学号|账号|号码|电话|手机号?|房间?号?|航班号?|车次|版本号?|邮编|验证码)\s*[:：#]?\s*[\w-]+"
    r"|(?i:\b(?:order|ticket|invoice|tracking|case|room|flight|version|phone|tel|no\.?|id|pin|zip|code)\s*(?:number|no\.?|#)?\s*[:#]?\s*[\w-]*\d[\w-]*)"
    r"|#\s*\d+|\b\d{7,}\b|\b\d{3,4}[-\s]\d{3,4}(?:[-\s]\d{3,4})+\b|\b(?:19|20)\d{2}\s*年|\b(?:19|20)\d{2}[-/.]\d{1,2}[-/.]\d{1,2}\b"
    r"|\bv\d+(?:\.\d+)*\b")


def _compact(s: str) -> str:
    return re.sub(r"\s+", "", normalize(s)).lower()


_LITERAL = re.compile(r"(?<![A-Za-z0-9_.])(\d*\.\d+|\d+(?:\.\d+)?)(?![A-Za-z0-9_.])", re.ASCII)
_PERCENT = re.compile(r"%|percent|per cent|百分|折", re.IGNORECASE)


def _digits(literal: str) -> str:
    return literal.replace(".", "").lstrip("0") or "0"


def misread_number(question: str, expression: str) -> tuple[str, str] | None:
    """A number in the formula that is one the user wrote with its point moved (``.12`` for 12, ``4.7`` for 47),
    and that the user did not write as such, as (what the user wrote, what the formula has); ``None`` when there is
    none. Percentages (12% → 0.12) are not misreadings."""
    asked = {m.group(1) for m in _LITERAL.finditer(unicodedata.normalize("NFKC", question).replace(",", ""))}
    values = {float(a) for a in asked}
    by_digits = {_digits(a): a for a in asked}
    percent = bool(_PERCENT.search(question))
    for m in _LITERAL.finditer(normalize(expression)):
        literal = m.group(1)
        value = float(literal)
        written = by_digits.get(_digits(literal))
        if written is None or value in values or (percent and math.isclose(value * 100, float(written))):
            continue
        return written, literal
    return None


class Calculator(Tool):
    name = "calculator"
    description = (
        "Evaluate an arithmetic expression exactly. Use for any calculation, including word problems "
        "(write the formula with numbers: the area of a circle of radius 3 is 'pi * 3^2')."
    )
    Args = CalculatorArgs
    title = LocalText(zh="计算器", en="calculator")
    renders_directly = True  # "123 * 456 = 56088" is the whole answer

    async def run(self, args: CalculatorArgs) -> ToolResult:  # type: ignore[override]
        try:
            value = evaluate(args.expression)
        except CalcError as e:
            return ToolResult.failure(f"Cannot evaluate '{args.expression}': {e}. {HOW_TO_FIX}",
                                      LocalText(zh=f"无法计算“{args.expression}”。", en=f"'{args.expression}' cannot be calculated."))
        return ToolResult.success(expression=args.expression, value=format_number(value))

    def route(self, question: str) -> list[BaseModel] | None:
        expr = certain_expression(question) or formula(question)
        return [CalculatorArgs(expression=expr)] if expr else None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """``times 2`` after a calculation; after another tool's result (an earlier step of the same question),
        arithmetic on its figures: ``换算成华氏度`` (°C → °F), ``两地温差是多少`` (the difference of two)."""
        if previous.route == self.name:
            if not previous.calls or not previous.calls[-1][1]:
                return None
            value = previous.calls[-1][1].get("value")  # type: ignore[union-attr]
            expr = continued_expression(question, str(value)) if value is not None else None
            return [CalculatorArgs(expression=expr)] if expr else None
        expr = derived_expression(question, [f for f in previous.facts if f.number is not None])
        return [CalculatorArgs(expression=expr)] if expr else None

    def depends(self, question: str, route: str) -> bool:
        if route == self.name:
            return continued_expression(question, "1") is not None
        return bool(_CONVERT_F.search(question) or _CONVERT_C.search(question) or _DIFFERENCE.search(question)
                    or continued_expression(_THAT.sub("", question), "1") is not None)

    def grounding(self, question: str) -> Grounding:
        """A calculation needs numbers: digits, or number words (三, twelve, half, dozen); an order number, a phone
        number, a room, a version or a date is a name, not something to calculate with."""
        return "grounded" if _HAS_NUMBER.search(_IDENTIFIERS.sub(" ", question)) else "ungrounded"

    def check(self, question: str, args: CalculatorArgs, result: ToolResult) -> Verdict | None:  # type: ignore[override]
        if not result.ok:
            return super().check(question, args, result)
        asked = certain_expression(question)
        if asked is not None:
            if _compact(asked) == _compact(args.expression) or format_number(evaluate(asked)) == (result.data or {}).get("value"):
                return Verdict(verdict="PASS", reason="the expression is the one the user wrote")
            return Verdict(verdict="FAIL", reason=f"the user asked for '{asked}'; evaluate exactly that expression")
        if _compact(args.expression) in _compact(question):
            return Verdict(verdict="PASS", reason="the expression appears in the question")
        if (misread := misread_number(question, args.expression)) is not None:
            written, literal = misread
            return Verdict(verdict="FAIL", reason=f"the question says {written}, not {literal}; use the numbers as written")
        return None  # a word problem: only a model can judge whether the formula fits

    def key_facts(self, args: CalculatorArgs, result: ToolResult) -> list[KeyFact]:  # type: ignore[override]
        value = str((result.data or {}).get("value", ""))
        if not value:
            return []
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is None or len(value.lstrip("-").split(".")[0]) > 15:  # beyond float precision: the digits as written
            return [KeyFact(label=f"the result {value}", words=[value])]
        return [KeyFact(label=f"the result {value}", number=number, words=[value])]

    def render(self, question: str, args: CalculatorArgs, result: ToolResult) -> str | None:  # type: ignore[override]
        if not result.ok or not result.data:
            return None
        ratio = percent_question(question)
        if ratio is not None and _compact(args.expression) == _compact(f"{ratio[0]} / {ratio[1]} * 100"):
            return f"{ratio[0]} / {ratio[1]} = {result.data['value']}%"
        return f"{args.expression.strip()} = {result.data['value']}"
