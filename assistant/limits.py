"""The limits on what a user sends, the same in-process, through the daemon and in a batch."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from assistant.errors import BadInput, QuestionTooLong

if TYPE_CHECKING:  # the thin client decodes stdin through this module: it must not import the settings' stack
    from assistant.config import Settings

_CJK = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def estimated_tokens(text: str) -> int:
    """A generous estimate of ``text``'s tokens: one per CJK character, one per three other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 3)


def check_question(question: str, settings: "Settings") -> None:
    """Raise :class:`QuestionTooLong`, in the question's language, when it would not fit the model's context
    (a model silently drops what does not fit, and answers something else)."""
    room, tokens = settings.question_room(), estimated_tokens(question)
    if tokens <= room:
        return
    from tools import language_of  # here, not at the top: the thin client imports this module for decode_text

    if language_of(question) == "zh":
        raise QuestionTooLong(f"问题太长:约 {tokens} 个词元,而模型的上下文(num_ctx {settings.num_ctx})只留给问题 {room} 个。",
                              "请缩短问题,或调大 num_ctx(或 max_question_tokens)。")
    raise QuestionTooLong(f"The question is too long: about {tokens} tokens, and the model's context "
                          f"(num_ctx {settings.num_ctx}) leaves room for {room}.",
                          "Shorten it, or raise num_ctx (or max_question_tokens).")


def decode_text(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text, or :class:`BadInput` naming the first byte that is not (a BOM is dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(f"{what} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}).",
                       "Convert it first, e.g. with iconv -f GBK -t UTF-8.") from None


def no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A ``json.loads`` hook: a key written twice is an error, not the last one winning (daemon bodies, batch lines)."""
    seen: dict[str, object] = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"the key '{k}' appears twice")
        seen[k] = v
    return seen
