"""Hostile and broken output, measured: every stage fed random text, random/deep/huge JSON, wrong types,
truncated streams and tool-call arguments of any type; streams that never end; hostile bodies at the daemon's API.

    python scripts/fuzz.py [--cases N] [--seed S]

Prints the cases tried per stage and how many turns ended cleanly (an answer, or a one-line error, and the turn
stored: target 100%), the longest turn under a never-ending stream with request_timeout = 5 (target ≤ 6 s), and
the API probes held (no 5xx, every refusal says why, every stream ends with an event: target all).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine
from fake_ollama import FakeOllama, Reply, Script
from fake_open_meteo import FakeOpenMeteo
from hostile import fuzz_api, fuzz_stage

from assistant.app import build_assistant
from assistant.config import Settings
from assistant.errors import AssistantError
from assistant.paths import Paths
from tools.gazetteer import build_index

PROBES = [  # (what, body, the status it must get)
    ("[ × 32,000", b"[" * 32000, 400),
    ("{'a': × 5,000 in models", ('{"question": "hi", "models": ' + '{"a": ' * 5000 + "1" + "}" * 5001).encode(), 400),
    ("duplicate keys", b'{"question": "hi", "question": "again"}', 400),
    ("max_retries: true", json.dumps({"question": "hi", "max_retries": True}).encode(), 400),
    ("model with /../", json.dumps({"question": "hi", "model": "qwen/../../etc"}).encode(), 400),
    ("model with a newline", json.dumps({"question": "hi", "model": "qwen2.5:3b\nX"}).encode(), 400),
    ("question with NUL", json.dumps({"question": "a\u0000b"}).encode(), 400),
    ("not UTF-8", b"\xff\xfe", 400),
    ("not JSON", b"{not json", 400),
    ("200 KB body", b"x" * 200_000, 413),
    ("a good question", json.dumps({"question": "2^10"}).encode(), 200),
]


def app_for(root: Path, fake: FakeOllama, meteo: FakeOpenMeteo, gazetteer: str, **more: Any):
    settings = Settings(ollama_host=fake.url, backend="ollama", weather_forecast_url=meteo.url,
                        weather_geocoding_url=meteo.url, gazetteer_index=gazetteer, transport_backoff=0.01, **more)
    return build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))


async def stages(root: Path, gazetteer: str, cases: int, seed: int) -> dict[str, dict[str, int]]:
    out = {}
    with FakeOllama() as fake, FakeOpenMeteo() as meteo:
        for i, stage in enumerate(["router", "executor", "validator", "responder"]):
            for tools in (True, False):  # native tool calls, and the JSON-schema path
                fake.models = {"qwen2.5:3b": ["completion", "tools"] if tools else ["completion"]}
                app = app_for(root / f"{stage}{tools}", fake, meteo, gazetteer, max_retries=1, request_timeout=5)
                try:
                    counts = await fuzz_stage(app, fake, stage, cases // 2, seed + i)
                finally:
                    await app.aclose()
                total = out.setdefault(stage, {k: 0 for k in counts})
                for k, v in counts.items():
                    total[k] += v
    return out


async def never_ending(root: Path, gazetteer: str) -> list[tuple[str, float, str]]:
    """Turns whose model never stops, with request_timeout = 5: how long each took and how it ended."""
    rows = []
    with FakeOllama() as fake, FakeOpenMeteo() as meteo:
        forever = Reply(content="never ", forever=True, chunk_delay=0.01)
        for what, question, script in [
            ("chat answer streams forever", "Tell me a story.", Script(router={"route": "chat"}, responder=[forever, forever])),
            ("weather answer streams forever", "上海现在冷不冷?", Script(responder=[forever, forever])),
            ("router never replies", "hello", Script(router=Reply(content='{"route": "chat"}', delay=8))),
        ]:
            fake.handler = script
            app = app_for(root / what.replace(" ", "_"), fake, meteo, gazetteer, request_timeout=5, transport_retries=3)
            t0 = time.perf_counter()
            try:
                result = await app.ask(question)
                ended = f"answered ({len(result.answer)} characters)"
            except AssistantError as e:
                ended = f"error: {e.one_line()[:70]}"
            rows.append((what, time.perf_counter() - t0, ended))
            await app.aclose()
    return rows


async def api(root: Path, gazetteer: str, cases: int, seed: int) -> tuple[dict[int, int], list[tuple[str, int, int]]]:
    from aiohttp.test_utils import TestClient, TestServer

    from assistant.frontends.server import DaemonState, build_api

    with FakeOllama(Script().always("router", {"route": "chat"}).always("responder", "ok")) as fake, FakeOpenMeteo() as meteo:
        app = app_for(root / "api", fake, meteo, gazetteer)
        client = TestClient(TestServer(build_api(app, "t0ken", DaemonState())))
        await client.start_server()
        try:
            statuses = await fuzz_api(client, "t0ken", cases, seed)
            probes = []
            for what, body, expected in PROBES:
                resp = await client.post("/v1/ask", data=body, headers={"Authorization": "Bearer t0ken"})
                await resp.read()
                probes.append((what, resp.status, expected))
        finally:
            await client.close()
            await app.aclose()
    return statuses, probes


# Long and repetitive questions for the rule tier: each is repeated to 10 KB (the question limit allows that much).
RULE_INPUTS = {
    "Chinese numerals": "一二三四五六七八九十百千万亿点负", "digits and operators": "12+34*(5-6)/", "weather, Chinese": "北京天气冷不冷",
    "weather, English": "what is the weather in Paris and ", "prices": "3个苹果每个12元,", "punctuation": "?!。,;:",
    "one letter": "a", "brackets": "([{", "percentages": "15%的", "places": "上海北京杭州", "a formula": "半径为3的圆的面积",
    "dates": "2026-11-23 明天 周六 ", "units": "5英里等于多少公里", "ESC sequences": "\x1b]52;c;", "spaces": " ",
}


def rule_tier(gazetteer: str, size: int = 10_000) -> list[tuple[str, float]]:
    """Seconds the rule tier (plan, router rules, each tool's question back and grounding) takes on each input."""
    from assistant.app import build_registry
    from assistant.pipeline import plan, router
    from assistant.pipeline.context import TurnContext

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(gazetteer_index=gazetteer)
        registry = build_registry(settings, Paths(*(Path(tmp) / d for d in ("c", "d", "k", "l"))))
        registry.get("calculator").route("1+1")  # imports and first compilations out of the measurement
        out = []
        for what, unit in RULE_INPUTS.items():
            question = (unit * (size // len(unit) + 1))[:size]
            ctx = TurnContext(settings, None, registry, None, question, [], None)  # type: ignore[arg-type]
            t0 = time.perf_counter()
            plan.by_rule(ctx)
            router.by_rule(ctx)
            for tool in registry:
                tool.missing(question)
                tool.grounding(question)
            out.append((what, time.perf_counter() - t0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=200, help="hostile replies per stage, and bodies for the API (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    m = machine()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        gazetteer = str(root / "places.sqlite")
        build_index(Path(gazetteer))
        per_stage = asyncio.run(stages(root, gazetteer, a.cases, a.seed))
        endless = asyncio.run(never_ending(root, gazetteer))
        statuses, probes = asyncio.run(api(root, gazetteer, a.cases, a.seed))
        rules = rule_tier(gazetteer)
    print(f"fuzz · {m['cores']} cores · Python {m['python']} · seed {a.seed}")
    print("\n1. Hostile model replies per stage (random text, random/deep/huge JSON, wrong types, truncated streams, bad arguments)")
    for stage, c in per_stage.items():
        clean = min(c["stored"], c["answered"] + c["one_line_error"])
        print(f"   {stage:<10} {c['tried']:>4} tried · {c['answered']:>4} answered · {c['one_line_error']:>3} one-line errors · "
              f"ended cleanly and stored {100 * clean / c['tried']:.0f}%")
    print("\n2. Never-ending model, request_timeout = 5 s")
    for what, seconds, ended in endless:
        print(f"   {what:<32} {seconds:5.1f} s  {ended}")
    longest = max(s for _, s, _ in endless)
    print(f"   longest turn {longest:.1f} s  {'✓' if longest <= 6 else '✗'} ≤ 6 s")
    held = sum(s == e for _, s, e in probes)
    print(f"\n3. Daemon API: {sum(statuses.values())} random bodies → " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))
          + " (no 5xx)")
    for what, status, expected in probes:
        print(f"   {'✓' if status == expected else '✗'} {what:<28} {status} (expected {expected})")
    print(f"   probes held {held}/{len(probes)}; the announced-length (413) and slow-body (408) probes run against a real "
          "daemon in tests/test_daemon.py")
    print("\n4. The rule tier on long, repetitive questions (10 KB each; every rule must be linear in the length)")
    for what, seconds in rules:
        print(f"   {what:<22} {seconds * 1000:8.1f} ms")
    worst = max(rules, key=lambda r: r[1])
    print(f"   worst case per 10 KB: {worst[1] * 1000:.0f} ms ({worst[0]})")
    print(f"\n(took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
