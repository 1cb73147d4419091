"""What the assistant can do, said by rule: "what can you do?", "help", "你能做什么" and their kind are answered from
the registry as it is (the built-in tools, the plugins granted, the MCP servers), each with an example a person
can type, in the question's language, with no model call. The turn adds, for a model held to small talk, what
needs a capable one and the one command to get it. A question about the assistant itself ("who are you?", "what's
your name?", "are you a robot?", "你是谁") is answered the same way, after a line that says what it is: facts of our
own, which no model may guess at (a small one would claim to be ChatGPT, or a person)."""

from __future__ import annotations

import re

from tools import Registry, Tool, language_of
from tools.lazy_re import lazy_compile

_EN = lazy_compile(
    r"^(?:so\s+|and\s+|ok(?:ay)?,?\s+)?(?:what\s+(?:(?:else|exactly|all|precisely|else\s+exactly)\s+)?(?:can|could|do)\s+(?:you|u)\s+(?:do|help(?:\s+me)?(?:\s+with)?|"
    r"offer|answer)(?:\s+for\s+me)?|what\s+are\s+you\s+(?:capable\s+of|able\s+to\s+do|good\s+(?:at|for))|"
    r"what\s+(?:are|is)\s+your\s+(?:abilities|capabilities|features|skills|functions|tools|limits|limitations)|"
    r"how\s+(?:can|could|do)\s+(?:you|u)\s+help(?:\s+me)?|what\s+(?:can|should|may)\s+i\s+ask(?:\s+you)?|"
    r"what\s+(?:kinds?|sorts?|types?)\s+of\s+(?:things|questions|tasks)\s+(?:can|do)\s+(?:you|i)\s+"
    r"(?:do|answer|handle|ask(?:\s+you)?)|what\s+tools\s+do\s+you\s+have|(?:list|show)\s+(?:me\s+)?your\s+"
    r"(?:tools|skills|features|abilities|capabilities)|help|/help|capabilities|abilities)"
    r"(?:\s+(?:here|exactly|then|now|today))?\s*[?？!.。]*$", re.IGNORECASE)
_ZH = lazy_compile(
    r"^(?:那)?(?:你|您)?(?:都|还)?(?:能|会|可以)(?:帮我|为我|给我)?(?:做|干|干点|做点)?(?:些|哪些|点)?(?:什么|啥|嘛|哪些)(?:样的)?"
    r"(?:事情|事儿?|工作|活儿?)?(?:呀|呢|啊|吗|哇)?[?？!！。]*$|^(?:你|您)(?:有|都有)(?:什么|哪些)(?:功能|本领|能力|工具|技能|用)(?:呀|呢|啊)?[?？!！。]*$|"
    r"^(?:你|您)擅长(?:什么|做什么|哪些)[?？!！。]*$|^(?:帮助|使用说明|怎么用你|你怎么用|如何使用你)[?？!！。]*$")


_WHO_EN = lazy_compile(
    r"^(?:so\s+|and\s+|ok(?:ay)?,?\s+|but\s+)?(?:(?:who|what)\s+(?:are|r)\s+(?:you|u)(?:\s+(?:exactly|really|then))?|"
    r"(?:what(?:'s|\s+is)\s+)?your\s+name|(?:do\s+)?you\s+have\s+a\s+name|what\s+(?:should|do|can)\s+i\s+call\s+you|"
    r"(?:may|can|could)\s+i\s+(?:know|ask|have|get)\s+your\s+name|(?:tell|give)\s+me\s+your\s+name|"
    r"are\s+you\s+(?:a\s+|an\s+)?(?:real\s+)?(?:robot|bot|human|person|ai|machine|computer|program|chatbot|assistant|"
    r"language\s+model|llm|chatgpt|gpt|siri|alexa)|(?:please\s+)?introduce\s+yourself|tell\s+me\s+(?:a\s+bit\s+)?about\s+yourself|"
    r"(?:what|which)\s+(?:model|llm|ai|language\s+model)\s+(?:are\s+you(?:\s+using)?|is\s+this|do\s+you\s+(?:use|run\s+on)|"
    r"powers\s+you|answers|is\s+answering))\s*[?？!.。]*$", re.IGNORECASE)
_WHO_ZH = lazy_compile(
    r"^(?:那)?(?:请问)?(?:(?:你|您)(?:到底|究竟)?是(?:谁|什么|哪位|什么东西|机器人|真人|人|人类|AI|ai|人工智能|哪个模型|什么模型)(?:吗|呀|呢|啊)?|"
    r"(?:你|您)叫(?:什么|啥)(?:名字)?(?:呀|呢|啊)?|(?:你|您)的名字(?:是什么|叫什么|是啥)?(?:呀|呢|啊)?|(?:介绍一下|介绍介绍)(?:你|您)?自己|"
    r"(?:请)?(?:做个|做一下)?自我介绍(?:一下)?|(?:你|您)(?:用的|用)是(?:什么|哪个)模型|"
    # who made it: "谁开发的你", "你是谁做的", "你的开发者是谁", "你是哪家公司的"
    r"(?:是)?谁(?:开发|创造|制作|做|设计|发明|训练|写)(?:了|的|出)?(?:你|您)(?:的)?|(?:你|您)是(?:谁|哪家公司|哪个公司)"
    r"(?:开发|创造|制作|做|设计|发明|训练|写)?的|(?:你|您)的(?:开发者|作者|创造者|制作者|主人)是谁)(?:呀|呢|啊)?[?？!！。]*$")


def about_itself(request: str) -> bool:
    """Whether ``request`` asks who or what the assistant is (its name, whether it is a person or a model)."""
    text = request.strip()
    return bool(_WHO_EN.match(text) or _WHO_ZH.match(text))


def introduce(registry: Registry, question: str) -> str:
    """Who answers, then what it answers exactly (:func:`describe`), in the question's language."""
    zh = language_of(question) == "zh"
    return ("我是 assistant,在你的电脑上运行的桌面助手,不是真人。" if zh else
            "I'm assistant, a desktop assistant running on your computer, not a person.") + "\n" + \
        describe(registry, question)


def asks(request: str) -> bool:
    """Whether ``request`` (a question read by :func:`tools.reading.request.read`) asks what the assistant can do."""
    text = request.strip()
    return bool(_EN.match(text) or _ZH.match(text))


def _example(tool: Tool, zh: bool) -> str | None:
    """One request of the tool's own declared ones (``Tool.reads``) in the question's language: a plain one (no
    wrapper), the shortest."""
    from tools.reading.request import read

    fits = [q for q, _ in tool.reads if (language_of(q) == "zh") == zh and not (r := read(q)).wrapped and not r.markup]
    return min(fits, key=len) if fits else None


def _summary(tool: Tool) -> str:
    first = re.split(r"(?<=[.。])\s", tool.description.strip(), maxsplit=1)[0]
    return first.rstrip(".。")


def describe(registry: Registry, question: str) -> str:
    """The tools there are, each with an example, in the question's language."""
    zh = language_of(question) == "zh"
    lines = ["我在这里能直接、准确地回答这些(不必问模型):" if zh else
             "Here is what I answer exactly, with my own tools (no guessing by a model):"]
    for tool in registry:
        title = tool.label.zh if zh else tool.label.en
        example = _example(tool, zh)
        if example:  # a tool of ours: its name and a request to type
            lines.append(f"- {title}:例如“{example}”" if zh else f"- {title}: try “{example}”")
        else:  # a plugin's or an MCP server's: its own words
            lines.append(f"- {title}:{_summary(tool)}" if zh else f"- {title}: {_summary(tool)}")
    return "\n".join(lines)
