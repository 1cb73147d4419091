"""A safe calculator: the evaluator (:mod:`.evaluator`), reading the question (:mod:`.question`) and the tool
(:mod:`.tool`)."""

from tools.calculator.evaluator import MAX_INPUT, CalcError, evaluate, format_number, normalize, parse
from tools.calculator.question import (
    certain_expression, continued_expression, derived_expression, misread_number, percent_question,
)
from tools.calculator.tool import Calculator, CalculatorArgs

__all__ = ["CalcError", "Calculator", "CalculatorArgs", "MAX_INPUT", "certain_expression", "continued_expression",
           "derived_expression", "evaluate", "format_number", "misread_number", "normalize", "parse", "percent_question"]
