"""Train the learned reader (tools/reading/reader.json) from real people's utterances, and print how well it reads
requests it was not trained on.

    python scripts/train_reader.py [--data DIR] [--folds 5] [--epochs 12] [--no-write]

It trains only on what may ship: CLINC150's train part (CC BY 3.0) and SLURP's devel part (CC BY 4.0) from
../shared/utterances/ (attribution in docs/reading.md). SNIPS and SMP2017 are never trained on: SNIPS is printed as
a held-out check. Every intent of those sets is a label; :data:`TARGETS` says what the assistant does with it
(every intent not named there is ``other``). The model is a multinomial logistic regression over the features of
tools.reading.reader.features, trained with Adam and an L2 penalty (numpy, the ``train`` extra); its weights are
rounded to signed bytes and a feature keeps only the labels it speaks for, so the file is small and scoring is
pure Python. The same seed and data give the same file.

It prints, on held-out folds (each utterance read by a model that never saw it): per target, the share read
certainly (``tools.reading.reader.CERTAIN`` and ``LEAD``) and the share of those that are right; then the same on
SNIPS. Requires numpy: ``pip install -e '.[train]'``."""

from __future__ import annotations

import argparse
import base64
import collections
import json
import sys
from pathlib import Path
from typing import Any

from _common import ROOT

from tools.reading import reader

try:
    import numpy as np
except ImportError:  # pragma: no cover - said to the user
    sys.exit("training the reader needs numpy: pip install -e '.[train]'")

SHARED = ROOT.parent / "shared" / "utterances"
OUT = ROOT / "tools" / "reading" / "reader.json"
SHIPPABLE = {"clinc150": "clinc150_train.jsonl", "slurp": "slurp_devel.jsonl"}

# What the assistant does with an intent of the shipped sets (every other intent: "other").
TARGETS: dict[str, dict[str, str]] = {
    "clinc150": {
        "calculator": "calculator", "measurement_conversion": "units",
        "time": "clock.time", "date": "clock.date", "timezone": "clock.timezone", "next_holiday": "clock.holiday",
        "weather": "weather",
        "timer": "reminders.timer", "alarm": "reminders.alarm", "reminder_update": "reminders.set",
        "reminder": "reminders.list",
        "what_can_i_ask_you": "abilities.what", "are_you_a_bot": "abilities.bot", "what_is_your_name": "abilities.name",
        "who_made_you": "abilities.maker", "who_do_you_work_for": "abilities.maker",
        "greeting": "small_talk.greeting", "goodbye": "small_talk.goodbye", "thank_you": "small_talk.thanks",
        "text": "out_of_reach.message", "make_call": "out_of_reach.call", "play_music": "out_of_reach.music",
        "change_volume": "out_of_reach.volume", "smart_home": "out_of_reach.home",
        "book_flight": "out_of_reach.booking", "book_hotel": "out_of_reach.booking", "uber": "out_of_reach.booking",
        "order": "out_of_reach.booking", "transfer": "out_of_reach.payment", "pay_bill": "out_of_reach.payment",
        "share_location": "out_of_reach.location",
    },
    "slurp": {
        "qa_maths": "calculator", "datetime_query": "clock.query", "datetime_convert": "clock.timezone",
        "weather_query": "weather", "alarm_set": "reminders.alarm", "alarm_query": "reminders.list",
        "alarm_remove": "reminders.cancel", "general_greet": "small_talk.greeting", "greet": "small_talk.greeting",
        "audio_volume_up": "out_of_reach.volume", "audio_volume_down": "out_of_reach.volume",
        "audio_volume_mute": "out_of_reach.volume", "email_sendemail": "out_of_reach.message",
        "play_music": "out_of_reach.music", "play_radio": "out_of_reach.music",
        "iot_hue_lightoff": "out_of_reach.home", "iot_hue_lighton": "out_of_reach.home",
        "iot_hue_lightchange": "out_of_reach.home", "iot_hue_lightdim": "out_of_reach.home",
        "iot_hue_lightup": "out_of_reach.home", "iot_wemo_on": "out_of_reach.home", "iot_wemo_off": "out_of_reach.home",
        "iot_coffee": "out_of_reach.home", "iot_cleaning": "out_of_reach.home",
        "transport_taxi": "out_of_reach.booking", "takeaway_order": "out_of_reach.booking",
        "calendar_set": "reminders.calendar",  # an event in a calendar, often with a reminder asked
        "social_post": "out_of_reach.social",
    },
}
# SNIPS, never trained on: what each of its intents is, as a target.
SNIPS = {"GetWeather": "weather", "PlayMusic": "out_of_reach.music", "AddToPlaylist": "out_of_reach.music",
         "BookRestaurant": "out_of_reach.booking"}


