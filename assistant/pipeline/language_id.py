"""Which language a sentence of an answer is in, for the languages a model drifts into (Spanish, French, German,
Turkish, …) that share the Latin script with English and so escape a check by script. py3langid's model (a
maintained port of langid.py, BSD; a character n-gram classifier, no word list) restricted to the common languages,
which makes it reliable on a sentence. Without py3langid installed the check is skipped and the script check holds.

The model is read here, not through py3langid's own loader: that one imports NumPy and holds ~80 MB in memory for
the life of the process (most of a batch's or the daemon's footprint), to classify a few sentences. Its arrays are
unpacked once per py3langid version into the cache folder (no NumPy: the model is an LZMA'd ``.npz``, a zip of
``.npy`` files) and read with ``os.pread`` where a sentence needs them: the DFA transition for each byte and the
feature row for each n-gram found, so the process keeps ~1 MB (the state tables) and the page cache does the rest.
The scores are py3langid's: the same walk, the same naive Bayes sums, the same length-tempered softmax."""

from __future__ import annotations

import ast
import importlib.util
import json
import logging
import lzma
import math
import os
import shutil
import struct
import sys
import tempfile
import threading
import unicodedata
import zipfile
from array import array
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import IO, Any

LANGUAGES = ["en", "fr", "de", "es", "it", "pt", "nl", "tr", "pl", "sv", "id", "vi", "ro", "cs", "da", "fi", "no", "hu",
             "la", "ru", "zh", "ja", "ko", "ar", "he"]
MIN_LETTERS = 30  # shorter sentences are too short to tell
CONFIDENCE = 0.95
# The model's members and the layouts this reader knows (py3langid 0.4's: DFA rows shared between states).
_LAYOUT = {"ptc": {"<f2"}, "pc": {"<f4"}, "classes": {"<U3"}, "nextmove": {"<u2", "<u4"}, "nextmove_row": {"<u2", "<u4"},
           "out_feat": {"<i4"}}
_TYPECODE = {"<u2": "H", "<u4": "I", "<i4": "i", "<f4": "f"}

log = logging.getLogger(__name__)


class Model:
    """py3langid's classifier over the unpacked arrays in ``folder``, restricted to ``languages``."""

    def __init__(self, folder: Path, languages: list[str] = LANGUAGES) -> None:
        meta = json.loads((folder / "layout.json").read_text())
        classes: list[str] = meta["classes"]
        self.columns = [i for i, c in enumerate(classes) if c in set(languages)]
        self.labels = [classes[i] for i in self.columns]
        self.width = len(classes)
        self.row = _read_array(folder / "nextmove_row", meta["nextmove_row"])
        self.out = _read_array(folder / "out_feat", meta["out_feat"])
        pc = _read_array(folder / "pc", meta["pc"])
        self.pc = [pc[i] for i in self.columns]
        self.nextmove_size = 2 if meta["nextmove"] == "<u2" else 4
        self.nextmove = os.open(folder / "nextmove", os.O_RDONLY)
        self.ptc = os.open(folder / "ptc", os.O_RDONLY)
        self.row_format = struct.Struct(f"<{self.width}e")
        first: dict[str, int] = {}
        self.aliases: list[tuple[int, int]] = []  # one label in two columns (a language in two scripts)
        for i, c in enumerate(self.labels):
            if c in first:
                self.aliases.append((first[c], i))
            else:
                first.setdefault(c, i)

    def close(self) -> None:
        os.close(self.nextmove)
        os.close(self.ptc)

    def _transition(self, at: int) -> int:
        size = self.nextmove_size
        return int.from_bytes(os.pread(self.nextmove, size, at * size), "little")

    def classify(self, text: str) -> tuple[str, float]:
        """The most likely language of ``text`` and its probability."""
        if text.isupper():
            text = text.lower()
        data = unicodedata.normalize("NFC", text).encode("utf8", errors="surrogatepass")
        state, found = 0, []
        for byte in data:
            state = self._transition((self.row[state] << 8) + byte)
            if (feature := self.out[state]) >= 0:
                found.append(feature)
        scores = [0.0] * len(self.columns)
        if found:
            scores = list(self.pc)
            for feature, count in Counter(found).items():
                weights = self.row_format.unpack(os.pread(self.ptc, self.row_format.size,
                                                          feature * self.row_format.size))
                weight = math.log1p(count)
                for j, column in enumerate(self.columns):
                    scores[j] += weight * weights[column]
        temper = 1.0 / math.sqrt(len(data) or 1)  # py3langid's: keeps the softmax calibrated across lengths
        top = max(s * temper for s in scores)
        probabilities = [math.exp(s * temper - top) for s in scores]
        total = sum(probabilities)
        probabilities = [p / total for p in probabilities]
        for i, j in self.aliases:
            probabilities[i] += probabilities[j]
            probabilities[j] = 0.0
        best = max(range(len(probabilities)), key=probabilities.__getitem__)
        return self.labels[best], probabilities[best]


