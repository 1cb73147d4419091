"""`assistant trace`: each executor call under its own attempt, also when a deterministic check (not the validator
model) rejected the earlier ones."""

from __future__ import annotations

from conftest import call

from assistant.frontends.trace_view import render
from assistant.models.function import RoleScript


async def test_a_check_rejected_retry_is_filed_under_its_own_attempt(scripted_app, model):
    model.fn = RoleScript(router={"route": "calculator"},
                          executor=[call("calculator", expression=".12 * 7"), call("calculator", expression="12 * 7")],
                          validator={"verdict": "PASS", "reason": "12 eggs times 7 boxes"},
                          responder="There are 84 eggs.")
    app = scripted_app(deterministic=True, one_call=False)  # each attempt with an executor call of its own
    result = await app.ask("A box holds 12 eggs. How many eggs are in 7 boxes? Use the calculator.")
    assert result.ok and result.attempts == 2 and model.roles().count("executor") == 2
    tree = render(app.store.turn(result.turn_id)).splitlines()
    first = next(i for i, line in enumerate(tree) if "attempt 1/" in line)
    second = next(i for i, line in enumerate(tree) if "attempt 2/" in line)
    between = tree[first:second]
    assert sum("executor model call" in line for line in between) == 1  # the first call, and only it
    assert any("validation FAIL (by check)" in line and ".12" in line for line in between)
    after = tree[second:]
    assert sum("executor model call" in line for line in after) == 1
    # 12 and 7 are the user's numbers: the check passes it, no verdict call
    assert not any("validator model call" in line for line in after)
    assert any("validation PASS (by check)" in line for line in after)


def test_logs_and_traces_never_print_terminal_control_sequences():
    from assistant.frontends.trace_view import logs_text

    text = logs_text([{"started_at": "2026-11-23T10:00:00", "id": "x", "route": "chat", "models": [],
                       "question": "q\x1b]0;title\x07", "answer": "a\x1b]52;c;ZXZpbA==\x07\x1b[2Jb", "error": None}])
    assert "\x1b" not in text and text.endswith("ab")


def test_the_summary_counts_in_words_a_person_reads():
    from assistant.frontends import trace_view

    turn = {"id": "t1", "session_id": "s", "started_at": "2026-11-24T00:00:00", "ok": 1, "question": "2+2",
            "answer": "2+2 = 4", "route": "calculator", "route_by": "rule", "route_reason": "", "attempts": 1,
            "error": None, "model_calls": [], "tool_calls": [{"attempt": 1, "name": "calculator", "args": {"expression": "2+2"},
                                                             "ok": 1, "result": '{"value": "4"}', "error": None,
                                                             "duration_ms": 1.0, "refusals": "[]", "step": None}],
            "events": []}
    assert "0 model calls, 1 tool call, 1 attempt" in trace_view.render(turn)
