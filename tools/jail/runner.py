"""The sandbox runner: every tool call runs in a warm worker subprocess (``tools.jail.worker``), one pool
per tool, with a wall-clock timeout, memory and CPU limits, and the tool's declared permissions
enforced inside the worker. A worker that hangs, crashes or talks nonsense is killed and replaced;
the call becomes one clear tool error."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tools.base import LocalText, Tool, ToolResult, run_direct
from tools.jail.env import worker_env
from tools.jail.homes import new_home
from tools.jail.zygote import Forked, Zygote, eligible
from tools.logfile import open_log

STARTUP_TIMEOUT = 30.0
LINE_LIMIT = 16 * 1024 * 1024


class WorkerFailure(Exception):
    pass


FAILED = LocalText(zh="工具出了故障,没能给出结果。", en="the tool failed and gave no result.")
OVER_CAP = LocalText(zh="工具在它的文件夹里写入了太多数据,已被停止。", en="the tool filled its folder past its cap and was stopped.")


def folder_usage(folder: str, stop_files: int) -> tuple[int, int]:
    """Bytes and files under ``folder`` (links not followed), counting at most ``stop_files`` files."""
    size = files = 0
    stack = [folder]
    while stack and files <= stop_files:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            files += 1
                            size += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return size, files


class Worker:
    def __init__(self, proc: asyncio.subprocess.Process | Forked, enforced: dict[str, Any], home: str) -> None:
        self.proc = proc
        self.enforced = enforced  # what the kernel holds this worker to: {"landlock": [...], "seccomp": ..., "netns": ...}
        self.seccomp = bool(enforced.get("seccomp"))
        self.home = home
        self.next_id = 0

    @classmethod
    async def start(cls, tool: Tool, limits: dict[str, Any], log: Path | None, zygote: Zygote | None = None) -> "Worker":
        home = new_home("tool")  # its working directory: private and empty
        try:
            return await cls._started(tool, limits, log, zygote, home)
        except BaseException:  # cancelled while starting (the daemon stopping as it warms), or failed: nothing left
            shutil.rmtree(home, ignore_errors=True)
            raise

    @classmethod
    async def _started(cls, tool: Tool, limits: dict[str, Any], log: Path | None, zygote: Zygote | None,
                       home: str) -> "Worker":
        perms = tool.permissions
        env = worker_env(bool(perms.network), home)
        for d in perms.files:  # created out here: inside, the tool may not touch their parents
            Path(d).mkdir(parents=True, exist_ok=True)
        stderr: Any = open_log(log) or asyncio.subprocess.DEVNULL  # best effort: a read-only home stops no tool
        proc: Any = None
        try:
            if zygote is not None and not zygote.gone and eligible(tool):  # our own pure tool: forked, not exec'd
                proc = await _forked(zygote, env, home, stderr)
            if proc is None:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "tools.jail.worker", stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=stderr, env=env, limit=LINE_LIMIT, start_new_session=True,
                    cwd=home,
                )
        finally:
            if stderr is not asyncio.subprocess.DEVNULL:
                stderr.close()
        init = {"tool": tool.spec(), "permissions": {"network": perms.network, "files": perms.files, "ports": perms.ports},
                "limits": limits}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(init) + "\n").encode())
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), STARTUP_TIMEOUT)
            ready = json.loads(line) if line else None
        except (asyncio.TimeoutError, ValueError):
            ready = None
        except BaseException:  # cancelled while it starts: the worker goes with it
            _kill_group(proc)
            raise
        if not isinstance(ready, dict) or not ready.get("ready"):
            _kill_group(proc)
            await proc.wait()
            where = f" (see {log})" if log else ""
            raise WorkerFailure(f"the sandbox could not start a worker for {tool.name}{where}")
        return cls(proc, ready.get("enforced") or {"seccomp": bool(ready.get("seccomp"))}, home)

    async def call(self, args: dict[str, Any], timeout: float) -> tuple[ToolResult, bool]:
        """The result, and whether the worker asked to retire (its CPU budget is half spent)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        self.proc.stdin.write((json.dumps({"id": self.next_id, "args": args}, ensure_ascii=False) + "\n").encode())
        await self.proc.stdin.drain()
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except ValueError:  # a line past the limit: the worker did not keep to the protocol's size
            raise WorkerFailure("the tool's worker sent a reply larger than 16 MB") from None
        if not line:
            code = await self.proc.wait()
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            raise WorkerFailure(f"the tool's worker {how}")
        try:
            reply = json.loads(line)
            if reply.get("id") != self.next_id:
                raise ValueError("reply to another call")
            return ToolResult.model_validate(reply["result"]), bool(reply.get("retire"))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise WorkerFailure("the tool's worker sent an unreadable reply") from None

    async def stop(self) -> None:
        _kill_group(self.proc)  # the worker and anything it managed to start
        await self.proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)


