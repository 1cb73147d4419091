"""A small seccomp-BPF filter, installed with ctypes (no extra dependency), for sandbox workers on Linux.

It makes ``execve`` fail for every tool (not for the MCP launcher, which must start its server), and, for tools that declare no network, makes creating an
IPv4/IPv6 socket fail with EPERM. It is the wall behind the audit-hook tripwire: it also stops code
that never goes through Python (C extensions, ctypes). A syscall made through another ABI (i386's
``int 0x80`` or x32 on x86-64), whose numbers the filter does not know, kills the process. Elsewhere
:func:`install` returns ``False``."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import platform
import socket
import sys
from collections.abc import Iterator

_SONAMES = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}  # what pyseccomp looks up, by the names glibc's loader knows


@contextlib.contextmanager
def _found_by_the_loader() -> Iterator[None]:
    """``ctypes.util.find_library`` answers pyseccomp's two look-ups from the dynamic loader itself (``dlopen`` by
    soname) while it loads: the stock search runs ``ldconfig -p`` in a child process for each, two processes and
    about 20 ms of every question's start. A name the loader does not know is searched for as before (musl, another
    soname)."""
    import ctypes.util

    stock = ctypes.util.find_library

    def find(name: str) -> str | None:
        soname = _SONAMES.get(name)
        if soname is not None:
            try:
                ctypes.CDLL(soname)
                return soname
            except OSError:
                pass
        return stock(name)

    ctypes.util.find_library = find
    try:
        yield
    finally:
        ctypes.util.find_library = stock


try:  # loaded with this module, before any jail: finding libseccomp runs ldconfig, which a jail would not allow
    with _found_by_the_loader():
        import pyseccomp as _libseccomp
except (ImportError, OSError, RuntimeError):  # the binding, or libseccomp.so.2 it loads, is missing
    _libseccomp = None

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
# Changes of a file's metadata (modes, owners, times, extended attributes): Landlock has no right for them, so the
# filter refuses them outright, for every tool and MCP server (the allow-list simply leaves them out).
METADATA = {
    "x86_64": (90, 91, 92, 93, 94, 132, 235, 260, 261, 268, 280, 188, 189, 190, 197, 198, 199, 452, 463, 466),
    "aarch64": (5, 6, 7, 14, 15, 16, 52, 53, 54, 55, 88, 452, 463, 466),
}


class _Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Insn))]


def program(arch: int, nr: dict[str, int], deny_network: bool, deny_exec: bool = True,
            metadata: tuple[int, ...] = ()) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) tuples; jumps are relative, resolved from the labels ALLOW/DENY/KILL."""
    body: list[tuple[int, str | int, str | int, int]] = [
        (BPF_LD_W_ABS, 0, 0, OFFSET_ARCH),
        (BPF_JEQ_K, 0, "KILL", arch),  # another ABI: its syscall numbers mean other calls
        (BPF_LD_W_ABS, 0, 0, OFFSET_NR),
        (BPF_JGE_K, "KILL", 0, X32_SYSCALL_BIT),  # x32 shares x86-64's arch value, with this bit set
    ]
    if deny_exec:
        body += [(BPF_JEQ_K, "DENY", 0, nr["execve"]), (BPF_JEQ_K, "DENY", 0, nr["execveat"])]
    body += [(BPF_JEQ_K, "DENY", 0, n) for n in metadata]
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
    insns = program(arch, nr, deny_network, deny_exec, METADATA.get(platform.machine(), ()))
    array = (_Insn * len(insns))(*[_Insn(*i) for i in insns])
    prog = _Prog(len(insns), array)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0
    except (OSError, AttributeError):
        return False


# An allow-list, for libseccomp (through pyseccomp, a ctypes binding of it): what a Python tool needs to compute,
# read and write the files Landlock lets it, use threads, and, when it declares network, talk TCP/UDP over IPv4
# and IPv6. Everything else fails with EPERM: changes of metadata (chmod, chown, utime families, setxattr and
# removexattr: Landlock cannot confine them to the granted folders), new processes (fork, vfork, clone without CLONE_THREAD, clone3,
# execve), io_uring, ptrace, process_vm_*, bpf, perf, keyctl, mount, unshare, setns, sockets of other families.
ALLOWED = """
read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek close close_range
openat open creat stat fstat lstat newfstatat statx fstatfs statfs access faccessat faccessat2 readlink readlinkat
getdents64 getcwd chdir fchdir mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink
symlinkat truncate ftruncate fsync fdatasync fallocate fadvise64 flock fcntl dup dup2 dup3 pipe pipe2 ioctl
umask getxattr fgetxattr lgetxattr listxattr flistxattr llistxattr
mmap munmap mprotect mremap madvise brk msync mincore mlock munlock membarrier
futex futex_waitv set_robust_list get_robust_list rseq set_tid_address gettid getpid getppid getuid geteuid getgid
getegid getgroups getresuid getresgid getpgrp getpgid getsid getrlimit prlimit64 setrlimit getrusage sysinfo uname
sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_getscheduler sched_get_priority_max
sched_get_priority_min getpriority
rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait rt_sigsuspend sigaltstack tgkill tkill
restart_syscall
clock_gettime clock_getres clock_nanosleep nanosleep gettimeofday time times alarm getitimer setitimer
timer_create timer_settime timer_gettime timer_delete timerfd_create timerfd_settime timerfd_gettime
poll ppoll select pselect6 epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2 eventfd eventfd2
getrandom exit exit_group wait4 waitid arch_prctl prctl capget
socketpair getsockname getpeername getsockopt setsockopt shutdown
""".split()
NETWORK = "connect sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg bind listen accept accept4".split()
_CLONE_THREAD = 0x00010000


def allowlist_available() -> bool:
    """libseccomp and its binding are here: :func:`install_allowlist` can install the allow-list."""
    return _libseccomp is not None and sys.platform.startswith("linux")


PROCESSES = "fork vfork clone clone3 execve execveat wait4 waitid kill".split()


def install_allowlist(network: bool, processes: bool = False) -> bool:
    """Install the allow-list on this process (irreversible). ``True`` when it is in force; ``False`` where
    libseccomp or its binding is missing (the deny-list of :func:`install` is then the fallback). ``processes``:
    it may start programs (an MCP server, which is a program of its own; Landlock still decides which)."""
    sc = _libseccomp
    if sc is None or not sys.platform.startswith("linux"):
        return False
    try:
        f = sc.SyscallFilter(defaction=sc.ERRNO(errno.EPERM))  # another ABI (i386, x32): killed by libseccomp
        for name in ALLOWED + (NETWORK if network else ["sendto", "recvfrom", "sendmsg", "recvmsg"]):
            try:
                f.add_rule(sc.ALLOW, name)
            except (ValueError, RuntimeError, OSError):
                continue  # not a syscall on this architecture
        if processes:
            for name in PROCESSES:
                f.add_rule(sc.ALLOW, name)
        else:
            # threads only: clone with CLONE_THREAD; clone3 hides its flags from seccomp, so it reports ENOSYS and
            # glibc falls back to clone
            f.add_rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, _CLONE_THREAD))
            f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        families = [socket.AF_INET, socket.AF_INET6] if network else []
        for family in families:
            f.add_rule(sc.ALLOW, "socket", sc.Arg(0, sc.EQ, family))
        f.load()
        return True
    except (OSError, RuntimeError, ValueError):
        return False