def load(data: Path) -> list[tuple[str, str]]:
    """(text, label) rows of the shippable sets; a label is ``set:intent``."""
    rows = []
    for source, name in SHIPPABLE.items():
        for line in (data / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows.append((row["text"], f"{source}:{row['intent']}"))
    return rows


def target_of(label: str) -> str:
    source, intent = label.split(":", 1)
    return TARGETS.get(source, {}).get(intent, "other")


class Trained:
    def __init__(self, labels: list[str], vocab: dict[str, int], w: Any, b: Any) -> None:
        self.labels, self.vocab, self.w, self.b = labels, vocab, w, b


def encode(texts: list[str], vocab: dict[str, int]) -> list[list[int]]:
    return [sorted({vocab[f] for f in reader.features(t) if f in vocab}) for t in texts]


def train(rows: list[tuple[str, str]], labels: list[str], epochs: int, seed: int, l2: float = 1e-5) -> Trained:
    counts: collections.Counter[str] = collections.Counter()
    for text, _ in rows:
        counts.update(set(reader.features(text)))
    vocab = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= 2))}
    index = {label: i for i, label in enumerate(labels)}
    x = encode([t for t, _ in rows], vocab)
    y = np.array([index[label] for _, label in rows])
    n_f, n_k = len(vocab), len(labels)
    rng = np.random.default_rng(seed)
    w = np.zeros((n_f, n_k), dtype=np.float64)
    b = np.zeros(n_k, dtype=np.float64)
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    lr, beta1, beta2, eps, batch = 0.05, 0.9, 0.999, 1e-8, 64
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(order), batch):
            ids = order[start:start + batch]
            flat = np.array([f for i in ids for f in x[i]], dtype=np.int64)
            rows_of = np.repeat(np.arange(len(ids)), [len(x[i]) for i in ids])
            touched, inverse = np.unique(flat, return_inverse=True)
            onehot = np.zeros((len(ids), len(touched)))
            onehot[rows_of, inverse] = 1.0  # a row's features are distinct
            wt = w[touched]
            logits = onehot @ wt + b
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(ids)), y[ids]] -= 1.0
            p /= len(ids)
            grad = onehot.T @ p + l2 * wt
            grad_b = p.sum(axis=0)
            step += 1
            fix1, fix2 = 1 - beta1 ** step, 1 - beta2 ** step
            m_w[touched] = beta1 * m_w[touched] + (1 - beta1) * grad
            v_w[touched] = beta2 * v_w[touched] + (1 - beta2) * grad ** 2
            w[touched] -= lr * (m_w[touched] / fix1) / (np.sqrt(v_w[touched] / fix2) + eps)
            m_b[:] = beta1 * m_b + (1 - beta1) * grad_b
            v_b[:] = beta2 * v_b + (1 - beta2) * grad_b ** 2
            b -= lr * (m_b / fix1) / (np.sqrt(v_b / fix2) + eps)
    return Trained(labels, vocab, w, b)


# Words that carry a value (a day, an hour, an amount): never part of a target's frame, so a request with one is
# answered only when a rule reads the value.
VALUE_WORDS = set("""
monday tuesday wednesday thursday friday saturday sunday weekend tomorrow tomorrow's yesterday yesterday's tonight
tonight's morning afternoon evening night noon midnight am pm a.m p.m next last ago later earlier before after week
weeks month months year years day days hour hours minute minutes second seconds half quarter past till until
january february march april may june july august september october november december christmas easter
one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen twenty thirty forty fifty
sixty hundred thousand first second third o'clock oclock 0 daylight this that these those there where
zone timezone timezones eastern central mountain pacific atlantic alaska hawaii standard coast gmt utc est edt cst
cdt mst mdt pst pdt hst akst bst ist cet cest
""".split())
# Value words that are what a target asks about: "zone" names the value a time question may carry ("the time in
# the central timezone") and is the very thing a time-zone question asks for.
ASKED_ABOUT = {"clock.timezone": {"zone", "timezone", "timezones"}}
# A word that names a place and is said in fewer requests than this is a value (a place), never a frame word.
COMMON = 100


