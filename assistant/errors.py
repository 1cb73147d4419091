"""Errors a user can hit. Each carries a one-line message, a hint saying what to do, and an exit code."""

from __future__ import annotations


class AssistantError(Exception):
    exit_code = 1
    permanent = False  # the same request would fail the same way: asking again does not help (a batch records it)
    retryable = False  # a transport failure: another server (or the same one later) may answer
    busy = False  # the server said it is overloaded (503, 429): it takes fewer calls at once
    refusal: str | None = None  # a feature the server refused (tools, images): asked again without it

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        gap = "" if self.message.endswith(("。", "!", "?", ")")) and not self.message.isascii() else " "
        return f"{self.message}{gap}{self.hint}".strip()


class ConfigError(AssistantError):
    exit_code = 2


class StoreError(AssistantError):
    """The database cannot be used: the disk is full, its folder is read-only, or the file is damaged."""

    exit_code = 7


LOW_SPACE = 16 << 20  # bytes: below this much free space, a store that cannot write is on a full disk


def _free_bytes(path: object) -> int | None:
    import os
    from pathlib import Path

    try:
        st = os.statvfs(Path(str(path)).parent)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def file_intact(path: object) -> bool | None:
    """SQLite's own quick check of the file, opened read-only and immutable (no journal written, so it works on a full
    disk and a read-only one): ``True`` intact, ``False`` damaged, ``None`` when it cannot be told."""
    import sqlite3
    from pathlib import Path
    from urllib.parse import quote

    if not Path(str(path)).is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True, timeout=5)
        try:
            return db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        return False if "malformed" in str(e) or "not a database" in str(e) else None
    except sqlite3.Error:
        return None


def store_error(path: object, error: BaseException) -> StoreError:
    """One line naming the file, the cause and the fix, for an SQLite or OS error on the store. A full disk is told
    apart from damage (SQLite in WAL mode calls both a "disk I/O error"): the free space and the file's own check
    decide, and an intact file is never called damaged."""
    text = str(error).lower()
    free = _free_bytes(path)
    if "full" in text or getattr(error, "errno", None) == 28 or "disk i/o" in text and free is not None \
            and free < LOW_SPACE:
        return StoreError(f"the disk holding {path} is full" + (f" ({free / 2**20:.1f} MB free)." if free is not None
                                                                 else "."),
                          "Free some space and ask again: your history is kept (assistant logs prune --older-than "
                          "30d deletes old turns once there is room).")
    if "readonly" in text or "read-only" in text or "permission" in text or "unable to open" in text:
        return StoreError(f"{path} cannot be written (its folder or file is read-only, or not yours).",
                          "Make it writable, or set ASSISTANT_HOME to a folder you can write.")
    if "not a database" in text or "malformed" in text or "corrupt" in text or "disk i/o" in text:
        intact = file_intact(path)
        if intact:
            return StoreError(f"{path} could not be read or written ({error}), but the file is intact.",
                              "Nothing is lost: check the disk (dmesg) and what else holds the file, then ask again.")
        if intact is None:
            return StoreError(f"{path} could not be used ({error}); whether the file is damaged could not be told.",
                              "Run assistant doctor, which checks it; keep the file as it is until then.")
        return StoreError(f"{path} is damaged ({error}).",
                          f"Move it aside (mv {path} {path}.damaged) and a new one is made; `sqlite3 {path}.damaged "
                          ".recover` may save what is in it.")
    return StoreError(f"{path} could not be used: {error}.", "Run assistant doctor.")


class QuestionTooLong(AssistantError):
    """Longer than the model's context leaves room for: the same check in-process, through the daemon and in a batch."""

    exit_code = 2
    permanent = True


class BadInput(AssistantError):
    """Input that is not text (undecodable bytes)."""

    exit_code = 2
    permanent = True


class ServerUnreachable(AssistantError):
    """The model server (Ollama, or an OpenAI-compatible one) does not answer."""

    exit_code = 3


OllamaUnreachable = ServerUnreachable


class ModelMissing(AssistantError):
    exit_code = 4


class NoVision(ConfigError):
    """An image was attached for a model that cannot see: said before anything is sent, with the way to one that can."""

    VISION_MODEL = "qwen2.5vl:3b"
    permanent = True

    def __init__(self, model: str, backend: str = "") -> None:
        if "embedded" in backend:
            super().__init__(f"{model} cannot see images: the embedded engine reads text only.",
                             "Ask it with Ollama and a vision model (ollama pull qwen2.5vl:3b, gemma3 or llava; then "
                             f"-m {self.VISION_MODEL}), or an OpenAI-compatible server that takes images (llama-server "
                             "with --mmproj).")
        else:
            where = "Ollama lists no 'vision' capability for it" if "ollama" in backend else "its server refused the image"
            super().__init__(f"{model} cannot see images ({where}).",
                             f"Ask with a vision model: -m {self.VISION_MODEL} (or gemma3, llava); "
                             f"`assistant models pull {self.VISION_MODEL}` fetches it, and `assistant models` shows "
                             "which of yours have vision.")


class ModelTimeout(AssistantError):
    exit_code = 5


class ModelError(AssistantError):
    """The server answered with an error we cannot retry our way out of."""

    exit_code = 6


class InternalError(AssistantError):
    """A bug: the message names it in one line; ``--debug`` (or the daemon's log) has the traceback."""

    exit_code = 1


def from_failure(event: dict) -> AssistantError:
    """The error a ``turn_failed`` event (streamed by the daemon) stands for, with its exit code."""
    error = AssistantError(str(event.get("message", "the turn failed")), str(event.get("hint", "")))
    error.exit_code = int(event.get("exit_code", 1))
    return error


EXIT_CODES_HELP = """exit codes:
  0  answered
  1  no answer: none correct after the allowed retries, or declined on purpose (out of reach, a question
     back, too small for the model); the line printed says which
  2  bad usage or configuration
  3  the model server (Ollama, or the OpenAI-compatible one) is not reachable
  4  a configured model is not installed on the server
  5  the model did not answer within the request timeout
  6  the model server returned an error
  7  the database cannot be used (disk full, read-only, damaged: the message says which)
  130 interrupted"""
