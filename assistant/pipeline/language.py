"""The few sentences the pipeline writes itself, wholly in the user's language. Reasons meant for a model
(a pydantic message, an exception text, a validator's critique) stay in the trace; the user gets a plain
sentence."""

from __future__ import annotations

from assistant.capable import (  # noqa: F401 (re-exported)
    CAPABLE_MODEL, CAPABLE_SIZE, PULL_CAPABLE, TOO_SMALL, TOO_SMALL_SERVED,
)
from tools import LocalText, language_of

NO_CALL = LocalText(zh="模型没有给出可用的调用。", en="the model did not produce a usable call.")
BAD_ARGUMENTS = LocalText(zh="模型给出的参数无效。", en="the model's arguments were not valid.")
TOOL_FAILED = LocalText(zh="工具出错了。", en="the tool reported an error.")
CHECK_FAILED = LocalText(zh="结果没有通过检查。", en="the result did not pass the checks.")
UNCONFIRMED = LocalText(zh="检查无法确认这些参数符合你的问题。", en="the check could not confirm that the arguments fit your question.")


def is_chinese(text: str) -> bool:
    return language_of(text) == "zh"


def could_not_answer(question: str, tool: LocalText, attempts: int, problem: LocalText | None, why: str) -> str:
    """An honest answer when the tool loop gave up; ``why`` is ``exhausted``, ``repeated`` or ``unfixable``.
    ``tool`` is the tool's name for people; ``problem`` the last failure as a plain sentence."""
    lang = language_of(question)
    problem_text = problem.get(lang) if problem else CHECK_FAILED.get(lang)
    if why == "unfixable":
        return f"抱歉,{problem_text}" if lang == "zh" else f"Sorry: {problem_text}"
    if lang == "zh":
        what = "模型重复了一个已经失败的调用" if why == "repeated" else f"{tool.zh}尝试了 {attempts} 次仍未通过检查"
        return f"抱歉,我没能得到可靠的结果:{what}。最后的问题是:{problem_text}"
    what = ("the model repeated a call that had already failed" if why == "repeated"
            else f"the {tool.en} was tried {attempts} times without passing the checks")
    return f"Sorry, I could not get a reliable result: {what}. The last problem: {problem_text}"


# Why the check held an answer back, in the user's words: the kind of problem, never the model's own text (a refusal
# that quoted an invented figure or address would show it after all).
_WHY = [
    (("wrong arithmetic", "false conversion", "wrong conversion", "converts"), "它算错了", "it got its arithmetic wrong"),
    (("contradicts a known figure",), "它说的数字与公认的事实不符", "it stated a figure that contradicts a known fact"),
    (("nothing here supports",), "其中有无法核实的数字或联系方式", "it stated figures or contacts nothing here supports"),
    (("markup", "instructions", "template", "tool call", "json"), "其中混入了标记或指令,不是回答",
     "it held markup or instructions, not an answer"),
    (("language", "not in english", "not in chinese"), "它换成了别的语言", "it switched to another language"),
    (("broken characters", "writing system", "garbage"), "后面是乱码", "it turned to garbage"),
    (("repeats", "over and over"), "它一直在重复", "it kept repeating itself"),
    (("did not end within", "timed out", "empty"), "它没有写完", "it did not finish"),
]


def why_held(reason: str | None, zh: bool) -> str:
    """One short clause for why an answer (or its rest) was not shown."""
    text = (reason or "").lower()
    for keys, in_zh, in_en in _WHY:
        if any(k in text for k in keys):
            return in_zh if zh else in_en
    return "其中有无法核实的说法" if zh else "it made claims that could not be checked"


def could_not_write(question: str, reason: str | None = None, model: str | None = None) -> str:
    """An honest answer when nothing the model wrote could be shown, saying why in one clause (claims nothing
    supports, markup, our own instructions, another language) without repeating what it wrote. ``model``: the
    model in use, by the name the user gave it."""
    if language_of(question) == "zh":
        why = why_held(reason, True) if reason else "它写的内容无法核实"
        who = f"{model} " if model else "这个模型"
        return f"抱歉,{who}没能可靠地回答这个问题:{why},所以没有显示。更大的模型可以回答。"
    why = why_held(reason, False) if reason else "what it wrote could not be checked"
    who = model or "this model"
    return f"Sorry, {who} could not answer that reliably: {why}, so it is not shown. A larger model would answer it."


