"""The streamed gate: an answer reaches a screen one checked piece at a time. The model's stream is held back
until a sentence (or a line, or a whole code block) is complete; the piece is checked, and only then released.
The first piece that fails stops the stream: nothing unchecked is ever shown, and nothing shown has to be taken
back. A chat-template marker ends the answer where it stands (the model started the next turn)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from assistant.pipeline.answer_check import (
    _CALL_TAGS, MAX_TOOL_ANSWER, echo_problem, garbled, markup, own_markup, piece_language, prose, refuted, runaway, wrong_scale,
)
from assistant.pipeline.figures import ToolFigures
from assistant.pipeline.claims import TEMPLATE_MARKER, Evidence, claim_problem
from assistant.pipeline.recognisers.reach import claims_action
from assistant.control import split_open_sequence, without_controls
from tools import Tool
from tools.lazy_re import lazy_compile

MAX_UNIT = 400  # characters held without a sentence end before they are checked as one piece


@dataclass
class Held:
    """Why the gate stopped: ``wrong`` when the piece itself may not be shown (an invented figure, markup, another
    language); otherwise the answer simply ended there (it repeats itself; a template marker)."""

    reason: str
    wrong: bool = True


Check = Callable[[str, str], "Held | None"]  # (the piece, what is shown so far) -> why not, or None
_JSON_START = lazy_compile(r"\{|\[\s*[{\"]")
_DECODER = json.JSONDecoder()
MAX_JSON = 4000
_FENCE = lazy_compile(r"^\s*```", re.MULTILINE)
_END = lazy_compile(r"\n|[!?。！？;；](?![\d])|\.(?=\s)|(?<=[\"”」』)])(?=\s)")
_LIST_NUMBER = lazy_compile(r"(?:^|\n)\s*\d{1,3}$")
# A Markdown table's rule under its header (| --- | :---: |): structure, not text repeating itself.
TABLE_RULE = lazy_compile(r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?$", re.MULTILINE)


class SentenceGate:
    """``check`` judges each complete piece; ``early`` (cheap) judges the text still held back as it grows, so a
    stream that turns into JSON or markup stops at once rather than at its next sentence end."""

    def __init__(self, check: Check, early: Callable[[str], Held | None] | None = None) -> None:
        self.check = check
        self.early = early
        self.pending = ""
        self.gap = ""  # whitespace after the last piece shown, held until another piece follows it
        self._open = ""  # an ESC sequence the stream has not finished yet
        self.shown = ""
        self.held: Held | None = None
        self._units: set[str] = set()

    @property
    def stopped(self) -> bool:
        return self.held is not None

    def feed(self, piece: str) -> str:
        """Take a piece of the stream; return the text it releases (checked), possibly empty."""
        if self.held is not None:
            return ""
        # control sequences out before anything else reads the text (one cut in two waits for its end)
        ready, self._open = split_open_sequence(self._open + piece)
        self.pending += without_controls(ready)
        marker = TEMPLATE_MARKER.search(self.pending)
        if marker:
            self.pending = self.pending[:marker.start()]
            released = self._release(final=True)
            if self.held is None:
                self.held = Held("it started writing a chat-template marker; the answer ends there", wrong=False)
            return released
        released = self._release(final=False)
        if self.held is None and self.early is not None and self.pending:
            self.held = self.early(self.pending)
            if self.held is not None:
                self.pending = ""
        return released

    def finish(self) -> str:
        """The stream ended: check and release what is left."""
        if self.held is not None:
            return ""
        self.pending += without_controls(self._open)
        self._open = ""
        return self._release(final=True)

    def _release(self, final: bool) -> str:
        out = []
        while self.held is None:
            rest = self.pending.lstrip()
            self.gap += self.pending[:len(self.pending) - len(rest)]  # whitespace between pieces: shown with the next
            self.pending = rest
            unit = self._next_unit(final)
            if unit is None:
                break
            body = unit.rstrip()
            problem = self._own_checks(body) or self.check(body, self.shown)
            if problem is not None:
                self.held = problem
                self.pending = ""
                break
            released = (self.gap if self.shown else "") + body
            self.gap = unit[len(body):]
            self.shown += released
            out.append(released)
        return "".join(out)

    def _own_checks(self, unit: str) -> Held | None:
        s = unit.strip()
        if TABLE_RULE.fullmatch(s):
            return None  # a table's rule may come again (two tables), and its dashes are no loop
        if len(s) >= 4 and s in self._units:
            return Held(f"it repeats the sentence {s[:40]!r}", wrong=False)
        loop = runaway(TABLE_RULE.sub("", self.shown + unit))
        if loop:
            return Held(loop, wrong=False)
        if s:
            self._units.add(s)
        return None

    def _next_unit(self, final: bool) -> str | None:
        text = self.pending
        if not text:
            return None
        # (``_release`` took the leading whitespace off: a piece starts at 0)
        if _JSON_START.match(text):
            # a bare JSON value: held whole, so that the check sees it as one (a tool call written as text)
            try:
                _, end = _DECODER.raw_decode(text)
                return self._take(end)
            except ValueError:
                if not final and len(text) < MAX_JSON:
                    return None
        fences = list(_FENCE.finditer(text))
        if fences and fences[0].start() == 0:
            # a code block: held whole, from its opening line to its closing one
            if len(fences) >= 2:
                close_end = text.find("\n", fences[1].end())
                end = len(text) if close_end < 0 else close_end + 1
                if close_end < 0 and not final:
                    return None
                return self._take(end)
            return self._take(len(text)) if final else None
        if fences:  # text before a block that starts on a later line
            head_end = fences[0].start()
            m = self._boundary(text[:head_end])
            return self._take(m if m else head_end)
        m = self._boundary(text)
        if m:
            return self._take(m)
        if final or len(text) > MAX_UNIT:
            cut = len(text) if final else (text.rfind(" ", 0, MAX_UNIT) + 1 or MAX_UNIT)
            return self._take(cut)
        return None

    @staticmethod
    def _boundary(text: str) -> int | None:
        for m in _END.finditer(text):
            if m.group(0) == "." and _LIST_NUMBER.search(text[:m.start()]):
                continue  # "1. " opens a list item; it ends no sentence
            end = m.end()
            while end < len(text) and text[end] in " \t":
                end += 1
            if m.group(0) != "\n" and end == len(text) and text[m.start()] in ".":
                return None  # "3." may go on as "3.14": wait for what follows
            return end
        return None

    def _take(self, end: int) -> str:
        unit, self.pending = self.pending[:end], self.pending[end:]
        return unit


# The checks the gate applies to each piece: one for answers from tool results, one for conversation.

def tool_early(pending: str) -> Held | None:
    """Text from tool results that has turned into JSON or markup, before its sentence ends."""
    why = markup(pending)
    return Held(why) if why else None


def chat_early(pending: str) -> Held | None:
    """A conversation's answer that has started a tool-call tag, before its sentence ends."""
    return Held("it contains tool-call markup instead of an answer") if _CALL_TAGS.search(prose(pending)) else None


