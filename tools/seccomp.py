"""A small seccomp-BPF filter, installed with ctypes (no extra dependency), for sandbox workers on Linux.

It makes ``execve`` fail for every tool (not for the MCP launcher, which must start its server), and, for tools that declare no network, makes creating an
IPv4/IPv6 socket fail with EPERM. It is the wall behind the audit-hook tripwire: it also stops code
that never goes through Python (C extensions, ctypes). A syscall made through another ABI (i386's
``int 0x80`` or x32 on x86-64), whose numbers the filter does not know, kills the process. Elsewhere
:func:`install` returns ``False``."""

from __future__ import annotations

import ctypes
import errno
import platform
import socket
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_KILL_PROCESS = 0x80000000
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_RET_K = 0x06
X32_SYSCALL_BIT = 0x40000000
OFFSET_NR, OFFSET_ARCH, OFFSET_ARG0 = 0, 4, 16

# audit arch, and the syscall numbers we filter
ARCHES = {
    "x86_64": (0xC000003E, {"socket": 41, "execve": 59, "execveat": 322}),
    "aarch64": (0xC00000B7, {"socket": 198, "execve": 221, "execveat": 281}),
}


class _Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Insn))]


def program(arch: int, nr: dict[str, int], deny_network: bool, deny_exec: bool = True) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) tuples; jumps are relative, resolved from the labels ALLOW/DENY/KILL."""
    body: list[tuple[int, str | int, str | int, int]] = [
        (BPF_LD_W_ABS, 0, 0, OFFSET_ARCH),
        (BPF_JEQ_K, 0, "KILL", arch),  # another ABI: its syscall numbers mean other calls
        (BPF_LD_W_ABS, 0, 0, OFFSET_NR),
        (BPF_JGE_K, "KILL", 0, X32_SYSCALL_BIT),  # x32 shares x86-64's arch value, with this bit set
    ]
    if deny_exec:
        body += [(BPF_JEQ_K, "DENY", 0, nr["execve"]), (BPF_JEQ_K, "DENY", 0, nr["execveat"])]
    if deny_network:
        body += [
            (BPF_JEQ_K, 0, "ALLOW", nr["socket"]),
            (BPF_LD_W_ABS, 0, 0, OFFSET_ARG0),
            (BPF_JEQ_K, "DENY", 0, socket.AF_INET),
            (BPF_JEQ_K, "DENY", 0, socket.AF_INET6),
        ]
    labels = {"ALLOW": len(body), "DENY": len(body) + 1, "KILL": len(body) + 2}
    body += [(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW), (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM),
             (BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS)]

    def jump(i: int, target: str | int) -> int:
        return labels[target] - (i + 1) if isinstance(target, str) else target

    return [(code, jump(i, jt), jump(i, jf), k) for i, (code, jt, jf, k) in enumerate(body)]


def install(deny_network: bool, deny_exec: bool = True) -> bool:
    """Install the filter on this process (irreversible; inherited by its children and kept across ``exec``).
    ``True`` when it is in force. ``deny_exec=False``: for a launcher that must still ``exec`` the program
    it confines (an MCP server)."""
    if not sys.platform.startswith("linux") or platform.machine() not in ARCHES:
        return False
    arch, nr = ARCHES[platform.machine()]
    insns = program(arch, nr, deny_network, deny_exec)
    array = (_Insn * len(insns))(*[_Insn(*i) for i in insns])
    prog = _Prog(len(insns), array)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0
    except (OSError, AttributeError):
        return False
