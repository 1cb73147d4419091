"""The few sentences the pipeline writes itself, in the user's language."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def could_not_answer(question: str, tool: str, attempts: int, reason: str, repeated: bool) -> str:
    """An honest answer when the tool loop gave up."""
    if is_chinese(question):
        why = "模型重复了一个已经失败的调用" if repeated else f"{tool} 尝试了 {attempts} 次仍未通过检查"
        return f"抱歉,我没能得到可靠的结果:{why}。最后的问题是:{reason}"
    why = "the model repeated a call that had already failed" if repeated else f"{tool} was tried {attempts} times without passing the checks"
    return f"Sorry, I could not get a reliable result: {why}. The last problem was: {reason}"
