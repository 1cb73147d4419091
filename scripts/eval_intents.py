"""What the rules make of real people's requests, intent by intent: the public intent sets in ../shared/utterances/
(CLINC150's train part, SLURP's devel part, SNIPS, SMP2017's train and develop parts), with intents.json saying
what a person asking each intent should get. A figure here is a development figure: the test parts of these sets
and other sets are kept aside to measure the project.

    python scripts/eval_intents.py [--data DIR] [--show N] [--intent NAME] [--json FILE]

The rule tier alone is asked (the plan's rules, then the router's: assistant.pipeline.plan.by_rule and
assistant.pipeline.router.by_rule), with no model and a fixed clock. For each utterance, what the rules did:
a tool route (for reminders, its action), a question back (which tool asked), the abilities answer, the honest
out-of-reach line, or nothing (a model would answer). It prints
- for every intent mapped to a tool: recall by rule (the right tool and, for reminders, the right action, with no
  model call), the share asked back by that tool (for the place, the time or the amount the words lack: "will it
  rain today" with no home city set, "set an alarm for me"), the two together (``served``: what the shared
  README counts as recall), and what else happened;
- for every intent mapped to the abilities answer or the out-of-reach line: the share given it;
- for every other intent (small talk and all the rest): false tool routes, questions back, and reminders set or
  cancelled by rule (goal: none of each);
- utterances on which the rule tier raised (goal: none).
`--show N` prints N misses of each intent, `--intent NAME` only that intent (of any set). Where intents.json leaves
part of an intent to the model (SLURP's calendar_set: an event with no reminder asked for), such a request that
the rules leave to the model is counted neither way; one they act on is judged as any other.

The learned reader (tools/reading/reader.py) was trained on CLINC150's and SLURP's rows here, so on those rows the
shipped weights are read on their own training data. `--folds K` (needs numpy: the `train` extra) reads each of
those rows with weights trained without it (K folds, scripts/train_reader.py's training): the held-out figure.
SNIPS and SMP2017 were never trained on."""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from _common import ROOT, scratch

from assistant.app import build_registry
from assistant.config import Settings
from assistant.paths import Paths
from assistant.pipeline import plan, router
from assistant.pipeline.context import TurnContext
from assistant.trace import Trace
from tools.reading import reader

SHARED = ROOT.parent / "shared" / "utterances"
FILES = {"clinc150": "clinc150_train.jsonl", "slurp": "slurp_devel.jsonl", "snips": "snips.jsonl",
         "smp2017": "smp2017_train_develop.jsonl"}
CLOCK = "2026-11-27T10:00:00+00:00"  # a Friday morning: "tomorrow", "at 9" and "next week" all have a meaning


# Requests for actions no tool here performs that intents.json leaves unlisted (it lists one intent of each kind):
# the honest out-of-reach line is a right answer to them, not a false one.
ALSO_OUT_OF_REACH = {"PlayMusic", "AddToPlaylist", "BookRestaurant", "next_song", "restaurant_reservation",
                     "iot_hue_lightchange", "iot_hue_lightdim", "iot_hue_lightup", "iot_wemo_on", "iot_wemo_off",
                     "play_podcasts", "play_audiobook", "play_game", "music", "music_settings", "RateBook"}
# Questions about the assistant filed under chat: the abilities answer is a right one.
ABOUT_ITSELF_UNDER = {"chat", "general_quirky"}


def expected(mapping: dict[str, str], intent: str) -> str:
    """What the intent should get: ``tool.X`` (``tool.reminders.set`` …), ``abilities``, ``out_of_reach``,
    ``small_talk``, or ``none`` (no tool route by rule, no action on reminders)."""
    text = mapping.get(intent, "none")
    said = text.split(" ", 1)[0]
    if said.startswith("tool.reminders") and "or list/cancel" in text:  # any action, as the words ask
        return "tool.reminders"
    return said if said.startswith(("tool.", "abilities", "out_of_reach", "small_talk")) else "none"


def outcome(ctx: TurnContext) -> tuple[str, list[str]]:
    """What the rule tier did with the question: (kind, details). Kinds: ``tool`` (details: each route, a
    reminders route as ``reminders.ACTION``), ``ask`` (the tool that asks back), ``abilities``, ``out_of_reach``,
    ``declined`` (a guard), ``model`` (no rule)."""
    steps = plan.by_rule(ctx) if not router.guarded(ctx.question) and not router.document_attached(ctx) else None
    if steps:
        return "tool", [_route(s.route, s.args) for s in steps]
    decision = router.by_rule(ctx)
    if decision is None:
        return "model", []
    if decision.route == router.CLARIFY:
        return "ask", [decision.pending_tool or "?"]
    if decision.route != router.CHAT:
        return "tool", [_route(decision.route, decision.args)]
    if decision.abilities:
        return "abilities", []
    if "no tool here does that" in decision.reason:
        return "out_of_reach", []
    return "declined", [decision.reason]


def _route(name: str, args: Any) -> str:
    if name == "reminders" and args:
        return f"reminders.{getattr(args[0], 'action', '?')}"
    return name


