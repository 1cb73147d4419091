"""How right the answers are, on a public set of everyday questions (scripts/eval_questions.jsonl: Chinese and
English arithmetic, word problems, weather, forecasts for a day or a span, several places, several requests in one
question, follow-ups, chat, questions back, and traps).

    python scripts/eval.py [--backend oracle|weak|embedded|ollama] [--model M] [--only CATEGORY] [--limit N] [--json FILE]

oracle: the fake Ollama scripted to answer every stage correctly (tests/fakes/oracle.py), a capable model the
assistant trusts; weak: the same, but its conversation answers are the ones a weak model writes (invented figures,
template markers, garbage, another language: the "bad" answer of each "chat claims" case), judged by the strict
rule a model gets once its answers keep failing (model_trust = "untrusted"); embedded: the in-process
llama.cpp model (SmolLM2-135M unless embedded_model says otherwise); ollama: a real Ollama server (OLLAMA_HOST,
--model). Weather always comes from the fake Open-Meteo, with a fixed report per place, so every expected
figure is known.

Per category it prints: correct; shown wrong (an answer shown as a success that holds what may never be shown:
for a "chat claims" case, any of its wrong bits; must be 0); refused right (a good answer that was not shown
whole: must be 0); honest (an honest "could not answer" on a conversation); shown but ungrounded (an answer shown as a success on a tool route without
the figures of the tool results it got: must be 0); failure messages and questions back on questions that
needed no tool (must be 0); replaced answers; mean model calls; median and p95 seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
import unicodedata
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from _common import ROOT, machine, pct
from fake_ollama import FakeOllama
from fake_open_meteo import FakeOpenMeteo
from oracle import Oracle

from assistant.app import build_assistant
from tools.builtin import BUILTIN
from assistant.config import Settings
from assistant.errors import AssistantError
from assistant.paths import Paths
from tools.gazetteer import Gazetteer, build_index
from tools.weather.wmo import describe

CASES = [json.loads(line) for line in (ROOT / "scripts" / "eval_questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
TOOLS = {tool.name for tool in BUILTIN}  # every built-in tool's route
CODES = [0, 1, 2, 3, 45, 61, 63, 71, 80, 95]
FAILURE = re.compile(r"^(?:抱歉|Sorry)")
_NUM = re.compile(r"(零下|负|minus\s+)?([-−]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")


def report_for(name: str) -> tuple[float, int]:
    """The fixed weather of a place in this evaluation: (°C, WMO code), varied by its name."""
    h = zlib.crc32(name.encode())
    return round(-10 + (h % 400) / 10, 1), CODES[h % len(CODES)]


def stated(answer: str, value: float, tolerance: float = 0.0) -> bool:
    """``answer`` writes ``value``: exactly, within ``tolerance``, or rounded (within 1%) to the places it shows.
    Written independently of the assistant's own answer check, so that the check is tested, not trusted."""
    for m in _NUM.finditer(unicodedata.normalize("NFKC", answer)):
        digits = m.group(3).replace(",", "")
        n = float(digits) * (-1 if (m.group(1) or m.group(2)) else 1)
        places = len(digits.split(".")[1]) if "." in digits else 0
        if abs(n - value) <= tolerance + 1e-9:
            return True
        if abs(round(value, places) - n) < 10 ** -(places + 3) and abs(n - value) <= 0.01 * abs(value):
            return True
    return False


def grounded(answer: str, tool_calls: list[Any]) -> bool:
    """Every successful tool result's figure is in the answer (the temperature of each place; the value)."""
    for t in tool_calls:
        if not t.ok or not t.result:
            continue
        if "value" in t.result:
            try:
                if not stated(answer, float(t.result["value"])) and t.result["value"] not in answer:
                    return False
            except ValueError:
                if t.result["value"] not in answer:
                    return False
        elif "temperature" in t.result or t.result.get("now"):
            m = re.match(r"-?\d+(?:\.\d+)?", t.result.get("temperature") or t.result["now"]["temperature"])
            if m and not stated(answer, float(m.group()), 0.5):
                return False
        elif isinstance(t.result.get("days"), list) and not t.result.get("hours"):
            lows = [float(re.match(r"-?\d+(?:\.\d+)?", d["low"]).group()) for d in t.result["days"]]  # type: ignore[union-attr]
            highs = [float(re.match(r"-?\d+(?:\.\d+)?", d["high"]).group()) for d in t.result["days"]]  # type: ignore[union-attr]
            if not (stated(answer, min(lows), 0.5) and stated(answer, max(highs), 0.5)):
                return False
    return True


