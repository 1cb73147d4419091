"""What a tool is: a name, a description, a pydantic argument model, an async ``run``, and optional
deterministic hooks that let the pipeline skip model calls when the answer is certain."""

from __future__ import annotations

import asyncio
import copy
import functools

from typing import Any, Callable, ClassVar, Generic, Literal, Sequence, TypeVar

from pydantic import BaseModel, Field
from tools.lazy_re import lazy_compile

Language = Literal["zh", "en"]
Grounding = Literal["grounded", "ask", "ungrounded"]
TOOL_NAME = lazy_compile(r"[a-z][a-z0-9_]{0,39}")  # a tool's name: its route, and the name models call it by
CJK = lazy_compile(r"[\u3400-\u9fff\uf900-\ufaff]")  # Chinese characters: the one test of "is this Chinese"


def language_of(text: str) -> Language:
    """The language to answer ``text`` in: Chinese when it has any Chinese character, else English."""
    return "zh" if CJK.search(text) else "en"


class LocalText(BaseModel):
    """A sentence for the user, in each language the assistant speaks."""

    zh: str
    en: str

    def get(self, language: Language) -> str:
        return self.zh if language == "zh" else self.en


class KeyFact(BaseModel):
    """Something every answer built on a tool result must carry: a number (compared numerically, so
    28.2743 ≈ 28.27 ≈ 28.3) or one of a few words (a place, a condition)."""

    label: str = Field(description="what the fact is, as the reason for a rejected answer names it")
    number: float | None = None
    tolerance: float = Field(0.0, description="absolute slack for the number (0.5: rounding to whole degrees)")
    words: list[str] = Field(default_factory=list, description="any one of these, case-insensitive")
    unit: str | None = Field(None, description="the number's unit ('°C', 'km/h'), for a later step that computes with it")


class ToolResult(BaseModel):
    """Data on success, or an error written so that a model can act on it."""

    ok: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    refusals: list[str] = Field(default_factory=list, description="what the sandbox refused during the call")
    fixable: bool = Field(default=True, description="False when no change of arguments can help (e.g. the network is down)")
    message: LocalText | None = Field(default=None, description="the error as one plain sentence for the user")

    @classmethod
    def success(cls, **data: Any) -> ToolResult:
        return cls(ok=True, data=data)

    @classmethod
    def failure(cls, error: str, message: LocalText | None = None) -> ToolResult:
        return cls(ok=False, error=error, message=message)


def failed_with(tool_name: str, error: BaseException) -> "ToolResult":
    """A tool that raised, as a failure said in words (never an exception's name and text): a number or a date too
    large to work with, the store busy, full or unreadable; anything else as a failure of the tool, its kind named
    for the trace."""
    import sqlite3

    from tools.cache_file import disk_full

    text = str(error).lower()
    if isinstance(error, OverflowError) or (isinstance(error, ValueError) and "out of range" in text):
        return ToolResult.failure(f"{tool_name} failed: a number or a date too large to work with",
                                  LocalText(en="that number or date is too large to work with.", zh="这个数字或日期太大了，没法计算。"))
    if isinstance(error, sqlite3.Error):
        full = disk_full(error)
        why = ("the disk is full" if full else "the store is busy (another process is writing it)"
               if "locked" in text or "busy" in text else "the store could not be read or written")
        return ToolResult.failure(f"{tool_name} failed: {why}",
                                  LocalText(en=f"{why}; try again in a moment.",
                                            zh="磁盘已满;请清理后再试。" if full else "存储暂时无法读写;请稍后再试。"))
    if isinstance(error, OSError) and error.strerror:  # "No such file or directory": the system's own words
        return ToolResult.failure(f"{tool_name} failed: {error.strerror}")
    return ToolResult.failure(f"{tool_name} failed unexpectedly ({type(error).__name__})")


class Verdict(BaseModel):
    """A validation decision. ``by`` records which layer made it: the tool's own check or the model."""

    verdict: Literal["PASS", "FAIL"]
    reason: str = ""
    by: Literal["check", "model", "default"] = "check"
    message: LocalText | None = None  # the reason as a plain sentence for the user, when it must be shown

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"


