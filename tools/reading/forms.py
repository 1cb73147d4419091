"""Rules as data: the forms a request is said in, declared in words with typed slots, and the one matcher that reads
them (DESIGN.md §2, "Reading a request").

A form is written as people say it::

    "[<asking>] multiply {a} (by|and|with|times) {b} [together]"   ->   "{a} * {b}"

- words match as words, in any case ("Multiply" too; "add" is not the start of "address");
- ``[…]`` is said or not; ``(…|…)`` is one of its choices, each a form of its own;
- ``{name}`` is a slot, read by its type (:data:`SLOTS`: a number, an amount, a figure, an operator symbol), named by
  ``{name:type}`` or typed by the table's ``slots``;
- ``<name>`` is a phrase the table declares once (``<asking>``: "can you please", "what do you get if you");
- a slot's type may be a list of words the table declares (``kinds={"part": ("third", "quarter")}``): the slot reads
  one of them, as a word; or a type of the table's own (``types={"few": …}``: a few words, a clock time as written).

Words stand apart by any space or none (Chinese has none): "再乘以 3", "再 乘以3". A table reads the first form that
matches the whole text and gives its meaning with the slots filled in. Each form becomes one pattern when it is first
read (kept compiled across runs by :mod:`tools.lazy_re`); no rule writes a regular expression of its own."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from tools.lazy_re import lazy_compile

# What a slot reads, by type. A number in a slot starts where its digits start (``_AT``, not within a run of digits,
# which would try each of them: a pattern tried at every digit of a long run costs its length squared).
_AT = r"(?<![\d.])"
SLOTS: dict[str, str] = {
    "number": rf"-?{_AT}\d+(?:\.\d+)?",  # 12, -3, 2.5: a leading sign is the number's
    "amount": rf"{_AT}\d+(?:\.\d+)?",  # how much of something: 5, 2.5
    "count": rf"{_AT}\d+|[一两二三四五六七八九十]",  # how many, in digits or one Chinese numeral
    "wide": rf"-?{_AT}\d+(?:\.\d+)?|(?<![０-９])[０-９]+",  # full-width digits too (a Chinese keyboard's)
    "figure": rf"-?{_AT}\d{{1,3}}(?:,\d{{3}})+|-?{_AT}\d+(?:\.\d+)?",  # 1,250 or 12.5
    "symbol": r"[*×/÷+\-−^]",  # an operator written as one
    "operand": rf"-?{_AT}\d+(?:\.\d+)?|\([^()]*\)",  # what an operation is done to: a number or a group, "(3+5)"
}

Meaning = str | Callable[[dict[str, str]], str | None]


@dataclass(frozen=True)
class Form:
    said: str
    means: Meaning


class Forms:
    """A table of forms read by one matcher: :meth:`read` gives the meaning of the first form the whole text is."""

    def __init__(self, forms: Sequence[tuple[str, Meaning]], *, slots: Mapping[str, str] | None = None,
                 phrases: Mapping[str, str] | None = None, kinds: Mapping[str, Sequence[str]] | None = None,
                 types: Mapping[str, str] | None = None, whole: bool = False) -> None:
        self.forms = tuple(Form(said, means) for said, means in forms)
        self.whole = whole  # sub() rewrites the whole text when it is a form, never a part of it
        self.slots = dict(slots or {})
        self.types = {**SLOTS, **(types or {})}
        self.phrases = dict(phrases or {})
        self.kinds = {name: _one_of(words) for name, words in (kinds or {}).items()}
        self._patterns: list[re.Pattern[str]] | None = None

    def patterns(self) -> list[re.Pattern[str]]:
        if self._patterns is None:
            self._patterns = [lazy_compile(f"(?:{self.pattern(f.said)})", re.IGNORECASE) for f in self.forms]
        return self._patterns

    def pattern(self, said: str) -> str:
        """The regular expression the form ``said`` stands for (what the matcher runs; never written by hand)."""
        tokens = _tokens(said)
        body, rest = self._sequence(tokens, 0)
        if rest != len(tokens):
            raise ValueError(f"unbalanced form: {said!r}")
        return body

    def read(self, text: str) -> str | None:
        """The meaning of the first form that is the whole of ``text`` (spaces either side aside), or ``None``."""
        text = text.strip()
        for form, pattern in zip(self.forms, self.patterns(), strict=True):
            if (m := pattern.fullmatch(text)) is None:
                continue
            if (meant := _meant(form, m)) is not None:
                return meant
        return None

    def each(self, text: str) -> Iterator[tuple[Meaning, dict[str, str]]]:
        """Every form that is the whole of ``text``, in the table's order: its meaning as declared and the words each
        of its slots read (for a caller that checks the values, and tries the next form when they do not hold)."""
        text = text.strip()
        for form, pattern in zip(self.forms, self.patterns(), strict=True):
            if (m := pattern.fullmatch(text)) is not None:
                yield form.means, {k: v.strip() for k, v in m.groupdict().items() if v is not None}

    def sub(self, text: str) -> str:
        """``text`` with every place a form is said (anywhere in it) replaced by its meaning, form by form; for a
        table of whole requests, ``text`` read as one when it is one."""
        if self.whole:
            return meant if (meant := self.read(text)) is not None else text
        for form, pattern in zip(self.forms, self.patterns(), strict=True):
            text = pattern.sub(functools.partial(_said_as, form), text)
        return text

    # ------------------------------------------------------------------ compiling a form
    def _sequence(self, tokens: list[str], i: int) -> tuple[str, int]:
        """The items from ``tokens[i]`` to the end of their group, apart by any space or none; the space beside an item
        said or not is kept with it, so that a form found inside a text never takes the space before it ("[the]
        square root of" in "what is square root of 9" is "square root of", not " square root of")."""
        parts: list[str] = []
        said = False  # a word that is always said has come: what follows is apart from it by spaces
        while i < len(tokens) and tokens[i] not in ("]", ")", "|"):
            optional = tokens[i] == "["
            item, i = self._item(tokens, i)
            if optional:  # "(?:BODY)?": its space inside it, before it or (ahead of every word said) after it
                parts.append(f"(?:\\s*{item[3:-2]})?" if said else f"(?:{item[3:-2]}\\s*)?")
            else:
                parts.append(rf"\s*{item}" if said else item)
                said = True
        return "".join(parts), i

    def _item(self, tokens: list[str], i: int) -> tuple[str, int]:
        token = tokens[i]
        if token == "[":
            body, i = self._sequence(tokens, i + 1)
            _expect(tokens, i, "]")
            return f"(?:{body})?", i + 1
        if token == "(":
            choices = []
            while True:
                body, i = self._sequence(tokens, i + 1)
                choices.append(body)
                if i < len(tokens) and tokens[i] == "|":
                    continue
                _expect(tokens, i, ")")
                return f"(?:{'|'.join(choices)})", i + 1
        if token.startswith("{"):
            name, _, kind = token[1:-1].partition(":")
            kind = kind or self.slots.get(name) or (name if name in self.kinds else "number")  # {part}: its kind
            return f"(?P<{name}>{self.kinds[kind] if kind in self.kinds else self.types[kind]})", i + 1
        if token.startswith("<"):
            return f"(?:{self.pattern(self.phrases[token[1:-1]])})", i + 1
        return self._word(token), i + 1

    @staticmethod
    def _word(token: str) -> str:
        word = re.escape(token)
        if token[:1].isascii() and token[:1].isalpha():
            word = r"(?<![a-z])" + word
        if token[-1:].isascii() and token[-1:].isalpha():
            word += r"(?![a-z])"
        return word


def _one_of(words: Sequence[str]) -> str:
    """The words of a slot's kind as one alternation, the longest first, each a whole word."""
    body = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))
    return rf"(?<![a-z])(?:{body})(?![a-z])"


