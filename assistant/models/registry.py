"""Models pulled for the embedded engine, by the names Ollama uses: ``qwen2.5:1.5b`` and ``user/model:tag`` from
Ollama's public registry, ``hf.co/ORG/REPO:QUANT`` from Hugging Face (which speaks the same registry protocol).

The manifest (``/v2/NAMESPACE/MODEL/manifests/TAG``) lists layers; the GGUF is the one of media type
``application/vnd.ollama.image.model``, fetched from ``/v2/NAMESPACE/MODEL/blobs/DIGEST`` (which redirects to a
CDN) and verified against its SHA-256 digest, as Ollama's own ``server/download.go`` does. A download resumes
where it stopped (a ``.partial`` file and a ``Range`` request); the model counts as pulled only once its file is
whole and verified and its record is written beside it, so a kill or Ctrl-C leaves nothing half-registered."""

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

from assistant.errors import ConfigError, ModelError, ModelMissing, ServerUnreachable

REGISTRY_HOST = "registry.ollama.ai"
HF_HOSTS = ("hf.co", "huggingface.co")
MANIFEST_TYPE = "application/vnd.docker.distribution.manifest.v2+json"
MODEL_LAYER = "application/vnd.ollama.image.model"
LICENSE_LAYER = "application/vnd.ollama.image.license"
MARGIN = 64 << 20  # bytes kept free beyond the model itself
_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,79}$")

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


class Registry:
    """One pull: the manifest, then the model layer, with an aiohttp session of its own."""

    def __init__(self, settings: Any, name: str) -> None:
        self.name = ModelName.parse(name)
        self.base = base_url(self.name, settings)
        self._session: Any = None

    async def __aenter__(self) -> Registry:
        import aiohttp

        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=30, sock_read=60),
                                              headers={"User-Agent": "assistant"})
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._session.close()

    def _unreachable(self, e: BaseException) -> ServerUnreachable:
        return ServerUnreachable(f"could not reach the registry at {self.base} ({type(e).__name__}: {e}).",
                                 "Check the network and run the same command again: a download resumes where it "
                                 "stopped.")

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
                manifest = await reply.json(content_type=None)
            layers = manifest.get("layers") if isinstance(manifest, dict) else None
            if not isinstance(layers, list):
                raise ModelError(f"the registry's manifest of {n} is not one this reads.", "Try again later.")
            model = next((layer for layer in layers if layer.get("mediaType") == MODEL_LAYER), None)
            if model is None or not str(model.get("digest", "")).startswith("sha256:"):
                raise ModelError(f"{n} has no GGUF model in the registry (it may be a cloud or a safetensors model).",
                                 "Choose a model with a GGUF, such as qwen2.5:1.5b.")
            license_text = ""
            for layer in layers:
                if layer.get("mediaType") == LICENSE_LAYER and int(layer.get("size") or 0) < 1 << 20:
                    async with self._session.get(f"{url}/blobs/{layer['digest']}") as reply:
                        if reply.status == 200:
                            license_text += (await reply.text(errors="replace")).strip() + "\n"
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            raise self._unreachable(e) from None
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ModelError(f"the registry's manifest of {n} is not one this reads ({e}).", "Try again later.") \
                from None
        target = pulled_dir() / f"{n.slug}.gguf"
        partial = target.with_suffix(".partial")
        have = partial.stat().st_size if partial.is_file() else 0
        size = int(model.get("size") or 0)
        return Plan(n, f"{url}/blobs/{model['digest']}", model["digest"], size, have if have <= size else 0,
                    license_text.strip(), target)

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
        digest = hashlib.sha256()
        have = plan.have
        if have:
            with open(partial, "rb") as f:  # the part already here counts toward the digest
                while chunk := f.read(1 << 20):
                    digest.update(chunk)
        try:
            headers = {"Range": f"bytes={have}-"} if have else {}
            async with self._session.get(plan.url, headers=headers) as reply:
                start = re.match(r"bytes (\d+)-", reply.headers.get("Content-Range", ""))
                if have == plan.size or reply.status == 416 and have == plan.size:
                    pass  # it was all here
                elif reply.status == 206 and have and (start is None or int(start.group(1)) != have):
                    partial.unlink(missing_ok=True)
                    raise ModelError(f"the registry at {self.base} sent another part of {plan.name} than the one "
                                     "asked for; the partial download was deleted.", "Run the same command again.")
                elif reply.status == 200 or reply.status == 206 and have:
                    if reply.status == 200 and have:  # the server sends it all again: start over
                        have, digest = 0, hashlib.sha256()
                    with open(partial, "ab" if have else "wb") as out:
                        async for chunk in reply.content.iter_chunked(1 << 20):
                            out.write(chunk)
                            digest.update(chunk)
                            have += len(chunk)
                            if progress is not None:
                                progress(have, plan.size)
                        out.flush()
                        os.fsync(out.fileno())
                else:
                    raise ModelError(f"the registry at {self.base} answered {reply.status} for the file of "
                                     f"{plan.name}.", "Try again later.")
        except (aiohttp.ClientError, asyncio.TimeoutError) as e:
            raise self._unreachable(e) from None
        if have != plan.size or "sha256:" + digest.hexdigest() != plan.digest:
            partial.unlink(missing_ok=True)
            raise ModelError(f"the download of {plan.name} does not match the registry's digest ({have} of "
                             f"{plan.size} bytes); it was deleted.", f"Pull it again: assistant models pull {plan.name}")
        os.replace(partial, plan.target)
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
