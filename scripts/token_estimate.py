"""How close the question-length estimate is to a real tokenizer: SmolLM2's, through the embedded engine's own
OpenAI-compatible server (llama.cpp's /tokenize), on the project's own English prose and code and the Chinese and
English questions of the evaluation set.

    python scripts/token_estimate.py

Prints, per sample, the real count, the estimate and their ratio (above 1: the estimate is generous).
Needs the embedded extra and its model file (python -m assistant.models.model_file).
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

from _common import ROOT, machine

from assistant.limits import estimated_tokens


def samples() -> dict[str, str]:
    questions = [json.loads(line)["question"] for line in (ROOT / "scripts" / "eval_questions.jsonl").open()]
    chinese = [q for q in questions if any("\u4e00" <= c <= "\u9fff" for c in q)]
    return {
        "English prose (docs/answers.md)": (ROOT / "docs" / "answers.md").read_text(),
        "English prose (docs/sandbox.md)": (ROOT / "docs" / "sandbox.md").read_text(),
        "Python (assistant/pipeline/turn.py)": (ROOT / "assistant" / "pipeline" / "turn.py").read_text(),
        "Python (tools/units.py)": (ROOT / "tools" / "units.py").read_text(),
        "English questions (eval set)": "\n".join(q for q in questions if q not in chinese),
        "Chinese questions (eval set)": "\n".join(chinese),
    }


def main() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "assistant.models.engine_server", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        base = proc.stdout.readline().strip().split("=", 1)[1]
        key = proc.stdout.readline().strip().split("=", 1)[1]
        root = base[:-3] if base.endswith("/v1") else base

        def real(text: str) -> int:
            request = urllib.request.Request(root + "/tokenize", data=json.dumps({"content": text}).encode(),
                                             headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=120) as r:
                return len(json.load(r)["tokens"])

        m = machine()
        print(f"token estimate vs SmolLM2's tokenizer · {m['cores']} cores · Python {m['python']}")
        print(f"   {'sample':<38}{'characters':>11}{'real':>8}{'estimate':>10}{'ratio':>7}")
        for name, text in samples().items():
            r, e = real(text), estimated_tokens(text)
            print(f"   {name:<38}{len(text):>11,}{r:>8,}{e:>10,}{e / r:>7.2f}")
    finally:
        proc.terminate()
        proc.wait(15)


if __name__ == "__main__":
    main()
