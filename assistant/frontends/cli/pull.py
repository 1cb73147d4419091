"""``assistant models pull NAME`` and ``models rm NAME``: a capable model one command away.

With Ollama answering, Ollama pulls (its own store, its own checks) and the progress it streams is shown. Without
it, the model's GGUF is fetched for the embedded engine from the registry Ollama pulls from (or from Hugging Face
for ``hf.co/ORG/REPO:QUANT``): its size, destination and licence first, then a progress bar; resumable after a
kill, verified against the registry's digest (:mod:`assistant.frontends.pulling`). Either way the new model can
then be made the default."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from assistant.errors import ConfigError
from assistant.frontends.cli.common import settings_for
from assistant.frontends.progress import terminal
from assistant.frontends.pulling import pull_model, size


def _ask_default(name: str, yes: bool) -> bool:
    if yes:
        return True
    if not (terminal(sys.stdin) and terminal(sys.stderr)):
        return False
    try:
        reply = input(f"Make {name} the default model? [Y/n] ")
    except EOFError:
        return False
    return reply.strip().casefold() in ("", "y", "yes", "是", "好")


def pull(args: argparse.Namespace) -> int:
    from assistant.config_file import set_default_model

    if not args.name:
        raise ConfigError("'models pull' needs a model name.", "Usage: assistant models pull NAME (qwen2.5:1.5b, "
                          "llama3.2:3b, hf.co/ORG/REPO:QUANT)")
    import re

    from assistant.envnames import MODEL_NAME, NOT_A_MODEL_NAME

    if not re.fullmatch(MODEL_NAME, args.name):  # before any server hears it
        raise ConfigError(f"'{args.name}' is {NOT_A_MODEL_NAME}.", "Names look like qwen2.5:1.5b, user/model:tag or "
                          "hf.co/ORG/REPO:QUANT.")
    paths, settings = settings_for()
    name, place = asyncio.run(pull_model(settings, args.name, args.to))
    if args.json:
        print(json.dumps({"ok": True, "model": name, "to": place}, ensure_ascii=False))
    if settings.model == name:
        print(f"{name} is the default model already.", file=sys.stderr)
    elif _ask_default(name, args.yes):
        set_default_model(paths, name)
        print(f"model = {json.dumps(name)} in {paths.config_file}", file=sys.stderr)
    else:
        print(f"To answer with it: assistant models default {name}  (or --model {name} for one question)",
              file=sys.stderr)
    return 0


def rm(args: argparse.Namespace) -> int:
    from assistant.models.registry import remove

    if not args.name:
        raise ConfigError("'models rm' needs a model name.", "Usage: assistant models rm NAME")
    removed = remove(args.name)
    print(f"removed {removed.name} ({size(removed.size)}, {removed.file})", file=sys.stderr)
    return 0
