"""SPEC 5 / issue 7: how edit finds old_string. Exact first, then line-trimmed, indentation-flexible,
whitespace-normalised, escape-normalised and anchor blocks, each accepted only where it finds exactly one place.
The end-to-end cases live in the corpus; these pin each strategy and the re-indenting on their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.tools.base import ToolContext
from engine.tools.edit import EditTool, find_matches
from engine.tools.matching import STRATEGIES, closest_blocks, locate
from engine.tools.matching.strategies import indentation_flexible
from engine.tools.matching.indentation import Reindenter, detect_indent_step, indent_mapping
from engine.tools.matching.text_lines import TextLines
from tests.engine.tools.support import run_tool

edit = EditTool()


def _apply(text: str, needle: str, replacement: str) -> tuple[str, str]:
    """(strategy name, new text) for replacing the single place ``locate`` finds."""
    located = locate(text, needle)
    assert located is not None and len(located.matches) == 1
    match = located.matches[0]
    return located.strategy.name, text[: match.start] + match.replacement(replacement) + text[match.end :]


def test_strategies_are_tried_in_the_order_of_the_spec() -> None:
    assert [strategy.name for strategy in STRATEGIES] == [
        "exact",
        "line-trimmed",
        "indentation-flexible",
        "whitespace-normalised",
        "escape-normalised",
        "anchor-block",
    ]


def test_an_exact_match_wins_over_a_looser_one_elsewhere() -> None:
    text = "value = 1   \nvalue = 1\n"
    located = locate(text, "value = 1\n")
    assert located is not None
    assert located.strategy.name == "exact"
    assert [match.span for match in located.matches] == [(13, 23)]


def test_a_stricter_strategy_with_several_hits_decides_rather_than_falling_through() -> None:
    located = locate("a  b\na b\na b\n", "a b")
    assert located is not None
    assert located.strategy.name == "exact" and len(located.matches) == 2


@pytest.mark.parametrize(
    ("text", "needle", "replacement", "strategy", "expected"),
    [
        ("x = 1 \ny = 2\n", "x = 1\ny = 2", "x = 3\ny = 4", "line-trimmed", "x = 3\ny = 4\n"),
        ("    a()\n    b()\n", "a()\nb()", "a()\nc()", "indentation-flexible", "    a()\n    c()\n"),
        ("f(a,   b)\n", "f(a, b)", "f(b, a)", "whitespace-normalised", "f(b, a)\n"),
        ("s = 'a\\tb'\n", "s = \\'a\\\\tb\\'", "s = \\'b\\\\ta\\'", "escape-normalised", "s = 'b\\ta'\n"),
        ("{\n  one(1)\n  two(2)\n}\n", "{\n  one(1)\n  tw0(2)\n}", "{\n}", "anchor-block", "{\n}\n"),
    ],
)
def test_each_tolerant_strategy_finds_what_the_stricter_ones_miss(
    text: str, needle: str, replacement: str, strategy: str, expected: str
) -> None:
    assert _apply(text, needle, replacement) == (strategy, expected)


def test_line_trimmed_keeps_a_file_without_trailing_newline_so() -> None:
    assert _apply("a\nb  ", "b\n", "c\n") == ("line-trimmed", "a\nc")


def test_indentation_flexible_reindents_levels_old_string_never_used() -> None:
    text = "func f() {\n\tif ok {\n\t\trun()\n\t}\n}\n"
    new = "if ok {\n    run()\n    if more {\n        again()\n    }\n}"
    strategy, result = _apply(text, "if ok {\n    run()\n}", new)
    assert strategy == "indentation-flexible"
    assert result == "func f() {\n\tif ok {\n\t\trun()\n\t\tif more {\n\t\t\tagain()\n\t\t}\n\t}\n}\n"


def test_indentation_flexible_refuses_a_block_of_another_shape() -> None:
    lines = TextLines.of("if a:\n    b()\n    c()\n")
    assert indentation_flexible(lines, "if a:\nb()\n    c()") == []
    located = locate(lines.text, "if a:\nb()\n    c()")
    assert located is not None and located.strategy.name == "whitespace-normalised"
    assert located.matches[0].reindent is None  # no consistent shape: new_string is used as written


def test_whitespace_normalised_matches_inside_a_line_and_keeps_the_rest_of_it() -> None:
    assert _apply("    total  =  a + b  # sum\n", "total = a + b", "total = a - b") == (
        "whitespace-normalised",
        "    total = a - b  # sum\n",
    )


def test_whitespace_normalised_needs_the_white_space_old_string_starts_or_ends_with() -> None:
    assert _apply("width = id\n", " id ", " key ") == ("whitespace-normalised", "width = key \n")
    assert locate("width\n", " id ") is None


def test_escape_normalised_is_skipped_when_old_string_has_no_escapes() -> None:
    assert locate("alpha\n", "beta") is None


def test_anchor_block_needs_three_lines_and_a_similar_middle() -> None:
    text = "begin\n  first step\n  second step\nend\n"
    assert locate(text, "begin\nend") is None
    assert locate(text, "begin\n  something else entirely, nothing alike\nend") is None
    located = locate(text, "begin\n  first step\n  secnd step\nend")
    assert located is not None and located.strategy.name == "anchor-block"


def test_indent_mapping_accepts_a_shift_and_refuses_a_change_of_shape() -> None:
    assert indent_mapping([("a", "  a"), ("  b", "    b")]) == {"": "  ", "  ": "    "}
    assert indent_mapping([("a", "  a"), ("b", "    b")]) is None  # one model indent, two file indents
    assert indent_mapping([("a", "  a"), ("  b", "  b")]) is None  # two model indents, one file indent
    assert indent_mapping([("a", "    a"), ("  b", "  b")]) is None  # deeper became shallower


def test_reindenter_is_none_when_nothing_changes() -> None:
    assert Reindenter.build({"": "", "  ": "  "}, []) is None


def test_reindenter_counts_levels_from_the_replacement_when_old_string_had_one() -> None:
    reindent = Reindenter.build({"": "\t"}, ["\tx", "\t\ty"])
    assert reindent is not None
    assert reindent.apply("a\n  b\n    c\n") == "\ta\n\t\tb\n\t\t\tc\n"


def test_detect_indent_step() -> None:
    assert detect_indent_step(["a", "\tb", "\t\tc"]) == "\t"
    assert detect_indent_step(["a", "  b", "    c", "  d"]) == "  "
    assert detect_indent_step(["a", "b"]) == "    "


def test_closest_blocks_show_a_block_as_tall_as_old_string_around_the_candidate() -> None:
    lines = TextLines.of("one\ndef run(job):\n    job.start()\n    return job\n").lines
    shown = closest_blocks(lines, ["def run(jb):", "    jb.start()"])
    assert shown == "     2\tdef run(job):\n     3\t    job.start()"
    assert closest_blocks(lines, ["zzzzzz"]) is None


def test_find_matches_reports_where_a_tolerant_match_lands() -> None:
    assert find_matches("  a  \n  b\n", "a\nb") == [(0, 9)]


async def test_edit_says_which_tolerant_strategy_matched(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text("class M:\n    def f(self):\n        return 1\n")
    output = await run_tool(
        edit, ctx, path="m.py", old_string="def f(self):\n    return 1", new_string="def f(self):\n    return 2"
    )
    assert output.data == {"path": "m.py", "replacements": 1, "created": False, "matching": "indentation-flexible"}
    assert (root / "m.py").read_text() == "class M:\n    def f(self):\n        return 2\n"
    assert "-        return 1\n+        return 2\n" in output.diff


async def test_edit_names_the_strategy_when_a_tolerant_match_is_ambiguous(ctx: ToolContext, root: Path) -> None:
    (root / "m.py").write_text("if a:\n    go()\n    stop()\nif b:\n  go()\n  stop()\n")
    with pytest.raises(ToolError, match=r"matches 2 times in m.py \(lines 2, 5\) when indentation is ignored"):
        await run_tool(edit, ctx, path="m.py", old_string="go()\nstop()", new_string="pause()")
