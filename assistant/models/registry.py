"""Models pulled for the embedded engine, by the names Ollama uses: ``qwen2.5:1.5b`` and ``user/model:tag`` from
Ollama's public registry, ``hf.co/ORG/REPO:QUANT`` from Hugging Face (which speaks the same registry protocol).

The manifest (``/v2/NAMESPACE/MODEL/manifests/TAG``) lists layers; the GGUF is the one of media type
``application/vnd.ollama.image.model``, fetched from ``/v2/NAMESPACE/MODEL/blobs/DIGEST`` (which redirects to a
CDN) and verified against its SHA-256 digest, as Ollama's own ``server/download.go`` does. A download resumes
where it stopped (a ``.partial`` file and a ``Range`` request); the model counts as pulled only once its file is
whole and verified and its record is written beside it, so a kill or Ctrl-C leaves nothing half-registered.

A registry is a remote party, and nothing it says is trusted further than it can be checked: a digest is a digest
before any request names it; a manifest and a licence are read up to a cap; a blob is written no further than its
declared size and hashed as its bytes arrive; a server slower than ``pull_min_rate`` over ``pull_rate_window``
seconds is given up on; and the texts it serves reach a terminal only through :mod:`assistant.control`."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

from assistant.control import without_controls
from assistant.errors import ConfigError, ModelError, ModelMissing, ServerUnreachable
from tools.lazy_re import lazy_compile

REGISTRY_HOST = "registry.ollama.ai"
HF_HOSTS = ("hf.co", "huggingface.co")
MANIFEST_TYPE = "application/vnd.docker.distribution.manifest.v2+json"
MODEL_LAYER = "application/vnd.ollama.image.model"
LICENSE_LAYER = "application/vnd.ollama.image.license"
MARGIN = 64 << 20  # bytes kept free beyond the model itself
_PART = lazy_compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,79}$")
DIGEST = lazy_compile(r"sha256:[0-9a-f]{64}")
MAX_MANIFEST = 1 << 20  # bytes: a manifest lists a handful of layers in a few KB
MAX_LICENSE = 1 << 20  # bytes: the longest licence kept (a larger one is left out, and said)
CHUNK = 8 << 20  # bytes handed to the writer thread at once

Progress = Callable[[int, int], None]  # (bytes so far, bytes in all)


@dataclass(frozen=True)
class ModelName:
    """A model's name as Ollama reads it (``types/model/name.go``): ``[host/][namespace/]model[:tag]``."""

    host: str
    namespace: str
    model: str
    tag: str

    @classmethod
    def parse(cls, text: str) -> ModelName:
        s, tag = text.strip(), "latest"
        if s.rfind(":") > s.rfind("/"):
            s, tag = s.rsplit(":", 1)
        parts = s.split("/")
        if len(parts) > 3 or not all(parts):
            raise ConfigError(f"'{text}' is not a model name.", "Names look like qwen2.5:1.5b, user/model:tag or "
                              "hf.co/ORG/REPO:QUANT.")
        host = parts[-3] if len(parts) == 3 else REGISTRY_HOST
        namespace = parts[-2] if len(parts) >= 2 else "library"
        model = parts[-1]
        if host.removeprefix("www.") in HF_HOSTS:
            host = "hf.co"
        if not all(_PART.match(p) for p in (namespace, model, tag)) or "." in namespace and host != "hf.co":
            raise ConfigError(f"'{text}' is not a model name.", "Names look like qwen2.5:1.5b, user/model:tag or "
                              "hf.co/ORG/REPO:QUANT.")
        return cls(host, namespace, model, tag)

    def __str__(self) -> str:
        if self.host == REGISTRY_HOST:
            short = self.model if self.namespace == "library" else f"{self.namespace}/{self.model}"
        else:
            short = f"{self.host}/{self.namespace}/{self.model}"
        return f"{short}:{self.tag}"

    @property
    def slug(self) -> str:
        """The name as a file name: ``qwen2.5-1.5b``, ``hf.co_org_repo-q4_k_m``."""
        return str(self).replace("/", "_").replace(":", "-").casefold()


