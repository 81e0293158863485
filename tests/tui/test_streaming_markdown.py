"""A streamed answer (SPEC 15, issue 3 item 2): finished blocks rendered once, only the last block re-rendered, at a
bounded rate; Markdown drawn by one light widget whose chunked rendering matches a whole rendering."""

from __future__ import annotations

import subprocess
import sys

import pytest
from textual.geometry import Region
from textual.strip import Strip

from coder_tui.transcript.markdown_blocks import finished_length
from coder_tui.transcript.markdown_look import fence_language
from coder_tui.widgets.assistant_message import AssistantMessage
from coder_tui.widgets.markdown_lines import MarkdownLines
from tests.tui.widget_host import Host, shown_lines
from tests.tui.helpers import wait_until

ANSWER = (
    "# Plan\n\nFirst we read the **config**, then `parse` it.\n\n"
    "- check the keys\n- report problems\n\n"
    "```python\ndef parse(text):\n    return text.split()\n```\n\n"
    "| key | meaning |\n|---|---|\n| a | first |\n\n"
    "> keep it short\n\n---\n\nThat is all."
)


def test_finished_length_is_the_start_of_the_last_top_level_block() -> None:
    cases = [
        ("one paragraph", ""),
        ("para one\n\npara two", "para one\n\n"),
        ("# Title\nbody", "# Title\n"),
        ("- a\n- b\n\n- c", ""),  # one list, still growing
        ("- a\n\nafter", "- a\n\n"),
        ("```py\nx = 1\n\n\ny = 2\n", ""),  # an open fence holds its blank lines
        ("```py\nx = 1\n```\n\nnext", "```py\nx = 1\n```\n\n"),
        ("| a | b |\n|---|---|\n| 1 | 2 |\n\nx", "| a | b |\n|---|---|\n| 1 | 2 |\n\n"),
        ("one\r\n\r\ntwo", "one\r\n\r\n"),
    ]
    for text, finished in cases:
        assert text[: finished_length(text)] == finished, text


async def test_rendering_in_chunks_matches_rendering_the_whole_text() -> None:
    whole = MarkdownLines(ANSWER)
    chunked = MarkdownLines()
    async with Host(whole, chunked).run_test(size=(70, 80)) as pilot:
        rest = ANSWER
        while cut := finished_length(rest):
            chunked.extend(rest[:cut])
            rest = rest[cut:]
        chunked.extend(rest)
        await pilot.pause()
        assert chunked.text == ANSWER
        assert shown_lines(chunked) == shown_lines(whole)
        assert any("def parse(text):" in line for line in shown_lines(whole))


def _offsets(strip: Strip) -> list[object]:
    return [segment.style.meta.get("offset") for segment in strip if segment.style is not None and segment.style._meta]


async def test_rows_on_screen_carry_no_offsets_and_are_kept_the_hit_test_gets_offsets() -> None:
    """Selection offsets made for every row on screen at every round of a streamed answer were most of what drawing
    cost (issue 46): a row drawn for the screen has none and is kept until its line changes; the row Textual's hit
    test asks for (where a drag starts and ends) has them."""
    lines = MarkdownLines("first paragraph\n\n")
    async with Host(lines).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        width = lines.content_size.width
        (drawn,) = lines.render_lines(Region(0, 0, width, 1))
        assert "first paragraph" in drawn.text and not any(_offsets(drawn))
        hit = lines.render_line(0)
        assert "first paragraph" in hit.text and (0, 0) in _offsets(hit)
        kept = lines._drawn.get((0, width))
        lines.extend("second paragraph\n")
        await pilot.pause()
        lines.render_lines(Region(0, 0, width, 1))
        assert lines._drawn.get((0, width)) is kept and any("second" in line for line in shown_lines(lines))
        lines.replace("other words")
        await pilot.pause()
        assert "other words" in lines.render_lines(Region(0, 0, width, 1))[0].text


