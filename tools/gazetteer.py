"""An offline gazetteer: GeoNames cities (population ≥ 5000) with their alternate names in Latin script and
Chinese, in an SQLite index that ships gzipped (``tools/places.sqlite.gz``, made by ``scripts/make_places.py``) and is
unpacked into the cache on the first question about a place.

Names are matched verbatim (case-folded), so 上海, Shanghai and 巴黎 resolve without a model; an
ambiguous name goes to the most populous place, and a country qualifier (``Paris, France``,
``Springfield, US``, ``法国巴黎``) narrows the choice."""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import shutil
import sqlite3
import threading
import unicodedata
from importlib import resources
from pathlib import Path
from typing import AbstractSet, Any, Sequence

from pydantic import BaseModel

from tools.base import CJK
from tools.cache_file import CacheUnusable, damaged, one_builder, partial_file, remove_partials, set_aside
from tools.lazy_re import lazy_compile
from tools.reading.forms import Phrases
from tools.reading.spelling import misspelt

INDEX_VERSION = 5  # scripts/make_places.py writes it into the shipped index
ROUTING_MIN_POPULATION = 15000  # places a question is scanned for; small towns named like words stay out
MISSPELT_MIN_POPULATION = 150000  # cities a misspelt name is read as (people misspell the names they know)
# Words that join or point, and the words for a place in general, never read as a place's name on their own, whatever
# they also name ("and" is Andorra's three letters, "of" a town in Turkey, "can" Canada's, "area" another name of
# Mundelein, Illinois).
FUNCTION_WORDS = frozenset("""
and or of the a an is are in at on to for by from with as be do so no not can per its it me my us we you he she they
this that these those all any out up off into over than then there here what which who how when where why
area place city town region location spot home world country state
""".split())

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
                      "south korea": "KR", "russia": "RU", "china": "CN", "prc": "CN",
                      "federated states of micronesia": "FM", "micronesia": "FM", "netherlands": "NL"}
# Two-letter US states that are words people say: a qualifier only after a comma ("Portland, OR").
_WORDS_NOT_STATES = frozenset({"me", "in", "or", "hi", "ok", "oh", "de", "la"})


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


ALIAS_MIN_POPULATION = 300_000


def _by_that_name(said: str, place: Place) -> bool:
    """Whether ``place`` is known by the name ``said`` (a key): its own name; a spelling of it, begun with the same
    letter ("bruges": Brugge, "simla": Shimla); a name in Chinese; or, for a city of ``ALIAS_MIN_POPULATION`` and
    more, another name people use ("bombay": Mumbai, "cochin": Kochi). The alternate names the index keeps also hold a smaller place's old or
    local names ("grey eagle": Black Mountain, "pixley": East Independence, "ulen": Oullins, "wy": Wé), which
    would answer for a place the user did not name: not taken, the name is then looked up online or said unknown."""
    own = key(place.name)
    if said == own or place.population >= ALIAS_MIN_POPULATION or CJK.search(said):
        return True
    import difflib  # loaded only for a small place's other name

    a, b = _fold(said).replace(" ", ""), _fold(own).replace(" ", "")
    return a[:1] == b[:1] and difflib.SequenceMatcher(None, a, b).ratio() >= 0.75  # not Garrison for Harrison


def _place(row: tuple) -> Place:
    """A place from a row of (geonameid, name, country, latitude, longitude, population, timezone)."""
    return Place(geonameid=row[0], name=row[1], country=row[2], latitude=row[3], longitude=row[4], population=row[5],
                 timezone=row[6] or "")


