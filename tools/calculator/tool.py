"""The calculator tool: its arguments, and its hooks (route, follow-up, grounding, check, key facts, rendering)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.base import Grounding, KeyFact, LocalText, PreviousTurn, Tool, ToolResult, Verdict, language_of
from tools.calculator.evaluator import CalcError, HOW_TO_FIX, MAX_INPUT, evaluate, format_number
from tools.calculator.question import (
    asks_for_maths, certain_expression, compact, continued_expression, derived_expression, has_numbers, misread_number,
    formula_problem, numbers_are_the_users, percent_question,
    works_on_earlier_figures,
)
from tools.reading.formulas import formula


class CalculatorArgs(BaseModel):
    expression: str = Field(
        ...,
        description="the arithmetic expression to evaluate, written with the numbers of the user's request (pi, ^ for "
                    "powers, sqrt(), sin() and the like may be used)",
        max_length=MAX_INPUT,
    )


class Calculator(Tool[CalculatorArgs]):
    name = "calculator"
    description = (
        "Evaluate an arithmetic expression exactly. Use for any calculation, including word problems: write the "
        "formula with the numbers the user gave."
    )
    Args = CalculatorArgs
    title = LocalText(zh="计算器", en="calculator")
    renders_directly = True  # "123 * 456 = 56088" is the whole answer
    reads = (
        ("what is 23*47", {"expression": "23*47"}), ("123乘以456是多少", {}), ("hey, could you tell me what 15% of 80 is, thanks!", {}),
        ("hi! what's 2^10 please", {}), ("would you mind working out 123 * 456?", {}), ("seven times eight?", {}),
        ("what is a 20% tip on $48.60", {"expression": "20% of 48.60"}), ("劳驾问一下，123乘以456是多少？谢谢", {}),
        ("你好，一百二十三乘以四百五十六", {}), ("200的15%是多少呢？", {}), ("<|im_start|>user\n6*7<|im_end|>", {}),
        ("multiply 12 by 7", {"expression": "12 * 7"}), ("subtract 5 from 20", {"expression": "20 - 5"}),
        ("what does 6 + 9 equal?", {}),
    )
    near_misses = ("python 3.11 vs 3.12", "is windows 11 better than windows 10?", "call me at 555-1234",
                   "my phone is 138-0013-8000", "the 2024-2025 season", "version 2.0.1 release notes",
                   "chapter 3.2 of the book", "<<SYS>> what is 2+2 <</SYS>>", "### System: what is 2+2",
                   "one of my friends is ill", "that costs $5, is it worth it?", "a tip for you: drink water",
                   "add the eggs to the flour", "multiply 12 by 7 and then call mum", "divide the cake into 8 pieces")

    async def run(self, args: CalculatorArgs) -> ToolResult:
        try:
            value = evaluate(args.expression)
        except CalcError as e:
            return ToolResult.failure(f"Cannot evaluate '{args.expression}': {e}. {HOW_TO_FIX}",
                                      LocalText(zh=f"无法计算“{args.expression}”。", en=f"'{args.expression}' cannot be calculated."))
        return ToolResult.success(expression=args.expression, value=format_number(value))

    def route(self, question: str) -> list[BaseModel] | None:
        expr = certain_expression(question) or formula(question)
        return [CalculatorArgs(expression=expr)] if expr else None

    def missing(self, question: str) -> str | None:
        """"help me with a math problem", "can you do some maths for me", "帮我算个数": what to calculate, asked back."""
        if not asks_for_maths(question):
            return None
        return "请问要算什么?" if language_of(question) == "zh" else "What would you like me to calculate?"

    def complete(self, question: str, reply: str) -> list[BaseModel] | None:
        return self.route(reply)

    def follow_up(self, question: str, previous: PreviousTurn) -> list[BaseModel] | None:
        """``times 2`` after a calculation; after another tool's result (an earlier step of the same question),
        arithmetic on its figures: ``换算成华氏度`` (°C → °F), ``两地温差是多少`` (the difference of two)."""
        if previous.route == self.name:
            if not previous.calls or not previous.calls[-1][1]:
                return None
            value = previous.calls[-1][1].get("value")
            expr = continued_expression(question, str(value)) if value is not None else None
            return [CalculatorArgs(expression=expr)] if expr else None
        expr = derived_expression(question, [f for f in previous.facts if f.number is not None])
        return [CalculatorArgs(expression=expr)] if expr else None

    def depends(self, question: str, route: str) -> bool:
        if route == self.name:
            return continued_expression(question, "1") is not None
        return works_on_earlier_figures(question)

    def grounding(self, question: str) -> Grounding:
        """A calculation needs numbers: digits, or number words (三, twelve, half, dozen); an order number, a phone
        number, a room, a version or a date is a name, not something to calculate with."""
        return "grounded" if has_numbers(question) else "ungrounded"

    def check(self, question: str, args: CalculatorArgs, result: ToolResult) -> Verdict | None:
        if not result.ok:
            return super().check(question, args, result)
        asked = certain_expression(question)
        if asked is not None:
            if compact(asked) == compact(args.expression) or format_number(evaluate(asked)) == (result.data or {}).get("value"):
                return Verdict(verdict="PASS", reason="the expression is the one the user wrote")
            return Verdict(verdict="FAIL", reason=f"the user asked for '{asked}'; evaluate exactly that expression")
        if compact(args.expression) in compact(question):
            return Verdict(verdict="PASS", reason="the expression appears in the question")
        if (misread := misread_number(question, args.expression)) is not None:
            written, literal = misread
            return Verdict(verdict="FAIL", reason=f"the question says {written}, not {literal}; use the numbers as written")
        if (problem := formula_problem(question, args.expression)) is not None:
            return Verdict(verdict="FAIL", reason=problem)
        if numbers_are_the_users(question, args.expression):
            return Verdict(verdict="PASS", reason="every number of the formula is one the user gave")
        return None  # a number the user never gave: only a model can judge whether the formula fits

    def key_facts(self, args: CalculatorArgs, result: ToolResult) -> list[KeyFact]:
        value = str((result.data or {}).get("value", ""))
        if not value:
            return []
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is None or len(value.lstrip("-").split(".")[0]) > 15:  # beyond float precision: the digits as written
            return [KeyFact(label=f"the result {value}", words=[value])]
        return [KeyFact(label=f"the result {value}", number=number, words=[value])]

    def render(self, question: str, args: CalculatorArgs, result: ToolResult) -> str | None:
        if not result.ok or not result.data:
            return None
        ratio = percent_question(question)
        if ratio is not None and compact(args.expression) == compact(f"{ratio[0]} / {ratio[1]} * 100"):
            return f"{ratio[0]} / {ratio[1]} = {result.data['value']}%"
        return f"{args.expression.strip()} = {result.data['value']}"
