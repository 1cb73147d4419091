"""Each setting's scope is declared once, on its field; the lists the daemon, batch, the command line and
``config show`` use are derived from those declarations. What is checked here are the rules the declarations must
keep, so that a new setting is held to them without editing this file."""

from __future__ import annotations

import typing

from assistant.config import (
    ANSWERS, DAEMON, FLAGS, OPTIONS, ROLES, SECRET, SERVER_ENV, TABLE, TURN, Settings, declared, settings_in,
)

KNOWN = {TURN, ANSWERS, DAEMON, SECRET, TABLE}


def test_every_field_declares_only_known_scopes():
    for name, field in Settings.model_fields.items():
        assert set(declared(field).get("scopes", [])) <= KNOWN, name


def test_a_per_turn_setting_is_never_the_daemons_own_and_a_secret_never_changes_answers():
    assert not settings_in(TURN) & settings_in(DAEMON)  # the daemon applies a client's value to that client's turn
    assert not settings_in(SECRET) & (settings_in(ANSWERS) | settings_in(TURN))  # a key is never a batch job's key
    assert not settings_in(DAEMON) & settings_in(ANSWERS)  # where the daemon listens changes no answer


def test_what_a_flag_or_an_option_sets_is_per_turn_and_a_model_option_changes_answers():
    """-m, each flag of envnames.SETTING_FLAGS and -o mean the same through the daemon as here: the daemon takes
    them per turn."""
    assert set(FLAGS) <= settings_in(TURN)
    for option, setting in OPTIONS.items():
        assert setting in settings_in(TURN) & settings_in(ANSWERS), option  # another value: another batch job


def test_a_role_has_each_of_its_per_role_settings_and_they_share_a_scope():
    for what in ("model", "max_tokens", "think"):
        scopes = {tuple(declared(Settings.model_fields[f"{role}_{what}"]).get("scopes", [])) for role in ROLES}
        assert len(scopes) == 1, what


def test_a_table_has_no_environment_variable_and_the_servers_variables_name_settings():
    for name in settings_in(TABLE):
        assert typing.get_origin(Settings.model_fields[name].annotation) is dict
    assert {setting for _, setting in SERVER_ENV} <= set(Settings.model_fields)


def test_the_backend_setting_names_every_backend_wired_in_and_only_those():
    """A backend is wired in by its row in ``select.BACKENDS``; the setting's choices are held to that table."""
    from assistant.models.select import AUTO, BACKENDS

    assert set(typing.get_args(Settings.model_fields["backend"].annotation)) == {"auto", *BACKENDS}
    assert set(AUTO) <= set(BACKENDS)
