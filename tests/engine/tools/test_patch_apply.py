"""SPEC 5 patch: placing hunks by their lines (exact, then ignoring trailing white space, then surrounding white
space, then with Unicode punctuation folded), tolerating offsets, refusing ambiguity, explaining failures."""

from __future__ import annotations

import pytest

from engine.tools.matching.seek import SEEK_LEVELS, seek_all
from engine.tools.patch_apply import HunkMismatch, apply_hunks
from engine.tools.patch_parse import Hunk, parse_patch


def _hunks(text: str) -> tuple[Hunk, ...]:
    (change,) = parse_patch(text)
    return change.hunks


def _unified(*hunks: str) -> tuple[Hunk, ...]:
    return _hunks("--- a/f\n+++ b/f\n" + "".join(hunks))


def _update(*body: str) -> tuple[Hunk, ...]:
    return _hunks("*** Begin Patch\n*** Update File: f\n" + "".join(f"{line}\n" for line in body) + "*** End Patch")


def test_seek_levels_in_the_order_of_the_spec() -> None:
    assert [level.name for level in SEEK_LEVELS] == [
        "exact",
        "ignoring trailing white space",
        "ignoring surrounding white space",
        "with Unicode punctuation folded",
    ]


@pytest.mark.parametrize(
    ("lines", "pattern", "level"),
    [
        (["a", "b "], ["a", "b"], "ignoring trailing white space"),
        (["  a", "\tb"], ["a", "b"], "ignoring surrounding white space"),
        (["say “hi” – now"], ['say "hi" - now'], "with Unicode punctuation folded"),
        (["x\u00a0=\u00a01"], ["x = 1"], "with Unicode punctuation folded"),
    ],
)
def test_seek_finds_lines_at_each_level(lines: list[str], pattern: list[str], level: str) -> None:
    hits, found = seek_all(lines, pattern)
    assert hits == [0] and found is not None and found.name == level


def test_seek_prefers_an_exact_match_over_a_looser_one_earlier() -> None:
    assert seek_all(["a ", "a"], ["a"]) == ([1], SEEK_LEVELS[0])


def test_later_hunks_follow_the_offset_of_earlier_ones() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 41))
    shifted = "extra\n" * 5 + text
    hunks = _unified("@@ -3,1 +3,1 @@\n-line 3\n+LINE 3\n", "@@ -30,0 +31,1 @@\n+inserted after 30\n")
    result = apply_hunks(shifted, hunks, "f")
    assert "LINE 3\n" in result
    assert "line 30\ninserted after 30\nline 31\n" in result


def test_line_number_picks_the_nearest_of_several_places() -> None:
    text = "x\nsame\nx\nx\nx\nsame\nx\n"
    assert apply_hunks(text, _unified("@@ -5,1 +5,1 @@\n-same\n+other\n"), "f") == "x\nsame\nx\nx\nx\nother\nx\n"
    assert apply_hunks(text, _unified("@@ -1,1 +1,1 @@\n-same\n+other\n"), "f") == "x\nother\nx\nx\nx\nsame\nx\n"


def test_several_places_without_a_line_number_or_anchor_are_refused() -> None:
    with pytest.raises(HunkMismatch, match=r"f, hunk 1 at patch line 3: its lines match 2 places \(lines 2, 6\)"):
        apply_hunks("x\nsame\nx\nx\nx\nsame\nx\n", _update("-same", "+other"), "f")


def test_an_anchor_narrows_the_search_to_what_follows_it() -> None:
    text = "def a():\n    pass\n\ndef b():\n    pass\n"
    assert apply_hunks(text, _update("@@ def b():", "-    pass", "+    return 2"), "f") == (
        "def a():\n    pass\n\ndef b():\n    return 2\n"
    )


def test_context_lines_keep_the_file_text_and_added_lines_its_indentation() -> None:
    text = "def f():  \n\tif x:\n\t\ty()\n"
    result = apply_hunks(text, _update(" def f():", "     if x:", "         y()", "+        z()"), "f")
    assert result == "def f():  \n\tif x:\n\t\ty()\n\t\tz()\n"


def test_end_of_file_prefers_the_last_lines() -> None:
    assert apply_hunks("}\n}\n", _update(" }", "+tail", "*** End of File"), "f") == "}\n}\ntail\n"


def test_the_final_newline_follows_the_markers() -> None:
    assert apply_hunks("a\n", _unified("@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n"), "f") == "b"
    assert apply_hunks("a", _unified("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"), "f") == "b\n"
    assert apply_hunks("a\nb", _unified("@@ -1 +1 @@\n-a\n+c\n"), "f") == "c\nb"


def test_a_mismatch_names_the_hunk_the_patch_line_and_the_file_line() -> None:
    text = "one\ntwo\nthree\nfour\n"
    with pytest.raises(HunkMismatch) as error:
        apply_hunks(text, _unified("@@ -1,3 +1,3 @@ section\n one\n two\n-tree\n+3\n"), "f")
    assert str(error.value) == (
        "patch failed in f, hunk 1 (@@ -1,3 +1,3 @@ section) at patch line 3: its first 2 line(s) match f at line 1, "
        "but patch line 6, 'tree', does not match: line 3 is 'three'"
    )


def test_a_missing_first_line_points_at_the_closest_line() -> None:
    with pytest.raises(HunkMismatch, match=r"patch line 4, 'retrun x', was not found in f; the closest line is 2"):
        apply_hunks("def f():\n    return x\n", _update("@@ def f():", "-retrun x", "+return y"), "f")


def test_a_hunk_past_the_end_of_the_file_says_so() -> None:
    with pytest.raises(HunkMismatch, match="the file ends there"):
        apply_hunks("a\nb\n", _unified("@@ -1,3 +1,3 @@\n a\n b\n-c\n+d\n"), "f")
