"""A fresh PID namespace for every tool worker (the whole tree dies with it) and a fresh network namespace for a
tool that declares no network: it sees only its own loopback, which is down, so
no host, no service on this machine's loopback and no abstract Unix socket (they belong to a network namespace) can
be reached, whatever else fails. Needs unprivileged user namespaces (most Linux desktops; off on some hardened
kernels and in some containers): :func:`isolate_network` then returns ``False`` and the rest of the jail holds."""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1

_in_user_namespace = False


def _map_ids(uid: int, gid: int) -> None:
    try:  # keep our own uid and gid inside, so files we own stay ours
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError:
        pass


def load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _unshare_user(libc: ctypes.CDLL, more: int) -> bool:
    """A new user namespace (with ``more`` namespaces), keeping our own uid and gid inside."""
    global _in_user_namespace
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | more) != 0:
        return False
    _map_ids(uid, gid)
    _in_user_namespace = True
    return True


def isolate_processes() -> bool:
    """Move on into a new user and PID namespace, as its first process: whatever the tool manages to start lives
    in that namespace and dies with it. The calling process stays behind, waits, and exits with the status of the
    one that goes on (which dies too if it is killed). ``True`` in the process that goes on, when it was done."""
    libc = load_libc()
    if libc is None or not _unshare_user(libc, CLONE_NEWPID):
        return False
    pid = os.fork()  # the child is PID 1 of the new namespace
    if pid == 0:
        libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # killed with the process that waits for it
        return True
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):  # die the same way, so the sandbox reports the signal
        import signal

        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def isolate_network() -> bool:
    """Move this process into a new network namespace (and user namespace, unless it has one). ``True`` when done."""
    libc = load_libc()
    if libc is None:
        return False
    if _in_user_namespace:  # our own user namespace already: a network namespace needs no more
        return libc.unshare(CLONE_NEWNET) == 0
    return _unshare_user(libc, CLONE_NEWNET)


def available() -> bool:
    """Whether this kernel lets an unprivileged process make a user namespace (for doctor)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/sys/user/max_user_namespaces") as f:
            if int(f.read().strip() or "0") == 0:
                return False
    except (OSError, ValueError):
        pass
    try:
        with open("/proc/sys/kernel/unprivileged_userns_clone") as f:
            return f.read().strip() != "0"
    except OSError:
        return True
