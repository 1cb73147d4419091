"""A tiny plugin package for the tests: one working tool, and objects that are broken as plugins are."""

from pydantic import BaseModel
from tools import Tool, ToolResult


class EchoArgs(BaseModel):
    text: str


class Echo(Tool):
    name = "echo"
    description = "Repeat the user's words back."
    Args = EchoArgs
    renders_directly = True

    def route(self, question):
        return [EchoArgs(text=question[5:])] if question.startswith("echo ") else None

    async def run(self, args):
        import os
        return ToolResult.success(text=args.text, pid=os.getpid())

    def render(self, question, args, result):
        return result.data["text"]


class Shouting(Echo):
    name = "Shout!"


class NoSchema(Echo):
    name = "noschema"
    Args = dict


class Calculator(Echo):
    name = "calculator"


NOT_A_TOOL = 42
