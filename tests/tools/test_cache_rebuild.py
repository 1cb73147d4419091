"""A damaged or missing cache in a busy daemon is built once, by one process, while the others wait for it (a
bounded time); a build cut short leaves nothing behind, and a full disk during it is the disk-full line. The
processes here are real (a build's lock is the kernel's, between processes), on the real shipped index."""

from __future__ import annotations

import errno
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest

from tools import gazetteer
from tools.cache_file import CacheUnusable, one_builder

pytestmark = pytest.mark.slow


def _build(path: str, results) -> None:  # in a process of its own
    try:
        results.put(("built" if gazetteer.build_index(Path(path)) else "waited", ""))
    except Exception as e:  # noqa: BLE001 - what the test reports
        results.put(("error", f"{type(e).__name__}: {e}"))


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".partial" in p.name or ".tmp" in p.name)


def test_four_processes_asking_at_once_build_the_index_once_and_leave_nothing(tmp_path):
    path = tmp_path / "places.sqlite"
    (tmp_path / "places.sqlite.partial424242").write_bytes(b"half a build a killed process left")
    (tmp_path / "places.tmp99.1").write_bytes(b"what an earlier release left")
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=_build, args=(str(path), results)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    said = sorted(results.get(timeout=5) for _ in procs)
    assert [s for s, _ in said] == ["built", "waited", "waited", "waited"], said
    assert _leftovers(tmp_path) == []
    assert gazetteer.Gazetteer(path).resolve("Paris").country == "FR"


def test_a_build_that_fails_midway_leaves_no_partial_file_and_a_full_disk_is_said_as_one(tmp_path, monkeypatch):
    path = tmp_path / "places.sqlite"

    def full(into: Path) -> None:  # what writing raises when the disk fills under the unpacking
        into.write_bytes(b"\0" * 100000)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gazetteer, "_unpack", full)
    with pytest.raises(OSError):
        gazetteer.build_index(path)
    assert _leftovers(tmp_path) == [] and not path.exists()
    with pytest.raises(CacheUnusable) as e:
        gazetteer.Gazetteer(path).resolve("Paris")
    assert e.value.full and "the disk is full" in str(e.value)


def test_a_second_builder_waits_a_bounded_time_then_is_told(tmp_path):
    path = tmp_path / "weather.sqlite"
    with one_builder(path):
        ctx = multiprocessing.get_context("spawn")
        results = ctx.Queue()
        p = ctx.Process(target=_hold, args=(str(path), results))
        p.start()
        p.join(30)
        assert results.get(timeout=5).startswith("CacheUnusable: the cache")


def _hold(path: str, results) -> None:
    try:
        with one_builder(Path(path), wait=0.5):
            results.put("got the lock")
    except CacheUnusable as e:
        results.put(f"CacheUnusable: {e}")


def test_a_damaged_index_is_set_aside_once_and_a_new_one_another_process_made_is_left_be(tmp_path):
    path = tmp_path / "places.sqlite"
    gazetteer.build_index(path)
    stale_view = os.stat(path)
    path.write_bytes(b"\x00garbage" * 4096)  # damaged while in use
    damaged_view = os.stat(path)
    first = gazetteer.Gazetteer(path)
    assert first.resolve("Oslo").country == "NO"  # set aside, built again, answered
    assert (tmp_path / "places.sqlite.broken").exists()
    rebuilt = os.stat(path)
    from tools.cache_file import set_aside

    set_aside(path, sqlite3.DatabaseError("file is not a database"), damaged_view)  # a slower process, late
    assert os.stat(path).st_ino == rebuilt.st_ino  # the new index is left where it is
    assert stale_view.st_ino != rebuilt.st_ino or stale_view.st_mtime_ns != rebuilt.st_mtime_ns