def _meant(form: Form, m: re.Match[str]) -> str | None:
    values = {k: v for k, v in m.groupdict().items() if v is not None}
    return form.means(values) if callable(form.means) else form.means.format(**values)


def _said_as(form: Form, m: re.Match[str]) -> str:
    meant = _meant(form, m)
    return m.group() if meant is None else meant


def _tokens(said: str) -> list[str]:
    return re.findall(r"\{[^}]*\}|<[^>]*>|[\[\]()|]|[^\s\[\]()|{}<>]+", said)


def _expect(tokens: list[str], i: int, closing: str) -> None:
    if i >= len(tokens) or tokens[i] != closing:
        raise ValueError(f"a form's group is not closed with {closing!r}")


class Words:
    """A table of words and what each stands for, replaced wherever said as a word ("plus" → "+", "乘以" → "*"):
    one pattern for the whole table, the longest words first ("multiplied by" before "by", "乘以" before "乘")."""

    def __init__(self, table: Mapping[str, str], *, around: str = " {} ") -> None:
        self.table = {" ".join(k.casefold().split()): v for k, v in table.items()}
        self.around = around
        self._pattern: re.Pattern[str] | None = None

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            alternatives = []
            for word in sorted(self.table, key=len, reverse=True):
                body = r"\s+".join(re.escape(w) for w in word.split())
                alternatives.append(rf"\b{body}\b" if word.isascii() else body)
            self._pattern = lazy_compile(rf"\s*(?:{'|'.join(alternatives)})\s*", re.IGNORECASE)
        return self._pattern

    def replacement(self, m: re.Match[str]) -> str:
        """What the word ``m`` found stands for, as the text has it."""
        return self.around.format(self.table[" ".join(m.group().casefold().split())])

    def sub(self, text: str) -> str:
        return self.pattern().sub(self.replacement, text)


