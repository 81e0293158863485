"""A long stored answer is shown in pieces (an agent's view, a resumed session): cut only where a new top-level block
starts, so the pieces render as the whole does; only the pieces on screen are built at first, the rest as the user
scrolls up to them."""

from __future__ import annotations

from pathlib import Path

from coder_tui.transcript.answer_pieces import PIECE_CHARS, answer_pieces
from coder_tui.widgets.history_entries import RestoredHistory
from coder_tui.widgets.markdown_lines import MarkdownLines
from engine.events import HistoryRestored
from engine.restored import RestoredEntry
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, wait_until


def long_answer(sections: int) -> str:
    """Headings, paragraphs, loose lists (blank lines between items, an indented continuation) and code fences with
    blank lines inside (a ``~~~`` fence holding a ````` line too)."""
    parts = []
    for index in range(sections):
        parts.append(
            f"## Step {index}\n\nThe function `handle_{index}` reads the request and writes the result back.\n\n"
            f"1. validate the input of step {index}\n\n2. update the counters\n\n    still the second item\n\n"
            f"```python\ndef handle_{index}(request):\n\n    return request\n```\n\n"
            f"~~~\n```\n\nnot a fence end\n~~~\n\n"
        )
    return "".join(parts) + "That is all.\n"


def test_a_long_answer_is_cut_only_where_a_top_level_block_starts() -> None:
    answer = long_answer(120)
    pieces = answer_pieces(answer)

    assert "".join(pieces) == answer
    assert len(pieces) > 5
    assert all(len(piece) >= PIECE_CHARS for piece in pieces[:-1])
    for piece in pieces[1:]:
        first = piece.splitlines()[0]
        # A block at the margin: never an indented continuation, never the next item of a list.
        assert first[:1].strip() and not first[:2].rstrip(".").isdigit(), first
    for piece in pieces:
        # Never inside a fence: each piece opens and closes its fences.
        assert piece.count("~~~\n") % 2 == 0
        assert piece.count("```python\n") == piece.count("    return request\n```\n")


def test_a_short_answer_is_one_piece() -> None:
    assert answer_pieces("Short **answer**.\n\n- one\n- two\n") == ("Short **answer**.\n\n- one\n- two\n",)


async def test_a_restored_long_answer_builds_its_last_pieces_then_the_rest_as_the_user_scrolls_up(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    answer = long_answer(120)
    history = RestoredHistory(HistoryRestored.of("s", [
        RestoredEntry("message", {"role": "user", "content": "explain every step"}),
        RestoredEntry("message", {"role": "assistant", "content": answer}),
    ]))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        transcript = app.session.transcript
        await transcript.show_history(history)
        await settle(pilot)
        built_first = [entry.text for entry in transcript.query(MarkdownLines)]
        last = transcript.query(MarkdownLines).last()
        last_on_screen = transcript.region.contains_region(last.region)
        for _ in range(20):
            transcript.scroll_home(animate=False, immediate=True)
            await settle(pilot)
            if not transcript.older_count:
                break
        await wait_until(pilot, lambda: not transcript.older_count, "every piece to be built")
        built_all = [entry.text for entry in transcript.query(MarkdownLines)]

    pieces = answer_pieces(answer)
    assert 1 <= len(built_first) < len(pieces) and built_first == list(pieces[-len(built_first):])
    assert last_on_screen
    assert "".join(built_all) == answer
