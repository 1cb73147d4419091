"""A fresh network namespace for a tool that declares no network: it sees only its own loopback, which is down, so
no host, no service on this machine's loopback and no abstract Unix socket (they belong to a network namespace) can
be reached, whatever else fails. Needs unprivileged user namespaces (most Linux desktops; off on some hardened
kernels and in some containers): :func:`isolate_network` then returns ``False`` and the rest of the jail holds."""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000


def isolate_network() -> bool:
    """Move this process into a new user and network namespace. ``True`` when it is done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return False
    try:  # keep our own uid and gid inside, so files we own stay ours
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError:
        pass
    return True


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
