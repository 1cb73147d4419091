"""A sandbox worker: one process per tool, rebuilt from the tool's spec, answering calls over pipes.

Protocol (one JSON object per line): the parent sends ``{"tool": spec, "permissions": ..., "limits": ...}``,
the worker answers ``{"ready": true, "seccomp": bool}``; then each ``{"id": n, "args": {...}}`` gets
``{"id": n, "result": {...}, "retire": bool}``. The worker's own stdout is moved to stderr so that a
stray ``print`` cannot corrupt the protocol; the protocol goes to a private copy of the original fd.
"""

from __future__ import annotations

import asyncio
import errno
import importlib
import json
import os
import resource
import socket
import sys
import time
from pathlib import Path
from typing import Any, Sequence

PROTOCOL_FD: int | None = None
REPLY_LIMIT = 15 * 1024 * 1024  # a reply must fit the runner's line limit (16 MiB)
TOO_LARGE: Any = None
TOO_BIG: Any = None  # the fd the protocol is written to (tests use it to play a broken worker)

_SYSTEM_READS = (
    "/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/usr/lib/ssl", "/usr/share/ca-certificates",
    "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
    "/etc/services", "/etc/protocols", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null", "/dev/urandom",
    "/dev/zero", "/proc/self",
)
_NEVER = (
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "pty.spawn", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function", "os.kill", "signal.pthread_kill",
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_PATH_EVENTS = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.truncate",
                "os.symlink", "os.link", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move"}


class Guard:
    """An audit-hook tripwire: refuses, and records, what the tool's permissions do not allow."""

    def __init__(self, network: list[str], files: list[str], code: Sequence[str] = ()) -> None:
        self.hosts = {h.lower() for h in network}
        self.ips: set[str] = set()
        self.writable = [os.path.realpath(f) for f in files]
        readable = {sys.prefix, sys.base_prefix, sys.exec_prefix, *(p for p in sys.path if p), *code}
        self.readable = [os.path.realpath(p) for p in readable] + self.writable + list(_SYSTEM_READS)
        self.refusals: list[str] = []
        self.armed = False

    def refuse(self, what: str) -> None:
        self.refusals.append(what)
        print(f"sandbox refused: {what}", file=sys.stderr, flush=True)
        raise PermissionError(f"the sandbox refused {what}")

    def _under(self, path: str, roots: list[str]) -> bool:
        real = os.path.realpath(path)
        return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.armed:
            return
        if event.startswith(_NEVER):
            self.refuse(f"{event} (no tool may start processes or load native code)")
        elif event == "socket.__new__":
            if args[1] in (socket.AF_INET, socket.AF_INET6) and not self.hosts:
                self.refuse("opening a network socket (the tool declares no network access)")
        elif event in ("socket.connect", "socket.connect_ex", "socket.sendto"):
            address = args[1] if event != "socket.sendto" else args[2]
            if isinstance(address, tuple) and address and address[0] not in self.ips:
                self.refuse(f"connecting to {address[0]}:{address[1] if len(address) > 1 else ''} (allowed hosts: {sorted(self.hosts) or 'none'})")
        elif event == "socket.bind":
            address = args[1]
            if isinstance(address, tuple):
                self.refuse(f"listening on {address[0]}")
        elif event == "open":
            path, mode, flags = args
            if not isinstance(path, (str, bytes)):
                return
            path = os.fsdecode(path)
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool((flags or 0) & _WRITE_FLAGS)
            if writing and not self._under(path, self.writable):
                self.refuse(f"writing {path} (the tool may write only {self.writable or 'nothing'})")
            if not writing and not self._under(path, self.readable):
                self.refuse(f"reading {path}")
        elif event in _PATH_EVENTS:
            for a in args[:2]:
                if isinstance(a, (str, bytes)) and not self._under(os.fsdecode(a), self.writable):
                    self.refuse(f"{event} on {os.fsdecode(a)}")

    def wrap_resolver(self) -> None:
        """Resolve only the declared hosts, and remember their addresses as the ones that may be reached."""
        real = socket.getaddrinfo

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            name = os.fsdecode(host).lower() if isinstance(host, (str, bytes)) else host
            if self.armed and name not in self.hosts:
                self.refuse(f"resolving {name} (allowed hosts: {sorted(self.hosts) or 'none'})")
            infos = real(host, port, *args, **kwargs)
            self.ips.update(str(i[4][0]) for i in infos)
            return infos

        socket.getaddrinfo = getaddrinfo
        for h in self.hosts:  # literal addresses need no lookup
            try:
                socket.inet_pton(socket.AF_INET6 if ":" in h else socket.AF_INET, h)
                self.ips.add(h)
            except OSError:
                pass


def code_roots(spec: dict[str, Any]) -> list[str]:
    """Folders of code the worker imports that may not be on ``sys.path`` (an editable install maps packages through
    an import finder): the ``tools`` package's, and the tool's own top-level package's (or module's folder). Found
    by the finders alone, for the top-level name only: nothing of the tool's code runs before the jail."""
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # the `tools` package (not its folder)
    top = str(spec.get("module") or "").split(".")[0]
    found = None
    for finder in sys.meta_path if top.isidentifier() else []:
        try:
            found = finder.find_spec(top, None)
        except Exception:  # noqa: BLE001 - a finder that cannot tell
            continue
        if found is not None:
            break
    if found is not None:
        roots += [os.path.abspath(p) for p in found.submodule_search_locations or []]
        if found.origin and os.path.isabs(found.origin) and not found.submodule_search_locations:
            roots.append(os.path.dirname(os.path.abspath(found.origin)))
    if spec.get("path"):
        roots.append(os.path.dirname(os.path.abspath(spec["path"])))
    return [r for r in dict.fromkeys(roots) if os.path.isdir(r)]


def own_proc() -> str:
    """This process's folder in /proc as the host's procfs names it (inside a PID namespace ``getpid()`` is 1,
    which there names the machine's init)."""
    try:
        return "/proc/" + os.readlink("/proc/self")
    except OSError:
        return "/proc/self"


def jail(perms: dict[str, Any], code: Sequence[str] = ()) -> dict[str, Any]:
    """Confine this process for good: its own network namespace when it declares no network (where unprivileged
    user namespaces exist), Landlock for files and TCP ports, and the seccomp allow-list (the deny-list where
    libseccomp is missing). Returns what is enforced."""
    from tools.jail import landlock, namespaces, seccomp

    network = bool(perms["network"])
    netns = False if network else namespaces.isolate_network()
    read = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, *(p for p in sys.path if p and os.path.isdir(p)), *code,
                   *_SYSTEM_READS, *_LIBRARIES, own_proc()} - {"/proc/self"})
    files = landlock.restrict(landlock.Jail(read=read, write=list(perms["files"]),
                                            connect_ports=(list(perms.get("ports") or []) or None) if network else []))
    allowlist = seccomp.install_allowlist(network=network)
    filtered = allowlist or seccomp.install(deny_network=not network)
    return {"landlock": files, "seccomp": "allow-list" if allowlist else "deny-list" if filtered else "",
            "netns": netns}


