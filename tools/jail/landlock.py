"""Landlock (Linux 5.13+): the kernel holds a process to the files, TCP ports and scopes it was granted, and
nothing the process does afterwards can widen them. Three syscalls through ctypes, no dependency.

Why not the ``landlock`` package from PyPI: it is an alpha (1.0.0.dev5) that covers files only, while a tool's
jail also needs what later ABIs add: TCP ports (ABI 4), truncation (ABI 3), device ioctls (ABI 5), and scoping
of abstract Unix sockets and signals (ABI 6). What the kernel does not know is left out, and :func:`restrict`
says what was enforced."""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from dataclasses import dataclass, field

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on x86-64 and aarch64
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK, FS_MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV  # all a file (not a folder) takes


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def abi() -> int:
    """The Landlock ABI this kernel offers: 0 when it has none (too old, or not enabled at boot)."""
    libc = _libc()
    if libc is None:
        return 0
    version = libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(0, int(version))


@dataclass
class Jail:
    """What a process may reach: folders (and files) to read, folders to read and write, TCP ports to connect to
    (``None``: TCP is not restricted by Landlock)."""

    read: list[str] = field(default_factory=list)
    write: list[str] = field(default_factory=list)
    connect_ports: list[int] | None = None


def restrict(jail: Jail) -> list[str]:
    """Apply ``jail`` to this process (irreversible; inherited by its threads and children). Returns what the
    kernel now enforces, in words (empty: nothing, Landlock is missing). Paths that do not exist are skipped."""
    libc = _libc()
    version = abi()
    if libc is None or version < 1:
        return []
    fs = _FS_BY_ABI[max(v for v in _FS_BY_ABI if v <= version)]
    net = (NET_BIND_TCP | NET_CONNECT_TCP) if version >= 4 and jail.connect_ports is not None else 0
    scoped = (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if version >= 6 else 0
    attr = _RulesetAttr(fs, net, scoped)
    size = 8 if version < 4 else 16 if version < 6 else 24
    ruleset = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return []
    try:
        for paths, rights in ((jail.read, READ & fs), (jail.write, fs)):
            for path in paths:
                _allow(libc, ruleset, path, rights)
        for port in jail.connect_ports or []:
            rule = _NetPort(NET_CONNECT_TCP, port)
            if libc.syscall(SYS_ADD_RULE, ruleset, RULE_NET_PORT, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                raise OSError(ctypes.get_errno(), f"cannot allow TCP port {port}")
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot set no_new_privs")
        if libc.syscall(SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    enforced = [f"files: read {len(jail.read)} places, write {len(jail.write)} (Landlock ABI {version})"]
    if net:
        enforced.append(f"TCP: connect to port{'s' if len(jail.connect_ports or []) != 1 else ''} "
                        f"{', '.join(map(str, jail.connect_ports or [])) or 'none'}, bind none")
    if scoped:
        enforced.append("abstract Unix sockets and signals: only within the jail")
    return enforced


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not on this machine
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        if libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"cannot allow {path}")
    finally:
        os.close(fd)
