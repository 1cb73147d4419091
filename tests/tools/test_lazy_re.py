"""Patterns compiled at their first use (a one-shot question compiles only what it reads), and all at once by a
process that lives and warms while it waits (the chat, the daemon)."""

from __future__ import annotations

import re

from tools import lazy_re


def test_a_lazy_pattern_compiles_at_its_first_use_and_all_of_them_on_warming():
    first, second = lazy_re.lazy_compile(r"\bsnow(?:ing)?\b", re.I), lazy_re.lazy_compile(r"\d+ ?km")
    assert first._compiled is None and second._compiled is None  # type: ignore[attr-defined]  # not at import
    assert first.search("Is it SNOWING?") and second._compiled is None  # type: ignore[attr-defined]  # only what is read
    assert lazy_re.compile_all() >= 1 and second._compiled is not None  # type: ignore[attr-defined]  # all of the rest
    assert second.findall("5 km and 12km") == ["5 km", "12km"] and lazy_re.compile_all() == 0


async def test_a_warmed_assistant_has_compiled_every_rule_pattern(make_app):
    app = make_app()
    await app.warm()
    assert lazy_re.compile_all() == 0  # nothing left for the first question to compile


# Programs kept on disk: a process compiles what the one before it compiled, never again.

SAMPLES = [(r"(?P<n>-?\d+(?:\.\d+)?)\s*(?P<unit>km|miles?)\b", re.I), (r"明天|后天|(?i:tomorrow)", 0),
           (r"^(?:what\s+is\s+)?(\d+)\s*([-+*/])\s*(\d+)\??$", re.I | re.M)]
TEXTS = ["5 KM to miles", "12.5 mile", "明天天气", "TOMORROW", "what is 2 + 3?", "x\n7*6", ""]


def _same(a: re.Pattern[str], b: re.Pattern[str]) -> None:
    assert (a.pattern, a.flags, a.groups, a.groupindex) == (b.pattern, b.flags, b.groups, b.groupindex)
    for text in TEXTS:
        assert [m.groups() for m in a.finditer(text)] == [m.groups() for m in b.finditer(text)]
        assert a.sub("·", text) == b.sub("·", text)


def _process(folder) -> lazy_re._Programs:
    programs = lazy_re._Programs()
    programs.keep(folder)
    return programs


def test_a_pattern_compiled_by_one_process_is_read_by_the_next_and_matches_the_same(tmp_path):
    first = _process(tmp_path)
    for pattern, flags in SAMPLES:
        _same(first.compile(pattern, flags), re.compile(pattern, flags))
    assert (first.compiled, first.found) == (3, 0)
    first.save()
    [kept] = tmp_path.glob("patterns-*.marshal")
    assert kept.stat().st_mode & 0o077 == 0  # the user's alone, as every cache file

    second = _process(tmp_path)
    for pattern, flags in SAMPLES:
        _same(second.compile(pattern, flags), re.compile(pattern, flags))
    assert (second.compiled, second.found) == (0, 3)
    before = kept.stat().st_ino
    second.save()  # nothing new: the file is not written again (a write replaces it: a new inode)
    assert kept.stat().st_ino == before


def test_an_invalid_pattern_still_raises_as_re_compile_does(tmp_path):
    programs = _process(tmp_path)
    try:
        programs.compile(r"(unclosed", 0)
    except re.error as e:
        assert "missing )" in str(e)
    else:
        raise AssertionError("an invalid pattern compiled")


def test_a_damaged_or_foreign_file_is_not_read_and_is_written_again(tmp_path):
    first = _process(tmp_path)
    first.compile(*SAMPLES[0])
    first.save()
    [kept] = tmp_path.glob("patterns-*.marshal")
    import marshal

    for damage in (b"\x00garbage" * 50, kept.read_bytes()[:100], b"",
                   marshal.dumps(((1, "another Python", 0, 4, 0x10FFFF), {(SAMPLES[0][0], int(SAMPLES[0][1])): "x"}))):
        kept.write_bytes(damage)
        again = _process(tmp_path)
        _same(again.compile(*SAMPLES[0]), re.compile(*SAMPLES[0]))
        assert (again.compiled, again.found) == (1, 0)
        again.save()
        assert _process(tmp_path).compile(*SAMPLES[0]) and marshal.loads(kept.read_bytes())[1]


def test_a_program_the_engine_refuses_is_compiled_from_the_text_instead(tmp_path):
    import marshal

    first = _process(tmp_path)
    first.compile(*SAMPLES[2])
    first.save()
    [kept] = tmp_path.glob("patterns-*.marshal")
    header, programs = marshal.loads(kept.read_bytes())
    key = (SAMPLES[2][0], int(SAMPLES[2][1]))
    flags, code, groups, index, names = marshal.loads(programs[key])
    programs[key] = marshal.dumps((flags, [9999, *code[1:]], groups, index, names))  # an opcode no engine has
    kept.write_bytes(marshal.dumps((header, programs)))
    again = _process(tmp_path)
    _same(again.compile(*SAMPLES[2]), re.compile(*SAMPLES[2]))
    assert (again.compiled, again.found) == (1, 0)


def test_a_worker_forked_from_the_process_never_writes_the_file(tmp_path):
    import os

    programs = _process(tmp_path)
    programs.compile(*SAMPLES[1])
    pid = os.fork()
    if pid == 0:  # the worker: its save is the parent's to make
        programs.save()
        os._exit(0)
    os.waitpid(pid, 0)
    assert not list(tmp_path.glob("patterns-*.marshal"))
    programs.save()
    assert list(tmp_path.glob("patterns-*.marshal"))


def test_every_rule_pattern_kept_and_read_back_is_the_pattern_re_compile_makes(tmp_path):
    import assistant.app  # noqa: F401 - the pipeline's patterns
    import tools.builtin  # noqa: F401 - the tools'

    made = {(p.pattern, p.flags) for p in lazy_re._MADE}
    assert len(made) > 150
    first = _process(tmp_path)
    for pattern, flags in made:
        first.compile(pattern, flags)
    first.save()
    second = _process(tmp_path)
    for pattern, flags in made:
        assert second.compile(pattern, flags) == re.compile(pattern, flags), pattern  # the same program, flags, text
    assert (second.compiled, second.found) == (0, len(made))
