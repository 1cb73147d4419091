from __future__ import annotations

from pathlib import Path

import pytest
from conftest import paths_under

from assistant.config_load import load_settings
from assistant.errors import ConfigError


def test_defaults(tmp_path: Path):
    s = load_settings(paths_under(tmp_path), env={})
    assert s.model_for("router") == "qwen2.5:3b" and s.max_retries == 3
    assert s.ollama_host == "http://127.0.0.1:11434"


def test_file_then_environment_then_flags(tmp_path: Path):
    paths = paths_under(tmp_path)
    paths.ensure()
    paths.config_file.write_text('model = "llama3.1:8b"\nrouter_model = "qwen2.5:0.5b"\nmax_retries = 5\nnum_ctx = 4096\n')
    s = load_settings(paths, env={})
    assert (s.model_for("router"), s.model_for("executor"), s.max_retries, s.num_ctx) == ("qwen2.5:0.5b", "llama3.1:8b", 5, 4096)
    s = load_settings(paths, env={"ASSISTANT_MAX_RETRIES": "1", "OLLAMA_HOST": "http://10.0.0.2:11434"})
    assert s.max_retries == 1 and s.ollama_host == "http://10.0.0.2:11434"
    s = load_settings(paths, {"max_retries": 0}, env={"ASSISTANT_MAX_RETRIES": "1"})
    assert s.max_retries == 0


@pytest.mark.parametrize("content, env, fragment", [
    ("model = \n", {}, "not valid TOML"),
    ("max_retries = -1\n", {}, "max_retries = -1 in "),
    ("max_retries = -1\n", {}, ": must be at least 0."),
    ("colour = 'blue'\n", {}, "unknown setting 'colour' in "),
    ("modle = 'qwen3:4b'\n", {}, "(did you mean 'model'?)"),
    ("", {"ASSISTANT_REQUEST_TIMEOUT": "soon"}, "ASSISTANT_REQUEST_TIMEOUT=soon: must be a number."),
    ("", {"ASSISTANT_BACKEND": "olama"}, "ASSISTANT_BACKEND=olama: must be one of 'auto', 'ollama'"),
    ("max_retries = 2\n", {"ASSISTANT_MAX_RETRIES": "99"}, "ASSISTANT_MAX_RETRIES=99: must be at most 10."),
])
def test_bad_settings_are_one_clear_error(tmp_path: Path, content, env, fragment):
    paths = paths_under(tmp_path)
    paths.ensure()
    paths.config_file.write_text(content)
    with pytest.raises(ConfigError) as info:
        load_settings(paths, env=env)
    assert fragment in info.value.one_line()


def test_a_bad_flag_is_blamed_on_the_flag(tmp_path: Path):
    paths = paths_under(tmp_path)
    paths.ensure()
    paths.config_file.write_text("max_retries = 2\n")
    with pytest.raises(ConfigError) as info:
        load_settings(paths, {"max_retries": 99}, env={})
    assert info.value.message == "--max-retries 99: must be at most 10."


def test_config_show_round_trips_and_marks_the_environment(tmp_path: Path):
    import tomllib

    from assistant.config_load import env_sources
    from assistant.config_file import render_settings

    paths = paths_under(tmp_path)
    env = {"ASSISTANT_SEED": "3", "OPENAI_API_KEY": "sk-secret", "ASSISTANT_HOSTS": "http://a:1,http://b:2"}
    settings = load_settings(paths, env=env)
    text = render_settings(settings, env_sources(env))
    assert "seed = 3  # from the environment (ASSISTANT_SEED)" in text and "sk-secret" not in text
    paths.ensure()
    paths.config_file.write_text(text)
    again = load_settings(paths, env={})
    assert again.seed == 3 and again.hosts == ["http://a:1", "http://b:2"] and again.deterministic is True
    assert tomllib.loads(text)["deterministic"] is True


def test_a_bad_value_in_a_table_is_named_by_itself(tmp_path):
    from assistant.config_load import load_settings
    from assistant.errors import ConfigError
    from conftest import paths_under

    paths = paths_under(tmp_path)
    paths.config_dir.mkdir(parents=True)
    for text, said in [('[mcp_servers.time]\ncommand = "uvx"\ntimeout = "soon"\n', 'mcp_servers.time.timeout = "soon"'),
                       ('[mcp_servers.time]\ncommand = "uvx"\ntimout = 3\n', "'mcp_servers.time.timout'"),
                       ('hosts = ["http://a:11434", 3]\n', "hosts.1 = 3")]:
        paths.config_file.write_text(text)
        try:
            load_settings(paths, env={})
        except ConfigError as e:
            assert said in e.message and "{" not in e.message and "[" not in e.message.split(" in ")[0], e.message
        else:
            raise AssertionError(f"{text!r} was accepted")
    assert "did you mean 'timeout'" in _error_of(paths, '[mcp_servers.time]\ncommand = "uvx"\ntimout = 3\n')