# Two letters that name a US state and are words people say ("hi", "ok"): never a place. Other two-letter codes
# (a country's: "cm", "tv", "im") are words first, and stay words.
_WORDS_NOT_STATES = {"hi", "ok", "oh", "me", "in", "or"}


def place_words(words: set[str]) -> set[str]:
    """The words of ``words`` that name a place of some size, a country or a state, by name or by its two letters
    ("california", "tx"; the gazetteer, built in a scratch folder)."""
    import tempfile

    from tools.gazetteer import build_index, gazetteer

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "places.sqlite"
        build_index(path)
        places = gazetteer(path)
        return {w for w in words if (places.named(w) is not None or places.qualifier(w) is not None if len(w) > 2
                                     else w not in _WORDS_NOT_STATES and (places.qualifier(w) or ("", None))[1] is not None)}


def frames(rows: list[tuple[str, str]], least: int = 2) -> dict[str, str]:
    """For each served target, the words its requests are made of (said in at least ``least`` of them), values
    excepted (a day, an hour, a time zone, and a place name that is not also a common word): a request the reader
    is certain of and whose every other word is in its frame asks for nothing the rules did not read."""
    seen: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    everywhere: collections.Counter[str] = collections.Counter()
    for text, label in rows:
        words = set(reader.tokens(text))
        seen[target_of(label)].update(words)
        everywhere.update(words)
    rare_places = place_words({w for w, n in everywhere.items() if n < COMMON})
    return {target: " ".join(sorted(w for w, n in counts.items() if n >= least and w not in rare_places
                                    and (w not in VALUE_WORDS or w in ASKED_ABOUT.get(target, ()))
                                    and any(ch.isalpha() for ch in w)))
            for target, counts in sorted(seen.items()) if target != "other"}


