"""The peers' habits: a bare question is `ask`, a misspelt command gets "did you mean", --no-stream prints the
answer whole."""

from __future__ import annotations

import sys

import pytest
from conftest import cli_env
from fake_ollama import Reply, Script

from assistant.frontends.cli import bare_question
from processes import ask_on_terminal, run


@pytest.mark.parametrize("argv, read", [
    (["what is 2+3"], ["ask", "what is 2+3"]), (["hello"], ["ask", "hello"]),
    (["why", "is", "the", "sky", "blue"], ["ask", "why", "is", "the", "sky", "blue"]),
    (["chat"], ["chat"]), (["--version"], ["--version"]), (["ask", "-x", "q"], ["ask", "-x", "q"]),
    (["-u", "hello"], ["ask", "-u", "hello"]), (["--help"], ["--help"]),
])
def test_a_bare_question_is_ask(argv, read):
    assert bare_question(argv) == read


@pytest.mark.parametrize("word, meant", [("chta", "chat"), ("remnders", "reminders"), ("docter", "doctor")])
def test_a_misspelt_command_says_what_was_meant_in_one_line(home, fake, word, meant):
    p = run([word], cli_env(home, fake))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and f"did you mean '{meant}'?" in p.stderr
    assert fake.requests == []


@pytest.mark.slow
def test_the_bare_form_answers_as_ask_does(home, fake):
    p = run(["what is 123 * 456"], cli_env(home, fake))
    assert p.returncode == 0 and p.stdout.strip().endswith("= 56088")


@pytest.mark.slow
def test_no_stream_prints_the_answer_whole_once_on_a_terminal(home, fake):
    fake.handler = Script(router={"route": "chat"}, responder=Reply(content="The sky scatters blue light. It is "
                                                                          "Rayleigh scattering."))
    p, seen = ask_on_terminal(["--no-stream", "--plain", "Why is the sky blue?"], cli_env(home, fake))
    assert p.returncode == 0 and seen.count("The sky scatters blue light.") == 1 and "Rayleigh" in seen


def test_usage_says_the_tokens_of_the_answers_model_calls(home, fake):
    from fake_ollama import Script

    fake.handler = Script(router={"route": "chat"}, responder="Hello there!")
    env = cli_env(home, fake)
    chat = run(["-u", "Tell me a short greeting"], env)
    assert chat.returncode == 0 and "usage: " in chat.stderr and "tokens in 1 model call" in chat.stderr
    rule = run(["ask", "-u", "2+3"], env)
    assert "0 model calls (answered by rule)" in rule.stderr


def test_logs_of_one_session(home, fake):
    env = cli_env(home, fake)
    run(["ask", "2+3"], env)
    listed = run(["logs", "-s", "last"], env)
    assert listed.returncode == 0 and "2+3 = 5" in listed.stdout
    none = run(["logs", "-c"], env)  # no chat yet
    assert none.returncode == 2 and "no session matches" in none.stderr


TABLE = ("Here is the weather:\n\n| City | Temperature | Sky |\n|---|---|---|\n"
         "| Paris | 12 °C | light rain with some wind later in the afternoon and a clear night |\n"
         "| Oslo | 3 °C | sunny |\n\nThat is all.")


@pytest.mark.slow
@pytest.mark.parametrize("columns", [60, 80, 200])
def test_a_table_on_a_terminal_is_aligned_and_fits_its_width(home, fake, columns):
    """In a real terminal (tmux) at each width: the table's columns line up, every row fits, nothing breaks it."""
    from tmux import Terminal

    if not Terminal.available():
        pytest.skip("tmux is not installed")
    fake.handler = Script(router={"route": "chat"}, responder=Reply(content=TABLE))
    env = {**cli_env(home, fake), "TERM": "xterm-256color"}
    term = Terminal([sys.executable, "-m", "assistant", "ask", "a table of two cities, please"], env, width=columns)
    try:
        screen = term.wait_for("That is all.", timeout=30)
    finally:
        term.close()
    rows = [line for line in screen.splitlines() if "│" in line]
    assert rows and all(len(line.rstrip()) <= columns for line in screen.splitlines())
    bars = {line.index("│") for line in rows}
    assert len(bars) == 1, screen  # the first column's bar at one place in every row: aligned
    assert "light rain" in screen and "clear night" in screen and "|---" not in screen


def test_ps_says_which_models_are_loaded_where(home, fake):
    env = cli_env(home, fake)
    assert "no model loaded" in run(["ps"], env).stdout
    fake.handler = Script(router={"route": "chat"}, responder="Hi.")
    run(["ask", "say hi"], env)
    listed = run(["ps"], env)
    assert listed.returncode == 0 and "qwen2.5:3b" in listed.stdout and "GB" in listed.stdout and "unloads in" in listed.stdout


def test_the_patterns_one_question_compiled_are_kept_for_the_next(home, fake):
    import marshal

    env = cli_env(home, fake)
    first = run(["ask", "how many miles is 12 km"], env)
    [kept] = (home / "cache").glob("patterns-*.marshal")
    _, programs = marshal.loads(kept.read_bytes())
    assert len(programs) > 50 and any("miles" in pattern for pattern, _ in programs)
    assert not list(home.rglob("places-v*.sqlite"))  # a conversion never opens the place index (12 MB unpacked)
    second = run(["ask", "how many miles is 12 km"], env)
    assert first.returncode == second.returncode == 0 and first.stdout == second.stdout and "7.46 miles" in first.stdout