class PreviousTurn(BaseModel):
    """What a follow-up needs to know about the turn before it in the same session."""

    question: str
    route: str | None
    calls: list[tuple[dict[str, Any], dict[str, Any] | None]] = Field(default_factory=list)  # (args, data) that passed
    facts: list[KeyFact] = Field(default_factory=list, description="the key facts of those results (an earlier step's)")


class Finding(BaseModel):
    """One thing ``assistant doctor`` found about a tool (a service it needs, a file, a setting)."""

    name: str
    level: Literal["ok", "warn", "fail"]
    detail: str
    fix: str = ""


class Permissions(BaseModel):
    """What a tool may touch. Enforced by the sandbox runner; declared here so it can be listed and audited."""

    network: list[str] = Field(default_factory=list, description="hosts the tool may reach")
    ports: list[int] = Field(default_factory=list, description="TCP ports those hosts are reached on (the kernel holds "
                             "the tool to them where Landlock can; empty: any)")
    files: list[str] = Field(default_factory=list, description="directories the tool may write (its cache at most)")


A = TypeVar("A", bound=BaseModel)  # a tool's arguments: ``class Weather(Tool[WeatherArgs])`` types every hook's


class Tool(Generic[A]):
    """Base class for tools. Subclasses set the class attributes and implement :meth:`run`; ``Tool[XArgs]`` types
    the arguments every hook receives.

    Where each part runs:

    - :meth:`run` runs confined, always: in a sandbox worker (:mod:`tools.jail.worker`, the kernel's jail) with what the
      user granted, rebuilt there from :meth:`spec` (its class and its config), so all it needs at run time must be
      in its ``Config``. An MCP server's tool (``external``) is its own confined process instead.
    - The other hooks (``from_settings``, ``permissions``, ``route``, ``follow_up``, ``missing``/``complete``,
      ``depends``, ``grounding``, ``vet``, ``check``, ``key_facts``, ``wrong_claims``/``derives``,
      ``render``/``render_all``, ``doctor``) run in the assistant's process for a built-in tool, which is our
      code. For a plugin none of them does: its class is never imported here; each hook it overrides is forwarded
      to its hook host, a worker in the same jail as ``run()`` with no folders and no network
      (:mod:`tools.plugins`), and one that fails or hangs costs that answer its neutral value, never the turn."""

    # What a tool is: set on the class by a tool of its own, or on the instance by one built from a description (a
    # plugin's, an MCP server's).
    name: str
    description: str
    title: LocalText | None = None  # the tool's name for people ("the weather service", "天气服务")
    Args: type[BaseModel]
    Config: ClassVar[type[BaseModel] | None] = None
    #: where the tool comes from, as ``assistant tools`` lists it: built-in, a plugin's package, an MCP server
    source: str = "built-in"
    #: the tool runs in a process of its own (an MCP server, under the sandbox's limits): runners call
    #: :meth:`run` directly instead of rebuilding the tool in a sandbox worker
    external: ClassVar[bool] = False
    #: a built-in tool whose ``run`` keeps the user's own state (the reminders): it runs in the assistant's process,
    #: writing its table of the store and nothing else (no network, no other file); never so for a plugin
    keeps_state: ClassVar[bool] = False
    #: modules its ``run`` imports, loaded while its worker starts (before any call: a chat or a daemon that warms
    #: its workers has them ready for the first question), not by the first call
    warm_imports: ClassVar[tuple[str, ...]] = ()
    #: the argument a follow-up that names a target replaces ("in grams?", "换成千克呢"), whatever the wording of
    #: the first request ("convert 5 lb to g", "how many grams in 5 pounds")
    target_slot: ClassVar[str | None] = None
    #: Its rule declared as data (tests/pipeline/test_declared_rules.py holds every rule to it): requests its
    #: :meth:`route` must read, wrapped as people wrap them, each with a fragment of the arguments it must give; and
    #: near-misses no rule may take as a request for it (a place name that is an ordinary word, a time of day in a
    #: greeting, a version number that looks like a sum).
    reads: ClassVar[Sequence[tuple[str, dict[str, Any]]]] = ()
    near_misses: ClassVar[Sequence[str]] = ()

    def __init__(self, config: BaseModel | None = None) -> None:
        self.config = config

    @classmethod
    def from_settings(cls, settings: Any, paths: Any) -> Tool:
        """The tool as the assistant builds it from its settings (``assistant.config.Settings``) and folders
        (``assistant.paths.Paths``: ``cache_dir``, ``log_dir``). A tool with a ``Config`` reads its values here."""
        return cls()

    async def doctor(self) -> list[Finding]:
        """What ``assistant doctor`` checks of this tool beyond building it (a service it reaches, say)."""
        return []

    def wrong_claims(self, text: str) -> list[str]:
        """Claims in an answer this tool can compute and finds false (``5 km is 3.107 mile, not 1.039``): the
        answer check holds back a sentence that makes one, in any conversation."""
        return []

    def derives(self, evidence: str) -> Callable[[str], set[float]] | None:
        """Figures this tool can derive from the evidence (the question and the conversation), as a function of an
        answer's sentence; ``None`` when it derives none. Prepared once per answer; the answer check lets a figure
        so derived stand (5 miles asked, 8.05 km answered)."""
        return None

    @property
    def label(self) -> LocalText:
        return self.title or LocalText(zh=self.name, en=self.name)

    @property
    def permissions(self) -> Permissions:
        """What this tool may touch; may depend on its config (the hosts it was pointed at)."""
        return Permissions()

    def spec(self) -> dict[str, Any]:
        """How a worker process rebuilds this tool: its class and its config."""
        import sys

        module = sys.modules[type(self).__module__]
        return {
            "module": type(self).__module__,
            "qualname": type(self).__qualname__,
            "path": getattr(module, "__file__", None),
            "config": self.config.model_dump(mode="json") if self.config is not None else None,
        }

    async def run(self, args: A) -> ToolResult:
        raise NotImplementedError

    async def start(self) -> None:
        """Make the first call fast (an external tool starts its process); in-worker tools need nothing."""

    async def aclose(self) -> None:
        """Release what the tool holds open (an external tool's process)."""

    def route(self, question: str) -> list[BaseModel] | None:
        """Deterministic routing: the argument sets for ``question`` when it is *certain* this tool applies."""
        return None

    def from_reading(self, target: str, question: str) -> list[BaseModel] | str | None:
        """Arguments for ``question`` when the learned reader is certain it asks for ``target`` (one of this tool's,
        e.g. ``clock.time``; tools/reading/reader.py) and every word of it is accounted for: in the target's frame
        or read as a value (:func:`tools.reading.reader.unexplained`). A string: the question back for the one
        detail the words lack ("which place?"). ``None``: not certain; the model answers."""
        return None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """Deterministic follow-up routing: arguments when ``question`` certainly continues ``previous``
        ("那北京呢?" after a weather turn, "times 2" after a calculation). Where it has none, the router asks the
        last question again with the part the follow-up changes, read by :meth:`route` (:mod:`tools.reading.follow_up`),
        unless :attr:`continues_by_substitution` is off."""
        return None

    def depends(self, question: str, route: str) -> bool:
        """Whether ``question`` certainly continues a result of the ``route`` tool that does not exist yet
        (``换算成华氏度`` after a weather step, ``and multiply that by 2`` after a calculation). The plan runs it
        after that step; :meth:`follow_up` then builds the arguments from the result."""
        return False

    def missing(self, question: str) -> str | None:
        """A question to ask back when ``question`` needs this tool but lacks a required argument."""
        return None

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        """Arguments for a pending ``question`` from the user's ``reply`` to :meth:`missing`'s question."""
        return None

    def grounding(self, question: str) -> Grounding:
        """The route gate, for a route a model chose: does the message carry anything this tool could use?
        ``grounded``: run it; ``ask``: the message asks for this tool's information but lacks a detail
        (ask back); ``ungrounded``: nothing to use, so the turn is chat. Rules are checked elsewhere."""
        return "grounded"

    def own_word(self, value: str) -> bool:
        """Whether an argument's ``value`` is this tool's own word, not the user's about something (a reminder's kind,
        "alarm" or "all timers"): it is read with the request, never set aside as a value."""
        return False

    def vet(self, question: str, args: A) -> Verdict | None:
        """Arguments a model proposed, judged before the tool runs: a FAIL here never reaches the tool
        (a place the user excluded). ``None`` when there is nothing to object to."""
        return None

    def unasked_change(self, question: str, args: A, about_it: bool) -> LocalText | None:
        """A model's call that would change or remove what the user kept (cancel a reminder), judged against the
        user's own words before it runs: ``None`` when the call changes nothing or the words ask for this very
        change (the object named, or ``about_it``: the turn before was this tool's and the words refer to it);
        else what to ask the user back. Nothing the user kept changes on a model's say alone."""
        return None

    def check(self, question: str, args: A, result: ToolResult) -> Verdict | None:
        """Deterministic validation; ``None`` when this layer cannot decide and the model should judge. A failed
        call fails here, with the tool's sentence for the user; tools that check more call this first."""
        if not result.ok:
            return Verdict(verdict="FAIL", reason=result.error or f"{self.name} failed", message=result.message)
        return None

    def render(self, question: str, args: A, result: ToolResult) -> str | None:
        """A complete answer for one successful call, without a model, in the question's language."""
        return None

    def render_all(self, question: str, executed: list[tuple[A, ToolResult]]) -> str:
        """The answer for every call of a turn, without a model: what is shown when the model's answer fails
        its check. Tools may override it to compare (the colder of two places)."""
        parts = []
        for args, result in executed:
            text = self.render(question, args, result)
            if text is None:  # a tool without its own rendering: its data, plainly
                data = result.data or {}
                text = f"{self.name}: " + ", ".join(f"{k} {v}" for k, v in data.items() if not isinstance(v, (dict, list)))
            parts.append(text)
        return "\n".join(parts)

    def key_facts(self, args: A, result: ToolResult) -> list[KeyFact]:
        """What an answer built on this result must carry (checked without a model)."""
        return []

    def contradiction(self, executed: list[tuple[BaseModel, ToolResult]], sentence: str) -> str | None:
        """Why one sentence of an answer built on these results states what they contradict (sun in a report of
        rain, a Friday for a Wednesday), or ``None``. Certain or silent: hedged and negated words are let be."""
        return None

    #: fields of a result no answer should state (an internal id): neither shown to the model writing the answer
    #: nor evidence for its figures
    internal_fields: ClassVar[frozenset[str]] = frozenset()

    def answer_data(self, result: ToolResult) -> dict[str, Any]:
        """A result's data as an answer may use it: without :attr:`internal_fields`."""
        return {k: v for k, v in (result.data or {}).items() if k not in self.internal_fields}

    #: whether a turn the rules settled shows :meth:`render_all` directly (no answer-writing model call)
    renders_directly: bool = False
    #: whether a follow-up its own :meth:`follow_up` cannot read is tried as the last question with one part changed
    #: (off for a tool whose follow-ups are all its own, whose rule would read a changed question too loosely)
    continues_by_substitution: ClassVar[bool] = True

    def args_schema(self) -> dict[str, Any]:
        return copy.deepcopy(_schema_of(self.Args))  # made once a class (every call offering tools asks), a copy

    def ollama_tool(self) -> dict[str, Any]:
        """The tool in the shape Ollama's ``tools=`` expects."""
        schema = self.args_schema()
        schema.pop("title", None)
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": schema}}


@functools.lru_cache(maxsize=256)
def _schema_of(args: type[BaseModel]) -> dict[str, Any]:
    return args.model_json_schema()


async def run_direct(tool: Tool, args: BaseModel, timeout: float | None) -> ToolResult:
    """``tool.run`` in this process with a wall-clock timeout (``None``: the tool keeps its own deadlines,
    as an external tool does); any exception becomes a tool error."""
    try:
        return await asyncio.wait_for(tool.run(args), timeout)
    except asyncio.TimeoutError:
        return ToolResult.failure(f"{tool.name} took longer than {timeout:g} s and was stopped")
    except Exception as e:  # a tool bug must cost one tool error, never the turn
        return failed_with(tool.name, e)
