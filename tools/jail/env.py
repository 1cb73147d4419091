"""What a tool's worker starts with: the environment it sees (nothing secret: API keys, tokens and ASSISTANT_*
stay here) and the import path it gets (:mod:`tools.jail.importpath`). Used by the sandbox runner, the zygote's workers
and the plugins' hook hosts alike."""

from __future__ import annotations

import os

from tools.jail.importpath import worker_path

# What of this process's environment a worker sees: nothing secret (API keys, tokens, ASSISTANT_*), only what
# Python, TLS and the locale need; a tool that declares network also gets the proxy settings.
_ENV_KEEP = ("PATH", "LANG", "LANGUAGE", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR", "SYSTEMROOT", "TMPDIR")
_ENV_NETWORK = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


def worker_env(network: bool, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k in _ENV_KEEP or k.startswith("LC_") or (network and k in _ENV_NETWORK)}
    # The worker imports what this process imports (a checkout, a venv, a wheel), never from the folder the user
    # launched it in (``python -m`` puts the working directory on sys.path).
    env["PYTHONPATH"] = os.pathsep.join(worker_path(home))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONSAFEPATH"] = "1"  # its working directory is not on sys.path
    env["PYDANTIC_DISABLE_PLUGINS"] = "__all__"  # no other package's code is loaded into the worker by pydantic
    env["MALLOC_ARENA_MAX"] = "2"  # threads' malloc arenas would eat the address-space limit
    env["HOME"] = home
    return env
