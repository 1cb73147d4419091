"""What the reminders tool is asked: one shape for a rule's reading of the words (tools/reminders/reading.py), a
model's call and a follow-up alike. A rule's reading also carries the due time it read (:meth:`RemindersArgs.read_at`),
so the run does not read the words again; a model's call carries none, and the run reads its ``when``."""

from __future__ import annotations

import functools
from typing import Any, Callable, Literal, TypeVar

from pydantic import BaseModel, Field, PrivateAttr, ValidationError


class RemindersArgs(BaseModel):
    action: Literal["set", "list", "cancel", "change"] = Field(..., description="set one, list them, cancel some, or "
                                                                                "change one's time")
    when: str = Field("", max_length=80, description="for set and change: the time as the user wrote it ('in 10 "
                                                      "minutes', 'tomorrow at 9', '明天早上8点', '半小时后'); for cancel: "
                                                      "the day of those cancelled, when the user names one "
                                                      "('tomorrow', 'monday', '周日'), else ''")
    text: str = Field("", max_length=2000, description="for set: what to remind of, as the user wrote it ('' for none)")
    kind: Literal["reminder", "timer"] = Field("reminder", description="a timer counts down a span ('a 10 minute "
                                                                        "timer'); a reminder names a time or a delay")
    target: str = Field("", max_length=80, description="for cancel and change: which one (words of its text, its "
                                                        "number, 'all' to cancel; '' when there is one)")
    repeat: Literal["", "daily", "weekdays", "weekly", "interval"] = Field(
        "", description="for set: how it comes back ('every day', 'every weekday', 'every Monday'; 'interval': again "
                        "each time the span in when has passed, 'every 2 hours' being when 'in 2 hours'; '' for once)")
    _due: Any = PrivateAttr(default=None)  # tools.reminders.reading.Due, as the rule read it from ``when``

    def read_at(self, due: Any) -> RemindersArgs:
        """These arguments with the due time the rule read from ``when`` (a ``Due``), for the run to use as it is."""
        self._due = due
        return self

    @property
    def due_read(self) -> Any:
        """The due time a rule read (a ``Due``), or ``None``: the run reads ``when`` itself."""
        return self._due


_Read = TypeVar("_Read", bound=Callable[..., Any])


def unread_when_unfit(method: _Read) -> _Read:
    """A rule's reading whose words do not fit the arguments (a ``when`` longer than any time is said, in "remind me
    to at 5 at 5 at 5 …") is no reading: the rules leave the request to the model, as one they do not read, and
    never raise."""
    @functools.wraps(method)
    def read(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except ValidationError:
            return None
    return read  # type: ignore[return-value]
