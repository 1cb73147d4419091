"""Chinese numerals in questions, as digits: 一百二十三 → 123, 三点五 → 3.5, 百分之十五 → 15%, 两斤 → 2斤, through
the maintained ``cn2an``. Without it installed the text is returned unchanged (the model then reads it)."""

from __future__ import annotations

import re
import warnings

NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万亿点负]")
_PERCENT_DIGITS = re.compile(r"百分之\s*(\d+(?:\.\d+)?)")
_UNIT_TWO = re.compile(r"(?<=\d)两")  # 1两 is a unit (50 g), not "two"


_RUN = re.compile(r"[零〇一二两三四五六七八九十百千万亿点负分之]+")
MAX_RUN = 24  # characters: no number is written longer in Chinese; a longer run is left as it is (and keeps this linear)


def to_digits(text: str) -> str:
    """``text`` with its Chinese numerals written in digits; everything else as it was. Each run of numeral
    characters is converted on its own, so the time is linear in the text's length (cn2an's patterns, run over a
    whole text of thousands of numerals, are not)."""
    text = _PERCENT_DIGITS.sub(r"\1%", text)
    if not NUMERAL.search(text):
        return text
    try:
        import cn2an
    except ImportError:
        return text
    guarded = _UNIT_TWO.sub("\x00", text)

    def convert(m: re.Match[str]) -> str:
        run = m.group(0)
        if len(run) > MAX_RUN:
            return run
        if run == "两":  # 两斤, 两个: two (cn2an reads it so only with what follows)
            return "2"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # cn2an warns on every character it leaves alone
            try:
                return cn2an.transform(run, "cn2an")
            except Exception:  # a run it cannot read is left for the model, never an error here
                return run

    return _RUN.sub(convert, guarded).replace("\x00", "两")