# What people call a big city instead of its name, as (its name in the index, its country): the English
# abbreviations and nicknames a weather or a time question uses, and the Chinese cities' own (魔都, 羊城). Only
# names that mean one city: 雾都 (London or Chongqing), 山城 and 江城 (many) are left to the model.
NICKNAMES: dict[str, tuple[str, str]] = {
    "sf": ("San Francisco", "US"), "san fran": ("San Francisco", "US"), "la": ("Los Angeles", "US"),
    "dc": ("Washington", "US"), "nola": ("New Orleans", "US"), "big apple": ("New York City", "US"),
    "the big apple": ("New York City", "US"), "chi town": ("Chicago", "US"), "chitown": ("Chicago", "US"),
    "帝都": ("北京", "CN"), "魔都": ("上海", "CN"), "羊城": ("广州", "CN"), "花城": ("广州", "CN"),
    "鹏城": ("深圳", "CN"), "蓉城": ("成都", "CN"), "春城": ("昆明", "CN"), "泉城": ("济南", "CN"),
    "星城": ("长沙", "CN"), "冰城": ("哈尔滨", "CN"), "榕城": ("福州", "CN"), "鹭岛": ("厦门", "CN"),
    "金陵": ("南京", "CN"),
}


def key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold().strip()


def _fold(text: str) -> str:
    """``text`` case-folded and without accents, one character for one (São Tomé → sao tome), so that positions
    in it are positions in ``text``."""
    return "".join((unicodedata.normalize("NFKD", ch)[:1] or ch).casefold()[:1] or ch for ch in text)


@functools.cache
def zh_names() -> dict:
    """tools/zh_names.json: the Chinese names scripts/make_zh_names.py gathered (the index holds them too)."""
    return json.loads((resources.files("tools") / "zh_names.json").read_text(encoding="utf-8"))


SHIPPED = Path(__file__).with_name("places.sqlite.gz")


