"""A model registry on loopback that speaks as Ollama's (registry.ollama.ai) and Hugging Face's (hf.co/v2) do, as
Ollama's own client reads them (server/images.go, server/download.go): a manifest at
``/v2/NAMESPACE/MODEL/manifests/TAG`` (media type ``application/vnd.docker.distribution.manifest.v2+json``, layers
with digests and sizes), each blob at ``/v2/NAMESPACE/MODEL/blobs/DIGEST`` answered with a 307 redirect to a CDN,
and the CDN honouring ``Range`` with 206 and ``Content-Range``. It serves real files (the built-in GGUF)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from typing import Any

from aiohttp import web

from loopback import LoopbackServer

MANIFEST_TYPE = "application/vnd.docker.distribution.manifest.v2+json"


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class FakeRegistry(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        self.blobs: dict[str, bytes] = {}
        self.manifests: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.requests: list[tuple[str, str | None]] = []  # (path, Range header) of every request
        self.violations: list[str] = []
        self.cut_after: int | None = None  # the next reply longer than this stops after it (a dropped connection)
        self.corrupt = False  # blobs are served with a byte changed
        self.files: dict[str, str] = {}  # digest -> a file on disk served as it is (sendfile: the server is not the limit)
        # What a hostile registry does (tests/frontends/test_pull_hostile.py):
        self.extra: dict[str, bytes] = {}  # digest -> bytes served after the blob's own (more than its declared size)
        self.trickle: float | None = None  # seconds between single bytes of a blob (a server too slow to finish)

    def add(self, name: str, gguf: bytes, license_text: str = "Apache License\nVersion 2.0, January 2004") -> str:
        """Publish ``name`` (``namespace/model:tag``) with ``gguf`` as its model layer; its digest."""
        path, tag = name.rsplit(":", 1)
        namespace, model = path.split("/")
        layers = []
        for media, data in (("application/vnd.ollama.image.model", gguf),
                            ("application/vnd.ollama.image.license", license_text.encode()),
                            ("application/vnd.ollama.image.params", json.dumps({"stop": ["<|im_end|>"]}).encode())):
            digest = digest_of(data)
            self.blobs[digest] = data
            layers.append({"mediaType": media, "digest": digest, "size": len(data)})
        config = json.dumps({"model_format": "gguf", "model_family": "llama"}).encode()
        self.blobs[digest_of(config)] = config
        self.manifests[(namespace, model, tag)] = {
            "schemaVersion": 2, "mediaType": MANIFEST_TYPE,
            "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": digest_of(config),
                       "size": len(config)},
            "layers": layers}
        return layers[0]["digest"]

    def add_file(self, name: str, path: str) -> str:
        """Publish ``name`` with the file at ``path`` as its model layer, served from disk; its digest."""
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 24):
                h.update(chunk)
        digest = self.add(name, b"")
        manifest = next(m for m in self.manifests.values() if m["layers"][0]["digest"] == digest)
        real = "sha256:" + h.hexdigest()
        manifest["layers"][0] = {**manifest["layers"][0], "digest": real, "size": os.path.getsize(path)}
        self.files[real] = path
        return real

    def manifest(self, name: str) -> dict[str, Any]:
        """The manifest of ``name`` (``namespace/model:tag``), to change as a hostile registry would."""
        path, tag = name.rsplit(":", 1)
        namespace, model = path.split("/")
        return self.manifests[(namespace, model, tag)]

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/v2/{namespace}/{model}/manifests/{tag}", self._manifest)
        app.router.add_get("/v2/{namespace}/{model}/blobs/{digest}", self._blob)
        app.router.add_get("/cdn/{digest}", self._cdn)

    def blob_requests(self, digest: str) -> list[str | None]:
        """The Range header of every request for the bytes of blob ``digest`` (None: the whole)."""
        return [r for p, r in self.requests if p == f"/cdn/{digest}"]

    async def _manifest(self, request: web.Request) -> web.Response:
        self.requests.append((request.path, None))
        if MANIFEST_TYPE not in request.headers.get("Accept", ""):
            self.violations.append(f"manifest asked for without Accept: {MANIFEST_TYPE}")
        key = (request.match_info["namespace"], request.match_info["model"], request.match_info["tag"])
        found = self.manifests.get(key) or next(
            (m for (ns, mo, tag), m in self.manifests.items()
             if (ns, mo) == key[:2] and tag.casefold() == key[2].casefold()), None)  # hf.co: tags in any case
        if found is None:
            return web.json_response({"errors": [{"code": "MANIFEST_UNKNOWN", "message": "manifest unknown"}]},
                                     status=404)
        return web.Response(body=json.dumps(found).encode(), content_type=MANIFEST_TYPE)

    async def _blob(self, request: web.Request) -> web.Response:
        self.requests.append((request.path, request.headers.get("Range")))
        digest = request.match_info["digest"]
        if digest not in self.blobs and digest not in self.files:
            return web.json_response({"errors": [{"code": "BLOB_UNKNOWN"}]}, status=404)
        raise web.HTTPTemporaryRedirect(f"{self.url}/cdn/{digest}")

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        rng = request.headers.get("Range")
        self.requests.append((request.path, rng))
        digest = request.match_info["digest"]
        if digest in self.files and not self.corrupt and self.cut_after is None:
            return web.FileResponse(self.files[digest], headers={"Content-Type": "application/octet-stream"})
        data = self.blobs.get(digest)
        if data is None and digest in self.files:
            with open(self.files[digest], "rb") as f:
                data = f.read()
        if data is None:
            return web.Response(status=404)
        if self.corrupt:
            data = data[:-1] + bytes([data[-1] ^ 1])
        start = 0
        if rng:
            start = int(rng.removeprefix("bytes=").split("-")[0])
            if start >= len(data):
                return web.Response(status=416, headers={"Content-Range": f"bytes */{len(data)}"})
        body = data[start:] + self.extra.get(digest, b"")
        reply = web.StreamResponse(status=206 if rng else 200, headers={
            "Content-Length": str(len(body)), "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream",
            **({"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"} if rng else {})})
        await reply.prepare(request)
        cut = self.cut_after if self.cut_after is not None and len(body) > self.cut_after else None
        if cut is not None:
            self.cut_after = None
        sent = 0
        if self.trickle is not None:
            for i in range(len(body)):
                await reply.write(body[i:i + 1])
                await asyncio.sleep(self.trickle)
            return reply
        for i in range(0, len(body), 1 << 20):
            piece = body[i:i + (1 << 20)]
            if cut is not None and sent + len(piece) > cut:
                await reply.write(piece[:cut - sent])
                request.transport.close()  # the connection drops mid-file
                return reply
            await reply.write(piece)
            sent += len(piece)
        await reply.write_eof()
        return reply