def base_url(name: ModelName, settings: Any) -> str:
    """Where the registry of ``name`` answers: the settings' addresses for Ollama's and Hugging Face's (a mirror,
    or a local one in the tests), https://HOST for any other."""
    if name.host == REGISTRY_HOST:
        return str(settings.model_registry).rstrip("/")
    if name.host == "hf.co":
        return str(settings.hf_registry).rstrip("/")
    return f"https://{name.host}"


class Pulled(BaseModel):
    """A pulled model's record, written beside its file once the file is whole."""

    name: str
    file: str
    digest: str
    size: int
    source: str
    license: str = ""
    pulled_at: float = 0.0


def pulled_dir() -> Path:
    from assistant.models.model_file import models_dir

    return models_dir() / "pulled"


def pulled_models() -> list[Pulled]:
    """Every model pulled for the embedded engine whose file is still there."""
    out = []
    for record in sorted(pulled_dir().glob("*.json")):
        try:
            p = Pulled.model_validate_json(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if os.path.isfile(p.file):
            out.append(p)
    return out


def find_pulled(name: str) -> Pulled | None:
    """The pulled model ``name`` stands for (``qwen2.5:1.5b``, or the same written in full), or ``None``."""
    try:
        wanted = str(ModelName.parse(name))
    except ConfigError:
        return None
    return next((p for p in pulled_models() if p.name == wanted), None)


def remove(name: str) -> Pulled:
    """Delete a pulled model: its record first (so a crash between leaves a file no record points to, never a
    record without its file), then its file and licence."""
    found = find_pulled(name)
    if found is None:
        raise ModelMissing(f"{name} is not among the pulled models.", "assistant models list shows them.")
    slug = Path(found.file).stem
    (pulled_dir() / f"{slug}.json").unlink(missing_ok=True)
    for path in (Path(found.file), pulled_dir() / f"{slug}.license.txt"):
        path.unlink(missing_ok=True)
    return found


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit in ("B", "KB") else f"{n:.1f} {unit}" if n < 10 else f"{n:.0f} {unit}"
        n /= 1000
    return f"{n:.0f} GB"


@dataclass
class Plan:
    """What a pull will fetch, known from the manifest before any byte of the model: shown first."""

    name: ModelName
    url: str
    digest: str
    size: int
    have: int  # bytes already here from a download that stopped
    license: str
    target: Path
    license_note: str = ""  # why no licence is shown (one too large, or not matching its digest)


class _Writer:
    """The bytes of one download, written in one worker thread and hashed in another while the next ones arrive
    (hashlib and file writes let go of the GIL), so the network, the disk and the hash overlap instead of taking
    turns. Written data is flushed to the disk as it goes (a final fsync then has little left to do)."""

    SYNC_EVERY = 64 << 20  # bytes

    def __init__(self, path: Path, have: int) -> None:
        self.file = open(path, "ab" if have else "wb")  # noqa: SIM115 - closed in close()
        self.digest = hashlib.sha256()
        self.have = have
        self._unsynced = 0
        self._pending: list[asyncio.Future[None]] = []

    @classmethod
    async def resuming(cls, path: Path, have: int) -> _Writer:
        """A writer that goes on after the ``have`` bytes already in ``path`` (hashed first, off the event loop)."""
        writer = cls(path, have)
        if have:
            await asyncio.to_thread(writer._hash_file, path, have)
        return writer

    def _hash_file(self, path: Path, have: int) -> None:
        with open(path, "rb") as f:
            while have > 0 and (chunk := f.read(min(CHUNK, have))):
                self.digest.update(chunk)
                have -= len(chunk)

    def _write(self, parts: list[bytes]) -> None:
        self.file.writelines(parts)
        self._unsynced += sum(map(len, parts))
        if self._unsynced >= self.SYNC_EVERY:
            self.file.flush()
            os.fdatasync(self.file.fileno()) if hasattr(os, "fdatasync") else os.fsync(self.file.fileno())
            self._unsynced = 0

    def _hash(self, parts: list[bytes]) -> None:
        for part in parts:
            self.digest.update(part)

    async def add(self, parts: list[bytes], n: int) -> None:
        """Queue ``parts`` (``n`` bytes) behind the ones being written and hashed (one batch in flight at a time)."""
        await self._drain()
        self.have += n
        loop = asyncio.get_running_loop()
        self._pending = [loop.run_in_executor(None, self._write, parts), loop.run_in_executor(None, self._hash, parts)]

    async def _drain(self) -> None:
        pending, self._pending = self._pending, []
        for future in pending:
            await future

    async def close(self, durable: bool) -> None:
        try:
            await self._drain()
            if durable:
                await asyncio.to_thread(self._sync)
        finally:
            self.file.close()

    def _sync(self) -> None:
        self.file.flush()
        os.fsync(self.file.fileno())


class _Rate:
    """Gives up on a server that sends fewer than ``min_rate`` bytes a second over ``window`` seconds (curl's
    ``--speed-limit``/``--speed-time``): a trickle would otherwise keep a pull alive for ever."""

    def __init__(self, min_rate: float, window: float) -> None:
        self.min_rate, self.window = min_rate, window
        self.since, self.bytes = time.monotonic(), 0

    def too_slow(self, n: int) -> bool:
        self.bytes += n
        now = time.monotonic()
        if now - self.since < self.window:
            return False
        slow = self.bytes / (now - self.since) < self.min_rate
        self.since, self.bytes = now, 0
        return slow


class Registry:
    """One pull: the manifest, then the model layer, with an aiohttp session of its own."""

    def __init__(self, settings: Any, name: str) -> None:
        self.name = ModelName.parse(name)
        self.base = base_url(self.name, settings)
        self.min_rate = float(getattr(settings, "pull_min_rate", 1024))
        self.window = float(getattr(settings, "pull_rate_window", 30.0))
        self._session: Any = None

    async def __aenter__(self) -> Registry:
        import aiohttp

        # A read that waits a whole window for one byte is a stall; read_bufsize lets large reads through at once.
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, connect=30, sock_read=max(1.0, self.window)),
            headers={"User-Agent": "assistant"}, read_bufsize=1 << 22)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._session.close()

    def _unreachable(self, e: BaseException) -> ServerUnreachable:
        detail = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        return ServerUnreachable(f"could not reach the registry at {self.base} ({without_controls(detail)}).",
                                 "Check the network and run the same command again: a download resumes where it "
                                 "stopped.")

    def _too_slow(self) -> ModelError:
        return ModelError(f"the registry at {self.base} sent less than {_size(self.min_rate)}/s for "
                          f"{self.window:.0f} s; the pull was given up (what came is kept).",
                          "Run the same command again later: a download resumes where it stopped (pull_min_rate "
                          "and pull_rate_window set the limit).")

    async def _read(self, reply: Any, cap: int, what: str) -> bytes:
        """A reply's body, ``cap`` bytes at most: more is refused before it is read."""
        if (reply.content_length or 0) > cap:
            raise ModelError(f"the registry at {self.base} sent {what} of {_size(reply.content_length)}, larger "
                             f"than the {_size(cap)} this reads.", "Check the registry's address; try again later.")
        body = bytearray()
        async for chunk in reply.content.iter_any():
            body += chunk
            if len(body) > cap:
                raise ModelError(f"the registry at {self.base} sent {what} larger than the {_size(cap)} this "
                                 "reads.", "Check the registry's address; try again later.")
        return bytes(body)

    async def plan(self) -> Plan:
        import aiohttp

        n = self.name
        url = f"{self.base}/v2/{n.namespace}/{n.model}"
        try:
            async with self._session.get(f"{url}/manifests/{n.tag}", headers={"Accept": MANIFEST_TYPE}) as reply:
                if reply.status in (401, 404):
                    raise ModelMissing(f"{n} is not in the registry at {self.base}.", (
                        "Check the name and tag on huggingface.co (a GGUF repository, its quantization as the tag)."
                        if n.host == "hf.co" else "Check the name and tag on ollama.com/library."))
                if reply.status != 200:
                    raise ModelError(f"the registry at {self.base} answered {reply.status} for {n}.",
                                     "Try again later.")
                manifest = json.loads(await self._read(reply, MAX_MANIFEST, f"a manifest of {n}"))
            layers = manifest.get("layers") if isinstance(manifest, dict) else None
            if not isinstance(layers, list) or not all(isinstance(layer, dict) for layer in layers):
                raise ModelError(f"the registry's manifest of {n} is not one this reads.", "Try again later.")
            model = next((layer for layer in layers if layer.get("mediaType") == MODEL_LAYER), None)
            if model is None:
                raise ModelError(f"{n} has no GGUF model in the registry (it may be a cloud or a safetensors model).",
                                 "Choose a model with a GGUF, such as qwen2.5:1.5b.")
            digest, size = self._layer(model, "model")
            if size == 0:
                raise ModelError(f"the registry's manifest of {n} declares an empty model file.",
                                 "Check the name and tag; try again later.")
            license_text, license_note = await self._license(url, layers)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            raise self._unreachable(e) from None
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ModelError(f"the registry's manifest of {n} is not one this reads "
                             f"({without_controls(str(e))[:120]}).", "Try again later.") from None
        target = pulled_dir() / f"{n.slug}.gguf"
        partial = target.with_suffix(".partial")
        have = partial.stat().st_size if partial.is_file() else 0
        return Plan(n, f"{url}/blobs/{digest}", digest, size, have if have <= size else 0, license_text, target,
                    license_note)

    def _layer(self, layer: dict[str, Any], what: str) -> tuple[str, int]:
        """A layer's digest and size, each checked for what it is before any request names it."""
        digest, size = layer.get("digest"), layer.get("size")
        if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
            raise ModelError(f"the registry's manifest of {self.name} gives its {what} a digest that is not a "
                             f"SHA-256 digest ({without_controls(str(digest))[:80]!r}).", "Try again later.")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ModelError(f"the registry's manifest of {self.name} gives its {what} no size.", "Try again later.")
        return digest, size

    async def _license(self, url: str, layers: list[dict[str, Any]]) -> tuple[str, str]:
        """The licence's text (cleaned of terminal controls, checked against its digest), or why there is none."""
        texts = []
        for layer in layers:
            if layer.get("mediaType") != LICENSE_LAYER:
                continue
            digest, size = self._layer(layer, "licence")
            if size > MAX_LICENSE:
                return "", f"its licence ({_size(size)}) is too long to show here: read it on the model's page"
            async with self._session.get(f"{url}/blobs/{digest}") as reply:
                if reply.status != 200:
                    continue
                body = await self._read(reply, size, "a licence longer than it declared")
            if "sha256:" + hashlib.sha256(body).hexdigest() != digest:
                return "", "the registry's licence text does not match its digest, so it is not shown"
            texts.append(without_controls(body.decode("utf-8", "replace")).strip())
        return "\n".join(t for t in texts if t), ""

    def check_space(self, plan: Plan) -> None:
        folder = plan.target.parent
        folder.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(folder).free
        need = plan.size - plan.have
        if free < need + MARGIN:
            raise ModelError(f"{plan.name} needs {_size(need)} free in {folder}; {_size(free)} is free.",
                             "Free some space, or set ASSISTANT_MODELS to a folder on a larger disk.")

    async def fetch(self, plan: Plan, progress: Progress | None = None) -> Pulled:
        """Download the model layer (resuming a ``.partial``), verify its digest, and record it."""
        import aiohttp

        self.check_space(plan)
        partial = plan.target.with_suffix(".partial")
        writer = await _Writer.resuming(partial, plan.have)
        whole = False
        try:
            headers = {"Range": f"bytes={plan.have}-"} if plan.have else {}
            async with self._session.get(plan.url, headers=headers) as reply:
                start = re.match(r"bytes (\d+)-", reply.headers.get("Content-Range", ""))
                if plan.have == plan.size or reply.status == 416 and plan.have == plan.size:
                    pass  # it was all here
                elif reply.status == 206 and plan.have and (start is None or int(start.group(1)) != plan.have):
                    await writer.close(durable=False)
                    partial.unlink(missing_ok=True)
                    raise ModelError(f"the registry at {self.base} sent another part of {plan.name} than the one "
                                     "asked for; the partial download was deleted.", "Run the same command again.")
                elif reply.status == 200 or reply.status == 206 and plan.have:
                    if reply.status == 200 and plan.have:  # the server sends it all again: start over
                        await writer.close(durable=False)
                        writer = _Writer(partial, 0)
                    await self._receive(reply, writer, plan, progress)
                else:
                    raise ModelError(f"the registry at {self.base} answered {reply.status} for the file of "
                                     f"{plan.name}.", "Try again later.")
            whole = True
        except (aiohttp.ClientError, asyncio.TimeoutError) as e:
            raise self._unreachable(e) from None
        finally:
            await writer.close(durable=whole)
        if writer.have != plan.size or "sha256:" + writer.digest.hexdigest() != plan.digest:
            partial.unlink(missing_ok=True)
            raise ModelError(f"the download of {plan.name} does not match the registry's digest ({writer.have} of "
                             f"{plan.size} bytes); it was deleted.", f"Pull it again: assistant models pull {plan.name}")
        os.replace(partial, plan.target)
        return self._record(plan)

    async def _receive(self, reply: Any, writer: _Writer, plan: Plan, progress: Progress | None) -> None:
        import aiohttp

        """The reply's bytes into ``writer`` in batches of about :data:`CHUNK`, never past the declared size; what
        came before a broken connection or a stop is kept for the next run to resume from."""
        rate = _Rate(self.min_rate, self.window)
        parts: list[bytes] = []
        held = 0
        if progress is not None:
            progress(writer.have, plan.size)
        try:
            async for chunk, _ in reply.content.iter_chunks():  # each piece as it came: no joining copy
                if writer.have + held + len(chunk) > plan.size:
                    parts, held = [], 0
                    await writer.close(durable=False)
                    plan.target.with_suffix(".partial").unlink(missing_ok=True)
                    raise ModelError(f"the registry at {self.base} sent more than the {_size(plan.size)} it "
                                     f"declared for {plan.name}; the download was deleted.",
                                     "Try again later, or another registry.")
                parts.append(chunk)
                held += len(chunk)
                if self.min_rate and rate.too_slow(len(chunk)):
                    raise self._too_slow()
                if held >= CHUNK:
                    await writer.add(parts, held)
                    parts, held = [], 0
                    if progress is not None:
                        progress(writer.have, plan.size)
        except aiohttp.ClientError:
            # aiohttp raises a broken connection before the bytes it still holds (up to read_bufsize): those are
            # kept too, so a resumed pull fetches nothing twice (a private attribute: where it is gone, the next
            # run fetches those bytes again, no more).
            for chunk in list(getattr(reply.content, "_buffer", ())):
                if isinstance(chunk, (bytes, bytearray)) and writer.have + held + len(chunk) <= plan.size:
                    parts.append(bytes(chunk))
                    held += len(chunk)
            raise
        finally:
            if parts:
                await writer.add(parts, held)
        if progress is not None:
            progress(writer.have, plan.size)

    def _record(self, plan: Plan) -> Pulled:
        slug = plan.target.stem
        if plan.license:
            (plan.target.parent / f"{slug}.license.txt").write_text(plan.license + "\n", encoding="utf-8")
        first_line = next((line.strip() for line in plan.license.splitlines() if line.strip()), "")
        record = Pulled(name=str(plan.name), file=str(plan.target), digest=plan.digest, size=plan.size,
                        source=self.base, license=first_line[:120], pulled_at=time.time())
        temp = plan.target.parent / f".{slug}.json.tmp"
        temp.write_text(json.dumps(record.model_dump(), ensure_ascii=False), encoding="utf-8")
        os.replace(temp, plan.target.parent / f"{slug}.json")
        return record