# Tools that serve each other's requests: "how many miles in five kilometers", asked as maths, is a conversion.
_SIBLINGS = {"calculator": ("units",), "units": ("calculator",)}


def judge(want: str, kind: str, details: list[str], intent: str = "") -> str:
    """``right``, ``asked`` (the right tool asked back), ``missed`` (no rule), ``wrong`` (a rule did something else),
    or, for an intent that should get no tool: ``ok``, ``false route``, ``false ask``, ``reminder change``, ``false line``
    (the out-of-reach line or the abilities answer to a request that asked for neither)."""
    if want.startswith("tool."):
        tool, _, action = want[len("tool."):].partition(".")
        served = {tool, *_SIBLINGS.get(tool, ())}  # a conversion asked as maths is the units tool's, and right
        if kind == "tool" and all(d.split(".")[0] in served for d in details) and \
                (not action or any(d == f"{tool}.{action}" for d in details)):
            return "right"
        if kind == "ask" and details and details[0] == tool:
            return "asked"
        return "missed" if kind == "model" else "wrong"
    if want in ("abilities", "out_of_reach"):
        return "right" if kind == want else "missed" if kind == "model" else "wrong"
    if kind == "tool":
        return "reminder change" if any(d in ("reminders.set", "reminders.cancel") for d in details) else "false route"
    if kind == "ask":
        return "false ask"
    if (kind == "out_of_reach" and intent in ALSO_OUT_OF_REACH) or (kind == "abilities" and intent in ABOUT_ITSELF_UNDER):
        return "ok"
    if kind in ("abilities", "out_of_reach"):
        return "false line"  # a rule's answer that the request did not ask for: "no tool here does that", or ours
    return "ok"


