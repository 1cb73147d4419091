"""Workers of our own pure tools forked from a copy of this process instead of started as a new interpreter.

A new interpreter importing the tool framework costs about 0.15 CPU-s, more than the rest of a question answered
by rule. A *zygote* is forked once, early, while this process has one thread and has read no settings (so no
secret of the config is in its memory): the modules the workers need are already loaded in it. Each worker it
forks then goes through the same ``tools.jail.worker.main()`` as an exec'd one (its own session, a private working
folder, the scrubbed environment and import path, then its PID namespace, limits, Landlock and seccomp) and speaks
the same protocol on its pipes.

Only built-in tools that declare no network are started this way (:func:`eligible`): a fork carries a copy of this
process's memory as it was before the settings were read, which a tool that reaches no network cannot send
anywhere but back to this process and into the folders it was granted on this machine.
Third-party code always starts as a fresh interpreter. Where fork is unavailable (not Linux), or the zygote is gone,
workers start as before.

Protocol on the zygote's socket: the parent sends one JSON line (``{"env": ..., "home": ...}``) with three file
descriptors (the worker's stdin, stdout and stderr); the zygote answers ``{"pid": n}``. When a worker ends, the
zygote writes ``{"zygote_exit": code}`` on the worker's stdout (code as ``asyncio`` gives it: negative for a
signal), then closes it, so the parent reads the end of the worker as it reads an exec'd one's."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import time
from typing import Any, Sequence

EXIT_PREFIX = b'{"zygote_exit":'
_REPLY_LIMIT = 4096


def eligible(tool: Any) -> bool:
    """A tool whose worker may be forked: our own code, reaching no network (what it may read and write of the
    user's own folders, it may with or without the fork)."""
    perms = tool.permissions
    ours = tool.source == "built-in" and type(tool).__module__.startswith("tools.")
    return ours and not tool.external and not tool.keeps_state and not perms.network and not perms.ports


class Zygote:
    """The parent's end: a socket to the forked zygote, and the lock that keeps one request on it at a time."""

    def __init__(self, sock: socket.socket, pid: int) -> None:
        self.sock = sock
        self.pid = pid
        self.lock = asyncio.Lock()
        self.gone = False

    @classmethod
    def start(cls, preload: Sequence[str] = ()) -> "Zygote | None":
        """Fork the zygote now, or ``None`` where it cannot be: not Linux, or this process runs threads (a fork
        would copy locks they may hold). Call it before reading settings, before any event loop runs. ``preload``:
        the modules of the tools its workers run, loaded once here (the jail names no tool of its own)."""
        if not sys.platform.startswith("linux") or _threads() > 1:
            return None
        for module in preload:
            importlib.import_module(module)
        import sqlite3  # noqa: F401 - the worker loads it before its jail

        import tools.jail.landlock  # noqa: F401
        import tools.jail.namespaces  # noqa: F401
        import tools.jail.seccomp  # noqa: F401
        import tools.jail.worker  # noqa: F401

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # nothing buffered here is written twice
        pid = os.fork()
        if pid == 0:  # the zygote
            code = 1
            try:
                ours.close()
                _serve(theirs)
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        ours.setblocking(False)
        return cls(ours, pid)

    async def spawn(self, env: dict[str, str], home: str, stderr: int, limit: int) -> "Forked":
        """A worker forked from the zygote, its pipes wrapped as an ``asyncio`` subprocess's are."""
        loop = asyncio.get_running_loop()
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            async with self.lock:
                socket.send_fds(self.sock, [json.dumps({"env": env, "home": home}).encode() + b"\n"],
                                [in_r, out_w, stderr])
                reply = b""
                while not reply.endswith(b"\n"):
                    chunk = await asyncio.wait_for(loop.sock_recv(self.sock, _REPLY_LIMIT), 10)
                    if not chunk:
                        raise OSError("the zygote is gone")
                    reply += chunk
            pid = int(json.loads(reply)["pid"])
        except BaseException:
            self.gone = True
            os.close(in_w)
            os.close(out_r)
            raise
        finally:
            os.close(in_r)
            os.close(out_w)
        return await Forked.wrap(pid, in_w, out_r, limit)

    def close(self) -> None:
        """End the zygote (it reads the end of its socket, stops what workers are left and exits) and reap it, so
        its CPU time and its workers' count as this process's children's."""
        if self.sock.fileno() < 0:
            return
        self.sock.close()
        for _ in range(200):
            try:
                if os.waitpid(self.pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                return
            time.sleep(0.005)
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


class Forked:
    """What :class:`tools.jail.runner.Worker` uses of an ``asyncio.subprocess.Process``, for a forked worker."""

    def __init__(self, pid: int, stdin: asyncio.StreamWriter, stdout: "_Reader") -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None

    @classmethod
    async def wrap(cls, pid: int, stdin_fd: int, stdout_fd: int, limit: int) -> "Forked":
        """``limit``: the longest line the runner reads (its protocol's)."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=limit, loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(stdout_fd, "rb"))
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(stdin_fd, "wb"))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        forked = cls(pid, writer, _Reader(reader))
        forked.stdout.owner = forked
        return forked

    async def wait(self) -> int:
        while self.returncode is None:
            if not await self.stdout.readline():
                break
        self.stdin.close()
        return self.returncode if self.returncode is not None else -signal.SIGKILL

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class _Reader:
    """The worker's stdout: its lines, and the zygote's last line about its end read as the end of the stream."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.owner: Forked | None = None

    async def readline(self) -> bytes:
        if self.owner is not None and self.owner.returncode is not None:
            return b""
        line = await self.reader.readline()
        if line.startswith(EXIT_PREFIX):
            if self.owner is not None:
                self.owner.returncode = int(json.loads(line)["zygote_exit"])
            return b""
        return line


def _threads() -> int:
    """This process's threads as the kernel counts them (Python's and any a library started)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _serve(sock: socket.socket) -> None:
    """The zygote's loop: fork a worker per request, and say each one's end on its stdout."""
    from tools.jail import namespaces

    libc = namespaces.load_libc()
    if libc is not None:
        libc.prctl(namespaces.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the process it serves
    os.setpgrp()  # the terminal's Ctrl+C is the parent's to handle
    _scrub_environment()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, sock.fileno())
    os.closerange(sock.fileno() + 1, _max_fd())
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ends: dict[int, int] = {}  # worker pid -> a copy of its stdout, where its end is said
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is wake_r:
                os.read(wake_r, 4096)
                _reap(ends)
                continue
            try:
                data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
            except OSError:
                data, fds = b"", []
            if not data:  # the process it serves closed its end: stop what is left, reap it, go
                for pid in ends:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                while True:
                    try:
                        os.wait()
                    except ChildProcessError:
                        return
            if len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                continue
            pid = _fork_worker(json.loads(data), fds)
            ends[pid] = fds[1]
            os.close(fds[0])
            os.close(fds[2])
            sock.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def _scrub_environment() -> None:
    """Forget the environment this process was started with (an API key may be in it): Python's copy, and the block
    the kernel shows as /proc/self/environ, which a fork inherits and ``os.environ.clear()`` leaves as it was."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.strlen.restype = ctypes.c_size_t
        libc.strlen.argtypes = [ctypes.c_void_p]
        block = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
        i = 0
        while block[i]:
            ctypes.memset(block[i], 0, libc.strlen(block[i]))
            i += 1
    except (OSError, ValueError, AttributeError):
        pass
    os.environ.clear()


def _reap(ends: dict[int, int]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        fd = ends.pop(pid, None)
        if fd is not None:
            try:
                os.write(fd, EXIT_PREFIX + str(code).encode() + b"}\n")
            except OSError:
                pass  # nobody reads it any more
            os.close(fd)


def _fork_worker(request: dict[str, Any], fds: list[int]) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:  # the worker: what `python -m tools.jail.worker` would be, started in its private folder
        os.setsid()
        signal.set_wakeup_fd(-1)  # the zygote's handlers, as a new interpreter has them
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, _max_fd())  # the zygote's socket, its wake-up pipe, other workers' pipes
        os.chdir(request["home"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[:] = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.stdin = open(0, encoding="utf-8", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
        from tools.jail import worker

        worker.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - said on the worker's stderr (the tools' log), as an exec'd one would
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    return 0  # not reached


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 1024
