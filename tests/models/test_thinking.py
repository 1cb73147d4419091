"""Thinking models: decisions are asked not to think, thinking never reaches an answer, an argument or a
verdict (whether the server sends it apart or inside ``<think>`` tags), and the trace keeps it."""

from __future__ import annotations

import json

import pytest
from fake_ollama import Reply, Script, tool_call

from assistant.models.thinking import ThinkSplitter, split_thinking
from assistant.pipeline.events import AnswerDelta, Thinking

THINKER = {"qwen3:4b": ["completion", "tools", "thinking"], "qwen2.5:3b": ["completion", "tools"]}
QUESTION = "半径为3的圆形地毯能盖住多大地方?"


@pytest.mark.parametrize("pieces, shown, thought", [
    (["<think>plan</think>\n\nAnswer."], "Answer.", "plan"),
    (["<th", "ink>pl", "an</thi", "nk>", "An", "swer."], "Answer.", "plan"),
    (["reasoning only</think>Answer."], "Answer.", "reasoning only"),  # the template opened the block
    (["<thinking>a</thinking>B"], "B", "a"),
    (["<think>never closed"], "", "never closed"),
    (["3 < 4 and I think so"], "3 < 4 and I think so", ""),
    (["a <", "b"], "a <b", ""),  # a held '<' that was not a tag is shown after all
])
def test_splitter_separates_thinking_over_any_piece_boundary(pieces, shown, thought):
    splitter = ThinkSplitter()
    out = [splitter.feed(p) for p in pieces] + [splitter.finish()]
    assert "".join(s for s, _ in out) == shown
    assert "".join(t for _, t in out) == thought
    assert split_thinking("".join(pieces)) == (shown, thought)


def _thinks(reply: object, thought: str) -> Reply:
    content = reply if isinstance(reply, str) else json.dumps(reply)
    return Reply(content=content, thinking=thought)


async def test_thinking_text_never_reaches_answer_and_stays_in_the_trace(fake, make_app):
    """With ``responder_think`` on, the answer streams after the thinking; front ends hear "thinking" once."""
    fake.models = THINKER
    fake.handler = Script(router={"route": "calculator"}, executor=tool_call("calculator", expression="pi*3^2"),
                          validator={"verdict": "PASS", "reason": "right"},
                          responder=_thinks("面积约为 28.27。", "The user wants pi r squared. SECRET"))
    app = make_app(model="qwen3:4b", deterministic=False, responder_think=True, one_call=False)  # each stage its own call
    events: list = []
    result = await app.ask(QUESTION, emit=events.append)
    assert result.answer == "面积约为 28.27。" and "SECRET" not in result.answer
    assert [r.get("think") for r in fake.requests] == [False, False, False, True]
    assert "SECRET" not in "".join(e.text for e in events if isinstance(e, AnswerDelta))
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("Thinking") == 1 and kinds.index("Thinking") < kinds.index("AnswerDelta")
    stored = app.store.turn(result.turn_id)
    responder = json.loads([c for c in stored["model_calls"] if c["role"] == "responder"][0]["reply"])
    assert "SECRET" in responder["thinking"] and "SECRET" not in responder["content"]
    from assistant.frontends.trace_view import render
    assert f"thought {len(responder['thinking'])} characters" in render(stored)


async def test_think_tags_in_content_are_stripped_from_every_stage(fake, make_app):
    """Older servers and some templates write the thinking into the text: the router still reads its JSON, the
    validator its verdict, and the answer shows none of it (streamed or final)."""
    fake.models = THINKER
    fake.handler = Script(
        router='<think>{"route": "chat"} would be wrong</think>{"route": "calculator"}',
        executor=tool_call("calculator", expression="pi*3^2"),
        validator='<think>FAIL? no.</think>\n{"verdict": "PASS", "reason": "right"}',
        responder=Reply(content="<think>Let me see: pi*9. HIDDEN</think>\n\n面积约为 28.27。", chunk_size=3))
    events: list = []
    result = await make_app(model="qwen3:4b", deterministic=False, one_call=False).ask(QUESTION, emit=events.append)
    assert result.ok and result.answer == "面积约为 28.27。" and result.route == "calculator"
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "面积约为 28.27。"
    assert result.attempts == 1


async def test_a_model_that_thinks_anyway_is_still_read(fake, make_app):
    """A model that is not hybrid ignores ``think: false``: its thinking comes back, and is set aside."""
    fake.models = THINKER
    fake.handler = Script(router=Reply(content='{"route": "chat"}', thinking="hmm", always_thinks=True),
                          responder=Reply(content="Because gravity pulls evenly.", thinking="long HIDDEN",
                                          always_thinks=True))
    events: list = []
    result = await make_app(model="qwen3:4b", deterministic=False).ask("Why is the moon round?", emit=events.append)
    assert result.answer == "Because gravity pulls evenly." and result.route == "chat"
    assert any(isinstance(e, Thinking) for e in events)


async def test_no_think_field_for_a_model_without_the_capability(fake, make_app):
    """Ollama answers HTTP 400 when ``think`` is sent to a model that cannot think: it is never sent."""
    fake.handler = Script(router={"route": "chat"}, responder="Hi.")
    result = await make_app(deterministic=False, responder_think=True).ask("Say hello in a sentence please")
    assert result.ok and all("think" not in r for r in fake.requests)
    assert fake.violations == []


async def test_fake_refuses_think_for_a_model_that_cannot(fake):
    """The fake is honest to the server: ``think: true`` to a model without the capability is HTTP 400."""
    import ollama

    client = ollama.AsyncClient(host=fake.url)
    with pytest.raises(ollama.ResponseError) as e:
        await client.chat(model="qwen2.5:3b", messages=[{"role": "user", "content": "hi"}], think=True,
                          options={"num_ctx": 2048})
    assert e.value.status_code == 400 and "does not support thinking" in str(e.value)
