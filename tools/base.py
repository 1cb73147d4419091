"""What a tool is: a name, a description, a pydantic argument model, an async ``run``, and optional
deterministic hooks that let the pipeline skip model calls when the answer is certain."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field


class ToolResult(BaseModel):
    """Data on success, or an error written so that a model can act on it."""

    ok: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    refusals: list[str] = Field(default_factory=list, description="what the sandbox refused during the call")
    fixable: bool = Field(default=True, description="False when no change of arguments can help (e.g. the network is down)")

    @classmethod
    def success(cls, **data: Any) -> ToolResult:
        return cls(ok=True, data=data)

    @classmethod
    def failure(cls, error: str) -> ToolResult:
        return cls(ok=False, error=error)


class Verdict(BaseModel):
    """A validation decision. ``by`` records which layer made it: the tool's own check or the model."""

    verdict: Literal["PASS", "FAIL"]
    reason: str = ""
    by: Literal["check", "model", "default"] = "check"

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"


class PreviousTurn(BaseModel):
    """What a follow-up needs to know about the turn before it in the same session."""

    question: str
    route: str | None
    calls: list[tuple[dict[str, Any], dict[str, Any] | None]] = Field(default_factory=list)  # (args, data) that passed


class Permissions(BaseModel):
    """What a tool may touch. Enforced by the sandbox runner; declared here so it can be listed and audited."""

    network: list[str] = Field(default_factory=list, description="hosts the tool may reach")
    files: list[str] = Field(default_factory=list, description="directories the tool may write (its cache at most)")


class Tool:
    """Base class for tools. Subclasses set the class attributes and implement :meth:`run`.

    A tool is rebuilt inside a sandbox worker from :meth:`spec` (its class and its config), so all
    it needs at run time must be in its ``Config``."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    Config: ClassVar[type[BaseModel] | None] = None

    def __init__(self, config: BaseModel | None = None) -> None:
        self.config = config

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

    async def run(self, args: BaseModel) -> ToolResult:
        raise NotImplementedError

    def route(self, question: str) -> list[BaseModel] | None:
        """Deterministic routing: the argument sets for ``question`` when it is *certain* this tool applies."""
        return None

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """Deterministic follow-up routing: arguments when ``question`` certainly continues ``previous``
        ("那北京呢?" after a weather turn, "times 2" after a calculation)."""
        return None

    def missing(self, question: str) -> str | None:
        """A question to ask back when ``question`` needs this tool but lacks a required argument."""
        return None

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        """Arguments for a pending ``question`` from the user's ``reply`` to :meth:`missing`'s question."""
        return None

    def check(self, question: str, args: BaseModel, result: ToolResult) -> Verdict | None:
        """Deterministic validation; ``None`` when this layer cannot decide and the model should judge."""
        if not result.ok:
            return Verdict(verdict="FAIL", reason=result.error or f"{self.name} failed")
        return None

    def render(self, question: str, args: BaseModel, result: ToolResult) -> str | None:
        """A complete answer without a model, for questions the deterministic router settled."""
        return None

    def args_schema(self) -> dict[str, Any]:
        return self.Args.model_json_schema()

    def ollama_tool(self) -> dict[str, Any]:
        """The tool in the shape Ollama's ``tools=`` expects."""
        schema = self.args_schema()
        schema.pop("title", None)
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": schema}}