def build_index(path: Path) -> bool:
    """Unpack the shipped index into ``path`` (atomically: a half-written index is never seen, and none is left).
    ``False`` when another process made it meanwhile (it waited for that one instead)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with one_builder(path):  # one build at a time, whoever asks: a damaged index in a busy daemon is made once
        if path.exists():
            return False  # made by the process that held the lock before
        remove_partials(path)
        for stale in path.parent.glob(f"{path.stem}.tmp*"):  # what builds of earlier releases left behind
            stale.unlink(missing_ok=True)
        with partial_file(path) as tmp:
            _unpack(tmp)
            os.replace(tmp, path)
    return True


def _unpack(into: Path) -> None:
    with gzip.open(SHIPPED, "rb") as src, open(into, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)


class Gazetteer:
    """Read-only lookups on the index; builds it on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._joined: re.Pattern[str] | None = None
        self._big: dict[str, int] | None = None
        self._lock = threading.Lock()
        self._seen: os.stat_result | None = None  # the file opened, to tell it from a new one put in its place

    def _conn(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                self._db = self._open()
            return self._db

    def _open(self) -> sqlite3.Connection:
        """The index, built when missing; one that does not read as this version's index is set aside and built
        again (:mod:`tools.cache_file`)."""
        for attempt in range(2):
            try:
                if not self.path.exists():
                    build_index(self.path)
                seen = os.stat(self.path)
                db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            except (sqlite3.Error, OSError) as e:
                raise CacheUnusable(self.path, e) from None
            try:
                row = db.execute("SELECT version FROM meta").fetchone()
                if row is None or row[0] != INDEX_VERSION:
                    raise sqlite3.DatabaseError(f"version {row[0] if row else None}, not {INDEX_VERSION}")
                db.execute("SELECT COUNT(*) FROM countries").fetchone()
                self._seen = seen
                return db
            except sqlite3.Error as e:
                db.close()
                if attempt or not damaged(e):
                    raise CacheUnusable(self.path, e) from None
                set_aside(self.path, e, seen)  # unless another process put a new one in its place
        raise AssertionError("unreachable")

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """The rows of a query; damage found at a page the check did not reach sets the index aside and builds it
        again, once a process."""
        try:
            return self._conn().execute(sql, params).fetchall()
        except sqlite3.DatabaseError as e:
            if not damaged(e):
                raise CacheUnusable(self.path, e) from None
            with self._lock:
                if self._db is not None:
                    self._db.close()
                    self._db = None
                    set_aside(self.path, e, self._seen)
            try:
                return self._conn().execute(sql, params).fetchall()
            except sqlite3.Error as again:  # damaged again at once (another process writing garbage over it)
                raise CacheUnusable(self.path, again) from None

    def country(self, text: str) -> str | None:
        """The country ``text`` names ("france", "法国", "viet nam": its words joined too), by its ISO code."""
        k = key(text)
        parts = _fold(k).split()
        joined = "".join(parts) if len(parts) > 1 and all(len(p) >= 3 and p not in FUNCTION_WORDS for p in parts) \
            else k  # "viet nam"; never "to go" (Togo), "i ran" (Iran)
        rows = self._rows("SELECT iso FROM countries WHERE key IN (?, ?, ?)", (k, _fold(k), joined))
        return rows[0][0] if rows else None

    def qualifier(self, text: str) -> tuple[str, str | None] | None:
        """A country (``France``, ``US``, ``法国``) or a US state (``Texas``, ``TX``) as (country, admin1)."""
        found = self.qualifiers(text)
        return found[0] if found else None

    def qualifiers(self, text: str) -> list[tuple[str, str | None]]:
        """Every country or US state ``text`` names, the country first: "CO" is Colombia and Colorado."""
        iso = self.country(text)
        rows = self._rows("SELECT country, admin1 FROM regions WHERE key = ?", (key(text),))
        return ([(iso, None)] if iso else []) + [(r[0], r[1]) for r in rows[:1]]

    def candidates(self, name: str, country: str | None = None, min_population: int = 0,
                   admin1: str | None = None) -> list[Place]:
        k = key(name)
        if (known := NICKNAMES.get(k)) is not None and country in (None, known[1]):
            k, country = key(known[0]), known[1]  # "sf", "魔都": the city people mean by it
        sql = ("SELECT n.curated, p.geonameid, p.name, p.country, p.latitude, p.longitude, p.population, p.timezone "
               "FROM names n JOIN places p USING (geonameid) WHERE n.key = ? AND p.population >= ?")
        params: list[object] = [k, min_population]
        if country:
            sql += " AND p.country = ?"
            params.append(country)
        if admin1:
            sql += " AND p.admin1 = ?"
            params.append(admin1)
        sql += " ORDER BY n.curated DESC, p.population DESC"  # a name's curated place, then the biggest
        found = [(r[0], _place(r[1:])) for r in self._rows(sql, tuple(params))]
        places = [place for curated, place in found if curated or _by_that_name(k, place)]
        # A city that bears the name as its own (Porto, Dili, Islamabad) before a bigger one that once had it as
        # an alternate name (Bordeaux, Delhi, Chattogram).
        return sorted(places, key=lambda p: not (key(p.name) == k and p.population >= ROUTING_MIN_POPULATION))

    def region(self, name: str) -> Place | None:
        """A country or a US state named as a place: its capital (a state: its largest city), unless a city of
        some size has that very name ("New York", "Mexico City", "Washington" stay cities)."""
        k = key(name)
        code = len(name) == 2 and name.isupper() and name.isalpha()  # "WY", "CA": a US state written by its letters
        if (len(k) <= 2 and not CJK.search(k) and not code) or \
                any(key(p.name) == k for p in self.candidates(name, min_population=100_000)):
            return None
        iso = None if code else self.country(name)
        if iso:
            capital = self._rows("SELECT name FROM capitals WHERE iso = ?", (iso,))
            hits = self.candidates(capital[0][0], iso) if capital else []
            return hits[0] if hits else None
        found = self._rows("SELECT country, admin1 FROM regions WHERE key = ?", (k,))
        if not found:
            return None
        r = self._rows("SELECT geonameid, name, country, latitude, longitude, population, timezone FROM places "
                       "WHERE country = ? AND admin1 = ? ORDER BY population DESC LIMIT 1", tuple(found[0]))
        return _place(r[0]) if r else None

    def resolve(self, text: str) -> Place | None:
        """The place ``text`` names: ``Name``, ``Name, Country`` or ``国家城市``; the most populous on a tie."""
        text = unicodedata.normalize("NFKC", text).strip()
        name, country, admin1 = text, None, None
        found: list[Place] | None = None
        if "," in text:
            head, _, tail = text.rpartition(",")
            for qualifier in self.qualifiers(tail.strip()):  # "Glenwood Springs, CO": Colorado, not Colombia
                name, (country, admin1) = head.strip(), qualifier
                found = self.candidates(name, country, admin1=admin1)
                if found:
                    break
        else:
            for zh, iso in ZH_COUNTRIES.items():
                if text.startswith(zh) and len(text) > len(zh):
                    found = self.candidates(text[len(zh):], iso)
                    if found:
                        return found[0]
        if country is None and (region := self.region(name)) is not None:
            return region
        if country is None or found is None:  # a qualified name was looked up with its qualifier above
            found = self.candidates(name, country, admin1=admin1)
        if not found and name.endswith(("市", "县")) and len(name) > 2:
            found = self.candidates(name[:-1], country)
        if not found and country is None:
            return self.qualified(name)
        return found[0] if found else None

    def qualified(self, text: str) -> Place | None:
        """The place ``text`` names as a name then its country or US state with no comma between ("tokyo japan",
        "orlando fl", "brooklyn new york"); ``None`` when its last words qualify nothing of that name. A two-letter
        state that is also a word ("me", "in", "or", "hi", "ok") does not qualify without its comma."""
        words = text.split()
        for n in (2, 1):
            if len(words) <= n:
                continue
            tail, head = " ".join(words[-n:]), " ".join(words[:-n])
            if tail.lower() in _WORDS_NOT_STATES or CJK.search(text) or key(head) in FUNCTION_WORDS:
                continue  # "in russia": no town named "In" (Smidovich's old name) of Russia, a word before a country
            for country, admin1 in self.qualifiers(tail):
                found = self.candidates(head, country, admin1=admin1)
                if found:
                    return found[0]
        return None

    def named(self, piece: str) -> Place | None:
        """The place ``piece`` is the whole name of, when it is one of some size (a region, or a city of at least
        ``ROUTING_MIN_POPULATION``): words read out of free text, which a village named like a word must not take."""
        if key(piece) in FUNCTION_WORDS:
            return None  # "and" (Andorra's three letters), "of" (a town in Turkey): words, whatever else they name
        region = self.region(piece) if self.qualifier(piece) else None  # a country or a state (never two letters)
        hits = [region] if region else self.candidates(piece, min_population=ROUTING_MIN_POPULATION)
        return hits[0] if hits else self.qualified(piece)

    def named_around(self, words: Sequence[str], start: int, end: int) -> tuple[str, Place] | None:
        """The place named by ``words[start:end]`` with the fewest words either side that make it a whole name of
        some size ("mesa" in "costa mesa weather" is Costa Mesa, not Mesa), up to four words; else the one big city
        those words misspell ("sacromento", "san fransico": :meth:`misspelt`); ``None``: no place."""
        spans = [(a, b) for a in range(max(0, end - 4), start + 1) for b in range(end, min(len(words), a + 4) + 1)]
        for a, b in sorted(spans, key=lambda ab: (-(ab[1] - ab[0]), ab[0])):
            piece = " ".join(words[a:b])
            if (place := self.named(piece)) is not None:
                return piece, place
        return self.misspelt(" ".join(words[start:end]))

    def misspelt(self, piece: str) -> tuple[str, Place] | None:
        """The one city of ``MISSPELT_MIN_POPULATION`` or more whose name ``piece`` misspells: as long as it (six
        letters and more), begun with the same two letters, and close (``difflib``'s ratio ≥ 0.85) to it and to no
        other ("sacromento": Sacramento, "pheonix": Phoenix; "chairs" is no Cairns). Only where a request's frame
        leaves room for a place and nothing else: the words left over (:meth:`named_around`)."""
        said = key(piece)
        if len(said) < 6 or not said.replace(" ", "").isalpha():
            return None
        names = self._big_names()
        name = misspelt(said, names, names.__getitem__)
        found = self.candidates(name, min_population=MISSPELT_MIN_POPULATION) if name else []
        return (found[0].name, found[0]) if found else None

    def _big_names(self) -> dict[str, int]:
        if self._big is None:
            rows = self._rows("SELECT name, geonameid FROM places WHERE population >= ?", (MISSPELT_MIN_POPULATION,))
            self._big = {key(name): gid for name, gid in rows}
        return self._big

    def find(self, text: str, exclude: AbstractSet[str] = frozenset()) -> list[tuple[str, Place]]:
        """Places named in free text, as (the words as written, the place), in order of appearance.

        Chinese: the longest known name at each position. Other scripts: capitalised words and runs of
        up to three of them, with an optional ``, Country`` after. Only places of some size count, and
        words in ``exclude`` (weather words, question words) are never place names."""
        found: list[tuple[int, str, Place]] = []
        looked_up: dict[str, Place | None] = {}  # each distinct piece is looked up once (a long text repeats them)

        def lookup(piece: str) -> Place | None:
            if piece not in looked_up:
                looked_up[piece] = self.named(piece)
            return looked_up[piece]

        for m in re.finditer(r"[\u3400-\u9fff]+", text):
            run, i = m.group(), 0
            # Common words hold names (天福 in 明天福州, 雪梨 in 冰糖雪梨, Taku's 多久): a name never starts inside
            # one, nor is one. 昆明天气 stays 昆明: a name may end inside one.
            words = list(_ZH_COMMON.finditer(run))
            inside = {k for w in words for k in range(w.start() + 1, w.end())}
            common = {w.group() for w in words}
            while i < len(run):
                for n in range(min(6, len(run) - i), 1, -1):
                    piece = run[i:i + n]
                    if piece in exclude or i in inside or piece in common:
                        continue
                    hit = lookup(piece)
                    if hit is not None:
                        found.append((m.start() + i, piece, hit))
                        i += n
                        break
                else:
                    i += 1
        text = _SENTENCE_END.sub(",", text)  # "weather for Boston.": the sentence's end, not the name's (St. stays)
        said_which: dict[int, str] = {}  # where a country joined by "and" only says which place is meant: its code
        text = self._find_joined_names(text, found, exclude, said_which)
        for name_run in _name_runs(text, exclude):
            self._find_in_run(text, name_run, found, exclude)
        if _POSSESSIVE.search(text):  # "Boston's weather": the name without its 's, where the name with it is none
            plain, before = _POSSESSIVE.sub("  ", text), list(found)
            for plain_run in _name_runs(plain, exclude):
                more: list[tuple[int, str, Place]] = []
                self._find_in_run(plain, plain_run, more, exclude)
                found += [f for f in more if not any(s <= f[0] < s + len(w) for s, w, _ in before)]
        if said_which:  # "Trussville, Bosnia and Herzegovina": no Trussville there; the one in Alabama is not asked
            found = [f for f in found if not _denied(text, f, said_which)]
        # a name inside another found ("texas" of "paris, texas"): the place that other one is, only
        found = [f for f in found if not any(s <= f[0] and f[0] + len(f[1]) <= s + len(w) and (s, w) != (f[0], f[1])
                                             for s, w, _ in found)]
        return [(w, p) for _, w, p in sorted(found, key=lambda f: f[0])]

    def _find_joined_names(self, text: str, found: list[tuple[int, str, Place]], exclude: AbstractSet[str],
                           said_which: dict[int, str] | None = None) -> str:
        """Countries whose names join words with "and", "of" or "the" ("Bosnia and Herzegovina", "Saint Vincent and
        the Grenadines", "Isle of Man"), read whole before the runs of capitalised words would split them; returns
        ``text`` with them blanked out."""
        folded = _fold(text)
        for m in self._joined_names().finditer(folded):
            start, written = m.start(), text[m.start():m.end()]
            text = text[:start] + " " * len(written) + text[m.end():]
            region = self.region(written)
            if _after_a_name(text, start, exclude):
                if region is not None and said_which is not None:
                    said_which[start] = region.country
                continue  # "Haigler Bosnia and Herzegovina": it only says which Haigler
            if region is not None:
                found.append((start, written, region))
        return text

    def _joined_names(self) -> re.Pattern[str]:
        if self._joined is None:
            rows = self._rows("SELECT key FROM countries WHERE key LIKE '% and %' OR key LIKE '% of %' OR key LIKE 'the %'")
            names = sorted({_fold(r[0]) for r in rows}, key=len, reverse=True)
            self._joined = lazy_compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
        return self._joined


    def _find_in_run(self, text: str, run: list[re.Match[str]], found: list[tuple[int, str, Place]],
                     exclude: AbstractSet[str]) -> None:
        """A place in a run of name-like words must be the whole run ("Moss Hill" is not Moss), or the whole run
        but a country or state after it ("Paris France"), or the run without a first word that only opens the
        sentence ("Show Paris"). Anything else is a name we do not know: the model or the geocoder reads it."""
        whole = text[run[0].start():run[-1].end()]
        if len(run) > 1 and whole.islower() and not self.candidates(whole) and \
                (place := self.qualified(whole)) is not None:  # "in brooklyn new york", "in orlando fl": no comma
            found.append((run[0].start(), whole, place))
            return
        tries = [(0, len(run))]
        if len(run) > 1:
            tries += [(0, n) for n in range(len(run) - 1, 0, -1)]  # a qualifier may follow
            if run[0].start() == _first_word(text):
                tries.append((1, len(run)))
        for i, n in tries:
            region: Place | None = None
            group = run[i:n]
            start, end = group[0].start(), group[-1].end()
            written = text[start:end]
            if len(written) <= 2:
                continue  # PA, LA, NY: too many things are written so
            rest = text[end:run[-1].end()].strip(" ,")
            qualifier = None
            after = re.match(r"\s*,?\s*([A-Za-z][A-Za-z.]*(?: [A-Z][A-Za-z.]*)*)", text[end:])
            if after:
                qualifier = self.qualifier(after.group(1))
            if n < len(run) and not (qualifier and after and text[end:end + after.end()].strip(" ,") == rest):
                continue  # part of a longer name
            hits = self.candidates(written, qualifier[0], 0, qualifier[1]) if qualifier else []
            if hits and after is not None:  # a qualifier is read from what follows: hits need it
                written = text[start:end + after.end()]
            else:
                if n < len(run) or qualifier and after and after.group(1)[0].isupper() \
                        and self.country(written) is None and self.region(written) is None:
                    continue  # "Alley, Canada": no Alley there; one elsewhere is not the place asked (the geocoder's)
                region = self.region(written)
                if (region is not None or self.qualifier(written)) and _after_a_name(text, start, exclude):
                    return  # "Cosby, Kansas", "Molino, Washington": the state only says which Cosby or Molino
                hits = [region] if region else self.candidates(written, min_population=ROUTING_MIN_POPULATION)
            if hits and n - i == 1 and start == _first_word(text) and key(hits[0].name) != key(text[start:end]) and not region:
                continue  # a sentence's first word ("Put this…") is a place only by its own name ("Paris weather")
            if hits:
                found.append((start, written, hits[0]))
                return


# Common words that hold a place's name (天福 in 明天福州, Taku's 多久 in 还有多久): never part of a place.
_ZH_COMMON = Phrases(("今天", "明天", "后天", "昨天", "前天", "大后天", "今晚", "明晚", "今早", "明早", "现在", "多久", "多少", "什么",
                      "怎么", "时候", "还有", "一下", "冰糖雪梨"))


_WORD = lazy_compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’.\-]*")
_PARTICLES = {"de", "del", "da", "do", "dos", "das", "di", "du", "la", "le", "les", "von", "van", "der", "den", "y"}
_LIST_JOINS = frozenset({" and ", " or ", ", ", ", and ", ", or ", " & ", " vs ", " versus "})
_PREPOSITION = lazy_compile(r"(?i)\b(?:in|at|for|near|of)\s+$")  # not "to": "supposed to hail", "going to rain"
# Capitalised words that end a name rather than start a sentence's next part ("Arizona City", "Siler City").
_NAME_ENDS = {"City", "Town"}
_SENTENCE_END = lazy_compile(r"(?<=[a-z\u00e0-\u024f]{3})\.(?=\s|$)")
_POSSESSIVE = lazy_compile(r"(?<=[a-z\u00e0-\u024f])['’]s\b")


