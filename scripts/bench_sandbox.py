"""Sandbox overhead: a warm call of each in-house tool in a worker process vs the same call in-process
(calculator, a percentage, a Chinese-numeral expression, units, the clock), an MCP tool's call through its
server (``mcp-server-time``, started through the sandbox launcher) vs the same function called directly, and what
one installed plugin (``tests/plugin_package``) adds to every question, warm and cold.

    python scripts/bench_sandbox.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, pct

from tools import InProcessRunner, Tool
from tools.calculator import Calculator, CalculatorArgs
from tools.clock import Clock, ClockArgs, ClockConfig
from tools.jail import SandboxRunner
from tools.units import Units, UnitsArgs

TARGET_MS = 15.0
PLUGIN_TARGET_MS = 2.0


def cases(gazetteer: str) -> list[tuple[str, Tool, Any]]:
    clock = Clock(ClockConfig(gazetteer_index=gazetteer, home_city=None, clock="2026-11-22T11:00:00Z"))
    return [
        ("calculator", Calculator(), CalculatorArgs(expression="π * 12^2 * 2 / 3")),
        ("calculator %", Calculator(), CalculatorArgs(expression="200的15%")),
        ("calculator 中文数字", Calculator(), CalculatorArgs(expression="一百二十三乘以四百五十六")),
        ("units", Units(), UnitsArgs(value=100, from_unit="华氏度", to_unit="摄氏度")),
        ("clock (now, Tokyo)", clock, ClockArgs(ask="now", place="东京")),
        ("clock (days until)", clock, ClockArgs(ask="days_until", date="春节")),
    ]


async def timed(runner: Any, tool: Tool, args: Any, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        result = await runner.run(tool, args)
        out.append((time.perf_counter() - t0) * 1000)
        assert result.ok, result.error
    return out


async def measure_mcp(calls: int, log_dir: Path) -> dict[str, float] | None:
    """``time_get_current_time`` through the MCP server vs ``TimeServer.get_current_time`` in this process."""
    try:
        from mcp_server_time.server import TimeServer
    except ImportError:
        return None
    from tools.mcp_servers import McpServerConfig, mcp_tools

    config = McpServerConfig(command=sys.executable, args=["-m", "mcp_server_time"])
    tools, skipped = mcp_tools({"time": config}, {"timeout": 10.0, "memory_mb": 1024, "cpu_seconds": 60},
                               log_dir / "cache", log_dir, [], refresh=True)
    tool = next((t for t in tools if t.name == "time_get_current_time"), None)
    if tool is None:
        raise RuntimeError(f"mcp-server-time did not start: {skipped}")
    runner = SandboxRunner()
    args = tool.Args.model_validate({"timezone": "Asia/Tokyo"})
    t0 = time.perf_counter()
    await tool.start()
    cold = (time.perf_counter() - t0) * 1000
    through = await timed(runner, tool, args, calls)
    await tool.aclose()
    server = TimeServer()
    direct = []
    for _ in range(calls):
        t0 = time.perf_counter()
        server.get_current_time("Asia/Tokyo")
        direct.append((time.perf_counter() - t0) * 1000)
    return {"mcp_p50_ms": pct(through, 50), "mcp_p95_ms": pct(through, 95), "direct_p50_ms": pct(direct, 50),
            "overhead_p50_ms": pct(through, 50) - pct(direct, 50), "cold_start_ms": cold}


def measure_plugin(calls: int, tmp: Path) -> dict[str, float] | None:
    """What one installed plugin adds to every question: its ``route()`` asked in its confined hook host (a pipe round
    trip), p50 over ``calls`` questions it does not take; and its cold start: the registry built with the plugin
    described afresh (its jailed process started and asked), then from the description cache, then the first
    question routed past it (the host started in the background at build has to be ready)."""
    import subprocess

    from assistant.app import build_registry
    from assistant.config import Settings
    from assistant.paths import Paths

    package = Path(__file__).resolve().parents[1] / "tests" / "plugin_package"
    site = tmp / "plugin-site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(site), str(package)], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    state = tmp / "plugin-state"
    paths = Paths(state / "config", state / "data", state / "cache", state / "log")
    settings = Settings()
    question = "how far is the moon from the earth in kilometres"
    bare = build_registry(settings, paths)
    sys.path.insert(0, str(site))
    try:
        t0 = time.perf_counter()
        registry = build_registry(settings, paths)
        described = (time.perf_counter() - t0) * 1000
        asyncio.run(registry.aclose())
        t0 = time.perf_counter()
        registry = build_registry(settings, paths)
        cached = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        [t.route(question) for t in registry]
        first = (time.perf_counter() - t0) * 1000
        with_plugin, without = [], []
        for _ in range(calls):
            t0 = time.perf_counter()
            [t.route(question) for t in registry]
            with_plugin.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            [t.route(question) for t in bare]
            without.append((time.perf_counter() - t0) * 1000)
        assert registry.get("echo") is not None and registry.get("echo").route("echo hi") is not None
        asyncio.run(registry.aclose())
    finally:
        sys.path.remove(str(site))
    return {"added_p50_ms": pct(with_plugin, 50) - pct(without, 50), "added_p95_ms": pct(with_plugin, 95) - pct(without, 95),
            "registry_described_ms": described, "registry_cached_ms": cached, "first_question_ms": first}


async def measure(calls: int, gazetteer: str | None = None) -> dict[str, Any]:
    """Per tool: in-process and warm sandboxed p50/p95 and the overhead; the calculator's figures also at the top
    level (as before); the MCP comparison under ``mcp`` (``None`` without the SDK and mcp-server-time)."""
    with tempfile.TemporaryDirectory() as tmp:
        if gazetteer is None:
            from tools.gazetteer import build_index

            gazetteer = str(Path(tmp) / "places.sqlite")
            build_index(Path(gazetteer))
        sandbox = SandboxRunner()
        t0 = time.perf_counter()
        await sandbox.warm([Calculator()])
        cold = (time.perf_counter() - t0) * 1000
        tools: dict[str, dict[str, float]] = {}
        for name, tool, args in cases(gazetteer):
            inproc = await timed(InProcessRunner(), tool, args, calls)
            await timed(sandbox, tool, args, 3)  # the worker starts and loads what the tool needs
            boxed = await timed(sandbox, tool, args, calls)
            tools[name] = {"in_process_p50_ms": pct(inproc, 50), "in_process_p95_ms": pct(inproc, 95),
                           "sandboxed_p50_ms": pct(boxed, 50), "sandboxed_p95_ms": pct(boxed, 95),
                           "overhead_p50_ms": pct(boxed, 50) - pct(inproc, 50)}
        await sandbox.aclose()
        mcp = await measure_mcp(calls, Path(tmp))
        plugin = await asyncio.to_thread(measure_plugin, calls, Path(tmp))
    return {**tools["calculator"], "cold_start_ms": cold, "seccomp": sandbox.seccomp.get("calculator"),
            "tools": tools, "mcp": mcp, "plugin": plugin}


def report(r: dict[str, Any], indent: str = "") -> list[str]:
    lines = [f"{indent}{'tool':<22}{'in-process p50':>16}{'sandboxed p50':>15}{'p95':>9}{'overhead':>10}"]
    for name, t in r["tools"].items():
        mark = "✓" if t["overhead_p50_ms"] < TARGET_MS else "✗"
        lines.append(f"{indent}{name:<22}{t['in_process_p50_ms']:>13.3f} ms{t['sandboxed_p50_ms']:>12.3f} ms"
                     f"{t['sandboxed_p95_ms']:>9.3f}{t['overhead_p50_ms']:>7.3f} ms {mark}")
    lines.append(f"{indent}overhead target < {TARGET_MS:g} ms per call (p50); cold worker start {r['cold_start_ms']:.0f} ms")
    mcp = r["mcp"]
    if mcp is None:
        lines.append(f"{indent}MCP: not measured (pip install '.[mcp]' mcp-server-time)")
    else:
        lines.append(f"{indent}MCP tool (mcp-server-time get_current_time), warm: p50 {mcp['mcp_p50_ms']:.3f} ms "
                     f"(p95 {mcp['mcp_p95_ms']:.3f}) vs the same function called directly {mcp['direct_p50_ms']:.3f} ms: "
                     f"overhead {mcp['overhead_p50_ms']:.3f} ms; server start {mcp['cold_start_ms']:.0f} ms")
    plugin = r.get("plugin")
    if plugin is None:
        lines.append(f"{indent}plugin: not measured (tests/plugin_package did not install)")
    else:
        mark = "✓" if plugin["added_p50_ms"] <= PLUGIN_TARGET_MS else "✗"
        lines.append(f"{indent}one plugin installed (its route() in its jailed hook host): +{plugin['added_p50_ms']:.3f} ms "
                     f"p50 per question (+{plugin['added_p95_ms']:.3f} p95), target ≤ {PLUGIN_TARGET_MS:g} ms {mark}; cold: "
                     f"registry {plugin['registry_described_ms']:.0f} ms described afresh, "
                     f"{plugin['registry_cached_ms']:.0f} ms from the cache, first question {plugin['first_question_ms']:.0f} ms")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=500)
    calls = ap.parse_args().calls
    r = asyncio.run(measure(calls))
    m = machine()
    print(f"{m['cores']} cores, Python {m['python']}, {calls} calls each, seccomp={r['seccomp']}")
    print("\n".join(report(r)))


if __name__ == "__main__":
    main()
