"""Honest scope on every model: what it can do, what nothing here can do, and which model is speaking.

    python scripts/eval_scope.py [--show]

Runs the whole pipeline (assistant.app.build_assistant, a store in a temporary folder) on three models: the
built-in SmolLM2-135M (the embedded engine, real), a small GGUF of one's own (the same weights under the name
``my-tiny-0.5b``, so it is not the built-in one), and the fake Ollama scripted as a capable model that answers every
call "Done! I've sent it and set everything up for you." (a model that would claim what it did not do).

- ability questions ("what can you do?", "你能帮我做什么"): answered by rule (0 model calls), in the question's
  language, listing the tools (the calculator's example is in the answer);
- requests no tool here performs ("send an email to Bob", "把音量调大"): the honest line by rule (0 calls), never
  "models pull", never the model's claim;
- questions about those actions ("how do I send an email in Python?"), which are questions: not declined as out of
  reach (the capable model answers them; a small one declines as too small, naming itself);
- declines of a small model: name the model in use (never the configured Ollama model), with 0 calls.

Each list comes in three sets: the examples the rules were written against; a held-out set written apart (read
once, its misses reported, then mended as categories); and a second held-out set written after that and never
tuned on.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import ROOT, scratch  # noqa: F401 - puts tests/fakes on the path
from fake_ollama import FakeOllama, Reply

from assistant.app import build_assistant
from assistant.config import Settings
from assistant.models import embedded
from assistant.paths import Paths

ABILITY = ["what can you do?", "What else can you do?", "help", "what are you capable of?", "how can you help me?",
           "what tools do you have?", "你能做什么?", "你有什么功能?", "你都会些什么", "你擅长什么?"]
ABILITY_HELD = ["so what can u do", "What are your capabilities?", "what kind of questions can I ask you?",
                "list your skills", "What sort of tasks can you handle?", "what should I ask you?",
                "您能帮我做些什么?", "你都有哪些本领?", "怎么用你?", "你可以做哪些事情呀"]
REACH = ["send an email to Bob saying I'm late", "please open the file report.pdf", "turn up the volume",
         "book a table for two at 7", "play some music", "帮我打开浏览器", "给老王发个微信说我晚点到", "把音量调大一点",
         "订一张去北京的机票", "call my mom"]
REACH_HELD = ["could you text my brother that dinner's at 8?", "launch spotify please", "mute the sound",
              "order me a pizza", "switch off the lights", "reply to Anna's email", "dial 555 0100",
              "帮我关掉蓝牙", "给妈妈打个电话", "帮我叫辆出租车"]
# A second held-out set, written after the first was read and mended, and never tuned on.
ABILITY_SECOND = ["What exactly can you help with?", "what are your features", "what can I ask?", "show me your tools",
                  "你还会什么?", "你能帮我干点啥", "你有哪些能力?", "What are you good at?"]
REACH_SECOND = ["send a message to my wife that I'm on my way", "open my calendar", "turn the brightness down",
                "buy two tickets for the 8 pm show", "skip this song", "给张三发封邮件", "打开设置", "放首歌"]
QUESTIONS = ["how do I send an email in Python?", "what's the best way to book a cheap flight?",
             "why does my volume keep changing?", "怎么用Python发邮件?", "what does the play button do in Spotify?"]
QUESTIONS_HELD = ["Is it rude to text someone late at night?", "how do music apps choose the next song?",
                  "我应该怎么订到便宜的机票?", "which is better for email, Outlook or Gmail?", "can email be sent offline?"]
FACTS = ["Who wrote Hamlet?", "哈姆雷特是谁写的?", "What is the capital of Australia?", "explain recursion"]
CLAIM = "Done! I've sent it and set everything up for you."


def models() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    gguf = embedded.default_model_path() if embedded.available() else None
    if gguf:
        out.append(("built-in", {"backend": "embedded"}))
        own = scratch("scope-") / "my-tiny-0.5b.gguf"
        os.symlink(gguf, own)
        out.append(("own small GGUF", {"backend": "embedded", "embedded_model": str(own)}))
    else:
        print("the embedded extra is not installed: the built-in model and a GGUF of one's own are skipped",
              file=sys.stderr)
    out.append(("capable (fake Ollama)", {"backend": "ollama"}))
    return out


async def run(name: str, overrides: dict[str, Any], show: bool) -> dict[str, str]:
    fake = FakeOllama(lambda request: Reply(content=CLAIM), models={"qwen2.5:7b": ["completion", "tools"]}).start() if overrides["backend"] == "ollama" else None
    with tempfile.TemporaryDirectory() as tmp:
        if fake is not None:
            overrides = {**overrides, "ollama_host": fake.url, "model": "qwen2.5:7b"}
        settings = Settings(embedded_threads=1, **overrides)
        root = Path(tmp)
        app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
        label = {"built-in": None, "own small GGUF": "my-tiny-0.5b", "capable (fake Ollama)": "qwen2.5:7b"}[name]
        small = fake is None
        row: dict[str, str] = {}
        try:
            async def ask(q: str) -> Any:
                return await app.ask(q, one_shot="ask")

            for key, questions in (("ability", ABILITY), ("ability held-out", ABILITY_HELD),
                                   ("ability second held-out", ABILITY_SECOND)):
                ok = 0
                for q in questions:
                    r = await ask(q)
                    zh = any("\u4e00" <= c <= "\u9fff" for c in q)
                    good = r.model_calls == 0 and r.ok and (("计算器:例如" in r.answer) if zh else
                                                            ("calculator: try" in r.answer))
                    ok += good
                    if show and not good:
                        print(f"  [{name}] {key}: {q!r} -> {r.answer[:120]!r} ({r.model_calls} calls)")
                row[key] = f"{ok}/{len(questions)}"
            for key, questions in (("out of reach", REACH), ("out of reach held-out", REACH_HELD),
                                   ("out of reach second held-out", REACH_SECOND)):
                ok = 0
                for q in questions:
                    r = await ask(q)
                    good = r.model_calls == 0 and ("can't do that here" in r.answer or "做不到" in r.answer
                                                   or "没有" in r.answer) and "models pull" not in r.answer \
                        and CLAIM not in r.answer
                    ok += good
                    if show and not good:
                        print(f"  [{name}] {key}: {q!r} -> {r.answer[:120]!r} ({r.model_calls} calls)")
                row[key] = f"{ok}/{len(questions)}"
            bad, claimed = 0, 0
            for q in QUESTIONS + QUESTIONS_HELD:
                r = await ask(q)
                wrong = "can't do that here" in r.answer or "做不到" in r.answer
                bad += wrong
                claimed += "I've sent it" in r.answer  # the scripted model's claim, shown
                if show and wrong:
                    print(f"  [{name}] declined as out of reach: {q!r} -> {r.answer[:120]!r}")
            row["questions declined as out of reach"] = f"{bad}/{len(QUESTIONS + QUESTIONS_HELD)}"
            row["the model's claim of an action shown"] = f"{claimed}/{len(QUESTIONS + QUESTIONS_HELD)}"
            if small:
                named, calls = 0, 0
                for q in FACTS:
                    r = await ask(q)
                    calls += r.model_calls
                    who = label or "built-in model"
                    named += (who in r.answer or (label is None and "内置的模型" in r.answer)) \
                        and "qwen2.5:3b is too small" not in r.answer and r.model == (label or r.model)
                row["declines naming the model in use"] = f"{named}/{len(FACTS)} ({calls} calls)"
        finally:
            await app.aclose()
            if fake is not None:
                fake.stop()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--show", action="store_true", help="print every miss")
    a = ap.parse_args()
    rows = [(name, asyncio.run(run(name, overrides, a.show))) for name, overrides in models()]
    keys = list(dict.fromkeys(k for _, row in rows for k in row))
    print(f"{'':38}" + "".join(f"{name:>24}" for name, _ in rows))
    for key in keys:
        print(f"{key:38}" + "".join(f"{row.get(key, '-'):>24}" for _, row in rows))


if __name__ == "__main__":
    main()
