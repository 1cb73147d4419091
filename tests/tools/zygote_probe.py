"""Run by test_zygote.py in a process of its own (one thread, as `assistant ask` is when it forks its zygote): our
own pure tools' workers forked from the zygote, what the kernel holds them to, and what is left when it ends.
Prints one JSON object."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time

from tools.jail.zygote import Zygote

zygote = Zygote.start(preload=("tools.builtin",))  # before anything else runs: what `assistant ask` and `assistant chat` do

from tools.calculator import Calculator, CalculatorArgs  # noqa: E402
from tools.jail.runner import SandboxRunner  # noqa: E402
from tools.weather import Weather  # noqa: E402


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


async def main() -> dict:
    out: dict = {"zygote": zygote is not None}
    exec_runner = SandboxRunner(timeout=5)
    runner = SandboxRunner(timeout=5, zygote=zygote)
    calc = Calculator()
    first = await runner.run(calc, CalculatorArgs(expression="2^10"))
    out["answer"] = first.data
    out["enforced"] = runner.enforced["calculator"]
    await exec_runner.run(calc, CalculatorArgs(expression="1+1"))
    out["enforced_exec"] = exec_runner.enforced["calculator"]
    worker = runner._pools[next(iter(runner._pools))].idle[0]
    with open(f"/proc/{zygote.pid if zygote else 0}/environ", "rb") as f:
        out["zygote_environ_has_secret"] = b"sk-probe-secret" in f.read()
    out["worker_parent_is_zygote"] = parent_of(worker.proc.pid) == (zygote.pid if zygote else -1)
    os.kill(worker.proc.pid, signal.SIGKILL)
    for _ in range(400):  # gone (reaped by the zygote), so the next call meets a dead worker, not a dying one
        if not os.path.exists(f"/proc/{worker.proc.pid}"):
            break
        await asyncio.sleep(0.005)
    killed = await runner.run(calc, CalculatorArgs(expression="3*3"))
    out["after_kill"] = killed.error
    out["after_kill_ok"] = killed.ok
    out["replaced"] = (await runner.run(calc, CalculatorArgs(expression="3*3"))).data
    from tools.weather.config import WeatherConfig
    from tools.jail.zygote import eligible

    out["eligible"] = {"calculator": eligible(calc), "weather": eligible(Weather(WeatherConfig(cache_dir="/tmp/x", gazetteer_index="/tmp/x/i")))}
    pids = [w.proc.pid for pool in runner._pools.values() for w in pool.idle]
    await runner.aclose()
    await exec_runner.aclose()
    out["left"] = [p for p in pids + [zygote.pid if zygote else 0] if p and os.path.exists(f"/proc/{p}")]
    return out


def gone() -> dict:
    """A zygote that died: the next worker starts as a new interpreter, and the answer is the same."""
    async def run() -> dict:
        z = Zygote.start(preload=("tools.builtin",))
        assert z is not None
        os.kill(z.pid, signal.SIGKILL)
        os.waitpid(z.pid, 0)
        runner = SandboxRunner(timeout=5, zygote=z)
        result = await runner.run(Calculator(), CalculatorArgs(expression="6*7"))
        worker = runner._pools[next(iter(runner._pools))].idle[0]
        out = {"answer": result.data, "fell_back": type(worker.proc).__name__ != "Forked"}
        await runner.aclose()
        return out
    # The zygote forks only from a process the kernel sees run no other thread, and Python 3.11 waits on each child
    # of the first loop in a thread of its own (ThreadedChildWatcher) that may outlive the loop by a moment.
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(30)
    for _ in range(3000):
        if len(os.listdir("/proc/self/task")) == 1:
            break
        time.sleep(0.01)
    return asyncio.run(run())


if __name__ == "__main__":
    result = asyncio.run(main())
    result["gone"] = gone() if sys.argv[1:] == ["--gone"] else None
    print(json.dumps(result))
