"""Which language a sentence of an answer is in, for the languages a model drifts into (Spanish, French, German,
Turkish, …) that share the Latin script with English and so escape a check by script. py3langid (a maintained
port of langid.py, BSD; a character n-gram classifier, no word list) restricted to the common languages, which
makes it reliable on a sentence; the model loads once per process, in the background, when a conversation's answer
starts. Without py3langid installed the check is skipped and the script check still holds."""

from __future__ import annotations

import importlib.util
import threading
from typing import Any

LANGUAGES = ["en", "fr", "de", "es", "it", "pt", "nl", "tr", "pl", "sv", "id", "vi", "ro", "cs", "da", "fi", "no", "hu",
             "la", "ru", "zh", "ja", "ko", "ar", "he"]
MIN_LETTERS = 30  # shorter sentences are too short to tell
CONFIDENCE = 0.95

_identifier: Any = None
_loaded = threading.Event()
_started = threading.Lock()


def _load() -> None:
    global _identifier
    try:
        from py3langid.langid import _load_identifier

        _identifier = _load_identifier(norm_probs=True, langs=LANGUAGES)
    except Exception:  # a broken install: the check is skipped, as without it
        _identifier = None
    finally:
        _loaded.set()


def warm() -> None:
    """Start loading the classifier (about a second) so that it is ready when the first sentence arrives."""
    if importlib.util.find_spec("py3langid") is None:
        _loaded.set()
        return
    if _started.acquire(blocking=False):
        threading.Thread(target=_load, name="language-id", daemon=True).start()


def other_language(text: str, expected: str = "en") -> str | None:
    """The language ``text`` is confidently in when it is not ``expected`` (a language code), else ``None``."""
    if sum(c.isalpha() for c in text) < MIN_LETTERS:
        return None
    warm()
    _loaded.wait(10)
    if _identifier is None:
        return None
    lang, probability = _identifier.classify(text)
    return lang if lang != expected and float(probability) >= CONFIDENCE else None
