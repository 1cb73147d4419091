"""Transport retries, the same for every backend that talks to a server: connection refused, HTTP 429/5xx and a
stream that broke before any text was shown are retried with bounded, doubling backoff (a server's
``Retry-After`` is honoured up to the cap); they never cost the pipeline a validation attempt. Each backend
says what an exception means (``classify``); everything it does not know is raised as it is."""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, TypeVar

from assistant.errors import AssistantError

T = TypeVar("T")
MAX_BACKOFF = 8.0

# What an exception means: the error to show (None: not ours, raise it as it is), whether asking again may help,
# and how long the server asked us to wait (None: our own backoff).
Classified = tuple[AssistantError | None, bool, float | None]


def stream_cut(e: BaseException, shown: bool, timeout: float, timed_out: Callable[[], Exception]) -> str:
    """Why a stream ended before the server finished it: stopped by us (:class:`StopGeneration`: the text is cut
    there), or past ``timeout`` (an error when nothing was shown yet, else a cut answer that says so)."""
    if isinstance(e, TimeoutError):
        if not shown:
            raise timed_out() from None
        return f"the stream did not end within request_timeout ({timeout:g} s)"
    return str(e) or "stopped"


async def retrying(call: Callable[[], Awaitable[T]], classify: Callable[[Exception], Classified], retries: int,
                   backoff: float, can_retry: Callable[[], bool] = lambda: True) -> tuple[T, int]:
    """``call()`` until it succeeds or fails for good; returns its result and how many retries it took. The
    error raised carries ``retryable``: whether another server might have answered (a pool of hosts fails over
    on it)."""
    attempt = 0
    while True:
        try:
            return await call(), attempt
        except Exception as e:
            error, retryable, wait = classify(e)
            if error is None:
                raise
            error.retryable = retryable and can_retry()
            if not retryable or attempt >= retries or not can_retry():
                raise error from e
        delay = min(MAX_BACKOFF, backoff * 2**attempt)
        await asyncio.sleep(min(MAX_BACKOFF, max(delay, wait or 0)))
        attempt += 1
