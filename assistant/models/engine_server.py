"""The embedded engine's own OpenAI-compatible HTTP server, for ``backend = "openai"`` and ``hosts`` on machines
without Ollama (and for the end-to-end tests): llama.cpp's server through ``xllamacpp``, on loopback only, with an
API key (a random one per process unless given) and no CORS, so that no other program or web page on the machine
can use it.

    python -m assistant.models.engine_server [--model GGUF] [--port N] [--threads N] [--alias NAME]

It prints ``OPENAI_BASE_URL=…`` and ``OPENAI_API_KEY=…`` on its first two lines, then serves until it is stopped."""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import threading

from assistant.models import embedded, model_file


def serve(model: str, port: int, threads: int, alias: str, key: str, n_ctx: int = 4096) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = {alias}
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = -1
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.api_keys = [key]
    params.cors_origins = ""  # no browser page may call it
    server = xllamacpp.Server(params)
    print(f"OPENAI_BASE_URL={server.listening_address}/v1", flush=True)
    print(f"OPENAI_API_KEY={key}", flush=True)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    done.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a GGUF chat model (default: SmolLM2-135M-Instruct, fetched on first use)")
    ap.add_argument("--port", type=int, default=0, help="loopback port (default: any free one)")
    ap.add_argument("--threads", type=int, default=None, help="default: as many as cores are idle at start, at least 1")
    ap.add_argument("--alias", default="smollm2", help="the model name clients use")
    ap.add_argument("--api-key", default=os.environ.get("ASSISTANT_ENGINE_KEY"), help="default: a random key")
    a = ap.parse_args()
    if not embedded.available():
        sys.exit("assistant: the embedded engine is not installed: pip install 'assistant[embedded]'")
    model = a.model or embedded.default_model_path() or str(model_file.fetch())
    problem = embedded.gguf.chat_template_problem(model)
    if problem:
        sys.exit(f"assistant: {model}: {problem}")
    serve(model, a.port, a.threads or embedded.default_threads(), a.alias, a.api_key or secrets.token_urlsafe(24))


if __name__ == "__main__":
    main()
