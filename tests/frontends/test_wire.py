"""The wire protocol (assistant/wire.py, light) and the events the pipeline emits (pydantic) are one shape."""

from __future__ import annotations

import subprocess
import sys
import typing

import pytest

from assistant import wire
from assistant.errors import AssistantError
from assistant.pipeline import events


def test_every_event_type_is_on_the_wire_and_each_shape_matches_its_model():
    emitted = {m.model_fields["type"].default for m in typing.get_args(typing.get_args(events.Event)[0])}
    assert emitted == set(typing.get_args(wire.EventType))
    for name, shape in [("TurnStarted", wire.TurnStarted), ("StageStarted", wire.StageStarted),
                        ("AnswerDelta", wire.AnswerDelta), ("TurnDone", wire.TurnDone), ("TurnFailed", wire.TurnFailed)]:
        assert set(typing.get_type_hints(shape)) == set(getattr(events, name).model_fields), name
    assert set(typing.get_type_hints(wire.ToolResult)) <= set(events.ToolResultEvent.model_fields)
    assert set(wire.TOOL_CALL_KEYS) == set(events.ToolCallSummary.model_fields)


def test_a_request_is_what_the_daemon_reads_and_an_outcome_is_the_turns_result():
    from assistant.frontends.server import AskBody

    assert set(typing.get_type_hints(wire.TurnRequest)) == set(AskBody.model_fields)
    assert set(typing.get_type_hints(wire.TurnOutcome)) == set(events.TurnResult.model_fields)


def test_a_follower_reads_a_turn_as_the_pipeline_streamed_it():
    stream = [events.EventAdapter.dump_json(e) + b"\n" for e in [
        events.TurnStarted(turn_id="t", session_id="s", question="2+2"),
        events.RouteDecided(route="calculator", by="rule", reason="arithmetic"),
        events.StageStarted(stage="tool", attempt=2, of=4, detail="calculator(2+2)"),
        events.ToolResultEvent(attempt=1, name="calculator", args={"expression": "2+2"}, ok=True, result={"value": 4},
                               duration_ms=1.0, started_at="now"),
        events.TurnDone(turn_id="t", ok=True, answer="4", route="calculator", attempts=1, model_calls=0)]]
    turn = wire.Follower()
    labels = []
    for event in wire.events([b"\n", *stream]):
        turn.see(event)
        labels.append(wire.stage_label(event))
    assert labels == [None, None, "calculator(2+2) try 2/4…", None, None]
    outcome = turn.outcome()
    assert outcome["session_id"] == "s" and outcome["route_by"] == "rule" and outcome["answer"] == "4"
    assert events.TurnResult.model_validate(outcome).tool_calls[0].result == {"value": 4}
    assert turn.tool_calls == [{"name": "calculator", "args": {"expression": "2+2"}, "ok": True, "result": {"value": 4},
                                "error": None}]
    failed = wire.Follower()
    with pytest.raises(AssistantError) as e:
        failed.see(events.TurnFailed(message="no model", hint="ollama pull x", exit_code=4).model_dump())
    assert e.value.exit_code == 4
    with pytest.raises(AssistantError, match="ended the answer early"):
        wire.Follower().outcome()


def test_the_wire_module_is_light():
    code = "import sys, assistant.wire, assistant.frontends.client; print('pydantic' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_a_stream_that_breaks_after_the_daemon_took_the_question_ended_early():
    """The connection breaks mid-answer: the same error as a stream that ended without its last event (the turn
    reached the daemon, so it is not asked again here)."""
    from assistant.frontends.client import DaemonUnavailable, Turn

    class Broken:
        def ask(self, **request):
            yield {"type": "turn_started", "turn_id": "t", "session_id": "s", "question": request["question"]}
            raise DaemonUnavailable("lost the daemon (connection reset)")

    turn = Turn(Broken(), {"question": "hi"})  # type: ignore[arg-type]
    seen = []
    with pytest.raises(AssistantError, match="ended the answer early") as ended:
        seen.extend(turn)
    assert [e["type"] for e in seen] == ["turn_started"] and "Ask again" in ended.value.hint
