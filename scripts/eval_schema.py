"""Answers as objects (--schema): how often an object that follows the schema comes back, and with how many tries,
per backend.

    python scripts/eval_schema.py

- capable (fake Ollama): a model that writes the right object at once;
- sloppy (fake Ollama): a model whose first object misses a field or is prose, then right once told why;
- embedded grammar: the real SmolLM2-135M on llama.cpp under a name of one's own and ``model_trust = "trusted"``
  (so it is asked at all), its output held to the schema by the engine's grammar; what it writes is real.

Each: 10 questions (a conversation's facts, and tool routes whose results fill the schema), the whole pipeline
(assistant.app.build_assistant) in a temporary home; shown: objects that passed, and model calls a question (a
conversation's object is a routing call and the answer's; a tool's, the answer's alone; each retry one more).
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, scratch
from fake_ollama import FakeOllama, Reply
from fake_open_meteo import FakeOpenMeteo

from assistant.app import build_assistant
from assistant.config import Settings
from assistant.models import embedded
from assistant.paths import Paths

PERSON = "name, born int, field"
CITY = '{"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}}, "required": ["city", "country"]}'
SUM = '{"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]}'
QUESTIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("Ada Lovelace, born 1815, worked in mathematics. Her name, year of birth and field?", PERSON,
     {"name": "Ada Lovelace", "born": 1815, "field": "mathematics"}),
    ("Alan Turing was born in 1912 and worked in computer science. Name, born, field?", PERSON,
     {"name": "Alan Turing", "born": 1912, "field": "computer science"}),
    ("Marie Curie (born 1867) was a physicist. Name, birth year and field please.", PERSON,
     {"name": "Marie Curie", "born": 1867, "field": "physics"}),
    ("The Eiffel Tower is in Paris, France. Which city and country?", CITY, {"city": "Paris", "country": "France"}),
    ("Where is the Colosseum? It is in Rome, Italy.", CITY, {"city": "Rome", "country": "Italy"}),
    ("Big Ben stands in London, in the United Kingdom. City and country?", CITY,
     {"city": "London", "country": "United Kingdom"}),
    ("123 * 456", SUM, {"result": 56088}),
    ("what is 15% of 80", SUM, {"result": 12}),
    ("2 to the power of 10", SUM, {"result": 1024}),
    ("一百加二百等于多少", SUM, {"result": 300}),
]


def scripted(sloppy: bool) -> Any:
    """The fake model: routes to chat when asked, and writes each question's object (after a wrong one, sloppy)."""
    seen: dict[str, int] = {}

    def handler(request: dict[str, Any]) -> Reply:
        fmt = request.get("format")
        if isinstance(fmt, dict) and "route" in fmt.get("properties", {}):
            return Reply(content=json.dumps({"route": "chat"}))
        text = json.dumps(request["messages"])
        for question, _, good in QUESTIONS:
            if json.dumps(question)[1:-1] in text:
                seen[question] = seen.get(question, 0) + 1
                if sloppy and seen[question] == 1:
                    first = dict(list(good.items())[:-1])  # a field missing
                    return Reply(content=json.dumps(first) if len(good) > 1 else "The answer is here.")
                return Reply(content=json.dumps(good, ensure_ascii=False))
        return Reply(content="{}")
    return handler


async def run(name: str, overrides: dict[str, Any]) -> dict[str, Any]:
    fake = FakeOllama(scripted(name == "sloppy")).start() if overrides.get("backend") == "ollama" else None
    with FakeOpenMeteo() as meteo, tempfile.TemporaryDirectory() as tmp:
        if fake is not None:
            overrides = {**overrides, "ollama_host": fake.url}
        root = Path(tmp)
        passed, calls = 0, 0
        for question, schema, _ in QUESTIONS:
            settings = Settings(answer_schema=schema, weather_forecast_url=meteo.url, weather_geocoding_url=meteo.url,
                                embedded_threads=1, **overrides)
            app = build_assistant(settings, Paths(root / "c", root / "d", root / "k", root / "l"))
            try:
                result = await app.ask(question, one_shot="ask")
            finally:
                await app.aclose()
            passed += result.ok
            calls += result.model_calls
        if fake is not None:
            fake.stop()
    return {"passed": passed, "calls": calls / len(QUESTIONS)}


def main() -> None:
    m = machine()
    print(f"eval_schema · {len(QUESTIONS)} questions · {m['cores']} cores · Python {m['python']}")
    backends: list[tuple[str, dict[str, Any]]] = [("capable", {"backend": "ollama"}), ("sloppy", {"backend": "ollama"})]
    gguf = embedded.default_model_path() if embedded.available() else None
    if gguf:
        own = scratch("schema-") / "my-tiny-0.5b.gguf"
        os.symlink(gguf, own)
        backends.append(("embedded grammar", {"backend": "embedded", "embedded_model": str(own),
                                              "model_trust": "trusted"}))
    for name, overrides in backends:
        row = asyncio.run(run(name, overrides))
        print(f"{name:18} objects that follow the schema: {row['passed']}/{len(QUESTIONS)} · "
              f"model calls a question {row['calls']:.2f}")


if __name__ == "__main__":
    main()
