"""Hostile model replies and API bodies, generated from a seed: random text, random JSON, deep JSON, huge JSON,
wrong types, truncated streams, tool-call arguments of any type. Used by tests/test_fuzz.py and scripts/fuzz.py."""

from __future__ import annotations

import json
import random
from typing import Any

from fake_ollama import Reply, kind_of, tool_call
from oracle import written_answer

from assistant.errors import AssistantError

KINDS = ("random text", "random json", "deep json", "huge json", "wrong types", "truncated", "bad arguments")


def _text(rng: random.Random, n: int) -> str:
    alphabet = "abc{}[]\":,\\ \n\t0123456789-.eE世界\u0000\ufffd\U0001f600'`<>|"
    return "".join(rng.choice(alphabet) for _ in range(n))


def random_json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 1e308, 2**70, 3.5, -0.0])
    if kind == 2:
        return _text(rng, rng.randrange(0, 30))
    if kind == 3:
        return rng.choice(["PASS", "FAIL", "chat", "weather", "calculator", "clarify", "pi*3^2"])
    if kind == 4:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    keys = ["route", "verdict", "reason", "expression", "place", "name", "arguments", "tool_calls", _text(rng, 5)]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def deep_json(rng: random.Random) -> str:
    n = rng.choice([50, 1000, 5000, 20000])
    return rng.choice(["[" * n, '{"a":' * n, "[" * n + "]" * n, '{"route": ' + "[" * n + '"chat"' + "]" * n + "}"])


def reply(rng: random.Random, kind: str) -> Reply:
    """One hostile reply of ``kind`` (see :data:`KINDS`)."""
    if kind == "random text":
        return Reply(content=_text(rng, rng.randrange(0, 400)))
    if kind == "random json":
        return Reply(content=json.dumps(random_json(rng), ensure_ascii=rng.random() < 0.5))
    if kind == "deep json":
        return Reply(content=deep_json(rng))
    if kind == "huge json":
        item = random_json(rng)
        return Reply(content=json.dumps([item] * rng.choice([1000, 20000]))[: 2_000_000], chunk_size=4096)
    if kind == "wrong types":
        return Reply(content=json.dumps(rng.choice([
            {"route": 5}, {"route": None}, {"route": ["chat"]}, {"verdict": None, "reason": 3}, {"verdict": "pass"},
            {"expression": 42}, {"place": ["北京"]}, {"expression": None}, [], "PASS", 7,
        ])))
    if kind == "truncated":
        text = json.dumps(random_json(rng))
        cut = text[: rng.randrange(0, len(text) + 1)]
        return Reply(content=cut, mid_stream_error=rng.choice([None, "runner crashed"]))
    args = rng.choice(['{"expression": "pi*3^2"}', "not json", ["pi*3^2"], None, 42, "[" * 3000, {"expression": None},
                       {"expression": "x" * 10000}, {"place": "北京"}, {}, json.dumps(random_json(rng))])
    name = rng.choice(["calculator", "weather", "nope", ""])
    return Reply(tool_calls=[{"name": name, "arguments": args}] * rng.randrange(1, 3), content=_text(rng, rng.randrange(0, 20)))


def body(rng: random.Random) -> bytes:
    """One hostile ``POST /v1/ask`` body."""
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
    if kind == 1:
        return json.dumps(random_json(rng)).encode()
    if kind == 2:
        return deep_json(rng).encode()[: 60_000]
    if kind == 3:
        return b'{"question": "hi", "question": "again"}'
    if kind == 4:
        return json.dumps({"question": rng.choice(["hi", "", "a\u0000b", "x" * 9000, 5, None, True]),
                           "max_retries": rng.choice([None, True, 1, -1, 99, "2", 1.5])}).encode()
    if kind == 5:
        return json.dumps({"question": "2^10", "model": rng.choice(["a/../b", "qwen2.5:3b\n", "", "x" * 300, 5, "ok:1"]),
                           "models": rng.choice([None, {"executor": "a/../b"}, {"boss": "m"}, ["x"], {"router": 5}])}).encode()
    if kind == 6:
        return json.dumps({"question": "2^10", "session_id": rng.choice(["nope", "../x", 5, "a" * 100, None])}).encode()
    return json.dumps({"question": "2^10", rng.choice(["extra", "", "\u0000"]): 1}).encode()


QUESTIONS = {"router": "hello there", "executor": "How much floor does a round rug of radius 3 cover?",
             "validator": "How much floor does a round rug of radius 3 cover?", "responder": "上海现在冷不冷?"}


def good(request: dict[str, Any]) -> Reply:
    """A well-behaved model for the stages not under test."""
    kind = kind_of(request)
    if kind == "router":
        return Reply(content='{"route": "calculator"}')
    if kind == "executor":
        return tool_call("calculator", expression="pi*3^2")
    if kind == "validator":
        return Reply(content='{"verdict": "PASS", "reason": "ok"}')
    for m in reversed(request["messages"]):
        if m["role"] == "user" and "Tool results:" in (m.get("content") or ""):
            question, _, results = m["content"].partition("\n\nTool results:\n")
            return Reply(content=written_answer(question, json.loads(results)))
    return Reply(content="Hello!")


class StageFuzzer:
    def __init__(self, stage: str, seed: int) -> None:
        self.stage, self.rng = stage, random.Random(seed)
        self.kind = KINDS[0]

    def __call__(self, request: dict[str, Any]) -> Reply:
        if kind_of(request) == self.stage:
            return reply(self.rng, self.kind)
        return good(request)


async def fuzz_stage(app: Any, fake: Any, stage: str, cases: int, seed: int) -> dict[str, int]:
    fuzzer = StageFuzzer(stage, seed)
    fake.handler = fuzzer
    counts = {"tried": 0, "answered": 0, "one_line_error": 0, "stored": 0}
    for i in range(cases):
        fuzzer.kind = KINDS[i % len(KINDS)]
        before = app.store.find_turn("last")
        counts["tried"] += 1
        try:
            result = await app.ask(QUESTIONS[stage])
        except AssistantError as e:
            assert "\n" not in e.one_line()
            counts["one_line_error"] += 1
            turn_id = app.store.find_turn("last")
        else:
            assert result.answer.strip() and "internal error" not in result.answer
            counts["answered"] += 1
            turn_id = result.turn_id
        if turn_id != before and app.store.turn(turn_id) is not None:
            counts["stored"] += 1
    return counts


async def fuzz_api(client: Any, token: str, cases: int, seed: int) -> dict[int, int]:
    """Hostile bodies at ``POST /v1/ask`` through an aiohttp test client; the statuses seen. Asserts that none
    is a 5xx, that refusals say why, and that every stream ends with an event."""
    rng = random.Random(seed)
    statuses: dict[int, int] = {}
    for _ in range(cases):
        resp = await client.post("/v1/ask", data=body(rng),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        text = await resp.read()
        statuses[resp.status] = statuses.get(resp.status, 0) + 1
        assert resp.status in (200, 400, 404, 413), (resp.status, text[:200])
        if resp.status == 200:
            assert json.loads(text.splitlines()[-1])["type"] in ("turn_done", "turn_failed")
        else:
            assert json.loads(text)["error"]
    return statuses