_LIBRARIES = ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/etc/ld.so.cache", "/usr/share/locale",
              "/etc/localtime")


def _host(spec: dict[str, Any]) -> Any:
    """The module that builds a plugin's tool and answers its hooks inside the jail, named by its spec as a tool's
    module is (the plugin host's inside half: ``build``, ``describe``, ``Hooks``)."""
    return importlib.import_module(spec["plugin"]["host"])


def _build(spec: dict[str, Any]) -> Any:
    if spec.get("plugin"):  # a plugin: built from its entry point, inside the jail
        return _host(spec).build(spec["plugin"])
    try:
        module = importlib.import_module(spec["module"])
    except ImportError:
        if not spec.get("path"):
            raise
        sys.path.insert(0, str(Path(spec["path"]).parent))
        module = importlib.import_module(spec["module"])
    cls: Any = module
    for part in spec["qualname"].split("."):
        cls = getattr(cls, part)
    config = cls.Config.model_validate(spec["config"]) if spec.get("config") is not None else None
    return cls(config) if config is not None else cls()


def _send(obj: dict[str, Any]) -> None:
    data = (json.dumps(obj, ensure_ascii=False) + "\n").encode()
    assert PROTOCOL_FD is not None
    view = memoryview(data)
    while view:
        n = os.write(PROTOCOL_FD, view)
        view = view[n:]


