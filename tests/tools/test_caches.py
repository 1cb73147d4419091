"""Caches are disposable: a place index, a weather cache or an unpacked language model with garbage written over it
is set aside (``NAME.broken``) and rebuilt, said once, and the question is answered; the history store is never
blamed for a cache's fault. A cache that cannot be rebuilt names its own file."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env

from tools.cache_file import CacheUnusable, damaged
from tools.gazetteer import Gazetteer
from tools.weather.service import _Cache


@pytest.fixture
def index(gazetteer_index: str, tmp_path: Path) -> Path:
    copy = tmp_path / "places.sqlite"
    shutil.copy(gazetteer_index, copy)
    return copy


@pytest.mark.parametrize("garbage", [b"garbage\n", b"SQLite format 3\x00" + b"\xff" * 4096, b""],
                         ids=["text", "bad-pages", "empty"])
def test_a_place_index_with_garbage_in_it_is_set_aside_and_built_again(index, garbage):
    index.write_bytes(garbage)
    places = Gazetteer(index)
    assert places.resolve("Paris").country == "FR"  # built again, then read
    assert index.with_name("places.sqlite.broken").read_bytes() == garbage


def test_a_place_index_of_another_version_is_built_again(index):
    db = sqlite3.connect(index)
    db.execute("UPDATE meta SET version = -1")
    db.commit()
    db.close()
    assert Gazetteer(index).resolve("北京").country == "CN"
    assert index.with_name("places.sqlite.broken").exists()


def test_a_place_index_that_cannot_be_built_names_its_file(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the index's folder should be")
    with pytest.raises(CacheUnusable, match="not-a-folder/places.sqlite"):
        Gazetteer(blocker / "places.sqlite").resolve("Paris")


def test_a_weather_cache_with_garbage_in_it_is_made_anew(tmp_path):
    folder = tmp_path / "weather"
    folder.mkdir()
    (folder / "weather.sqlite").write_bytes(b"not a database at all" * 100)
    cache = _Cache(folder)
    assert cache.get("k") is None
    cache.put("k", {"temperature": 3})
    assert cache.get("k")[0] == {"temperature": 3}
    assert (folder / "weather.sqlite.broken").exists()


def test_a_weather_cache_that_cannot_be_written_is_done_without(tmp_path):
    blocker = tmp_path / "weather"
    blocker.write_text("a file where the folder should be")
    cache = _Cache(blocker)
    cache.put("k", 1)
    assert cache.get("k") is None  # no cache, no error: every report is fetched


def test_only_damage_sets_a_cache_aside():
    assert damaged(sqlite3.DatabaseError("file is not a database"))
    assert damaged(sqlite3.DatabaseError("database disk image is malformed"))
    assert not damaged(sqlite3.OperationalError("database is locked"))
    assert not damaged(sqlite3.OperationalError("attempt to write a readonly database"))
    assert not damaged(OSError("disk full"))
    assert damaged(sqlite3.OperationalError("no such table: meta"))  # an empty file is an empty database


@pytest.mark.slow  # whole processes
def test_weather_questions_survive_a_garbage_cache_and_the_store_is_not_blamed(home, fake, meteo, index):
    env = cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL=meteo.url, ASSISTANT_WEATHER_GEOCODING_URL=meteo.url,
                  ASSISTANT_GAZETTEER_INDEX=str(index), ASSISTANT_RENDERED_ANSWERS="true")

    def ask(question: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "assistant", "ask", "--no-daemon", question], env=env,
                              capture_output=True, text=True, timeout=120)

    first = ask("weather in Paris")
    assert first.returncode == 0 and "°C" in first.stdout, first.stderr
    weather = next((home / "cache" / "weather").glob("weather.sqlite"))
    for path in (index, weather):
        for extra in path.parent.glob(path.name + "-*"):
            extra.unlink()
        path.write_bytes(b"garbage " * 512)
    again = ask("what's the weather in Paris?")
    assert again.returncode == 0 and again.stdout == first.stdout, again.stderr
    assert "assistant.db" not in again.stderr
    assert index.with_name(index.name + ".broken").exists() and weather.with_name("weather.sqlite.broken").exists()
    third = ask("weather in Paris")
    assert third.returncode == 0 and "set aside" not in third.stderr  # said once: rebuilt for good
