"""Errors a user can hit. Each carries a one-line message, a hint saying what to do, and an exit code."""

from __future__ import annotations


class AssistantError(Exception):
    exit_code = 1
    permanent = False  # the same request would fail the same way: asking again does not help (a batch records it)
    retryable = False  # a transport failure: another server (or the same one later) may answer

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        gap = "" if self.message.endswith(("。", "!", "?", ")")) and not self.message.isascii() else " "
        return f"{self.message}{gap}{self.hint}".strip()


class ConfigError(AssistantError):
    exit_code = 2


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
  1  no correct answer after the allowed retries (the reason is printed)
  2  bad usage or configuration
  3  the model server (Ollama, or the OpenAI-compatible one) is not reachable
  4  a configured model is not installed on the server
  5  the model did not answer within the request timeout
  6  the model server returned an error
  130 interrupted"""