def shipped(trained: Trained, rows: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """The weights as the reader reads them: signed bytes, a feature keeping the labels it speaks for."""
    scale = float(np.abs(trained.w).max()) / 127
    q = np.rint(trained.w / scale).astype(np.int64)
    features: dict[str, str] = {}
    for feature, i in sorted(trained.vocab.items()):
        row = q[i]
        keep = np.nonzero(np.abs(row) >= 2)[0]
        if len(keep):
            pairs = bytearray()
            for k in keep:
                pairs += bytes([int(k), int(row[k]) & 0xFF])
            features[feature] = base64.b64encode(bytes(pairs)).decode("ascii")
    return {"about": "tools/reading/reader.py's weights, written by scripts/train_reader.py from CLINC150 (train, CC BY "
                     "3.0, Larson et al. 2019) and SLURP (devel, CC BY 4.0, Bastianelli et al. 2020)",
            "labels": trained.labels, "targets": {label: target_of(label) for label in trained.labels},
            "scale": scale, "bias": [round(float(v), 4) for v in trained.b], "features": features,
            "frames": frames(rows) if rows is not None else {}}


# The groups the router acts on: a reading is right for a use when its target is in the same group as the truth.
GROUPS = ("abilities", "out_of_reach", "small_talk", "clock.time", "clock.date", "reminders.list", "weather",
          "calculator", "units", "reminders", "clock", "other")


def group(target: str) -> str:
    return next(g for g in GROUPS if target == g or target.startswith(g + "."))


def thresholds(pairs: list[tuple[str, reader.Reading | None]]) -> None:
    """Per group, at each threshold: the share of its rows read certainly as it (coverage), and the share of all
    certain readings as it that are right (precision)."""
    cuts = ((0.9, 0.8), (0.95, 0.9), (0.98, 0.96), (0.99, 0.98), (0.995, 0.99))
    print(f"\n  {'group':16} " + " ".join(f"{f'p≥{p}':>16}" for p, _ in cuts))
    print(f"  {'':16} " + " ".join(f"{'cover  precision':>16}" for _ in cuts))
    for g in GROUPS:
        cells = []
        for p, lead in cuts:
            n = sum(1 for want, _ in pairs if group(want) == g)
            said = [(want, got) for want, got in pairs if got is not None and got.p >= p and got.ranked[0][1] -
                    (got.ranked[1][1] if len(got.ranked) > 1 else 0) >= lead and group(got.target) == g]
            right = sum(1 for want, _ in said if group(want) == g)
            cells.append(f"{100 * right / max(1, n):5.1f}% {100 * right / max(1, len(said)):6.2f}%({len(said) - right})")
        print(f"  {g:16} " + " ".join(f"{c:>16}" for c in cells))


def judged(model: reader.Model, rows: list[tuple[str, str]],
           pairs: list[tuple[str, reader.Reading | None]] | None = None) -> dict[str, collections.Counter[str]]:
    """For each true target: how many rows, how many read certainly, how many of those right; and for each target
    read certainly, how many were wrong (false readings)."""
    table: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for text, want in rows:
        got = model.read(text)
        if pairs is not None:
            pairs.append((want, got))
        table[want]["n"] += 1
        if got is not None and got.certain:
            table[want]["certain"] += 1
            if got.target == want:
                table[want]["right"] += 1
            else:
                table[got.target]["false"] += 1
    return table


def report(title: str, table: dict[str, collections.Counter[str]]) -> None:
    print(f"\n{title}")
    print(f"  {'target':24} {'n':>6} {'certain':>8} {'right':>7} {'false':>6}")
    total: collections.Counter[str] = collections.Counter()
    for target in sorted(table):
        c = table[target]
        total.update(c)
        n = c["n"]
        cert = f"{100 * c['certain'] / n:6.1f}%" if n else "      —"
        right = f"{100 * c['right'] / c['certain']:6.1f}%" if c["certain"] else "      —"
        print(f"  {target:24} {n:>6} {cert:>8} {right:>7} {c['false']:>6}")
    served = {t: c for t, c in table.items() if t != "other"}
    cert = sum(c["certain"] for c in served.values())
    right = sum(c["right"] for c in served.values())
    false = sum(c["false"] for c in served.values())
    print(f"  served targets: {cert} read certainly, {right} right ({100 * right / max(1, cert):.1f}%), "
          f"{false} certain readings of a served target that were wrong")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--folds", type=int, default=5, help="held-out folds to measure on (0: none)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--no-write", action="store_true", help="measure only; keep the shipped file")
    args = ap.parse_args()
    rows = load(args.data)
    labels = sorted({label for _, label in rows})
    if len(labels) > 255:
        sys.exit(f"{len(labels)} labels: the shipped format holds 255")
    if args.folds:
        folds: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        pairs: list[tuple[str, reader.Reading | None]] = []
        order = np.random.default_rng(args.seed).permutation(len(rows))
        for k in range(args.folds):
            test = set(order[k::args.folds].tolist())
            trained = train([r for i, r in enumerate(rows) if i not in test], labels, args.epochs, args.seed, args.l2)
            model = reader.Model(shipped(trained))
            part = judged(model, [(rows[i][0], target_of(rows[i][1])) for i in sorted(test)], pairs)
            for target, c in part.items():
                folds[target].update(c)
            print(f"  fold {k + 1}/{args.folds} done", file=sys.stderr)
        report(f"held-out folds ({args.folds}) of CLINC150 train + SLURP devel, {len(rows):,} utterances "
               f"(certain: p ≥ {reader.CERTAIN}, lead ≥ {reader.LEAD})", folds)
        thresholds(pairs)
    trained = train(rows, labels, args.epochs, args.seed, args.l2)
    data = shipped(trained, rows)
    model = reader.Model(data)
    snips = []
    for line in (args.data / "snips.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            snips.append((row["text"], SNIPS.get(row["intent"], "other")))
    snips_pairs: list[tuple[str, reader.Reading | None]] = []
    report("SNIPS (never trained on), every utterance", judged(model, snips, snips_pairs))
    thresholds(snips_pairs)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    print(f"\n{len(labels)} labels, {len(data['features']):,} features kept of {len(trained.vocab):,}, "
          f"{len(text) / 1e6:.2f} MB")
    if not args.no_write:
        OUT.write_text(text + "\n", encoding="utf-8")
        print(f"written: {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