def too_small(question: str, model: str | None = None, served: bool = False) -> str:
    """A small model's honest answer to a question of fact, code, commands or advice: it does not guess, and the one
    command to a capable model. ``model``: a small model the user brought (``None``: the built-in one); ``served``:
    by the user's own OpenAI-compatible server, where the capable model is one to serve there."""
    zh = language_of(question) == "zh"
    if model and served:
        if zh:
            return (f"抱歉,{model} 太小,无法可靠地回答这类问题,所以不作猜测。请在你的服务器上换一个更强的模型"
                    f"(30 亿参数以上,例如 {CAPABLE_MODEL}),再把 model 设为它;设置 model_trust = \"trusted\" 可让 "
                    f"{model} 照样回答。")
        return (f"Sorry, {model} is too small to answer this reliably, so it does not guess. Serve a capable model on "
                f"your server (3B parameters or more, such as {CAPABLE_MODEL}) and set model to it; model_trust = "
                f"\"trusted\" lets {model} answer anyway.")
    if zh:
        if model:
            return (f"抱歉,{model} 太小,无法可靠地回答这类问题,所以不作猜测。换一个更强的模型只需一条命令:"
                    f"{PULL_CAPABLE}({CAPABLE_SIZE},再把 model 设为 {CAPABLE_MODEL});设置 model_trust = "
                    f"\"trusted\" 可让 {model} 照样回答。")
        return (f"抱歉,内置的模型太小,无法可靠地回答这类问题,所以不作猜测。换一个更强的模型只需一条命令:"
                f"{PULL_CAPABLE}({CAPABLE_SIZE})")
    if model:
        return (f"Sorry, {model} is too small to answer this reliably, so it does not guess. A capable model is one "
                f"command away: {PULL_CAPABLE} ({CAPABLE_SIZE}; then set model = \"{CAPABLE_MODEL}\"); "
                f"model_trust = \"trusted\" lets {model} answer anyway.")
    return (f"Sorry, the built-in model is too small to answer this reliably, so it does not guess. A capable model is "
            f"one command away: {PULL_CAPABLE} ({CAPABLE_SIZE})")


def scope_line(question: str, small: bool, model: str, builtin: bool, served: bool = False) -> str:
    """What answers beyond the tools, said after the list of what they do: the model in use, or, for a model held
    to small talk, that facts, code and advice need a capable one and how to get it."""
    zh = language_of(question) == "zh"
    if not small:
        return (f"其他问题(知识、写作、代码、建议)由 {model} 回答。" if zh else
                f"Anything else (facts, writing, code, advice) is answered by {model}.")
    who = (f"内置的模型({model})" if zh else f"the built-in model ({model})") if builtin else model
    if served:
        return (f"知识、代码和建议类的问题,{who}{'' if builtin else ' '}太小,答不可靠:请在你的服务器上换一个更强的模型"
                f"(例如 {CAPABLE_MODEL})。"
                if zh else f"For facts, code and advice {who} is too small to be reliable: serve a capable model on "
                f"your server (such as {CAPABLE_MODEL}).")
    return (f"知识、代码和建议类的问题,{who}{'' if builtin else ' '}太小,答不可靠;换一个更强的模型只需一条命令:"
            f"{PULL_CAPABLE}({CAPABLE_SIZE})。"
            if zh else f"For facts, code and advice {who} is too small to be reliable; a capable model is one command "
            f"away: {PULL_CAPABLE} ({CAPABLE_SIZE}).")


def capped_note(question: str, cap: int) -> str:
    """Said after an answer the generation cap stopped mid-way: it is not the whole answer, and how to allow more."""
    more = max(2 * cap, 1024)
    if language_of(question) == "zh":
        return f"(回答到了长度上限({cap} 个 token)就停了;用 -o num_predict {more} 或在 config.toml 里设 responder_max_tokens 可以放宽。)"
    return (f"(The answer stopped at the length limit of {cap} tokens; -o num_predict {more}, or "
            f"responder_max_tokens in config.toml, allows more.)")


def withheld_note(question: str, reason: str | None = None) -> str:
    """Said after an answer whose rest was held back, with why in one clause."""
    if language_of(question) == "zh":
        return f"(后面的内容没有显示:{why_held(reason, True)}。)"
    return f"(The rest is not shown: {why_held(reason, False)}.)"


def repeating_note(question: str) -> str:
    """Said after an answer cut where it started repeating itself: what is shown is not all it meant to say."""
    return "(回答在这里停下了:它开始重复同样的内容。)" if language_of(question) == "zh" else \
        "(The answer stopped here: it started repeating itself.)"


NOTES = ("(The rest is not shown: ", "(The answer stopped at the length limit", "(后面的内容没有显示:", "(回答到了长度上限",
         "(The answer stopped here: ", "(回答在这里停下了:")


def without_note(answer: str) -> str:
    """``answer`` without the note the check adds at its end (:func:`withheld_note`, :func:`capped_note`): what a
    user copies is the answer, not what we said about it."""
    head, sep, last = answer.rstrip().rpartition("\n\n")
    return head.rstrip() if sep and last.startswith(NOTES) and last.endswith(")") else answer
