"""Rules as data (tools/reading/forms.py): forms declared in words with typed slots, read by one matcher; a table of
words read as what they stand for; lists of phrases found as whole words."""

from __future__ import annotations

import re

import pytest

from tools.reading.forms import Forms, Phrases, Words

SUMS = Forms([
    ("[<asking>] multiply {a} (by|and|with|times) {b} [together]", "{a} * {b}"),
    ("[<asking>] (subtract|take [away]) {a} [away] from {b}", "{b} - {a}"),
    ("[(再|然后)] (乘以|乘) {n:wide}", "* {n}"),
    ("{op:symbol} {n}", lambda v: None if v["op"] == "^" else f"{v['op']} {v['n']}"),
], phrases={"asking": "(what do you get if you | [(can|could) you] [please])"})


@pytest.mark.parametrize("text, meant", [
    ("multiply 12 by 7", "12 * 7"), ("Multiply 12 BY 7 together", "12 * 7"),
    ("can you please multiply 3 and 4", "3 * 4"), ("what do you get if you multiply 6 by 7", "6 * 7"),
    ("take away 5 from 20", "20 - 5"), ("subtract 5 away from 20", "20 - 5"),
    ("multiply -3 by 4", "-3 * 4"),  # a leading sign is the number's
    ("再乘以3", "* 3"), ("再 乘 ３", "* ３"), ("+ 2", "+ 2"),
])
def test_a_form_reads_its_slots_in_any_case_and_spacing(text, meant):
    assert SUMS.read(text) == meant


@pytest.mark.parametrize("text", [
    "multiply 12 by 7 please",  # a word more: not the form
    "please multiply twelve by 7",  # a slot reads its type only
    "multiplyx 12 by 7", "remultiply 12 by 7",  # words are words
    "can you multiply 3",
    "^ 2",  # a meaning may refuse
])
def test_what_is_not_the_whole_form_is_not_read(text):
    assert SUMS.read(text) is None


@pytest.mark.parametrize("said", ["[multiply {a}", "(by|and", "multiply {a} by {b}]"])
def test_a_form_that_is_not_closed_is_refused_when_read(said):
    with pytest.raises(ValueError):
        Forms([(said, "x")]).read("multiply 3 by 4")


def test_words_are_replaced_longest_first_and_only_as_words():
    ops = Words({"times": "*", "multiplied by": "*", "by": "BY", "plus": "+", "乘以": "*", "乘": "x"})
    assert ops.sub("3 multiplied by 4") == "3 * 4"
    assert ops.sub("3 Plus 4 times 2") == "3 + 4 * 2"
    assert ops.sub("3乘以4") == "3 * 4"
    assert ops.sub("surplus of 3 by sometimes") == "surplus of 3 BY sometimes"


def test_forms_said_anywhere_are_replaced_by_their_meaning():
    halves = Forms([("(an|one) (hours|hour) and a half", "90 minutes"),
                    ("{n:amount} (hours|hour) and a half", lambda v: f"{int(v['n']) * 60 + 30} minutes"),
                    ("{n:amount} 个 半 小时", lambda v: None)])  # a meaning that refuses leaves the words
    assert halves.sub("remind me in an hour and a half, not 2 hours and a half") == \
        "remind me in 90 minutes, not 150 minutes"
    assert halves.sub("2个半小时") == "2个半小时"
    assert halves.sub("1h and a half") == "1h and a half"


def test_a_slot_of_a_declared_kind_reads_one_of_its_words_as_a_word():
    parts = Forms([("({n:amount}|a|one) {part} of {x:operand}", lambda v: f"{v.get('n', '1')}/{v['part']}*{v['x']}")],
                  kinds={"part": ("third", "thirds", "quarter", "quarters")})
    assert parts.read("a third of 90") == "1/third*90"
    assert parts.read("2 Quarters of (3+5)") == "2/Quarters*(3+5)"  # a group is an operand
    assert parts.read("a thirdly of 90") is None and parts.read("a fifth of 90") is None
    assert parts.sub("what is a quarter of -8 today") == "what is 1/quarter*-8 today"


WEAR = Phrases(("coat", "what to wear", "(what's|how is) it [like] (out|outside)", "[the] difference", "冷笑话", "?"),
               re.IGNORECASE)


@pytest.mark.parametrize("text, found", [
    ("Do I need a COAT today", ["COAT"]),
    ("what  to wear tomorrow", ["what  to wear"]),  # any spaces between a phrase's words
    ("how is it like outside? and what's it out", ["how is it like outside", "?", "what's it out"]),
    ("the time difference, a difference", ["difference", "difference"]),
    ("讲个冷笑话", ["冷笑话"]),  # a Chinese word wherever it is written
    ("coats, raincoat, coat-hanger, coat2", ["coat"]),  # whole words only: "coat" of "coat-hanger" is one
])
def test_phrases_are_found_as_whole_words_in_their_grammar(text, found):
    assert [m.group() for m in WEAR.finditer(text)] == found


def test_a_phrase_said_or_not_keeps_its_space_and_the_list_keeps_its_order():
    assert WEAR.search("the difference").group() == "the difference"
    assert WEAR.search("a  difference").group() == "difference"  # never " difference"
    first = Phrases(("in", "into", "in the morning"), re.IGNORECASE)
    assert first.match("into it").group() == "into"  # "in" is tried first, and is no whole word here
    assert first.match("in the morning").group() == "in"  # the first that matches at a place is the one found
    assert first.fullmatch("In") and not first.fullmatch("in the")
    assert (Phrases(("a",)) + ("b",)).sub("-", "a b c") == "- - c"
