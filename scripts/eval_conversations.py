"""Conversations, turn by turn, through the whole pipeline: what a request made after another reads, and what a
request made of values reads them as.

    python scripts/eval_conversations.py [--file TXT] [--show N]

``scripts/eval_conversations.txt`` holds short conversations in sets and kinds: a result continued ("times 2" after
3 minus 5, "结果乘以3"), a part changed ("make it 25 percent", "and tomorrow?"), the timer or reminder just set changed
("make it 15"), a pending one moved by its name ("move my reminder to call mum to 6pm", "把闹钟改成7点半"), values
read whole ("on saturday afternoon", "three quarters of a cup", "100 f in c", "in 45 minutes"). Each runs in a new
home through the app (its rules, its tools in their workers, the store) with a fake model that answers "MODEL" to
anything: a conversation counts as read when its last turn took no model call and its answer holds the words
written beside it. The clock is fixed (Friday 27 November 2026, 10:00 UTC) and the zone is UTC.

Sets: ``tuned``, written while mending the kinds (a development figure: it guards them from coming back);
``fresh``, ``fresh2`` and ``fresh4``, each written after a round of mending and before it was first measured, and
not tuned against (the figure that says whether the reading generalises past the sentences it was mended on); and
``fresh3``, written at the start of a round as a new user would ask, before any of its mending (its first figure says
what the build before it read); ``zh1`` to ``zh5``, SLURP's and CLINC150's requests of our tools put into Chinese as
MASSIVE's translators put them (``zh1`` before the round's mending, ``zh2`` to ``zh4`` each after one of its
rounds), and ``zh5``, follow-ups in Chinese. All are our own words; real people's are ``scripts/eval_intents.py``'s.
"""

from __future__ import annotations

import os

os.environ["TZ"] = "UTC"  # the answers' times are the fixed clock's, whatever this machine's zone

import argparse  # noqa: E402
import asyncio  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

from _common import ROOT, scratch  # noqa: E402
from fake_ollama import FakeOllama, Script  # noqa: E402

from assistant.app import build_assistant  # noqa: E402
from assistant.config import Settings  # noqa: E402
from assistant.paths import Paths  # noqa: E402

CLOCK = "2026-11-27T10:00:00+00:00"


@dataclass
class Conversation:
    set: str
    kind: str
    turns: list[tuple[str, str]] = field(default_factory=list)  # (request, words its answer must hold)


def load(path: Path) -> list[Conversation]:
    conversations: list[Conversation] = []
    current_set, kind, block = "", "", None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## set:"):
            current_set, block = line.split(":", 1)[1].strip(), None
        elif line.startswith("# ") and not line.startswith("# ("):
            kind, block = line[2:].strip(), None
        elif line.startswith("> "):
            if block is None:
                block = Conversation(current_set, kind)
                conversations.append(block)
            request, _, want = line[2:].partition("\t")
            block.turns.append((request.strip(), want.strip()))
        elif not line.strip():
            block = None
    return conversations


async def run(conversations: list[Conversation]) -> list[tuple[Conversation, bool, str]]:
    fake = FakeOllama(Script().always("router", {"route": "chat"}).always("responder", "MODEL")
                      .always("decide", "MODEL").always("executor", "MODEL"),
                      models={"m": ["completion", "tools"]}).start()
    results = []
    try:
        for conversation in conversations:
            tmp = scratch("conversation-")
            app = build_assistant(Settings(ollama_host=fake.url, model="m", backend="ollama", clock=CLOCK),
                                  Paths(tmp / "config", tmp / "data", tmp / "cache", tmp / "log"))
            session, last = None, None
            for request, _ in conversation.turns:
                last = await app.ask(request, session_id=session)
                session = last.session_id
            assert last is not None
            want = conversation.turns[-1][1]
            read = last.model_calls == 0 and want in last.answer
            results.append((conversation, read, f"{last.model_calls} calls: {last.answer.splitlines()[0][:90]}"))
    finally:
        fake.stop()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", type=Path, default=ROOT / "scripts" / "eval_conversations.txt")
    ap.add_argument("--show", type=int, default=10, metavar="N", help="print up to N conversations not read")
    args = ap.parse_args()
    conversations = load(args.file)
    started = time.perf_counter()
    results = asyncio.run(run(conversations))
    print(f"eval_conversations · {len(conversations)} conversations, {sum(len(c.turns) for c in conversations)} turns "
          f"· the whole pipeline, a fake model that answers nothing useful · {time.perf_counter() - started:.1f} s")
    by: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for conversation, read, _ in results:
        by[(conversation.set, conversation.kind)].append(read)
    print(f"  {'set':7} {'kind':36} {'read by rule':>13}")
    for current_set in dict.fromkeys(c.set for c in conversations):
        for (s, kind), reads in by.items():
            if s == current_set:
                print(f"  {s:7} {kind:36} {sum(reads):>5} of {len(reads):<4}")
        reads = [r for (s, _), rs in by.items() if s == current_set for r in rs]
        print(f"  {current_set:7} {'all':36} {sum(reads):>5} of {len(reads):<4} ({100 * sum(reads) / len(reads):.0f} %)")
    missed = [(c, why) for c, read, why in results if not read]
    for conversation, why in missed[:args.show]:
        print(f"  not read [{conversation.set}, {conversation.kind}]: "
              f"{' → '.join(r for r, _ in conversation.turns)} ⇒ {why} (wanted {conversation.turns[-1][1]!r})")


if __name__ == "__main__":
    main()