def tool_piece_check(question: str, evidence: str, prompts: list[str], tools: Sequence[Tool] = (),
                     contradiction: Callable[[str], str | None] | None = None) -> Callable[[str, str], Held | None]:
    """The streamed gate's check of one piece of an answer from tool results: no JSON or markup, none of our
    instructions, no figure the results lack nor one given another meaning (a date's parts, a share as a
    temperature), nothing the results contradict (``contradiction``: the tools' own reading, the conditions of a
    report), no false conversion, the question's language."""
    figures = ToolFigures(evidence)
    from assistant.pipeline.known_figures import contradicted  # its table and patterns: when an answer is checked

    def check(piece: str, shown: str) -> Held | None:
        if len(shown) + len(piece) > MAX_TOOL_ANSWER:
            return Held(f"it is far too long (over {MAX_TOOL_ANSWER} characters); two or three sentences are enough",
                        wrong=False)
        why = (markup(piece) or echo_problem(piece, prompts) or garbled(question, piece)
               or figures.problem(piece) or wrong_scale(piece, evidence)
               or (contradiction(piece) if contradiction else None)
               or refuted(piece, tools) or contradicted(piece) or piece_language(question, piece))
        return Held(why) if why else None
    return check


def chat_piece_check(question: str, evidence: str, prompts: list[str], tools: Sequence[Tool],
                     language: bool = True, figures: bool = True) -> Callable[[str, str], Held | None]:
    """The streamed gate's check of one piece of a conversation's answer: not our markup or instructions, no claim
    the question and the conversation do not support (figures, phone numbers, URLs), no false arithmetic or
    conversion, the question's language (``language``: unless the question is about languages). Code is an answer.
    ``figures=False``: a trusted model's figures are not asked for support (false ones are still refuted)."""
    held_to = Evidence(evidence, tools)
    tool_names = {tool.name for tool in tools}
    from assistant.pipeline.known_figures import contradicted  # its table and patterns: when an answer is checked

    def check(piece: str, shown: str) -> Held | None:
        why = (own_markup(piece, question, tool_names) or echo_problem(piece, prompts) or garbled(question, piece)
               or claims_action(piece)  # a conversation ran no tool: nothing was sent, opened or set
               or refuted(piece, tools) or contradicted(piece) or claim_problem(piece, held_to, shown + piece, figures)
               or (piece_language(question, piece) if language else None))
        return Held(why) if why else None
    return check
