"""The wall: what runs third-party and tool code confined by the kernel, and the only names the rest of the
assistant uses of it. Everything else in this package is the jail's own (a lint test holds both sides: no module
outside imports one of them, and none of them imports a tool, a plugin host or the assistant).

- :class:`SandboxRunner` runs a tool's ``run()`` in a warm confined worker (``runner``, ``worker``), forked from a
  :class:`Zygote` for our own pure tools (``zygote``);
- :func:`worker_command`, :func:`worker_env` and :func:`new_home` start such a worker by hand (the plugins' rule
  hosts); ``homes`` makes each worker's private folder where the next process removes it if this one dies;
- :func:`mcp_command` wraps an MCP server's command line in the same jail (``mcp_launch``);
- :class:`Grants` (with :class:`Decision`, :class:`Request`, :func:`refusal`) is what the user granted a plugin or
  a server, and what can never be granted;
- :func:`report` says what this machine's kernel enforces (Landlock, seccomp, namespaces).

Loaded at first use, as ``tools`` is: importing :mod:`tools.jail.zygote` at start-up loads nothing heavy."""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

try:  # where the process was launched, before anything changed folder: Python put it on sys.path (importpath)
    LAUNCHED_IN: str | None = os.getcwd()
except OSError:  # launched in a folder since removed
    LAUNCHED_IN = None

if TYPE_CHECKING:
    from tools.jail.env import worker_env
    from tools.jail.homes import new_home
    from tools.jail.grants import Decision, Grants, Request, refusal
    from tools.jail.enforced import JailReport, report
    from tools.jail.runner import SandboxRunner
    from tools.jail.zygote import Zygote

_FROM = {
    "SandboxRunner": "tools.jail.runner", "Zygote": "tools.jail.zygote", "worker_env": "tools.jail.env",
    "new_home": "tools.jail.homes",
    **dict.fromkeys(("Decision", "Grants", "Request", "refusal"), "tools.jail.grants"),
    **dict.fromkeys(("JailReport", "report"), "tools.jail.enforced"),
}

__all__ = ["LAUNCHED_IN", "Decision", "Grants", "JailReport", "Request", "SandboxRunner", "Zygote", "mcp_command",
           "new_home", "refusal", "report", "worker_command", "worker_env"]


def worker_command() -> list[str]:
    """The command line of a confined worker: it reads what to build and its jail from its first line of input."""
    return [sys.executable, "-m", "tools.jail.worker"]


def mcp_command(limits: dict[str, Any], command: str, args: list[str]) -> list[str]:
    """An MCP server's command line, started in the jail with ``limits`` (memory_mb, cpu_seconds, network, folders,
    processes, protected), run by path in isolated mode so nothing of the assistant's environment reaches it."""
    import json

    launcher = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp_launch.py")
    return [sys.executable, "-I", launcher, json.dumps(limits), command, *args]


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module 'tools.jail' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)  # not kept here: a test that patches the module is heard
