"""Hostile and broken output, measured: every stage fed random text, random/deep/huge JSON, wrong types,
truncated streams and tool-call arguments of any type; streams that never end; hostile bodies at the daemon's API;
long repetitive questions at the rule tier; terminal control sequences; hostile batch records; a connection flood.

    python scripts/fuzz.py [--cases N] [--seed S]

Prints the cases tried per stage and how many turns ended cleanly (an answer, or a one-line error, and the turn
stored: target 100%), the longest turn under a never-ending stream with request_timeout = 5 (target ≤ 6 s), and
the API probes held (no 5xx, every refusal says why, every stream ends with an event: target all), the rule
tier's worst case per 10 KB, control characters shown (target 0), batch lines that crash or keep a control
character (target 0), and how soon the token's owner is answered under 1000 silent connections.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
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
    ("2 MB body (the limit is 1 MiB)", b"x" * 2_000_000, 413),
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


# Terminal control sequences a model, a tool or an MCP server might write (each also cut across stream pieces).
SEQUENCES = ["\x1b]52;c;ZWNobyBwd25lZA==\x07", "\x1b]52;c;ZWNobw==\x1b\\", "\x1b]0;pwned\x07", "\x1b[2J\x1b[H",
             "\x1b[?1049h", "\x1bc", "\x1bP+q544e\x1b\\", "\x9b2J", "\x9d0;title\x9c", "\x1b]8;;http://x\x07link\x1b]8;;\x07",
             "\rover", "\x08\x08\x08", "\x07", "\x00", "\x1b[31m", "\x1b[6n", "\x1b]1337;File=a\x07", "\x1b", "\x9b"]
_SHOWN_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # anything but \t and \n (\r only before \n)


def terminal(cases: int, seed: int) -> tuple[int, int, int]:
    """Texts mixing words and control sequences, whole and streamed in random pieces through the gate's
    sequence handling: (texts, shown with a control character, pieces that kept one)."""
    from assistant.control import split_open_sequence, without_controls

    rng = random.Random(seed)
    leaked = 0
    for _ in range(cases):
        parts = [rng.choice(SEQUENCES) if rng.random() < 0.4 else rng.choice(["word ", "天气 ", "42 ", "\n", "\t", "\r\n"])
                 for _ in range(rng.randint(1, 30))]
        parts += [chr(rng.randint(0, 0x9f)) for _ in range(rng.randint(0, 3))]
        rng.shuffle(parts)
        text = "".join(parts)
        streamed, open_, i = "", "", 0
        while i < len(text):
            n = rng.randint(1, 8)
            ready, open_ = split_open_sequence(open_ + text[i:i + n])
            streamed += without_controls(ready)
            i += n
        streamed += without_controls(open_)
        for shown in (without_controls(text), streamed):
            if _SHOWN_CONTROL.search(shown.replace("\r\n", "\n")):
                leaked += 1
    return cases, leaked, len(SEQUENCES)


BATCH_LINES = [  # (what, a JSONL line)
    ("question null", '{"id": 1, "question": null}'), ("question true", '{"id": 1, "question": true}'),
    ("question a number", '{"id": 1, "question": 42}'), ("question a list", '{"id": 1, "question": ["a"]}'),
    ("duplicate keys", '{"id": 1, "question": "a", "question": "b"}'), ("NUL in the question", '{"question": "a\\u0000b"}'),
    ("ESC in the question", '{"question": "\\u001b]52;c;eA==\\u0007hi"}'), ("id 1e400", '{"id": 1e400, "question": "hi"}'),
    ("id NaN", '{"id": NaN, "question": "hi"}'), ("id Infinity", '{"id": -Infinity, "question": "hi"}'),
    ("id true", '{"id": true, "question": "hi"}'), ("id an object", '{"id": {"a": 1}, "question": "hi"}'),
    ("empty question", '{"question": "   "}'), ("a 10 MB question of NULs", '{"question": "' + "\\u0000" * 2_000_000 + '"}'),
    ("deep nesting", '{"question": "hi", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"), ("not an object", "[1, 2]"),
    ("not JSON", '{"question": '), ("not UTF-8", b'{"question": "\xff\xfe"}'), ("a good record", '{"id": "q1", "question": "2^10"}'),
]


def batch_records() -> list[tuple[str, str, int]]:
    """Each hostile line as a batch's JSONL input: (what, what became of it, characters of the record written)."""
    from assistant.errors import AssistantError
    from assistant.frontends.batch import BatchRecord, read_items

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for what, line in BATCH_LINES:
            path = Path(tmp) / "in.jsonl"
            path.write_bytes(line if isinstance(line, bytes) else line.encode())
            try:
                items = list(read_items(path))
            except AssistantError as e:
                out.append((what, "job refused: " + e.message.replace(tmp, "…"), 0))
                continue
            except Exception as e:  # a traceback: the finding this section looks for
                out.append((what, f"CRASH {type(e).__name__}", 0))
                continue
            for item in items:
                record = BatchRecord(id=item.id, question=item.question, ok=False, latency_ms=0,
                                     error=item.error.one_line() if item.error else None)
                written = record.line({})
                json.loads(written, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))  # strict JSON or it raises
                fate = f"refused: {item.error.message}" if item.error else "asked"
                if _SHOWN_CONTROL.search(written.replace("\\n", "")) or _SHOWN_CONTROL.search(item.question):
                    fate = "CONTROL CHARACTER KEPT"
                out.append((what, fate, len(written)))
    return out