def _denied(text: str, found: tuple[int, str, Place], said_which: dict[int, str]) -> bool:
    """Whether the place ``found`` is followed (a comma or spaces between) by a country that is not its own."""
    start, written, place = found
    end = start + len(written)
    return any(at >= end and not text[end:at].strip(" ,") and country != place.country
               for at, country in said_which.items())


def _after_a_name(text: str, start: int, exclude: AbstractSet[str]) -> bool:
    """Right after "Cosby, " or "Wells in ": a country or state there only says which Cosby or Wells."""
    m = re.search(r"([A-Za-z\u00c0-\u024f][\w'’.-]*)(?:\s*,\s*|\s+in\s+)$", text[:start])
    return m is not None and m.group(1)[0].isupper() and m.group(1).casefold() not in exclude


def _first_word(text: str) -> int:
    m = _WORD.search(text)
    return m.start() if m else -1


def _name_runs(text: str, exclude: AbstractSet[str]) -> list[list[re.Match[str]]]:
    """Runs of words that may form a place's name: capitalised (or all capitals) words next to each other, split at
    words that are never names; a lower-case run counts right after "in", "at", "for" ("weather in paris")."""
    runs: list[list[re.Match[str]]] = []
    current: list[re.Match[str]] = []
    lower_run = False
    placed: set[int] = set()  # where the runs that follow "in" (or such a run and "and") start
    for w in _WORD.finditer(text):
        word = w.group()
        adjacent = bool(current) and w.start() - current[-1].end() == 1 and text[current[-1].end()] == " "
        name_like = word[0].isupper() and word.casefold() not in exclude
        lower = not word[0].isupper() and word.casefold() not in exclude
        # after "in", or after a run of them joined by "and", "or" or a comma ("weather in paris and london")
        run = current or (runs[-1] if runs else [])
        listed = bool(run) and run[0].start() in placed and text[run[-1].end():w.start()].casefold() in _LIST_JOINS
        placing = listed or bool((lower or name_like) and _PREPOSITION.search(text[:w.start()]))
        after_preposition = lower and placing
        if placing:
            placed.add(w.start())
        lower_ok = lower and ((adjacent and lower_run) or (not current and after_preposition))
        if adjacent and word in _NAME_ENDS and not lower_run:
            current.append(w)
            continue
        if (name_like or lower_ok) and (adjacent or not current):
            if not current:
                lower_run = lower_ok
            current.append(w)
            continue
        if adjacent and not lower_run and word in _PARTICLES:
            current.append(w)  # San de Fuca, Rio de Janeiro: kept only if a name follows
            continue
        while current and current[-1].group() in _PARTICLES:
            current.pop()
        if current:
            runs.append(current)
        current, lower_run = [], False
        if name_like or after_preposition:
            current, lower_run = [w], not name_like
    while current and current[-1].group() in _PARTICLES:
        current.pop()
    if current:
        runs.append(current)
    return runs


_shared: dict[Path, Gazetteer] = {}


def index_path(settings: Any, paths: Any) -> str:
    """Where the place index is: the ``gazetteer_index`` setting, or the cache folder."""
    return settings.gazetteer_index or str(paths.cache_dir / "gazetteer" / f"places-v{INDEX_VERSION}.sqlite")


def gazetteer(path: Path) -> Gazetteer:
    """One instance per index file and process."""
    if path not in _shared:
        _shared[path] = Gazetteer(path)
    return _shared[path]


def prepare(path: Path) -> threading.Thread | None:
    """The index unpacked now, in the background, when it is missing (a new home): a process that lives (the chat, the
    daemon) has it before its first question about a place. A question meanwhile waits for it (the builder's lock),
    never unpacks it twice. The thread, or ``None`` when the index is there."""
    if path.exists():
        return None

    def unpack() -> None:
        try:
            build_index(path)
        except (CacheUnusable, OSError):
            pass  # the question that needs it tries again and says why it cannot

    thread = threading.Thread(target=unpack, name="place index", daemon=True)
    thread.start()
    return thread