def _error_of(paths, text: str) -> str:
    from assistant.config_load import load_settings
    from assistant.errors import ConfigError

    paths.config_file.write_text(text)
    try:
        load_settings(paths, env={})
    except ConfigError as e:
        return e.message
    return ""


def test_set_and_unset_keep_the_rest_of_the_file(tmp_path):
    from assistant.config_file import parse_setting, write_setting

    paths = paths_under(tmp_path)
    paths.config_dir.mkdir(parents=True)
    paths.config_file.write_text('# my settings\nmodel = "llama3.2:1b"  # the one I like\n\n[mcp_servers.time]\n'
                                 'command = "uvx"\n')
    write_setting(paths, "max_retries", parse_setting("max_retries", "2"))
    write_setting(paths, "deterministic", parse_setting("deterministic", "false"))
    write_setting(paths, "hosts", parse_setting("hosts", "http://a:1, http://b:2"))
    write_setting(paths, "max_retries", parse_setting("max_retries", "4"))  # replaced where it stands
    text = paths.config_file.read_text()
    assert text.startswith('# my settings\nmodel = "llama3.2:1b"  # the one I like\nmax_retries = 4\n')
    assert text.count("max_retries") == 1 and text.rstrip().endswith('[mcp_servers.time]\ncommand = "uvx"')
    settings = load_settings(paths, env={})
    assert (settings.max_retries, settings.deterministic, settings.hosts) == (4, False, ["http://a:1", "http://b:2"])
    assert settings.mcp_servers["time"].command == "uvx"
    write_setting(paths, "model", None)
    assert load_settings(paths, env={}).model == "qwen2.5:3b" and "# the one I like" not in paths.config_file.read_text()


@pytest.mark.parametrize("key, value, said", [
    ("max_retries", "20", "max_retries 20: must be at most 10"),
    ("num_ctx", "lots", "num_ctx lots: must be a whole number"),
    ("backend", "cloud", "backend cloud: must be one of"),
    ("temprature", "0.2", "no setting named 'temprature' (did you mean 'temperature'?)"),
    ("mcp_servers", "x", "a table of its own"),
])
def test_a_value_set_is_checked_by_the_settings_own_rules(key, value, said):
    from assistant.config_file import parse_setting

    with pytest.raises(ConfigError) as info:
        parse_setting(key, value)
    assert said in info.value.message


def test_a_broken_file_is_read_with_each_broken_value_left_out(tmp_path):
    from assistant.config_load import load_settings_lenient

    paths = paths_under(tmp_path)
    paths.config_dir.mkdir(parents=True)
    paths.config_file.write_text('max_retries = 99\ntemprature = 0.3\nseed = 5\n')
    settings, problems = load_settings_lenient(paths, env={"ASSISTANT_NUM_CTX": "huge"})
    assert settings.seed == 5 and settings.max_retries == 3 and settings.num_ctx == load_settings(paths_under(
        tmp_path / "other"), env={}).num_ctx
    said = " | ".join(p.message for p in problems)
    assert "max_retries = 99" in said and "'temprature'" in said and "ASSISTANT_NUM_CTX=huge" in said
    paths.config_file.write_text('max_retries = [\n')  # not TOML at all: the environment and defaults still count
    settings, problems = load_settings_lenient(paths, env={"ASSISTANT_SEED": "9"})
    assert settings.seed == 9 and "is not valid TOML" in problems[0].message


def test_the_settings_page_is_written_from_the_settings_themselves():
    """docs/configuration.md's table is what scripts/settings_reference.py writes from the fields: a new setting
    (or a changed default) that is not on the page fails here."""
    import subprocess
    import sys

    from assistant.config import Settings
    from assistant.config_file import settings_reference

    root = Path(__file__).resolve().parents[1]
    table = settings_reference()
    assert all(f"| `{name}` |" in table for name in Settings.model_fields)
    p = subprocess.run([sys.executable, str(root / "scripts" / "settings_reference.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
