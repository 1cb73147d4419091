"""Lines said once: what a user needs to read the first time, not on every call (which model answers after Ollama
could not be reached). Remembered in the data folder by a key naming the situation, so a new situation (another
model, another server) is said again."""

from __future__ import annotations

import json
import os
import time

from assistant.paths import Paths

FILE = "said-once.json"


def first_time(paths: Paths, key: str) -> bool:
    """Whether ``key`` has not been said before; remembers that it now has. A home that cannot be written says it
    every time rather than never."""
    path = paths.data_dir / FILE
    try:
        said = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        said = {}
    if not isinstance(said, dict):
        said = {}
    if key in said:
        return False
    said[key] = time.time()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{FILE}.{os.getpid()}")
        temp.write_text(json.dumps(said), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        pass
    return True