async def test_a_streaming_answer_re_renders_only_its_last_block() -> None:
    answer = AssistantMessage()
    async with Host(answer).run_test(size=(70, 60)) as pilot:
        answer.feed(ANSWER[:60])
        answer.feed(ANSWER[60:])
        finished = answer.query_one(".finished", MarkdownLines)
        last = answer.query_one(".last", MarkdownLines)
        await wait_until(pilot, lambda: last.text == "That is all.", "the first round")
        assert finished.text + last.text == ANSWER
        assert answer.is_streaming and not answer.is_settled
        answer.finish()
        await wait_until(pilot, lambda: answer.is_settled, "the answer to settle")
        await pilot.pause()
        # A finished answer shows one widget holding all of it; the last block's is emptied and hidden (removing it
        # took a layout of its own).
        assert [child for child in answer.children if child.display] == [finished]
        assert finished.text == ANSWER == answer.text and not last.text


async def test_fragments_fed_between_rounds_are_shown_together() -> None:
    answer = AssistantMessage()
    rounds: list[str] = []
    async with Host(answer).run_test(size=(70, 30)) as pilot:
        last = answer.query_one(".last", MarkdownLines)
        for name in ("replace", "replace_rendered"):  # rendered on the loop, or in a worker thread
            original = getattr(last, name)
            setattr(last, name, lambda text, *rest, original=original: (rounds.append(text), original(text, *rest)))
        for word in ("streamed ", "in ", "many ", "small ", "pieces"):
            answer.feed(word)
        await wait_until(pilot, lambda: bool(rounds), "a round")
        answer.finish()
        await wait_until(pilot, lambda: answer.is_settled, "the answer to settle")
    assert rounds == ["streamed in many small pieces", ""]  # then, finished, the last block's widget is emptied


async def test_a_long_answer_arriving_at_once_is_shown_in_bounded_steps_and_whole() -> None:
    from coder_tui.widgets import streaming_markdown

    long_answer = "\n\n".join(f"## Part {n}\n\n{ANSWER}" for n in range(100))
    assert len(long_answer) > 3 * streaming_markdown.ROUND_CHARS
    answer, whole = AssistantMessage(), MarkdownLines(long_answer, classes="-entry")
    steps: list[int] = []
    async with Host(answer, whole).run_test(size=(70, 40)) as pilot:
        finished = answer.query_one(".finished", MarkdownLines)
        original = finished.extend_rendered
        finished.extend_rendered = (  # type: ignore[method-assign]
            lambda text, *rest: (steps.append(len(text)), original(text, *rest))
        )
        await pilot.pause()
        answer.feed(long_answer)
        answer.finish()
        await wait_until(pilot, lambda: answer.is_settled, "the answer to settle")
        await pilot.pause()
        assert finished.text == long_answer
        assert len(steps) > 3 and max(steps) <= streaming_markdown.ROUND_CHARS
        # The same lines as one whole rendering (the answer is two columns narrower: its padding).
        assert [line.strip() for line in shown_lines(finished)] == [line.strip() for line in shown_lines(whole)]


def test_a_fence_language_is_found_among_pygments_built_in_lexers_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed fence's unfinished name ("pyth") is plain text, and never makes Pygments import its plugins."""
    import pygments.lexers

    html = "<!DOCTYPE html>\n<html><body><p>hi</p></body></html>"

    def no_plugins() -> None:
        raise AssertionError("Pygments' plugins were looked up")

    monkeypatch.setattr(pygments.lexers, "find_plugin_lexers", no_plugins)
    assert fence_language("python", "x = 1") == "python"
    assert fence_language("Py", "x = 1") == "py"
    assert fence_language("pyth", "x = 1") == "text"
    assert fence_language("text", "") == "text"
    assert fence_language("text", html) == "html"  # a fence without a name is guessed


