"""Starts an MCP server under the sandbox's limits, then becomes it (``exec``): an address-space and a CPU
limit, and, unless the user granted it the network, a seccomp filter that makes IPv4/IPv6 sockets fail.

Usage: ``python -I mcp_jail.py '{"memory_mb": 1024, "cpu_seconds": 600, "network": false}' COMMAND [ARG...]``.
Run by path in isolated mode, so that nothing of the assistant's environment reaches the server; it imports
only the standard library and the ``seccomp`` module next to it. The limits and the filter survive ``exec``."""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    limits = json.loads(sys.argv[1])
    command = sys.argv[2:]
    try:
        import resource
    except ImportError:  # not POSIX: no limits to set
        resource = None  # type: ignore[assignment]
    if resource is not None:
        if limits.get("memory_mb"):
            memory = int(limits["memory_mb"]) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if limits.get("cpu_seconds"):
            cpu = int(limits["cpu_seconds"])
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    if not limits.get("network"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import seccomp  # type: ignore[import-not-found]

        seccomp.install(deny_network=True, deny_exec=False)
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"cannot start {command[0]}: {e.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main()
