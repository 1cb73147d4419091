"""A tool that raises is a failure said in words, in the user's language: never an exception's name and text
(`OverflowError: date value out of range`, `OperationalError: database is locked`) in an answer, a `--json` error or
a batch record; the turn goes on and says what happened."""

from __future__ import annotations

import sqlite3

import pytest
from pydantic import BaseModel

from tools import Tool, ToolResult
from tools.registry import run_direct


class Args(BaseModel):
    n: int = 1


def raising(error: BaseException) -> Tool:
    class Raises(Tool):
        name = "raises"
        description = "raises"

        async def run(self, args: Args) -> ToolResult:  # type: ignore[override]
            raise error

    Raises.Args = Args
    return Raises()


@pytest.mark.parametrize("error, said, zh", [
    (OverflowError("date value out of range"), "too large to work with", "太大"),
    (ValueError("year 10000 is out of range"), "too large to work with", "太大"),
    (OverflowError("int too large to convert to float"), "too large to work with", "太大"),
    (sqlite3.OperationalError("database is locked"), "the store is busy", "稍后"),
    (sqlite3.OperationalError("database or disk is full"), "the disk is full", "磁盘已满"),
    (sqlite3.DatabaseError("file is not a database"), "could not be read or written", "稍后"),
    (RuntimeError("internal state 0x7f3a: invariant broken"), "failed unexpectedly", None),
])
async def test_a_tool_that_raises_is_a_failure_in_words(error, said, zh):
    result = await run_direct(raising(error), Args(), timeout=5)
    assert not result.ok and said in (result.error or "")
    assert str(error) not in (result.error or "") and "Error:" not in (result.error or "")
    if zh:
        assert result.message is not None and said.split()[0] in result.message.en and zh in result.message.zh
