"""Each setting's scope is declared once, on its field; the lists the daemon, batch, the command line and
``config show`` use are derived from those declarations. These are the lists as they were kept by hand before
(with the batch key's drift fixed: temperature and top_p change answers)."""

from __future__ import annotations

from assistant.config import ROLES, Settings

ROLE = lambda what: {f"{r}_{what}" for r in ROLES}  # noqa: E731


def test_the_derived_lists_are_the_hand_kept_ones():
    from assistant.config import FLAGS, OPTIONS, SECRETS, SERVER_ENV, TABLES, settings_in
    from assistant.envnames import SERVER_VARS

    assert settings_in("turn") == {"model", *ROLE("model"), *ROLE("max_tokens"), *ROLE("think"), "deterministic",
                                   "max_retries", "seed", "temperature", "top_p", "rendered_answers", "num_ctx",
                                   "history_turns", "max_question_tokens", "one_call", "model_trust"}
    assert settings_in("daemon") == {"hotkey", "daemon_transport", "daemon_port"}
    assert settings_in("answers") == {"backend", "embedded_model", "max_retries", "deterministic", "rendered_answers",
                                      "seed", "num_ctx", *ROLE("max_tokens"), "temperature_unit", "wind_speed_unit",
                                      "home_city", "clock", "max_question_tokens", *ROLE("think"), "temperature", "top_p",
                                      "one_call", "model_trust"}
    assert set(SECRETS) == {"openai_api_key"} and set(TABLES) == {"mcp_servers"}
    assert dict(SERVER_ENV) == {"OLLAMA_HOST": "ollama_host", "OPENAI_BASE_URL": "openai_base_url",
                                "OPENAI_API_KEY": "openai_api_key"} == SERVER_VARS
    assert FLAGS == {"model": "--model", "max_retries": "--max-retries", "temperature": "-o temperature",
                     "top_p": "-o top_p", "num_ctx": "-o num_ctx", "seed": "-o seed", "responder_max_tokens": "-o num_predict"}
    assert OPTIONS == {"temperature": "temperature", "top_p": "top_p", "num_ctx": "num_ctx", "seed": "seed",
                       "num_predict": "responder_max_tokens"}


def test_every_scope_names_a_setting_and_the_scopes_do_not_clash():
    from assistant.config import settings_in

    assert not settings_in("turn") & settings_in("daemon")  # a turn never reads the daemon's own
    assert settings_in("secret") <= set(Settings.model_fields) and not settings_in("secret") & settings_in("answers")
