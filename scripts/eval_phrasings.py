"""Requests of our tools as people phrase them, in both languages: what the rule tier makes of each.

    python scripts/eval_phrasings.py [--show N] [--file TSV]

``scripts/eval_phrasings.tsv`` holds 263 requests, one a line (the answer wanted, a tab, the request): the
reminders, alarms and timers set, listed and cancelled, the clock, the weather, sums and conversions, phrased the
ways the translated and home-assistant sets phrase them (in Chinese: 把闹钟设在…, 别让我忘了…, 会不会下雨, 一米七五, 原价…打八折;
in English: "a wake up call for 6", "how long is left on my timer", "how hot is it in phoenix right now"). They
were written here, while looking for the kinds of wording the rules missed, so the figure is a development figure
on our own words: it guards those kinds from coming back, it measures no one else's. Real people's words are
``scripts/eval_intents.py``'s.

Each request is read by the rule tier alone (``eval_intents.outcome``: no model, the clock fixed): right when it
goes by rule to the tool wanted (for reminders, with the action wanted: ``reminders.set``, ``.list``, ``.cancel``),
asked back when that tool asks for the detail it lacks (the place of a weather question with no home city).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from _common import ROOT, scratch

import eval_intents as E
from assistant.app import build_registry
from assistant.config import Settings
from assistant.paths import Paths
from assistant.pipeline.context import TurnContext
from assistant.trace import Trace
from tools.base import CJK


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=ROOT / "scripts" / "eval_phrasings.tsv")
    parser.add_argument("--show", type=int, default=0, help="print N of the requests not read by rule")
    args = parser.parse_args()
    rows = [line.rstrip("\n").split("\t", 1) for line in args.file.read_text(encoding="utf-8").splitlines() if line.strip()]
    tmp = scratch("phrasings-")
    paths = Paths(tmp / "config", tmp / "data", tmp / "cache", tmp / "log")
    paths.ensure()
    settings = Settings(clock=E.CLOCK)
    registry = build_registry(settings, paths)
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # (language, tool): n, right, asked
    missed: list[str] = []
    for want, text in rows:
        kind, details = E.outcome(TurnContext(settings, None, registry, None, text, [], Trace()))
        tool, said = want.split(".")[0], " ".join(map(str, details))
        row = counts["zh" if CJK.search(text) else "en", tool]
        row[0] += 1
        if kind == "tool" and said.startswith(want):
            row[1] += 1
        elif kind == "ask" and tool in said:
            row[2] += 1
        else:
            missed.append(f"  [{want}] {text} → {kind} {said}".rstrip())
    print(f"eval_phrasings · {len(rows)} requests written here (a development figure on our own words) · the rule tier only")
    print(f"  {'language':9} {'tool':12} {'n':>4} {'by rule':>8} {'asked':>7} {'served':>7}")
    total = [0, 0, 0]
    for (language, tool), (n, right, asked) in sorted(counts.items()):
        total = [total[0] + n, total[1] + right, total[2] + asked]
        print(f"  {language:9} {tool:12} {n:>4} {right / n:>8.0%} {asked / n:>7.0%} {(right + asked) / n:>7.0%}")
    n, right, asked = total
    print(f"  {'all':22} {n:>4} {right / n:>8.0%} {asked / n:>7.0%} {(right + asked) / n:>7.0%}")
    for line in missed[:args.show]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
