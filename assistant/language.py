"""The few sentences the pipeline writes itself, in the user's language."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def could_not_answer(question: str, tool: str, attempts: int, reason: str, why: str) -> str:
    """An honest answer when the tool loop gave up; ``why`` is ``exhausted``, ``repeated`` or ``unfixable``."""
    zh = is_chinese(question)
    if why == "unfixable":
        return f"抱歉,{reason}" if zh else f"Sorry: {reason}"
    if zh:
        what = "模型重复了一个已经失败的调用" if why == "repeated" else f"{tool} 尝试了 {attempts} 次仍未通过检查"
        return f"抱歉,我没能得到可靠的结果:{what}。最后的问题是:{reason}"
    what = "the model repeated a call that had already failed" if why == "repeated" else f"{tool} was tried {attempts} times without passing the checks"
    return f"Sorry, I could not get a reliable result: {what}. The last problem was: {reason}"