def main() -> None:
    global PROTOCOL_FD
    if __name__ == "__main__":  # one module object whether run with -m or imported
        sys.modules["tools.jail.worker"] = sys.modules[__name__]
    from tools.jail import namespaces

    pid_namespace = namespaces.isolate_processes()  # from here on, the process that goes on is PID 1 of its own
    PROTOCOL_FD = os.dup(1)
    os.dup2(2, 1)
    import sqlite3  # noqa: F401 - loaded before the jail, as the worker's other modules are (_call catches its errors)

    from tools.base import LocalText, ToolResult

    global TOO_LARGE, TOO_BIG
    TOO_LARGE = LocalText(zh="工具返回的结果太大,没有采用。", en="the tool returned a result too large to use.")
    TOO_BIG = LocalText(zh="工具写入的文件超出了它的文件夹上限。", en="the tool wrote more than its folder may hold.")
    REFUSED = LocalText(zh="工具试图做它无权做的事(访问未授权的文件、网络或进程),已被系统阻止。",
                        en="the tool tried to do something it is not allowed to (files, network or processes it was "
                           "not granted), and the system stopped it.")

    stdin = sys.stdin.buffer
    init = json.loads(stdin.readline())
    perms, limits = init["permissions"], init["limits"]
    loop = asyncio.new_event_loop()  # its self-pipe is made before the jail allows no new sockets
    code = code_roots(init["tool"])
    guard = Guard(perms["network"], perms["files"], code)
    guard.wrap_resolver()
    _limit(limits)
    # The wall, before one line of the tool's code runs: the kernel holds the process to it, and nothing the
    # tool does can take it down. The audit hook after it is a tripwire that names what was refused.
    enforced = jail(perms, code)
    enforced["pidns"] = pid_namespace
    sys.addaudithook(guard.hook)
    guard.armed = True
    try:
        tool = _build(init["tool"])
    except Exception as e:  # a plugin that does not build: say why (the host skips it with that line)
        if not init["tool"].get("plugin"):
            raise
        _send({"ready": False, "error": f"{type(e).__name__}: {e}"[:2000]})
        return
    for module in getattr(tool, "warm_imports", ()):  # what its run imports, loaded now rather than by the first call
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - the call that needs it will say why
            pass
    ready: dict[str, Any] = {"ready": True, "seccomp": bool(enforced["seccomp"]), "enforced": enforced}
    if init.get("describe"):
        host = _host(init["tool"])
        try:
            ready["describe"] = host.describe(tool)
        except Exception as e:  # noqa: BLE001 - its permissions or schema raised
            ready = {"ready": False, "error": f"{type(e).__name__}: {e}"[:2000]}
        hooks = host.Hooks(tool, loop)
    _send(ready)
    if not ready["ready"]:
        return

    for line in stdin:
        request = json.loads(line)
        guard.refusals = []
        if "hook" in request:  # a plugin's rule, check or rendering
            try:
                _send_limited({"id": request["id"], "value": hooks.call(request["hook"], request.get("params") or {})},
                              {"id": request["id"], "error": "its answer was too large"})
            except Exception as e:  # noqa: BLE001 - a plugin's bug costs that answer
                _send({"id": request["id"], "error": f"{type(e).__name__}: {e}"[:2000]})
            continue
        result = _call(tool, request["args"], loop, limits, REFUSED)
        result.refusals = list(guard.refusals)
        for stream in (sys.stdout, sys.stderr):  # a tool's prints reach the log now, not when the worker is killed
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        retire = time.process_time() > int(limits["cpu_seconds"]) / 2
        _send_limited({"id": request["id"], "result": result.model_dump(mode="json"), "retire": retire},
                      {"id": request["id"], "retire": retire, "result": ToolResult.failure(
                          f"{tool.name} returned a result larger than {REPLY_LIMIT // 2**20} MB", TOO_LARGE
                      ).model_dump(mode="json")})


def _limit(limits: dict[str, Any]) -> None:
    """The kernel's limits on this process: its memory, its CPU time, and no file past its folder's cap (writing
    past it fails with EFBIG instead of a signal)."""
    memory = int(limits["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    if limits.get("folder_mb"):
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        size = int(limits["folder_mb"]) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def _call(tool: Any, raw: dict[str, Any], loop: asyncio.AbstractEventLoop, limits: dict[str, Any],
          refused: Any) -> Any:
    """One call of the tool's ``run()``: its result, or a tool error for whatever it raised (a refusal of the jail,
    memory, a file past the cap, a bug), never the worker's end."""
    import sqlite3

    from tools.base import ToolResult, failed_with

    try:
        args = tool.Args.model_validate(raw)
        return loop.run_until_complete(tool.run(args))
    except (PermissionError, sqlite3.OperationalError) as e:  # sqlite3 says 'unable to open' for a refused file
        if isinstance(e, sqlite3.OperationalError) and "unable to open" not in str(e) and "readonly" not in str(e):
            return failed_with(tool.name, e)  # locked, full: the store's trouble, not a refusal
        return ToolResult.failure(f"{tool.name} tried something it is not allowed to: {e}", refused)
    except MemoryError:
        return ToolResult.failure(f"{tool.name} ran out of memory (limit {limits['memory_mb']} MB)")
    except OSError as e:
        if e.errno == errno.EFBIG:  # RLIMIT_FSIZE: a file past the folder's cap
            return ToolResult.failure(f"{tool.name} wrote a file larger than its folder's cap "
                                      f"({limits.get('folder_mb')} MB)", TOO_BIG)
        return failed_with(tool.name, e)
    except Exception as e:  # a tool bug costs one tool error
        return failed_with(tool.name, e)
def _send_limited(obj: dict[str, Any], instead: dict[str, Any]) -> None:
    data = json.dumps(obj, ensure_ascii=False).encode()
    _send(obj if len(data) < REPLY_LIMIT else instead)


if __name__ == "__main__":
    main()