WEEKDAYS = {"zh": [("星期" + d, "周" + d, "礼拜" + d) for d in "一二三四五六"] + [("星期日", "星期天", "周日")],
            "en": [(d,) for d in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")]}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def clock_right(expect: dict[str, Any], result: Any, lang: str) -> bool:
    """The clock's result is the expected zone, time, difference, count of days, weekday or date, and the answer says it
    (a time as HH:MM, a weekday by name, a date as month and day)."""
    data = next((t.result for t in result.tool_calls if t.ok and t.result), None)
    if data is None:
        return False
    answer = unicodedata.normalize("NFKC", result.answer)
    if "zone" in expect:
        return data.get("zone") == expect["zone"] and expect["zone"] in answer
    if "time" in expect:
        return data.get("time") == expect["time"] and expect["time"] in answer
    if "hours" in expect:
        return abs(float(data.get("hours", 1e9))) == abs(expect["hours"]) and stated(answer, abs(expect["hours"]))
    if "days" in expect:
        return data.get("days") == expect["days"] and stated(answer, expect["days"])
    if "weekday" in expect:
        return data.get("weekday") == expect["weekday"] and any(w in answer for w in WEEKDAYS[lang][expect["weekday"]])
    year, month, day = (int(p) for p in expect["date"].split("-"))
    said = (f"{month}月{day}日" in answer or f"{month}月{day}号" in answer) if lang == "zh" else (
        (MONTHS[month - 1] in answer and re.search(rf"\b{day}\b", answer) is not None) or expect["date"] in answer)
    return data.get("date") == expect["date"] and said


class Scorer:
    def __init__(self, gazetteer: Gazetteer, meteo: FakeOpenMeteo) -> None:
        self.gazetteer = gazetteer
        self.meteo = meteo

    def place(self, name: str, country: str) -> Any:
        found = self.gazetteer.candidates(name, country) or self.gazetteer.candidates(name)
        return found[0] if found else None

    def place_id(self, name: str, country: str) -> int | None:
        found = self.place(name, country)
        return found.geonameid if found else None

    def correct(self, case: dict[str, Any], result: Any) -> bool:
        expected = case["route"]
        expect = case["expect"]
        if expected == "chat":
            right = expect.get("right_any")
            if right:  # a question with a checkable answer: one of its words, and nothing that may not be shown
                return (result.ok and result.route == "chat" and any(w in result.answer for w in right)
                        and not any(w in result.answer for w in expect["wrong_bits"]))
            return result.ok and result.route == "chat" and bool(result.answer.strip())
        if expected == "clarify":
            return result.route == "clarify" and bool(result.answer.strip())
        if "refusal" in expect:  # beyond what can be forecast: said plainly, no figure
            return result.route == expected and not result.ok and expect["refusal"] in result.answer
        if not result.ok or result.route != expected:
            return False
        if "value" in expect:
            value = expect["value"]
            if not (any(t.ok and t.result and t.result.get("value") for t in result.tool_calls) and (
                    stated(result.answer, float(value)) or value in result.answer)):
                return False
        if expected == "clock":
            return clock_right(expect, result, case["lang"])
        if "derived" in expect:  # a calculation on the weather: independent of the assistant's own arithmetic
            temps = [report_for(name)[0] for name, _ in expect["places"]]
            value = temps[0] * 9 / 5 + 32 if expect["derived"] == "fahrenheit" else abs(temps[0] - temps[1])
            if not stated(result.answer, round(value, 2), 0.05):
                return False
        got = {t.result.get("geonameid") for t in result.tool_calls if t.ok and t.result}
        excluded = {self.place_id(n, "") for n in expect.get("not_places", [])}
        if got & excluded:
            return False
        for name, country in expect.get("places", []):
            if expect.get("not_places"):  # any allowed place will do; its own figures must be stated
                return bool(got) and grounded(result.answer, result.tool_calls)
            place = self.place(name, country)
            if place is None or place.geonameid not in got:
                return False
            if "dates" in expect:
                if not self.forecast_right(case, result, place):
                    return False
                continue
            temperature, code = report_for(name)
            lang = case["lang"]
            if not stated(result.answer, temperature, 0.5) or describe(code, lang).split()[0].casefold() not in result.answer.casefold():
                return False
        return True

    def forecast_right(self, case: dict[str, Any], result: Any, place: Any) -> bool:
        """The days fetched are the days asked, and the answer states their low and high (a part of a day: its hours)."""
        from datetime import date

        expect = case["expect"]
        calls = [t.result for t in result.tool_calls if t.ok and t.result and t.result.get("geonameid") == place.geonameid]
        if not calls or calls[-1].get("dates") != expect["dates"]:
            return False
        if "hours" in expect:
            hours = calls[-1].get("hours") or {}
            return [int(hours.get("from", "0")[:2]), int(hours.get("to", "0")[:2]) or 24] == expect["hours"]
        days = [self.meteo.day_values(place.latitude, place.longitude, date.fromisoformat(d)) for d in expect["dates"]]
        low, high = min(d["temperature_2m_min"] for d in days), max(d["temperature_2m_max"] for d in days)
        return stated(result.answer, low, 0.5) and stated(result.answer, high, 0.5)


async def run(backend: str, model: str | None, cases: list[dict[str, Any]], gazetteer: str,
              trust: str | None = None) -> list[dict[str, Any]]:
    rows = []
    with FakeOpenMeteo() as meteo, tempfile.TemporaryDirectory() as tmp:
        gz = Gazetteer(Path(gazetteer))
        for case in cases:
            for name, country in case["expect"].get("places", []):
                found = gz.candidates(name, country) or gz.candidates(name)
                if found:
                    temperature, code = report_for(name)
                    meteo.set_weather(found[0].latitude, found[0].longitude, temperature, code=code)
        scripted = backend in ("oracle", "weak")
        fake = FakeOllama(Oracle(cases, weak=backend == "weak"), models={"oracle": ["completion", "tools"]}).start() \
            if scripted else None
        overrides: dict[str, Any] = {"backend": "embedded" if backend == "embedded" else "ollama"}
        if fake is not None:
            overrides.update(ollama_host=fake.url, model="oracle")
            if backend == "weak":  # the weak answers are a model the check no longer trusts: the strict rule
                overrides["model_trust"] = "untrusted"
                overrides["weak_writer_after"] = 0  # and each answer is judged by the gate, not skipped for the last
        elif os.environ.get("OLLAMA_HOST"):
            overrides["ollama_host"] = os.environ["OLLAMA_HOST"]
        if model:
            overrides["model"] = model
        if trust:
            overrides["model_trust"] = trust
        settings = Settings(weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url, gazetteer_index=gazetteer,
                            clock=meteo.now.isoformat(), **overrides)
        root = Path(tmp)
        app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
        scorer = Scorer(gz, meteo)
        sessions: dict[int, str] = {}
        try:
            await app.warm()
            for i, case in enumerate(cases, 1):
                session = sessions.setdefault(case["session"], app.store.create_session()) if case["session"] else None
                t0 = time.perf_counter()
                try:
                    result = await app.ask(case["question"], session_id=session)
                except AssistantError as e:
                    raise SystemExit(f"eval: {e.one_line()}") from None
                seconds = time.perf_counter() - t0
                tool_route = bool(result.route) and all(r in TOOLS for r in result.route.split("+"))
                claims = case["expect"] if case["expect"].get("good") or case["expect"].get("bad") else {}  # its wrong bits
                good = claims.get("good")
                rows.append({
                    "id": case["id"], "category": case["category"], "lang": case["lang"], "question": case["question"],
                    "route": result.route, "expected_route": case["route"], "answer": result.answer,
                    "correct": scorer.correct(case, result),
                    "ungrounded": tool_route and result.ok and not grounded(result.answer, result.tool_calls),
                    "failure_no_tool": case["route"] == "chat" and (not result.ok or tool_route or bool(FAILURE.match(result.answer))),
                    "asked_back_no_tool": case["route"] == "chat" and result.route == "clarify",
                    "replaced": result.replaced is not None, "model_calls": result.model_calls, "seconds": seconds,
                    "shown_wrong": result.ok and any(w in result.answer for w in claims.get("wrong_bits", [])),
                    "refused_right": bool(good) and backend == "oracle" and not (result.ok and result.answer == good),
                    "honest": case["route"] == "chat" and not result.ok and bool(FAILURE.match(result.answer)),
                })
                if sys.stderr.isatty():
                    print(f"\r{i}/{len(cases)}", end="", file=sys.stderr, flush=True)
                elif i % 25 == 0:
                    print(f"{i}/{len(cases)} questions", file=sys.stderr, flush=True)
        finally:
            await app.aclose()
            if fake is not None:
                fake.stop()
    if sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)
    return rows


def table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["category"]].append(r)
    out = []
    for name, group in [*groups.items(), ("all", rows)]:
        seconds = [r["seconds"] for r in group]
        out.append({
            "category": name, "n": len(group), "correct": sum(r["correct"] for r in group),
            "ungrounded": sum(r["ungrounded"] for r in group), "failure_no_tool": sum(r["failure_no_tool"] for r in group),
            "asked_back_no_tool": sum(r["asked_back_no_tool"] for r in group), "replaced": sum(r["replaced"] for r in group),
            "shown_wrong": sum(r["shown_wrong"] for r in group), "refused_right": sum(r["refused_right"] for r in group),
            "honest": sum(r["honest"] for r in group),
            "model_calls": statistics.mean(r["model_calls"] for r in group),
            "median_s": statistics.median(seconds), "p95_s": pct(seconds, 95),
        })
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["oracle", "weak", "embedded", "ollama"], default="oracle")
    ap.add_argument("--model", help="the model for every role (ollama backend; embedded: a GGUF path is set by embedded_model)")
    ap.add_argument("--only", metavar="CATEGORY", help="run one category (and the turns its follow-ups need)")
    ap.add_argument("--limit", type=int, metavar="N", help="run the first N questions")
    ap.add_argument("--json", metavar="FILE", help="also write every row and the table as JSON")
    ap.add_argument("--show", action="store_true", help="print every wrong answer")
    ap.add_argument("--cases", metavar="FILE", help="another set of the same shape (scripts/eval_heldout.jsonl: the "
                                                    "held-out cases, measured once a round)")
    ap.add_argument("--trust", choices=["auto", "trusted", "untrusted"],
                    help="model_trust for the run (default: auto; the weak backend: untrusted)")
    a = ap.parse_args()
    cases = CASES if not a.cases else [json.loads(line) for line in Path(a.cases).read_text(encoding="utf-8").splitlines()
                                        if line.strip()]
    if a.only:
        sessions = {c["session"] for c in cases if c["category"] == a.only and c["session"]}
        cases = [c for c in cases if c["category"] == a.only or (c["session"] and c["session"] in sessions)]
    if a.limit:
        cases = cases[: a.limit]
    m = machine()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as gz:
        index = Path(gz) / "places.sqlite"
        build_index(index)
        rows = asyncio.run(run(a.backend, a.model, cases, str(index), a.trust))
    summary = table(rows)
    label = a.backend + (f" ({a.model})" if a.model else "")
    print(f"eval · backend {label} · {len(rows)} questions · {m['cores']} cores · Python {m['python']} · {m['platform']}")
    print(f"{'category':<16}{'n':>4}{'correct':>10}{'wrong':>7}{'refused':>9}{'honest':>8}{'ungrounded':>12}{'failed':>8}"
          f"{'asked':>7}{'replaced':>10}{'calls':>7}{'median s':>10}{'p95 s':>8}")
    for s in summary:
        print(f"{s['category']:<16}{s['n']:>4}{s['correct']:>5} {100 * s['correct'] / s['n']:>3.0f}%{s['shown_wrong']:>7}"
              f"{s['refused_right']:>9}{s['honest']:>8}{s['ungrounded']:>12}"
              f"{s['failure_no_tool']:>8}{s['asked_back_no_tool']:>7}{s['replaced']:>10}{s['model_calls']:>7.2f}"
              f"{s['median_s']:>10.2f}{s['p95_s']:>8.2f}")
    print("wrong: shown as an answer with what may never be shown (invented figures, template markers, garbage; target 0) · "
          "refused: a good answer not shown whole (oracle; target 0) · honest: 'could not answer' on a conversation · "
          "ungrounded: shown as a success on a tool route without its results' figures (target 0) · failed / asked: a "
          "failure message / a question back on a question that needed no tool (target 0)")
    print(f"(took {time.perf_counter() - started:.0f} s)")
    if a.show:
        for r in rows:
            if not r["correct"]:
                print(f"✗ [{r['category']}] {r['question']} → {r['route']} (expected {r['expected_route']}): {r['answer'][:160]!r}")
    if a.json:
        Path(a.json).write_text(json.dumps({"machine": m, "backend": label, "table": summary, "rows": rows},
                                           ensure_ascii=False, indent=1))
        print(f"written to {a.json}")


if __name__ == "__main__":
    main()
