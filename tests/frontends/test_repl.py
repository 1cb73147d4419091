"""The real REPL in a real terminal (tmux) against the fake Ollama and the fake Open-Meteo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from conftest import cli_env
from fake_ollama import Reply, Script, tool_call
from tmux import Terminal

from assistant.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Terminal.available(), reason="tmux is not installed")]


@pytest.fixture
def chat(home, fake, meteo, gazetteer_index):
    terminals: list[Terminal] = []

    def start(*args: str, **extra: str) -> Terminal:
        env = cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL=meteo.url, ASSISTANT_WEATHER_GEOCODING_URL=meteo.url,
                      ASSISTANT_GAZETTEER_INDEX=gazetteer_index, TERM="xterm-256color",
                      PATH=os.environ.get("PATH", ""), HOME=str(home), **extra)
        term = Terminal([sys.executable, "-m", "assistant", "chat", *args], env)
        terminals.append(term)
        term.wait_for("· /help")
        return term

    yield start
    for t in terminals:
        t.close()


def last_turn(home, question: str | None = None) -> dict:
    """The newest stored turn (``question``'s, once it is stored: the answer reaches the screen before the turn
    is written)."""
    deadline = time.monotonic() + 10
    while True:
        store = Store(home / "data" / "assistant.db")
        try:
            found = store.find_turn("last")
            turn = store.turn(found) if found else None
        finally:
            store.close()
        if turn is not None and (question is None or turn["question"] == question):
            return turn
        if time.monotonic() > deadline:
            raise AssertionError(f"no stored turn for {question!r} (the last: {turn and turn['question']!r})")
        time.sleep(0.05)


def test_weather_then_a_follow_up(chat, fake, meteo, home):
    meteo.set_weather(31.22, 121.46, 2.0, code=61)
    meteo.set_weather(39.91, 116.40, 3.0, code=3)
    fake.handler = Script(responder=["上海现在 2°C,小雨。", "北京现在 3°C,阴。"])
    term = chat()
    term.type("上海现在冷不冷?")
    term.wait_for("上海现在 2°C,小雨。")
    term.type("那北京呢?")
    screen = term.wait_for("北京现在 3°C,阴。")
    assert "Traceback" not in screen
    turn = last_turn(home, "那北京呢?")
    assert [json.loads(c["args"])["place"] for c in turn["tool_calls"]] == ["北京"]
    assert turn["route_by"] == "rule" and len(turn["model_calls"]) == 1


def test_a_question_back_is_completed_after_restarting_the_repl(chat, fake, meteo, home):
    meteo.set_weather(36.06, 103.79, 5.0, code=3)
    fake.handler = Script(responder="兰州现在 5°C,阴。")
    term = chat()
    term.type("天气怎么样?")
    term.wait_for("请问您想查询哪个城市的天气?")
    term.wait_for("›", after=1)  # the next prompt is up: a key typed before it would go to the terminal, not the chat
    term.send("C-d")
    term.wait_for("[exited]")
    term = chat("--continue")
    term.wait_for("(waiting for your answer about: 天气怎么样?)")
    term.type("兰州")
    term.wait_for("兰州现在 5°C,阴。")
    turn = last_turn(home, "兰州")
    assert turn["route"] == "weather" and '"兰州"' in turn["tool_calls"][0]["args"]


def test_ctrl_c_cancels_a_slow_answer_and_keeps_the_session(chat, fake):
    # shown a checked sentence at a time: the first arrives, the rest is still coming when Ctrl-C cancels it
    slow = Reply(content="This is slow. " + "More words keep coming in. " * 20, chunk_size=2, chunk_delay=0.3)
    fake.handler = Script(router=[{"route": "chat"}, {"route": "chat"}], responder=[slow, "Quick answer."])
    term = chat()
    term.type("Tell me something slowly")
    term.wait_for("This")
    term.send("C-c")
    term.wait_for("(cancelled)")
    term.type("And now quickly?")
    screen = term.wait_for("Quick answer.")
    assert "[exited]" not in screen
    # the follow-up went to the same session: its call saw no half answer, only complete turns
    assert len(fake.requests[-1]["messages"]) == 2


def test_trace_shows_the_retry_of_a_flawed_first_call(chat, fake):
    fake.handler = Script(  # the deciding call proposes the circumference; the executor fixes it from the feedback
        decide=tool_call("calculator", expression="2*π*3"),
        executor=tool_call("calculator", expression="π*3^2"),
        validator=[{"verdict": "FAIL", "reason": "that is the circumference, use pi*r^2"},
                   {"verdict": "PASS", "reason": "area formula"}],
        responder="面积约为 28.27。",
    )
    term = chat()
    term.type("半径为3的圆形地毯能盖住多大地方?")
    term.wait_for("面积约为 28.27。")
    term.type("/trace")
    screen = term.wait_for("answer: 面积约为 28.27。")
    assert "attempt 1 (arguments from the call that chose the route)" in screen and "attempt 2/4" in screen
    assert "validation FAIL (by model): that is the circumference, use pi*r^2 → sent back to the executor" in screen
    assert '2*π*3' in screen and "π*3^2" in screen


def test_slash_commands(chat, fake):
    term = chat()
    term.type("/retries 1")
    term.wait_for("max_retries = 1")
    term.type("/model executor qwen2.5:7b")
    term.wait_for("executor now uses qwen2.5:7b")
    term.type("/frobnicate")
    term.wait_for("unknown command /frobnicate")
    term.type("/new")
    term.wait_for("new session")
    term.type("/sessions")
    term.wait_for("last active")
    term.type("/exit")
    term.wait_for("[exited]")


def test_chat_goes_through_a_running_daemon(home, fake, gazetteer_index):
    from processes import Daemon

    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "answered by the daemon")
    daemon = Daemon(home, cli_env(home, fake, ASSISTANT_GAZETTEER_INDEX=gazetteer_index)).start()
    try:
        # the shell's settings are the daemon's: it answers (other ones are answered here: tests/frontends/test_daemon.py)
        env = cli_env(home, fake, TERM="xterm-256color", PATH=os.environ.get("PATH", ""),
                      HOME=str(home), ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
        term = Terminal([sys.executable, "-m", "assistant", "chat"], env)
        try:
            term.wait_for("via the daemon")
            term.type("/retries 2")
            term.wait_for("max_retries = 2")
            term.type("hello")
            term.wait_for("answered by the daemon")
            term.type("/trace")
            term.wait_for("answer: answered by the daemon")
            assert "answering in this process" not in term.screen()
        finally:
            term.close()
    finally:
        daemon.stop()


def test_search_finds_earlier_turns_of_any_session(chat, fake, home):
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "Owls hunt at night.")
    term = chat()
    term.type("Tell me about owls")
    term.wait_for("Owls hunt at night.")
    last_turn(home, "Tell me about owls")
    term.type("/new")
    term.wait_for("new session")
    term.type("/search OWLS")
    term.wait_for("> Tell me about owls")
    term.type("/search 不存在的东西")
    term.wait_for("nothing found for '不存在的东西'")


def test_a_first_message_from_the_command_line(chat, fake, home, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("Meeting moved to Friday.\n")
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "It moved to Friday.")
    term = chat("-f", str(notes), "what", "changed?")
    term.wait_for("It moved to Friday.")
    assert fake.requests[0]["messages"][-1]["content"] == "notes.txt:\nMeeting moved to Friday.\n\nwhat changed?"
    term.type("/exit")


def test_tab_completes_commands_roles_and_models(chat, fake):
    fake.models = {"qwen2.5:3b": ["completion", "tools"], "llama3.2:1b": ["completion", "tools"]}
    term = chat()
    term.send("/mo", "Tab")
    term.wait_for("› /model")
    term.send(" ", "ll", "Tab")
    term.wait_for("› /model llama3.2:1b")  # a model the server has
    term.send("Enter")
    term.wait_for("every role now uses llama3.2:1b")
    term.wait_for("›", after=1)  # the next prompt, before the next keys (typed sooner, the terminal echoes them)
    term.send("/model", " ", "res", "Tab")
    term.wait_for("› /model responder")


def test_keys_typed_while_an_answer_streams_wait_for_the_next_prompt(chat, fake):
    """Not echoed into the answer, not lost: the next prompt holds them; a whole line typed is asked next."""
    slow = Reply(content="The first part. " + "Then more words come. " * 6, chunk_size=3, chunk_delay=0.1)
    slow_too = Reply(content="Second answer. " + "It takes its time. " * 6, chunk_size=3, chunk_delay=0.1)
    fake.handler = Script(router=[{"route": "chat"}] * 3, responder=[slow, slow_too, "Third answer."])
    term = chat()
    term.type("Tell me something slowly")
    term.wait_for("The first part.")
    term.send("-l", "what next")  # typed while the answer streams
    screen = term.wait_for("› what next", timeout=30)
    answer_lines = screen.split("Tell me something slowly")[1].split("› what next")[0]
    assert "what next" not in answer_lines  # not echoed into the answer
    term.send("Enter")
    term.wait_for("Second answer.")
    term.type("and the third")  # a whole line, Enter included, typed while the second answer streams
    screen = term.wait_for("Third answer.", timeout=30)
    assert "› and the third" in screen  # asked next, shown as asked


@pytest.fixture
def x_display():
    """A virtual screen (Xvfb) whose clipboard xclip reads: the real X selection, owned by whoever copied last."""
    if not (shutil.which("Xvfb") and shutil.which("xclip")):
        pytest.skip("Xvfb and xclip are not installed (apt-get install xvfb xclip)")
    from processes import virtual_screen

    with virtual_screen(range(200, 260), size="640x480x24") as screen:
        yield screen


def clipboard(display: str) -> str:
    return subprocess.run(["xclip", "-o", "-selection", "clipboard"], env={**os.environ, "DISPLAY": display},
                          capture_output=True, text=True, timeout=10).stdout


def test_copy_puts_the_last_answer_or_its_code_on_the_clipboard(chat, fake, x_display):
    answer = "Like this:\n\n```sh\ntar xzf backup.tgz -C /restore\n```\n\nIt keeps the owners."
    fake.handler = Script(router=[{"route": "chat"}] * 2, responder=[answer, "A second answer."])
    term = chat(DISPLAY=x_display)
    term.type("/copy")
    term.wait_for("nothing to copy yet")
    term.type("How do I restore the backup?")
    term.wait_for("It keeps the owners.")
    term.type("/copy")
    term.wait_for("copied the last answer")
    assert clipboard(x_display).strip() == answer
    term.type("/copy code")
    term.wait_for("copied its code")
    assert clipboard(x_display) == "tar xzf backup.tgz -C /restore\n"
    term.type("Another one")
    term.wait_for("A second answer.")
    term.type("/copy code")
    term.wait_for("the last answer has no code block")


def test_edit_asks_what_the_editor_saved_and_resume_shows_where_it_stood(chat, fake, tmp_path):
    editor = tmp_path / "editor.sh"  # an editor that writes a two-line question with a '#' line, as a person would
    editor.write_text("#!/bin/sh\nprintf 'Sum these:\\n# from the ledger\\n12 + 30\\n' > \"$1\"\n")
    editor.chmod(0o755)
    fake.handler = Script(router=[{"route": "chat"}] * 3, responder=["It is 42.", "Hello again."] + ["x"])
    term = chat(EDITOR=str(editor))
    term.type("/edit")
    term.wait_for("It is 42.")
    asked = [r for r in fake.requests if r["messages"][-1]["role"] == "user"][-1]["messages"][-1]["content"]
    assert asked == "Sum these:\n# from the ledger\n12 + 30"  # all of it, the '#' line too
    term.type("/new")
    term.wait_for("new session")
    term.type("Hi")
    term.wait_for("Hello again.")
    term.type("/sessions")
    screen = term.wait_for("Sum these: # from the ledger 12 + 30")  # a title of three lines, on one
    first = [line.split()[0] for line in screen.splitlines() if line.endswith("Sum these: # from the ledger 12 + 30")][0]
    term.type(f"/resume {first}")
    screen = term.wait_for("It is 42.", after=1)
    assert "› Sum these: …" in screen and "\nIt is 42." in screen  # shown as the chat shows it: not indented
    seen = term.screen().count("Hi")
    term.send("/resume ", "Tab")  # the sessions offered with their titles, not as bare ids
    term.wait_for("Hi", after=seen)
    assert "the most recent" in term.screen()


def test_a_template_chosen_in_the_chat_shapes_the_answers_that_follow(chat, fake, home):
    templates = home / "config" / "templates"
    templates.mkdir(parents=True)
    (templates / "pirate.toml").write_text('system = "Talk like a pirate."\nmodel = "llama3.2:1b"\n\n[options]\n'
                                           'temperature = 0.9\n')
    (templates / "hot.toml").write_text("[options]\ntemperature = 7\n")
    fake.models = {"qwen2.5:3b": ["completion", "tools"], "llama3.2:1b": ["completion", "tools"]}
    fake.handler = Script().always("router", {"route": "chat"}).always("responder", "Arr.")
    term = chat()
    term.type("/template")
    term.wait_for("templates: hot, pirate")
    term.type("/template hot")
    term.wait_for("nothing changed")
    term.type("/template pirate")
    term.wait_for("template pirate from here on: model llama3.2:1b · temperature 0.9 · system: Talk like a pirate.")
    term.type("Hello")
    term.wait_for("Arr.")
    call = fake.requests[-1]
    assert call["model"] == "llama3.2:1b" and call["options"]["temperature"] == 0.9
    assert "Talk like a pirate." in json.dumps(call["messages"])


def test_a_narrow_terminal_gets_a_header_that_fits_and_no_stage_line_left_behind(fake, home, meteo, gazetteer_index):
    """At 60 columns: the header is two rows, not one folded; a tool call wider than the terminal, or of several
    lines, is a status row that is cleared whole before the answer."""
    expression = "(1234567 + 7654321) * 3 -\n 2 * (111111 + 222222 + 333333 + 444444 + 555555)"  # over two lines
    fake.handler = Script(router={"route": "calculator"}, decide=tool_call("calculator", expression=expression),
                          executor=tool_call("calculator", expression=expression),
                          validator={"verdict": "PASS", "reason": "ok"},
                          responder=Reply(content="It is 23333334.", delay=1.0))
    env = cli_env(home, fake, ASSISTANT_GAZETTEER_INDEX=gazetteer_index, TERM="xterm-256color",
                  PATH=os.environ.get("PATH", ""), HOME=str(home))
    term = Terminal([sys.executable, "-m", "assistant", "chat"], env, width=60, height=30)
    try:
        term.wait_for("· /help")
        rows = term.rows()
        assert rows[0].startswith("assistant chat · qwen2.5:3b") and rows[1].startswith("session ")
        term.type("What does my invoice come to? Spell out the sum for me.")
        term.wait_for("It is 23333334.", timeout=30)
        shown = [r for r in term.rows() if r.strip()]
        assert not any("calculator(" in r or r.rstrip().endswith("…") for r in shown), shown  # no stage row left
    finally:
        term.close()


def test_resume_last_after_new_is_the_conversation_left(chat, fake):
    fake.handler = Script(router=[{"route": "chat"}] * 2, responder=["Hello there.", "x"])
    term = chat()
    term.type("Hi")
    term.wait_for("Hello there.")
    first = term.screen()
    term.type("/new")
    term.wait_for("new session")
    term.type("/resume last")
    term.wait_for("resumed session", after=first.count("resumed session"))
    screen = term.wait_for("Hello there.", after=first.count("Hello there."))  # the last exchange, drawn whole
    assert "(1 turn)" in screen and "Hello there." in screen.split("resumed session")[-1]  # not the empty new one


@pytest.mark.parametrize("columns", [40, 60, 80, 200])
def test_help_fits_the_terminal_without_breaking_a_word(columns):
    from assistant.frontends.repl import HELP, help_text

    shown = help_text(columns)
    assert all(len(line) <= columns for line in shown.splitlines())
    assert shown.split() == HELP.split()  # every word whole, in order


def test_copy_inside_tmux_with_no_clipboard_tool_fills_tmux_s_paste_buffer(chat, fake, tmp_path):
    """No display, no clipboard tool: inside tmux, /copy puts the answer in tmux's own paste buffer (an escape
    sequence to the outer terminal is dropped unless tmux allows passthrough: nothing was copied before)."""
    holder = f"assistant-buffer-{os.getpid()}"  # the tmux server the chat runs "inside", as TMUX names it
    subprocess.run(["tmux", "-L", holder, "new-session", "-d", "-s", "h", "sleep 60"], check=True)
    try:
        socket = subprocess.run(["tmux", "-L", holder, "display-message", "-p", "#{socket_path}"], check=True,
                                capture_output=True, text=True).stdout.strip()
        fake.handler = Script(router=[{"route": "chat"}], responder=["Use rsync -a src/ dst/."])
        term = chat(TMUX=f"{socket},0,0")
        term.type("How do I copy a folder?")
        term.wait_for("Use rsync -a src/ dst/.")
        term.type("/copy")
        term.wait_for("into tmux's paste buffer")
        buffer = subprocess.run(["tmux", "-L", holder, "show-buffer"], capture_output=True, text=True).stdout
        assert buffer == "Use rsync -a src/ dst/."
    finally:
        subprocess.run(["tmux", "-L", holder, "kill-server"], capture_output=True)


def test_the_chat_builds_a_new_homes_place_index_while_you_type(home, fake, meteo, tmp_path):
    """In a new home, the chat builds the place index at its start, in the background (as the daemon does): the
    first weather question then finds it, instead of waiting for it."""
    index = tmp_path / "places" / "index.sqlite"
    env = cli_env(home, fake, ASSISTANT_WEATHER_FORECAST_URL=meteo.url, ASSISTANT_WEATHER_GEOCODING_URL=meteo.url,
                  ASSISTANT_GAZETTEER_INDEX=str(index), TERM="xterm-256color", PATH=os.environ.get("PATH", ""),
                  HOME=str(home))
    term = Terminal([sys.executable, "-m", "assistant", "chat"], env)
    try:
        term.wait_for("· /help")
        deadline = time.monotonic() + 120
        while not index.exists() and time.monotonic() < deadline:  # nothing asked yet
            time.sleep(0.2)
        assert index.exists()
    finally:
        term.close()