def _read_array(path: Path, dtype: str) -> array:
    a = array(_TYPECODE[dtype])
    a.frombytes(path.read_bytes())
    if sys.byteorder == "big":
        a.byteswap()
    return a


def unpack(source: Path, folder: Path) -> None:
    """py3langid's ``model.npz.xz`` into one raw file per array and ``layout.json``, atomically (a folder renamed
    into place, so two processes unpacking at once both end with a whole model). Raises ValueError on a layout this
    reader does not know."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=folder.parent))
    try:
        layout: dict[str, Any] = {}
        with tempfile.TemporaryFile(dir=work) as npz:
            with lzma.open(source) as src:
                shutil.copyfileobj(src, npz, 1 << 20)
            npz.seek(0)
            with zipfile.ZipFile(npz) as z:
                for name, dtypes in _LAYOUT.items():
                    with z.open(f"{name}.npy") as f:
                        header = _npy_header(f)
                        if header.get("descr") not in dtypes or header.get("fortran_order"):
                            raise ValueError(f"{name}: {header.get('descr')} is not a layout this reader knows")
                        if name == "classes":
                            raw = f.read()
                            layout["classes"] = [raw[i:i + 12].decode("utf-32-le").rstrip("\0")
                                                 for i in range(0, len(raw), 12)]
                        else:
                            with open(work / name, "wb") as out:
                                shutil.copyfileobj(f, out, 1 << 20)
                            layout[name] = header["descr"]
                            if name == "ptc":
                                layout["ptc_shape"] = list(header["shape"])
        if layout["ptc_shape"] != [os.path.getsize(work / "ptc") // (2 * len(layout["classes"])),
                                   len(layout["classes"])]:
            raise ValueError("ptc: its shape does not match the classes")
        (work / "layout.json").write_text(json.dumps(layout))
        try:
            os.rename(work, folder)
        except OSError:
            if not (folder / "layout.json").exists():  # not another process's finished copy
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _npy_header(f: IO[bytes]) -> dict:
    read = f.read
    magic = read(8)
    if magic[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy array")
    length = int.from_bytes(read(2 if magic[6] == 1 else 4), "little")
    return ast.literal_eval(read(length).decode("latin1"))


def model_source() -> tuple[Path, str] | None:
    """py3langid's model file and version, found without importing it (its import loads NumPy)."""
    spec = importlib.util.find_spec("py3langid")
    if spec is None or not spec.submodule_search_locations:
        return None
    source = Path(list(spec.submodule_search_locations)[0]) / "data" / "model.npz.xz"
    try:
        version = metadata.version("py3langid")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return (source, version) if source.is_file() else None


_cache: Path | None = None


def use_cache(folder: Path) -> None:
    """Where the model is unpacked: the assistant's cache folder (the first one set, for the life of the process)."""
    global _cache
    _cache = _cache or folder


def cache_root() -> Path:
    if _cache is not None:
        return _cache
    from assistant.paths import resolve_paths

    return resolve_paths().cache_dir


def load(cache: Path | None = None) -> Model | None:
    """The model, unpacked into ``cache`` (the cache folder) the first time; ``None`` when py3langid is missing,
    of a layout this reader does not know, or the cache cannot be written."""
    found = model_source()
    if found is None:
        return None
    source, version = found
    folder = (cache or cache_root()) / f"langid-{version}"
    for attempt in range(2):
        try:
            if not (folder / "layout.json").is_file():
                unpack(source, folder)
            return Model(folder)
        except (OSError, ValueError, KeyError, SyntaxError, EOFError, zipfile.BadZipFile, lzma.LZMAError) as e:
            if attempt == 0 and folder.is_dir() and (folder / "layout.json").is_file():
                log.warning("the language model unpacked in %s could not be read (%s): unpacking it again", folder, e)
                shutil.rmtree(folder, ignore_errors=True)  # a cache: made again from py3langid's own file
                continue
            log.warning("the language check is off: py3langid's model could not be read (%s)", e)
            return None
    return None


_model: Model | None = None
_loaded = threading.Event()
_started = threading.Lock()


def _load() -> None:
    global _model
    try:
        _model = load()
    finally:
        _loaded.set()


def warm() -> None:
    """Have the model ready before the first long sentence: unpacked once per py3langid version (about half a
    second), opened in a millisecond after that, in a background thread."""
    if _started.acquire(blocking=False):
        threading.Thread(target=_load, name="language-id", daemon=True).start()


def other_language(text: str, expected: str = "en") -> str | None:
    """The language ``text`` is confidently in when it is not ``expected`` (a language code), else ``None``."""
    if sum(c.isalpha() for c in text) < MIN_LETTERS:
        return None
    warm()
    _loaded.wait(10)
    if _model is None:
        return None
    lang, probability = _model.classify(text)
    return lang if lang != expected and probability >= CONFIDENCE else None
