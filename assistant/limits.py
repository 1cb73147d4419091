"""The limits on what a user sends, the same in-process, through the daemon and in a batch."""

from __future__ import annotations

import errno
import math
import os
import stat
from typing import Protocol

from assistant.errors import BadInput, QuestionTooLong
from tools.lazy_re import lazy_compile


class Room(Protocol):
    """What the limits read of the settings (:class:`assistant.config.Settings` has it): the thin client decodes
    stdin through this module, so it does not import the settings' stack."""

    num_ctx: int

    def question_room(self) -> int: ...


_CJK = lazy_compile(r"[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def estimated_tokens(text: str) -> int:
    """A generous estimate of ``text``'s tokens: one per CJK character, one per three other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 3)


def check_question(question: str, settings: Room, counted: int | None = None) -> None:
    """Raise :class:`QuestionTooLong`, in the language of the request, when it would not fit the model's context
    (a model silently drops what does not fit, and answers something else). ``counted``: the question's tokens by
    the model's own tokenizer, where its backend offers one; else they are estimated."""
    room = settings.question_room()
    tokens = counted if counted is not None else estimated_tokens(question)
    if tokens <= room:
        return
    from tools import language_of  # here, not at the top: the thin client imports this module for decode_text

    about = "" if counted is not None else "约 "
    if language_of(request_of(question)) == "zh":
        raise QuestionTooLong(f"问题太长:{about}{tokens} 个词元,而模型的上下文(num_ctx {settings.num_ctx})只留给问题 {room} 个。",
                              "请缩短问题,或调大 num_ctx(或 max_question_tokens)。")
    raise QuestionTooLong(f"The question is too long: {'about ' if counted is None else ''}{tokens} tokens, and the "
                          f"model's context (num_ctx {settings.num_ctx}) leaves room for {room}.",
                          "Shorten it, or raise num_ctx (or max_question_tokens).")


def request_of(question: str) -> str:
    """The words that ask, in a question that carries a document: its first and last lines (``Summarise:`` piped
    before a file, or the words given after ``-f`` files), not the attachment between them."""
    lines = [line for line in question.strip().splitlines() if line.strip()]
    return question if len(lines) <= 2 else f"{lines[0]}\n{lines[-1]}"


def worth_counting(question: str, settings: Room) -> bool:
    """Whether the estimate is near enough the room that the model's own count could decide otherwise."""
    estimate, room = estimated_tokens(question), settings.question_room()
    return 0.6 * room < estimate < 1.6 * room


def decode_text(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text, or :class:`BadInput` naming the first byte that is not (a BOM is dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(f"{what} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}).",
                       "Convert it first, e.g. with iconv -f GBK -t UTF-8.") from None


MAX_IMAGE = 20 << 20  # bytes: an attached image larger than this is refused before it is read into a request
MAX_TEXT = 8 << 20  # bytes: a text attachment or piped question larger than this is refused (a million tokens or so)


class NotARegularFile(OSError):
    def __init__(self) -> None:
        super().__init__(errno.EINVAL, "not a regular file (a FIFO, a device or a folder)")


def read_capped(path: str | os.PathLike[str], cap: int) -> bytes:
    """At most ``cap + 1`` bytes of ``path`` (one more than ``cap`` says it is too large), which must be a regular
    file: a FIFO would wait for a writer, ``/dev/zero`` never end, so anything else is refused before a byte is read
    (:class:`NotARegularFile`, an ``OSError``)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        raise NotARegularFile()
    with os.fdopen(fd, "rb") as f:
        return f.read(cap + 1)


def image_kind(data: bytes) -> str | None:
    """The kind of image ``data`` is, by its first bytes (what vision models take: png, jpeg, gif, webp), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A ``json.loads`` hook: a key written twice is an error, not the last one winning (daemon bodies, batch lines)."""
    seen: dict[str, object] = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"the key '{k}' appears twice")
        seen[k] = v
    return seen
