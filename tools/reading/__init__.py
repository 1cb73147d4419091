"""How the certain rules read what a person asks: the question read once before any rule (``request``: the social
wrapper set aside, values in the rules' forms), numbers in words (``numerals``), times and dates (``when``),
calculations in words (``formulas``) and follow-ups that change one part of the last request (``follow_up``). Each
tool's own rule lives with the tool (``tools/<tool>/question.py``) and declares what it reads and must not take
(``Tool.reads``, ``Tool.near_misses``)."""