def test_a_fence_without_a_name_is_guessed_among_common_languages_or_stays_plain() -> None:
    assert fence_language("text", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n") == "diff"
    assert fence_language("text", "#!/bin/bash\nset -e\nmake test\n") == "bash"
    assert fence_language("text", "import os\nprint(os.getcwd())\n") == "python"
    assert fence_language("text", '{"name": "demo", "tags": [1, 2]}') == "json"
    assert fence_language("text", "#include <stdio.h>\nint main(void) { return 0; }\n") == "c"
    assert fence_language("text", "total 8\ndrwxr-xr-x 2 root root 4096 .\n") == "text"
    assert fence_language("text", "{not json") == "text"


def test_guessing_a_fence_imports_only_the_candidate_lexers() -> None:
    """Guessing over every lexer imported ~500 of Pygments' modules (half a second, 16 MB) in the UI process."""
    code = (
        "import sys\nfrom coder_tui.transcript.markdown_look import fence_language\n"
        "fence_language('text', 'total 8\\ndrwxr-xr-x 2 root root 4096 .\\n')\n"
        "print(sum(name.startswith('pygments.lexers.') for name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(result.stdout) < 40


async def test_finishing_does_not_wait_for_the_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """The end of an answer (or of one Esc stopped) is shown at once, not after the pause between rounds."""
    from coder_tui.widgets import streaming_markdown

    monkeypatch.setattr(streaming_markdown, "APPEND_INTERVAL_S", 3600)
    answer = AssistantMessage()
    async with Host(answer).run_test(size=(70, 30)) as pilot:
        answer.feed("first words")
        last = answer.query_one(".last", MarkdownLines)
        await wait_until(pilot, lambda: last.text == "first words", "the first round")
        answer.feed(" and the last")
        answer.finish()
        await wait_until(pilot, lambda: answer.is_settled, "the answer to settle")
        assert answer.query_one(".finished", MarkdownLines).text == "first words and the last"


async def test_words_added_to_the_last_line_are_repainted_without_a_layout() -> None:
    answer = AssistantMessage()
    async with Host(answer).run_test(size=(70, 30)) as pilot:
        last = answer.query_one(".last", MarkdownLines)
        answer.feed("Some words")
        await wait_until(pilot, lambda: last.text == "Some words", "the first round")
        layouts: list[bool] = []
        original = last.refresh
        last.refresh = lambda *regions, layout=False, **rest: (  # type: ignore[method-assign]
            layouts.append(layout), original(*regions, layout=layout, **rest))[1]
        answer.feed(" and more")
        await wait_until(pilot, lambda: last.text == "Some words and more", "the next round")
        assert layouts == [False]  # one line still: repainted, not laid out again
        answer.feed("\n\n" + "a new paragraph " * 10)
        await wait_until(pilot, lambda: "paragraph" in last.text, "a round with a new block")
        assert layouts[-1] is True  # a new height is laid out
        assert shown_lines(last)[0].startswith("a new paragraph")


async def test_an_answer_takes_no_room_until_its_first_words_are_shown() -> None:
    """Mounted at its first delta and laid out once (to learn its width) before its first round, an answer that took
    a row then (its margin) moved a transcript that follows the end by a row, so the whole screen was drawn again
    for nothing on every answer. It takes none until its words are shown; one that never shows any (an answer of
    tool calls only) takes none at all."""
    answer, empty, below = AssistantMessage(), AssistantMessage(), MarkdownLines("below")
    async with Host(answer, empty, below).run_test(size=(70, 30)) as pilot:
        last = answer.query_one(".last", MarkdownLines)
        await wait_until(pilot, lambda: last.has_width, "the first layout")
        assert answer.outer_size.height == 0 and below.region.y == 0
        answer.feed("First words.")
        await wait_until(pilot, lambda: last.text == "First words.", "the first round")
        await pilot.pause()
        assert answer.region.y == 1 and answer.outer_size.height == 1 and below.region.y == 2  # a margin, a line
        answer.finish()
        empty.finish()
        await wait_until(pilot, lambda: answer.is_settled and empty.is_settled, "both answers to settle")
        await pilot.pause()
        assert answer.outer_size.height == 1 and empty.outer_size.height == 0 and below.region.y == 2
