"""Thinking kept out of answers. Thinking models return their reasoning apart (Ollama's ``thinking`` field, an
OpenAI-compatible server's ``reasoning_content``), and each backend puts it in :attr:`ChatReply.thinking`; some
write it into the text instead, as ``<think>…</think>``. :class:`WithoutThinking` wraps any backend and moves
such blocks out of the text, streamed or not, so no answer, argument or verdict ever contains one. The
thinking stays in the reply, where the trace keeps it."""

from __future__ import annotations

from assistant.models.base import ChatReply, ChatRequest, DeltaSink, Wrapping, deliver

TAGS = (("<think>", "</think>"), ("<thinking>", "</thinking>"))


def _partial_suffix(text: str, tags: list[str]) -> int:
    """How many characters at the end of ``text`` could be the start of one of ``tags`` (held back until the
    next piece shows whether it is)."""
    best = 0
    for tag in tags:
        for n in range(min(len(tag) - 1, len(text)), best, -1):
            if text.endswith(tag[:n]):
                best = n
                break
    return best


class ThinkSplitter:
    """Splits streamed text into what is shown and what is thinking, piece by piece. A tag may arrive split
    over pieces; a ``</think>`` with no opening tag (templates that open the block in the prompt) makes the
    text before it thinking. Leading blank space of the shown text is dropped."""

    def __init__(self) -> None:
        self.close: str | None = None  # inside a block: the tag that ends it
        self.held = ""
        self.shown: list[str] = []  # what was shown so far (text before an orphan closing tag was thinking)

    def feed(self, piece: str) -> tuple[str, str]:
        """Returns (shown, thinking) from this piece on; text that may be part of a tag waits for the next one."""
        text = self.held + piece
        self.held = ""
        shown: list[str] = []
        thought: list[str] = []
        while text:
            if self.close is not None:
                i = text.find(self.close)
                if i < 0:
                    keep = _partial_suffix(text, [self.close])
                    thought.append(text[:len(text) - keep])
                    self.held = text[len(text) - keep:]
                    break
                thought.append(text[:i])
                text, self.close = text[i + len(self.close):], None
                continue
            found = [(text.find(o), o, c) for o, c in TAGS if o in text]
            orphan = [(text.find(c), c) for _, c in TAGS if c in text]
            if orphan and (not found or min(orphan)[0] < min(found)[0]):
                i, close = min(orphan)
                thought.append("".join(self.shown) + "".join(shown) + text[:i])  # what came before was thinking
                self.shown, shown = [], []
                text = text[i + len(close):]
                continue
            if found:
                i, opening, close = min(found)
                shown.append(text[:i])
                text, self.close = text[i + len(opening):], close
                continue
            keep = _partial_suffix(text, [t for pair in TAGS for t in pair])
            shown.append(text[:len(text) - keep])
            self.held = text[len(text) - keep:]
            break
        visible = "".join(shown)
        if not "".join(self.shown).strip():
            visible = visible.lstrip()
        self.shown.append(visible)
        return visible, "".join(thought)

    def finish(self) -> tuple[str, str]:
        """What was held back: thinking when a block never closed, else shown."""
        held, self.held = self.held, ""
        if self.close is not None:
            return "", held
        self.shown.append(held)
        return held, ""


def split_thinking(text: str) -> tuple[str, str]:
    """``text`` without its thinking blocks, and the thinking they held."""
    if "<think" not in text and "</think" not in text:
        return text, ""
    splitter = ThinkSplitter()
    shown, thought = splitter.feed(text)
    more_shown, more_thought = splitter.finish()
    return (shown + more_shown).strip(), thought + more_thought


class WithoutThinking(Wrapping):
    """A backend whose replies never carry thinking in their text (see the module's docstring)."""

    async def chat(self, request: ChatRequest, on_delta: DeltaSink | None = None,
                   on_thinking: DeltaSink | None = None) -> ChatReply:
        splitter = ThinkSplitter()

        async def delta(piece: str) -> None:
            shown, thought = splitter.feed(piece)
            await deliver(on_thinking, thought)
            await deliver(on_delta, shown)

        reply = await self.inner.chat(request, delta if on_delta is not None else None, on_thinking)
        if on_delta is not None and reply.done_reason != "cut":
            held, _ = splitter.finish()
            await deliver(on_delta, held)
        content, thought = split_thinking(reply.content)
        if thought or content != reply.content:
            reply.content = content
            reply.thinking = (reply.thinking + "\n" + thought).strip() if reply.thinking else thought
        return reply