class _Fixed:
    """The reader's weights for this row: those trained without its fold, or the shipped ones."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def __call__(self) -> Any:
        return self.model


def _fold_readers(data: Path, rows: list[dict[str, Any]], folds: int) -> dict[int, Any]:
    """For each fold, the reader trained on the shippable rows of every other fold; each such row gets its fold."""
    import train_reader

    shippable = train_reader.load(data)
    labels = sorted({label for _, label in shippable})
    index = {(text, label): i for i, (text, label) in enumerate(shippable)}
    for row in rows:
        i = index.get((row["text"], f"{row['source']}:{row['intent']}"))
        if i is not None:
            row["fold"] = i % folds
    out = {}
    for k in range(folds):
        kept = [r for i, r in enumerate(shippable) if i % folds != k]
        out[k] = reader.Model(train_reader.shipped(train_reader.train(kept, labels, 6, 7), kept))
        print(f"  fold {k + 1}/{folds} trained", file=sys.stderr)
    return out


def load(data: Path, only: str | None) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    mapping = json.loads((data / "intents.json").read_text(encoding="utf-8"))
    rows: list[dict[str, Any]] = []
    for source, name in FILES.items():
        path = data / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if only is None or row["intent"] == only:
                    said = mapping.get(source, {}).get(row["intent"], "")
                    optional = "may be left to the model" in said and not _ASKS_TO_BE_TOLD.search(row["text"])
                    rows.append({**row, "source": source, "want": expected(mapping.get(source, {}), row["intent"]),
                                 "optional": optional})
    return rows, mapping


# intents.json leaves some requests of an intent to the model: a calendar event with no reminder asked for
# ("schedule a meeting with the vp on the twenty first of march"). One that asks to be told is the tool's.
_ASKS_TO_BE_TOLD = re.compile(r"remind|alert|notif|alarm|let me know|tell me|don't let me forget|dont let me forget",
                              re.IGNORECASE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=SHARED, help=f"the utterances (default: {SHARED})")
    ap.add_argument("--show", type=int, default=0, metavar="N", help="print N misses of each intent")
    ap.add_argument("--intent", help="only this intent")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--folds", type=int, default=0, metavar="K",
                    help="read CLINC150 and SLURP rows with the reader trained without them (K folds)")
    ap.add_argument("--home-city", metavar="PLACE",
                    help="read as a user who set home_city (a weather question naming no place is about it)")
    args = ap.parse_args()
    if not (args.data / "intents.json").exists():
        sys.exit(f"no intents.json under {args.data}: give --data the folder of the shared utterances")
    rows, _ = load(args.data, args.intent)
    tmp = scratch("intents-")
    paths = Paths(tmp / "config", tmp / "data", tmp / "cache", tmp / "log")
    paths.ensure()
    settings = Settings(clock=CLOCK, home_city=args.home_city)
    registry = build_registry(settings, paths)

    table: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(collections.Counter)
    misses: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    raised: list[str] = []
    readers = _fold_readers(args.data, rows, args.folds) if args.folds else {}
    shipped_model = reader.model()
    started = time.perf_counter()
    for row in sorted(rows, key=lambda r: r.get("fold", -1)):
        reader.model = _Fixed(readers.get(row.get("fold", -1), shipped_model))  # type: ignore[assignment]
        ctx = TurnContext(settings, None, registry, None, row["text"], [], Trace())  # type: ignore[arg-type]
        try:
            kind, details = outcome(ctx)
        except Exception as e:  # noqa: BLE001 - the figure: what raises
            raised.append(f"{row['text']!r}: {type(e).__name__}: {e} ({traceback.extract_tb(e.__traceback__)[-1].name})")
            kind, details = "raised", []
        verdict = "raised" if kind == "raised" else judge(row["want"], kind, details, row["intent"])
        if row["optional"] and verdict == "missed":
            continue  # left to the model, as intents.json allows: counted neither way
        key = (row["source"], row["intent"])
        table[key][verdict] += 1
        if verdict not in ("right", "ok"):
            misses[key].append(f"{verdict}: {row['text']} → {kind} {' '.join(details)}".rstrip())
    took = time.perf_counter() - started

    def pct(n: int, d: int) -> str:
        return f"{100 * n / d:5.1f}%" if d else "    —"

    print(f"eval_intents · {len(rows):,} utterances from {', '.join(sorted({r['source'] for r in rows}))} · the rule "
          f"tier only, no model · {1000 * took / max(1, len(rows)):.2f} ms an utterance · the reader "
          + (f"held out ({args.folds} folds) on CLINC150 and SLURP" if args.folds else
             "as shipped (trained on CLINC150 and SLURP: on their rows a training figure; --folds K: held out)")
          + (f" · home city {args.home_city}" if args.home_city else ""))
    wants = {(r["source"], r["intent"]): r["want"] for r in rows}
    served = sorted(k for k, w in wants.items() if w.startswith("tool.") or w in ("abilities", "out_of_reach"))
    print("\nrequests the assistant serves by rule (recall: the right tool or answer, no model call)")
    print(f"  {'set':9} {'intent':24} {'want':24} {'n':>5} {'recall':>7} {'asked':>7} {'served':>7} {'wrong':>7}")
    totals: collections.Counter[str] = collections.Counter()
    for key in served:
        c = table[key]
        n = sum(c.values())
        totals.update(c)
        print(f"  {key[0]:9} {key[1]:24} {wants[key]:24} {n:>5} {pct(c['right'], n)} {pct(c['asked'], n)} "
              f"{pct(c['right'] + c['asked'], n)} {pct(c['wrong'], n)}")
    n = sum(totals.values())
    print(f"  {'all':9} {'':24} {'':24} {n:>5} {pct(totals['right'], n)} {pct(totals['asked'], n)} "
          f"{pct(totals['right'] + totals['asked'], n)} {pct(totals['wrong'], n)}")

    def mean(verdict: str, keys: list[tuple[str, str]]) -> str:  # each intent counted once, whatever its size
        shares = [sum(table[k][v] for v in verdict.split("+")) / max(1, sum(table[k].values())) for k in keys]
        return f"{100 * sum(shares) / max(1, len(shares)):6.1f}%"
    tools = [k for k in served if wants[k].startswith("tool.")]
    print(f"  {'mean':9} {'of the tool intents':24} {'':24} {len(tools):>5} {mean('right', tools)} "
          f"{mean('asked', tools)} {mean('right+asked', tools)} {mean('wrong', tools)}")
    print(f"  {'mean':9} {'of every intent served':24} {'':24} {len(served):>5} {mean('right', served)} "
          f"{mean('asked', served)} {mean('right+asked', served)} {mean('wrong', served)}")
    others = sorted(k for k in wants if k not in served)
    rest: collections.Counter[str] = collections.Counter()
    bad = []
    for key in others:
        c = table[key]
        rest.update(c)
        if c["false route"] or c["false ask"] or c["reminder change"] or c["false line"]:
            bad.append((key, c))
    m = sum(rest.values())
    print(f"\nevery other intent ({len(others)} intents, {m:,} utterances): false tool routes {rest['false route']} "
          f"({pct(rest['false route'], m).strip()}), questions back {rest['false ask']}, reminders set or cancelled by "
          f"rule {rest['reminder change']}, an out-of-reach or abilities line not asked for {rest['false line']} "
          f"({pct(rest['false line'], m).strip()})")
    for key, c in sorted(bad, key=lambda kc: -(kc[1]["false route"] + kc[1]["false ask"] + kc[1]["reminder change"]
                                                + kc[1]["false line"]))[:25]:
        print(f"  {key[0]:9} {key[1]:28} false routes {c['false route']:>3}  asks {c['false ask']:>3}  "
              f"reminder changes {c['reminder change']:>3}  lines {c['false line']:>3}  of {sum(c.values())}")
    print(f"\nraised: {len(raised)}")
    for line in raised[:10]:
        print(f"  {line}")
    if args.show:
        for key in [*served, *(k for k, _ in bad)]:
            for line in misses[key][:args.show]:
                print(f"  [{key[0]} {key[1]}] {line}")
    if args.json:
        args.json.write_text(json.dumps({"served": {f"{s}/{i}": dict(table[(s, i)]) for s, i in served},
                                         "others": dict(rest), "raised": len(raised)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
