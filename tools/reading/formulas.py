"""Calculations a rule can read from words: the area of a circle from its radius, the volume of a cylinder from
its radius and height, a rectangle's perimeter from its sides. Each names a shape, a measure and the numbers it
needs; when every number is there, the formula is certain and no model is asked (a small model sends many of these
to chat). The result is an expression for the calculator (``pi*3^2``), which the answer shows as computed."""

from __future__ import annotations

import re
import unicodedata

from tools.reading.numerals import to_digits
from tools.lazy_re import lazy_compile

_NUM = r"((?<![\d.])\d+(?:\.\d+)?)"
_IS = r"\s*(?:为|是|=|:|：|of|is|equal\s+to|等于)?\s*"
_LABELS = {
    "r": r"半径|radius|\br\b",
    "d": r"直径|diameter|\bd\b",
    "s": r"边长|棱长|side(?:\s+length)?|edge(?:\s+length)?",
    "l": r"长(?!方|度单位)|length|\blong\b",
    "w": r"宽|width|\bwide\b",
    "b": r"底边|底|base",
    "h": r"高(?!度单位)|height|\btall\b|\bhigh\b",
}
_SHAPES = [  # (shape words, measure words, needed labels, expression)
    (r"圆(?!柱|锥)|circle", r"面积|area", "r", "pi*{r}^2"),
    (r"圆(?!柱|锥)|circle", r"面积|area", "d", "pi*({d}/2)^2"),
    (r"圆(?!柱|锥)|circle", r"周长|circumference|perimeter", "r", "2*pi*{r}"),
    (r"圆(?!柱|锥)|circle", r"周长|circumference|perimeter", "d", "pi*{d}"),
    (r"正方形|square", r"面积|area", "s", "{s}^2"),
    (r"正方形|square", r"周长|perimeter", "s", "4*{s}"),
    (r"长方形|矩形|rectangle", r"面积|area", "lw", "{l}*{w}"),
    (r"长方形|矩形|rectangle", r"周长|perimeter", "lw", "2*({l}+{w})"),
    (r"三角形|triangle", r"面积|area", "bh", "{b}*{h}/2"),
    (r"球(?!场|队|员|鞋|赛)|sphere|\bball\b", r"表面积|surface", "r", "4*pi*{r}^2"),
    (r"球(?!场|队|员|鞋|赛)|sphere|\bball\b", r"体积|volume", "r", "4/3*pi*{r}^3"),
    (r"圆柱|cylinder", r"体积|volume", "rh", "pi*{r}^2*{h}"),
    (r"圆锥|cone", r"体积|volume", "rh", "pi*{r}^2*{h}/3"),
    (r"正方体|立方体|cube", r"体积|volume", "s", "{s}^3"),
]
_BY = lazy_compile(_NUM + r"\s*(?:by|x|×|\*|乘)\s*" + _NUM, re.IGNORECASE)  # a rectangle 3 by 5


def _value(label: str, text: str) -> str | None:
    found = re.search(rf"(?:{_LABELS[label]}){_IS}{_NUM}", text, re.IGNORECASE) or \
        re.search(rf"{_NUM}\s*(?:厘米|米|毫米|公里|cm|mm|m|km|in|inches|feet|ft)?\s*(?:的)?\s*(?:{_LABELS[label]})", text, re.IGNORECASE)
    return found.group(1) if found else None


def formula(question: str) -> str | None:
    """The expression when ``question`` asks a shape's measure and gives every number its formula needs."""
    words = unicodedata.normalize("NFKC", question)
    if len(words) > 200:
        return None
    text = to_digits(words)  # the numbers; the shape is read from the words (三角形 is no 3)
    for shape, measure, needs, template in _SHAPES:
        if not (re.search(shape, words, re.IGNORECASE) and re.search(measure, words, re.IGNORECASE)):
            continue
        values = {k: _value(k, text) for k in needs}
        if needs == "lw" and None in values.values() and (by := _BY.search(text)):
            values = {"l": by.group(1), "w": by.group(2)}
        if None in values.values():
            continue
        if re.search(r"表面积|surface", measure) is None and re.search(r"表面积|surface", words, re.IGNORECASE):
            continue  # "the surface area of a sphere" is not its volume
        return template.format(**values)
    return None