async def flood(root: Path, gazetteer: str, connections: int = 1000) -> tuple[float, int, int, float]:
    """``connections`` silent connections opened against the daemon's listener, then the token's owner asks
    /v1/health: (seconds to its answer, connections answered 408, other endings, seconds until the last ended)."""
    import aiohttp
    from aiohttp import web

    from assistant.frontends.doorman import listen
    from assistant.frontends.server import DaemonState, build_api

    with FakeOllama() as fake, FakeOpenMeteo() as meteo:
        app = app_for(root / "flood", fake, meteo, gazetteer)
        runner = web.AppRunner(build_api(app, "t0ken", DaemonState()), handler_cancellation=False)
        await runner.setup()
        sock = root / "flood.sock"
        server, _ = await listen(runner, unix_path=sock)
        try:
            t0 = time.perf_counter()
            silent = [await asyncio.open_unix_connection(str(sock)) for _ in range(connections)]
            t1 = time.perf_counter()
            async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(sock))) as s:
                async with s.get("http://localhost/v1/health", headers={"Authorization": "Bearer t0ken"}) as r:
                    assert r.status == 200, r.status
            owner = time.perf_counter() - t1
            endings = await asyncio.gather(*(asyncio.wait_for(reader.read(), 60) for reader, _ in silent))
            last = time.perf_counter() - t0
            for _, writer in silent:
                writer.close()
        finally:
            server.close()
            await runner.cleanup()
            await app.aclose()
    timed_out = sum(e.startswith(b"HTTP/1.1 408 ") for e in endings)
    return owner, timed_out, len(endings) - timed_out, last


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
        texts, leaked, kinds = terminal(a.cases * 10, a.seed)
        records = batch_records()
        owner, timed_out, other, last = asyncio.run(flood(root, gazetteer))
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
          "daemon in tests/frontends/test_daemon.py")
    print("\n4. The rule tier on long, repetitive questions (10 KB each; every rule must be linear in the length)")
    for what, seconds in rules:
        print(f"   {what:<22} {seconds * 1000:8.1f} ms")
    worst = max(rules, key=lambda r: r[1])
    print(f"   worst case per 10 KB: {worst[1] * 1000:.0f} ms ({worst[0]})")
    print(f"\n5. Terminal sequences: {texts} texts mixing words with {kinds} kinds of control sequence (OSC 52, titles, "
          f"screen clears, C1, lone ESC), whole and streamed in random pieces → {leaked} shown with a control character")
    print("\n6. Batch records, each line a job's input")
    for what, fate, size in records:
        print(f"   {what:<26} {fate}" + (f" ({size:,}-character record)" if size else ""))
    crashed = sum(f.startswith(("CRASH", "CONTROL")) for _, f, _ in records)
    print(f"   {crashed} crashed or kept a control character; every record written is strict JSON")
    print(f"\n7. Daemon flood: 1000 silent connections, then the token's owner asks → answered in {owner * 1000:.0f} ms; "
          f"{timed_out} answered 408, {other} otherwise; the last one ended {last:.1f} s after the flood began")
    print(f"\n(took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
