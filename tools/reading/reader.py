"""The learned reader: what a request is about, scored by a linear model trained on real people's words.

The rules read values exactly (a sum, a place, a due time); what they cannot do is hear every way people *word* a
request. That part is learned: a multinomial logistic regression over word, word-pair and letter-triple features,
trained offline (``scripts/train_reader.py``) on public intent sets written by crowds (CLINC150's train part and
SLURP's devel part, both under Creative Commons licences; attribution in docs/reading.md) and shipped as data
(``reader.json``: labels, a bias each and, for each feature, its weights as signed bytes). Scoring is pure Python:
the features of one request, a few hundred additions, a softmax.

A label is an intent of those sets; what the assistant does with it is its *target* (``calculator``,
``reminders.list``, ``abilities.name``, ``out_of_reach.music``, ``small_talk.goodbye`` …, or ``other`` for every
intent no tool serves). :func:`scores` sums the labels' probabilities by target. The reader speaks only about
English words it has seen: a request in Chinese or one with no known word gets no reading (``None``), and the rules
and the model decide as before. It is certain only when its best target is clearly ahead (:data:`CERTAIN`), which
the training script measures on held-out folds.

How its readings are used is the router's business (:mod:`assistant.pipeline.router`): an answer that needs no
value (what the assistant is, an action out of reach, the time now, the reminders set) is given on a certain
reading; a tool's rule that claims a request the reader is certain is about something else does not decide it."""

from __future__ import annotations

import base64
import json
import math
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from tools.base import CJK
from tools.lazy_re import lazy_compile

# A clear reading: the best target's probability, and its lead over the next one. Chosen on held-out folds of the
# training data for a precision of at least 99 % (scripts/train_reader.py prints the figures).
CERTAIN = 0.95
LEAD = 0.9
# All but sure: enough to overrule a rule that claims the request for a tool.
SURE = 0.99
# An answer on the reading alone needs the request to be mostly made of the words its target's requests are made
# of: at most this share of its words outside the target's frame. A linear reader is sure of itself on words unlike
# any it learned from ("Name a colour, number 3" read as a volume change at 0.999 for "number" and a digit); held
# out, the guard keeps 98 % of the right out-of-reach readings and all but one of the abilities ones.
FOREIGN = 0.5

_TOKEN = lazy_compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+(?:[.,:]\d+)*|[%+*/=^×÷?$€£-]")


def tokens(text: str) -> list[str]:
    """The request's words, lower-cased, every number as ``0`` (the reader hears a number, never its value)."""
    folded = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    return ["0" if t[0].isdigit() else t for t in _TOKEN.findall(folded)]