class Phrases:
    """Words and phrases of one kind, declared as a list ("coat", "what to wear", "冷笑话"), found in a text by one
    matcher: an English word as a whole word (``\\b`` at its edges, so "rain" is not found in "rainbow", nor "5" in
    "15"), a Chinese one wherever it is written; the words of a phrase apart by any spaces. A phrase may be written
    as a form is, with ``[…]`` said or not and ``(…|…)`` one of its choices ("(what's|how's) it [like] outside"), no
    slots. Tried in the order declared (the first that matches at a place is the one found). The list is the rule:
    no rule writes the alternation by hand."""

    def __init__(self, phrases: Sequence[str], flags: int = 0) -> None:
        self.phrases = tuple(phrases)
        self.flags = flags
        self._pattern: re.Pattern[str] | None = None

    def __add__(self, other: Sequence[str]) -> Phrases:
        return Phrases(self.phrases + tuple(other), self.flags)

    def body(self) -> str:
        """The alternation the list stands for (to build a larger pattern from, as :class:`Forms` does)."""
        return "|".join(_PHRASE.pattern(p) for p in self.phrases)

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = lazy_compile(f"(?:{self.body()})", self.flags)
        return self._pattern

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """The first phrase said anywhere in ``text``."""
        return self.pattern().search(text, pos)

    def match(self, text: str) -> re.Match[str] | None:
        """A phrase said at the very start of ``text``."""
        return self.pattern().match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        """Whether ``text`` is one of the phrases, and no more."""
        return self.pattern().fullmatch(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern().finditer(text)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        """``text`` with every phrase said in it replaced by ``repl``."""
        return self.pattern().sub(repl, text)


class _PhraseGrammar(Forms):
    """A form's grammar with a phrase's words: whole words as ``\\b`` has them (digits are word characters too)."""

    @staticmethod
    def _word(token: str) -> str:
        word = re.escape(token)
        if token[:1].isascii() and (token[:1].isalnum() or token[:1] == "_"):
            word = r"\b" + word
        if token[-1:].isascii() and (token[-1:].isalnum() or token[-1:] == "_"):
            word += r"\b"
        return word


_PHRASE = _PhraseGrammar([])
