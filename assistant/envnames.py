"""The names of settings a user types outside ``config.toml``, light enough for the thin client (no pydantic): the
environment variables ``ask`` sends the daemon with its question (and ``daemon install`` writes into the service),
the ``-o`` model options and the flags that set a setting. Ollama keeps its variables the same way
(``envconfig``)."""

from __future__ import annotations

import os
from typing import Any

ENV_PREFIX = "ASSISTANT_"  # ASSISTANT_<SETTING>, upper case
HOME = "ASSISTANT_HOME"  # where state lives: not a setting
# The model servers' own variables, and the setting each one sets.
SERVER_VARS = {"OLLAMA_HOST": "ollama_host", "OPENAI_BASE_URL": "openai_base_url", "OPENAI_API_KEY": "openai_api_key"}


# A model's name as Ollama writes them: [namespace/]name[:tag], each part starting with a letter or digit (so no
# '..', '/', space or newline). The daemon holds its clients to it, and the settings hold everything else to it.
MODEL_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,2}(?::[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$"
NOT_A_MODEL_NAME = "not a model name: [namespace/]name[:tag], of letters, digits, '.', '_' and '-'"

# The pipeline's roles, each with its own model setting (<role>_model): here for the thin client, which names them
# without importing the settings.
ROLE_NAMES = ("router", "executor", "validator", "responder")

# -o KEY VALUE: the model options a question can take, and the setting each one sets.
OPTIONS = {"temperature": "temperature", "top_p": "top_p", "num_ctx": "num_ctx", "seed": "seed",
           "num_predict": "responder_max_tokens"}

# The flags that each set one per-turn setting, by the setting's name, on every command that answers (ask, chat,
# batch): the parser adds them, ``flag_overrides`` carries them to the turn (here, or to the daemon in a question's
# settings map, checked there by the setting's own rules), and ``config show`` names them as where a value came
# from. A new one is its row here. (-m, which sets every role's model, and -o have a grammar of their own.)
SETTING_FLAGS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "system": (("-s", "--system"), {"metavar": "TEXT", "help": "your own instructions for {scope} (a system prompt)"}),
    "max_retries": (("--max-retries",), {"type": int, "metavar": "N",
                                         "help": "executor retries after a failed check (default 3)"}),
    "answer_schema": (("--schema",), {"metavar": "SCHEMA", "help": "answer with one JSON object that follows SCHEMA: "
                                      "a JSON Schema inline or in a file, or the concise form 'name, age int, tags "
                                      "list' (stdout is the object alone)"}),
}


def setting_var(name: str) -> bool:
    """An environment variable that sets a setting (``ASSISTANT_HOME`` says where state lives, not how to answer)."""
    return name in SERVER_VARS or (name.startswith(ENV_PREFIX) and name != HOME)


def setting_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if setting_var(k)}
