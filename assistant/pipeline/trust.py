"""How far a model's conversation answers are trusted: measured, not assumed, and said in the trace.

- ``small talk only``: the built-in tiny model, and any model well under a few billion parameters (a real 0.5B
  model wrote fluent, confident wrong capitals, names and commands in about a third of its answers). It answers
  small talk; a question of fact, code, commands or advice gets one honest line and the command to a capable model.
- ``strict``: a model whose conversation answers kept failing the gate (``weak_writer_after`` in a row, per model,
  remembered), or ``model_trust = "untrusted"``. Every figure must be supported by the question, the conversation,
  true arithmetic or the short table of common facts.
- ``trusted``: any other model the user brings. The gate refutes instead of demanding proof: it holds what is
  provably wrong or never ours to show (false arithmetic and conversions, contacts and links the question did not
  give, markup, our instructions, another language, garbage) and lets a figure that no table lists through.

``model_trust = "trusted"`` trusts a small model too; the built-in model stays at small talk."""

from __future__ import annotations

from enum import Enum


SMALL_MODEL = 2e9  # parameters: below this a model starts at small talk only


class Trust(str, Enum):
    SMALL_TALK = "small talk only"
    STRICT = "strict"
    TRUSTED = "trusted"


def decide(setting: str, built_in: bool, size: float | None, failing: bool) -> tuple[Trust, str]:
    """The trust for this turn and why, in words the trace shows."""
    if built_in:
        return Trust.SMALL_TALK, "the built-in model (135M parameters) answers small talk only"
    if setting == "trusted":
        return Trust.TRUSTED, "trusted by the setting model_trust"
    if setting == "untrusted":
        return Trust.STRICT, "untrusted by the setting model_trust: every figure must be supported"
    if size is not None and size < SMALL_MODEL:
        return Trust.SMALL_TALK, f"a small model ({size / 1e9:.2g}B parameters) answers small talk only"
    if failing:
        return Trust.STRICT, "its last conversation answers failed the check: every figure must be supported"
    return Trust.TRUSTED, "trusted: what is provably wrong is held back"
