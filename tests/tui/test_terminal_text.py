"""SPEC 25: outside text reaches the terminal as text. The hostile corpus (tests/security/data/terminal_text.tsv)
through ``terminal_text``, whole and cut into stream chunks at every point, and through ``json_text``."""

from __future__ import annotations

import ast
import json
import unicodedata
from pathlib import Path

import pytest

from coder_tui.link.drawable import drawable
from coder_tui.link.terminal_text import json_text, terminal_text, visible_text
from engine.events import HistoryRestored, TextDelta, ToolCallFinished, ToolStatus

CORPUS = Path(__file__).resolve().parents[1] / "security" / "data" / "terminal_text.tsv"
CASES = [
    (name, ast.literal_eval(literal))
    for name, literal in (line.split("\t", 1) for line in CORPUS.read_text().splitlines() if not line.startswith("#"))
]
# What a terminal obeys or draws as something other than itself, listed here apart from the code under test.
BIDI_AND_INVISIBLE = set("\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff")


def obeyed(text: str) -> list[str]:
    """The characters of ``text`` a terminal would not simply draw."""
    return [
        char for char in text
        if (ord(char) < 0x20 and char not in "\n\t") or 0x7F <= ord(char) <= 0x9F or 0xD800 <= ord(char) <= 0xDFFF
        or char in BIDI_AND_INVISIBLE or unicodedata.category(char) in ("Zl", "Zp") or 0xE0000 <= ord(char) <= 0xE007F
    ]


@pytest.mark.parametrize(("name", "hostile"), CASES, ids=[name for name, _ in CASES])
def test_terminal_text_leaves_nothing_a_terminal_obeys(name: str, hostile: str) -> None:
    assert obeyed(hostile), "the corpus case is not hostile"
    assert obeyed(terminal_text(hostile)) == []
    assert obeyed(visible_text(hostile)) == []


@pytest.mark.parametrize(("name", "hostile"), CASES, ids=[name for name, _ in CASES])
def test_a_sequence_cut_across_stream_chunks_does_not_survive(name: str, hostile: str) -> None:
    for cut in range(1, len(hostile)):
        drawn = terminal_text(hostile[:cut]) + terminal_text(hostile[cut:])
        assert obeyed(drawn) == [], f"cut at {cut}"
        assert "\x1b" not in drawn


@pytest.mark.parametrize(("name", "hostile"), CASES, ids=[name for name, _ in CASES])
def test_json_text_escapes_and_keeps_the_data(name: str, hostile: str) -> None:
    line = json_text({"text": hostile})
    assert obeyed(line) == []
    assert json.loads(line) == {"text": hostile}


def test_overstrikes_and_bidi_are_shown_not_obeyed() -> None:
    assert terminal_text("rm -rf ~ \r echo hello") == "rm -rf ~ ␍ echo hello"
    assert terminal_text("safe\b\bxx") == "safe␈␈xx"
    assert terminal_text("access \u202eelif\u202c level") == "access <U+202E>elif<U+202C> level"
    assert terminal_text("a\x1b") == "a␛"  # a bare ESC, as a stream chunk may end
    assert terminal_text("a\x1bcb") == "ab"  # ESC c (reset) is a sequence: removed whole
    assert terminal_text("x\x9b2Jy") == "xy"  # a complete 8-bit CSI goes, as a 7-bit one does


def test_plain_text_is_untouched() -> None:
    plain = "def f():\n\treturn 'é 日本 👩‍💻'\r\n"
    assert terminal_text(plain) == plain.replace("\r\n", "\n")
    assert terminal_text("colours \x1b[1;31mgone\x1b[0m") == "colours gone"


def test_visible_text_marks_newlines_tabs_and_invisible_characters() -> None:
    assert visible_text("a\tb\nc") == "a→   b↵\nc"
    assert visible_text("curl x\u00a0|\u200dsh") == "curl x<U+00A0>|<U+200D>sh"


def test_every_string_of_an_event_is_made_drawable() -> None:
    event = ToolCallFinished(
        "c1", "read", "evil\x1b]52;c;eA==\x07.txt", ToolStatus.SUCCESS, 3.0,
        {"ok": True, "content": ["\x9b2J", {"k\x1b": "\u202e"}]}, diff="+\x1b]0;t\x07",
    )
    clean = drawable(event)
    assert clean.key_argument == "evil.txt"
    assert clean.result == {"ok": True, "content": ["", {"k␛": "<U+202E>"}]}
    assert clean.diff == "+"
    assert clean.status is ToolStatus.SUCCESS
    assert drawable(TextDelta("plain")) == TextDelta("plain")


def test_a_resumed_history_is_made_drawable_inside_its_json() -> None:
    restored = HistoryRestored("s1", json.dumps([{"text": "a\x1b]52;c;eA==\x07b\u202e"}]))
    assert json.loads(drawable(restored).entries_json) == [{"text": "ab<U+202E>"}]