def without_end(text: str, marks: str) -> str:
    """``text`` without the ``marks`` and the spaces (in any script) that end it."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in marks):
        end -= 1
    return text[:end]


def spaced(text: str) -> str:
    """``text``'s words in lower case, anything else a space, and a space either side: " ty " in it is the word
    "ty", never the end of "pretty"."""
    return " " + " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split()) + " "


def features(text: str) -> list[str]:
    """Words (``w:``), word pairs with the edges (``b:``) and letter triples of longer words (``c:``, which carry a
    misspelt word part of the way)."""
    words = tokens(text)
    out = [f"w:{w}" for w in words]
    edged = ["<", *words, ">"]
    out += [f"b:{a} {b}" for a, b in zip(edged, edged[1:], strict=False)]
    for w in words:
        if len(w) > 3:
            padded = f"#{w}#"
            out += [f"c:{padded[i:i + 3]}" for i in range(len(padded) - 2)]
    return out


@dataclass(frozen=True)
class Reading:
    """What the reader makes of a request: each target's probability, best first, and the request's words."""
    ranked: tuple[tuple[str, float], ...]
    words: tuple[str, ...] = ()

    @property
    def target(self) -> str:
        return self.ranked[0][0]

    @property
    def p(self) -> float:
        return self.ranked[0][1]

    @property
    def lead(self) -> float:
        return self.ranked[0][1] - (self.ranked[1][1] if len(self.ranked) > 1 else 0.0)

    @property
    def certain(self) -> bool:
        return self.p >= CERTAIN and self.lead >= LEAD

    @property
    def family(self) -> str | None:
        """The family of targets (``clock`` of ``clock.time``, ``clock.date`` …) the reading is certain of when no
        one target of it is (a request for "the date and time", which two labels share); ``None``: none is."""
        sums: dict[str, float] = {}
        for target, p in self.ranked:
            family = target.split(".")[0]
            sums[family] = sums.get(family, 0.0) + p
        ranked = sorted(sums.items(), key=lambda kv: -kv[1])
        best, p = ranked[0]
        lead = p - (ranked[1][1] if len(ranked) > 1 else 0.0)
        return best if p >= CERTAIN and lead >= LEAD else None

    def is_(self, *targets: str) -> bool:
        """Certainly one of ``targets`` (a target, or a family such as ``out_of_reach``)."""
        return self.certain and any(self.target == t or self.target.startswith(t + ".") for t in targets)

    @property
    def framed(self) -> bool:
        """Every word of the request is one its best target's requests are made of (the frame learned with the
        weights; words of manner aside): nothing in it asks for anything else, however sure the reader is."""
        frame = model().frame(self.target)
        return bool(self.words) and all(w in frame or w in _PUNCT or w in MANNER for w in self.words)

    def leads(self, family: str, least: float = 0.5) -> bool:
        """The best target is of ``family`` with at least ``least`` of the probability, and the request is
        :attr:`framed`: a reading an answer that needs no value may rest on, where the reader is less than certain
        of the very target ("what should i refer to you as": the name, at 0.7)."""
        return self.target.startswith(family) and self.p >= least and self.framed

    @property
    def grounded(self) -> bool:
        """Most of the request's words (all but :data:`FOREIGN` of them) belong to its target's frame: a reading
        an answer can rest on, not a guess from a word or two that happen to weigh ("number", a digit)."""
        frame = model().frame(self.target)
        words = [w for w in self.words if w not in _PUNCT]
        return bool(words) and sum(w not in frame for w in words) <= FOREIGN * len(words)


class Model:
    """The shipped weights, decoded a feature at a time as they are met."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.labels: list[str] = data["labels"]
        self.targets: list[str] = [data["targets"][label] for label in self.labels]
        self.scale: float = data["scale"]
        self.bias: list[float] = data["bias"]
        self._rows: dict[str, str] = data["features"]
        self.frames: dict[str, frozenset[str]] = {t: frozenset(words.split()) for t, words in data.get("frames", {}).items()}
        self._decoded: dict[str, list[tuple[int, float]]] = {}

    def frame(self, target: str) -> frozenset[str]:
        """The words requests of ``target`` are made of; of a family (``clock``), those of all its targets."""
        found = self.frames.get(target)
        if found is None:
            found = frozenset().union(*(words for t, words in self.frames.items() if t.startswith(target + ".")))
            self.frames[target] = found
        return found

    def _row(self, feature: str) -> list[tuple[int, float]] | None:
        row = self._decoded.get(feature)
        if row is None:
            raw = self._rows.get(feature)
            if raw is None:
                return None
            data = base64.b64decode(raw)
            # pairs of (label index, signed weight), each a byte: the few labels a feature speaks for (kept scaled)
            row = [(data[i], (data[i + 1] - 256 if data[i + 1] > 127 else data[i + 1]) * self.scale)
                   for i in range(0, len(data), 2)]
            self._decoded[feature] = row
        return row

    def read(self, text: str) -> Reading | None:
        logits = list(self.bias)
        known = 0
        words = tokens(text)
        for feature in features(text):
            row = self._row(feature)
            if row is None:
                continue
            known += feature.startswith("w:") and feature[2:3].isalpha()
            for label, weight in row:
                logits[label] += weight
        if not words or known == 0:
            return None
        top = max(logits)
        exp = [math.exp(v - top) for v in logits]
        total = sum(exp)
        by_target: dict[str, float] = {}
        for target, e in zip(self.targets, exp, strict=True):
            by_target[target] = by_target.get(target, 0.0) + e / total
        ranked = tuple(sorted(by_target.items(), key=lambda kv: -kv[1]))
        return Reading(ranked, tuple(words))


def unexplained(text: str, target: str, read: str = "") -> list[str]:
    """The words of ``text`` that neither belong to the frame of ``target`` (the words its requests are made of,
    learned with the weights: values excepted) nor were read as a value (``read``: the words a rule took, a place):
    what a decision on the reading alone would leave unread. Empty: every word is accounted for."""
    frame = model().frame(target)
    taken = set(tokens(read))
    return [w for w in tokens(text) if w not in _PUNCT and w not in MANNER
            and not ({w, w.removesuffix("'s")} & (frame | taken))]


_PUNCT = frozenset("%+*/=^×÷?$€£-")
# Words of manner that change no request, whatever it asks ("i really need to set a timer", "lets set a timer").
MANNER = frozenset("really lets let's kindly quickly actually simply pls plz".split())


def leftover(text: str, target: str, read: str = "") -> tuple[list[str], int, int] | None:
    """The words of ``text`` and where the words left :func:`unexplained` lie in them (``words[start:end]``), when
    they are one run of at most four words together (a name: "what's the time in costa rica right now"); ``None``
    when nothing is left or the words left are spread about the request."""
    rest = unexplained(text, target, read)
    if not rest or len(rest) > 4:
        return None
    words = tokens(text)
    start = words.index(rest[0])
    return (words, start, start + len(rest)) if words[start:start + len(rest)] == rest else None


@cache
def model() -> Model:
    text = resources.files("tools.reading").joinpath("reader.json").read_text(encoding="utf-8")
    return Model(json.loads(text))


def knows(tool: str) -> bool:
    """Whether the reader learned requests of ``tool`` (a target ``tool`` or ``tool.*``). Of a tool it never learned,
    it reads the requests as "other": no reading of it can say a word was not meant for that tool."""
    return any(t == tool or t.startswith(tool + ".") for t in model().targets)


def read(text: str) -> Reading | None:
    """The reader's reading of ``text`` (a request, its wrapper set aside), or ``None`` when it has nothing to say
    (Chinese, no word it knows, no request). Never raises on any text."""
    if not text or len(text) > 2000 or CJK.search(text) or not _LETTERS.search(text):
        return None  # Chinese, or no word at all ("2+3"): nothing to say, and the weights are not loaded for it
    return model().read(text)


_LETTERS = lazy_compile(r"[^\W\d_]{2}")
