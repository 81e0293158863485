"""Long streamed answers are cut into segments at paragraph breaks, never inside a code fence."""

from __future__ import annotations

from coder_tui.segments import split_point


def test_no_cut_below_the_limit() -> None:
    assert split_point("short", "\n\nmore", limit=100) is None


def test_cut_after_the_first_paragraph_break_past_the_limit() -> None:
    text = "a" * 10
    assert split_point(text, " end.\n\nNext", limit=10) == 7


def test_cut_on_a_break_split_across_fragments() -> None:
    assert split_point("x" * 10 + "\n", "\nNext", limit=10) == 1


def test_never_inside_a_code_fence() -> None:
    text = "intro\n\n```python\n" + "x = 1\n" * 5
    assert split_point(text, "\n\ny = 2\n", limit=10) is None
    assert split_point(text, "```\n\nafter", limit=10) == 5
