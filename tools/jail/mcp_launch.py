"""Starts an MCP server in the sandbox's jail, then becomes it (``exec``): an address-space and a CPU limit;
Landlock (it reads the interpreter, system libraries, its own program's folder and the folders it was granted,
writes only those granted folders, and reaches TCP only when granted the network); its own network namespace when
it has no network (where the kernel allows); the seccomp allow-list (with process creation allowed: a server is a
program of its own, and often starts one; Landlock decides what it may run). All of it survives ``exec``.

Its own user and PID namespace (where the kernel allows): the server is the namespace's first process, so when it
exits or is killed, everything it started dies with it; the launcher waits for it and dies with the assistant
(``PR_SET_PDEATHSIG``), taking the namespace with it. ``RLIMIT_NPROC`` caps the processes and threads in the
namespace (set inside it, the kernel counts that namespace's processes against it, and binds even a user mapped
to root). A folder that
may never be granted (:mod:`grants`) is refused before anything starts.

Usage: ``python -I mcp_jail.py '{"memory_mb": 1024, "cpu_seconds": 600, "network": false, "folders": [],
"processes": 128, "protected": [...]}' COMMAND
[ARG...]``. Run by path in isolated mode, so that nothing of the assistant's environment reaches the server; it
imports only the standard library and the jail modules next to it (and pyseccomp). What it enforces on this
machine is what :func:`tools.jail.enforced.report` says."""

from __future__ import annotations

import json
import os
import shutil
import sys

_READ = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/etc/resolv.conf",
         "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/localtime", "/etc/ld.so.cache", "/etc/passwd",
         "/etc/group", "/dev/null", "/dev/urandom", "/dev/zero", "/opt")


def _own_proc() -> str:
    """This process's /proc folder as the host's procfs names it (in a PID namespace ``getpid()`` is 1)."""
    try:
        return "/proc/" + os.readlink("/proc/self")
    except OSError:
        return "/proc/self"


def main() -> None:
    limits = json.loads(sys.argv[1])
    command = sys.argv[2:]
    try:
        import resource
    except ImportError:  # not POSIX: no limits to set
        pass
    else:
        if limits.get("memory_mb"):
            memory = int(limits["memory_mb"]) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if limits.get("cpu_seconds"):
            cpu = int(limits["cpu_seconds"])
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    if sys.platform.startswith("linux"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import grants
        import landlock
        import namespaces
        import seccomp  # with libseccomp, loaded before the jail
        network = bool(limits.get("network"))
        folders = [os.path.abspath(os.path.expanduser(f)) for f in limits.get("folders") or []]
        for folder in folders:
            why = grants.refusal(folder, limits.get("protected") or [])
            if why is not None:
                print(f"the folder {folder} can never be granted: {why}", file=sys.stderr)
                sys.exit(126)
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(namespaces.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # dies with the assistant
        namespaces.isolate_processes()  # from here on: the namespace's first process (where the kernel allows)
        if resource is not None and limits.get("processes"):
            # set inside the namespace: the kernel then counts this namespace's processes against it, and the
            # user's others against the user's own limit
            n = int(limits["processes"])
            resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
        for folder in folders:
            os.makedirs(folder, exist_ok=True)
        program = shutil.which(command[0]) if command else None
        # its program's folder, and the folder of any script or file its command line names (python server.py)
        named = [os.path.dirname(os.path.realpath(a)) for a in command[1:] if os.path.isfile(a)]
        read = [*_READ, sys.prefix, sys.base_prefix, sys.exec_prefix, *(p for p in sys.path if p), *named,
                *([os.path.dirname(os.path.realpath(program)), os.path.dirname(program)] if program else []),
                *([os.path.abspath(limits["cwd"])] if limits.get("cwd") else []), _own_proc()]
        if not network:
            namespaces.isolate_network()
        landlock.restrict(landlock.Jail(read=read, write=folders, connect_ports=None if network else []))
        if not seccomp.install_allowlist(network=network, processes=True):
            seccomp.install(deny_network=not network, deny_exec=False)
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"cannot start {command[0]}: {e.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main()
