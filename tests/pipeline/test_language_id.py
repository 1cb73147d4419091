"""The language check on an answer's sentences: py3langid's model read without py3langid's loader (which holds
~80 MB with NumPy for the life of the process). Same answers as py3langid itself; a small footprint; a model it
cannot read turns the check off instead of failing a turn."""

from __future__ import annotations

import io
import lzma
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from assistant.pipeline import answer_check, language_id

SENTENCES = [
    "Ceci est une phrase en français, assez longue pour être reconnue.",
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Der schnelle braune Fuchs springt über den faulen Hund am Fluss.",
    "El rápido zorro marrón salta sobre el perro perezoso junto al río.",
    "Hızlı kahverengi tilki tembel köpeğin üzerinden atlar ve koşar.",
    "THIS IS ALL CAPITALS AND SHOULD STILL READ AS ENGLISH TEXT",
    "Python's asyncio module runs coroutines on an event loop; call asyncio.run(main()).",
    "Sono andato al mercato e ho comprato delle mele e delle pere.",
    "12345 678 90",
]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> language_id.Model:
    m = language_id.load(tmp_path_factory.mktemp("cache"))
    assert m is not None
    return m


def test_it_answers_as_py3langid_does(model: language_id.Model) -> None:
    from py3langid.langid import _load_identifier

    reference = _load_identifier(norm_probs=True, langs=language_id.LANGUAGES)
    for sentence in SENTENCES:
        lang, p = model.classify(sentence)
        ref_lang, ref_p = reference.classify(sentence)
        assert lang == ref_lang, sentence
        assert p == pytest.approx(ref_p, abs=1e-5), sentence


def test_a_sentence_in_another_language_is_caught_in_an_english_answer(home: Path) -> None:
    assert answer_check.piece_language("What is a closure?", SENTENCES[3]) is not None  # Spanish
    assert "(de)" in (answer_check.piece_language("Tell me about foxes", SENTENCES[2]) or "")
    assert answer_check.piece_language("What is a closure?", SENTENCES[6]) is None
    assert language_id.other_language("Sí.") is None  # too short to tell


def test_the_process_keeps_no_numpy_and_little_memory(tmp_path: Path) -> None:
    code = ("import sys\n"
            "rss = lambda: int([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS')][0])\n"
            "from assistant.pipeline import language_id as L\n"
            "before = rss()\n"
            f"for s in {SENTENCES!r} * 20:\n"
            "    L.other_language(s)\n"
            "assert L.other_language(" + repr(SENTENCES[0]) + ") == 'fr'\n"
            "print('numpy' in sys.modules, (rss() - before) // 1024)\n")
    env = {**os.environ, "ASSISTANT_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    numpy, grown_mb = out.split()
    assert numpy == "False"
    assert int(grown_mb) < 10  # py3langid's own loader: ~80 MB
    assert (tmp_path / "cache").is_dir() and any((tmp_path / "cache").glob("langid-*/layout.json"))


def test_two_processes_unpacking_at_once_both_end_with_a_whole_model(tmp_path: Path) -> None:
    found = language_id.model_source()
    assert found is not None
    folder = tmp_path / "langid"
    errors: list[BaseException] = []

    def one() -> None:
        try:
            language_id.unpack(found[0], folder)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert language_id.Model(folder).classify(SENTENCES[0])[0] == "fr"
    assert [p.name for p in tmp_path.iterdir()] == ["langid"]  # no half-unpacked folder left behind


def test_a_model_of_a_layout_it_does_not_know_turns_the_check_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:  # a future layout: the weights as float32
        header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }\n"
        z.writestr("ptc.npy", b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + bytes(4))
    source = tmp_path / "model.npz.xz"
    source.write_bytes(lzma.compress(buffer.getvalue()))
    monkeypatch.setattr(language_id, "model_source", lambda: (source, "9.9"))
    assert language_id.load(tmp_path / "cache") is None
    assert "language check is off" in caplog.text
    assert not (tmp_path / "cache" / "langid-9.9").exists()