async def _forked(zygote: Zygote, env: dict[str, str], home: str, stderr: Any) -> Forked | None:
    """A worker forked from the zygote, or ``None`` (it is gone: the worker starts as a new interpreter)."""
    devnull = None
    try:
        if stderr is asyncio.subprocess.DEVNULL:
            devnull = os.open(os.devnull, os.O_WRONLY)
        return await zygote.spawn(env, home, devnull if devnull is not None else stderr.fileno(), LINE_LIMIT)
    except (OSError, ValueError, KeyError, asyncio.TimeoutError):
        return None
    finally:
        if devnull is not None:
            os.close(devnull)


def _runs_here(tool: Tool) -> bool:
    """Our own code that writes the user's own store (the reminders): run in this process, never in a worker."""
    return tool.keeps_state and tool.source == "built-in"


def _kill_group(proc: Any) -> None:
    """Kill the worker's whole process group (it leads its own session), not only the worker."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
        return  # not proc.kill() as well: it polls, reaping the worker under asyncio's child watcher
    except (ProcessLookupError, PermissionError):
        pass
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass


class _Pool:
    def __init__(self, size: int) -> None:
        self.max = size
        self.idle: list[Worker] = []
        self.count = 0
        self.cond = asyncio.Condition()


class SandboxRunner:
    """A :class:`tools.ToolRunner` that runs each call in a sandboxed worker process."""

    def __init__(self, timeout: float = 10.0, memory_mb: int = 1024, cpu_seconds: int = 60,
                 workers_per_tool: int = 4, log: Path | None = None, allow_unconfined: bool = False,
                 folder_mb: int = 1024, folder_files: int = 10_000, zygote: Zygote | None = None) -> None:
        self.timeout = timeout
        self.zygote = zygote  # where our own pure tools' workers are forked from (tools.jail.zygote), when there is one
        self.allow_unconfined = allow_unconfined
        self._confined: bool | None = None
        self.limits = {"memory_mb": memory_mb, "cpu_seconds": cpu_seconds, "folder_mb": folder_mb,
                       "folder_files": folder_files}
        self.workers_per_tool = workers_per_tool
        self.log = log
        self._pools: dict[str, _Pool] = {}
        self._workers: set[Worker] = set()  # every worker started and not stopped, idle or busy: all stopped at close
        self._closed = False
        self.seccomp: dict[str, bool] = {}
        self.enforced: dict[str, dict[str, Any]] = {}  # per tool: what the kernel holds its workers to

    def _pool(self, tool: Tool) -> _Pool:
        key = json.dumps(tool.spec(), sort_keys=True)
        if key not in self._pools:
            self._pools[key] = _Pool(self.workers_per_tool)
        return self._pools[key]

    async def _acquire(self, tool: Tool) -> Worker:
        pool = self._pool(tool)
        async with pool.cond:
            while not pool.idle and pool.count >= pool.max:
                await pool.cond.wait()
            if pool.idle:
                return pool.idle.pop()
            pool.count += 1
        try:
            worker = await Worker.start(tool, self.limits, self.log, self.zygote)
        except BaseException:
            async with pool.cond:
                pool.count -= 1
                pool.cond.notify()
            raise
        self._workers.add(worker)
        self.seccomp[tool.name] = worker.seccomp
        self.enforced[tool.name] = worker.enforced
        return worker

    async def _release(self, tool: Tool, worker: Worker, healthy: bool) -> None:
        pool = self._pool(tool)
        healthy = healthy and not self._closed  # a call that ends after the close: its worker goes too
        if not healthy:
            self._workers.discard(worker)
            await worker.stop()
        async with pool.cond:
            if healthy:
                pool.idle.append(worker)
            else:
                pool.count -= 1
            pool.cond.notify()

    async def warm(self, tools: list[Tool]) -> None:
        """Start one worker per tool now (an external tool: its own process), so the first call does not pay
        for the start."""
        external = [t for t in tools if t.external]
        tools = [t for t in tools if not t.external and not _runs_here(t)]
        await asyncio.gather(*(t.start() for t in external), return_exceptions=True)
        workers = await asyncio.gather(*(self._acquire(t) for t in tools), return_exceptions=True)
        for tool, w in zip(tools, workers, strict=True):
            if isinstance(w, Worker):
                await self._release(tool, w, True)

    def _unconfined(self, tool: Tool) -> ToolResult | None:
        """Third-party code (a plugin, an MCP server) runs only where the kernel can hold it, or by consent."""
        if tool.source == "built-in" or self.allow_unconfined:
            return None
        if self._confined is None:
            from tools.jail.enforced import report

            self._confined = report().confined
        if self._confined:
            return None
        return ToolResult.failure(
            f"{tool.name} ({tool.source}) was not run: this system cannot confine it (no Landlock or no seccomp "
            "allow-list); set allow_unconfined_tools = true to run it anyway",
            LocalText(zh="这个系统无法把第三方工具关进沙箱,所以没有运行它(可以在设置里打开 allow_unconfined_tools)。",
                      en="this system cannot confine third-party tools, so it was not run (allow_unconfined_tools "
                         "would allow it)."))

    async def run(self, tool: Tool, args: BaseModel) -> ToolResult:
        refused = self._unconfined(tool)
        if refused is not None:
            return refused
        if tool.external:  # it runs in its own confined process, under its own deadlines
            return await run_direct(tool, args, None)
        if _runs_here(tool):
            return await run_direct(tool, args, self.timeout)
        try:
            worker = await self._acquire(tool)
        except WorkerFailure as e:
            return ToolResult.failure(str(e))
        healthy = False
        try:
            result, retire = await worker.call(args.model_dump(mode="json"), self.timeout)
            healthy = not retire
            if tool.source != "built-in" and (over := self._over_cap(tool)):
                return ToolResult.failure(f"{tool.name} {over}", OVER_CAP)
            return result
        except asyncio.TimeoutError:
            return ToolResult.failure(f"{tool.name} took longer than {self.timeout:g} s and was stopped")
        except WorkerFailure as e:
            return ToolResult.failure(f"{tool.name} failed: {e}", FAILED)
        except (BrokenPipeError, ConnectionResetError):
            return ToolResult.failure(f"{tool.name} failed: its worker went away")
        finally:
            await self._release(tool, worker, healthy)

    def _over_cap(self, tool: Tool) -> str | None:
        """Why the tool's folders hold more than a tool may keep (a plugin's, checked after each call)."""
        most_mb, most_files = self.limits.get("folder_mb") or 0, self.limits.get("folder_files") or 0
        for folder in tool.permissions.files:
            size, files = folder_usage(folder, most_files or 10**9)
            if most_files and files > most_files:
                return f"filled its folder {folder} past its cap of {most_files:,} files (tool_folder_files)"
            if most_mb and size > most_mb * 2**20:
                return f"filled its folder {folder} past its cap of {most_mb:,} MB (tool_folder_mb)"
        return None

    async def aclose(self) -> None:
        self._closed = True
        for pool in self._pools.values():
            pool.idle.clear()
        workers, self._workers = self._workers, set()
        for w in workers:  # idle or still answering a call: none outlives the runner, nor its folder
            await w.stop()
        if self.zygote is not None:
            self.zygote.close()
