"""Resuming a long session (issue 14): its history is described only as far as the transcript takes it, and the
entries that fill the screen are laid out and drawn together, once all of them are mounted."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from coder_tui.widgets import history_entries
from coder_tui.widgets.history_entries import EntryFactory, RestoredHistory
from engine.events import HistoryRestored
from engine.restored import RestoredEntry
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import after_each_layout, make_app, ready, wait_until, write_sessions


def exchange(number: int) -> list[RestoredEntry]:
    """A question, a read call and its result, and the answer: three transcript entries."""
    call = {"id": f"c{number}", "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"f{number}.py"})}}
    return [
        RestoredEntry("message", {"role": "user", "content": f"question {number}"}),
        RestoredEntry("message", {"role": "assistant", "content": None, "tool_calls": [call]}),
        RestoredEntry("message", {"role": "tool", "tool_call_id": f"c{number}",
                                  "content": json.dumps({"ok": True, "content": f"line {number}"})}),
        RestoredEntry("message", {"role": "assistant", "content": f"Answer **{number}**."}),
    ]


def history_of(entries: list[RestoredEntry]) -> RestoredHistory:
    return RestoredHistory(HistoryRestored.of("s", entries))


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> list[EntryFactory]:
    """Every entry factory made from now on."""
    made: list[EntryFactory] = []

    class Counted(EntryFactory):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(history_entries, "EntryFactory", Counted)
    return made


def test_only_the_entries_taken_are_described(described: list[EntryFactory]) -> None:
    pending = history_of([entry for number in range(1000) for entry in exchange(number)]).pending()
    assert len(pending) == 3000 and not described
    newest = pending.take(6)
    assert len(described) == 6 and len(pending) == 2994
    assert [type(factory()).__name__ for factory in newest] == ["UserMessage", "ToolCallView", "MarkdownLines"] * 2
    assert newest[0]().text == "question 998"


def test_every_kind_of_entry_is_counted_as_it_is_built() -> None:
    call = {"id": "t1", "type": "function", "function": {"name": "task", "arguments": "{}"}}
    entries = [
        RestoredEntry("message", {"role": "system", "content": "rules"}),
        RestoredEntry("message", {"role": "user", "content": ""}),
        RestoredEntry("message", {"role": "assistant", "content": "ok", "reasoning": "think",
                                  "tool_calls": [call, {**call, "id": "t2"}]}),
        RestoredEntry("message", {"role": "tool", "tool_call_id": "t1", "content": "done"}),
        RestoredEntry("compacted", {"role": "user", "content": "summary"}, tokens_before=9000, tokens_after=900),
        RestoredEntry("message", {"role": "assistant", "content": None}),
    ]
    pending = history_of(entries).pending()
    built = [factory() for factory in pending.take(100)]
    assert len(pending) == 0
    assert [type(widget).__name__ for widget in built] == [
        "MarkdownLines", "MarkdownLines", "ToolCallView", "ToolCallView", "NoticeLine"]
    # t1 found its result after it; t2 has none: it was cut off.
    assert [widget.status.value for widget in built[2:4]] == ["success", "cancelled"]


def test_entries_given_back_are_taken_again_before_older_ones() -> None:
    entries = [RestoredEntry("message", {"role": "user", "content": f"q{n}"}) for n in range(10)]
    pending = history_of(entries).pending()
    shown = pending.take(5)
    for factory in shown[:2]:  # the transcript pruned its two oldest entries
        pending.give_back(factory)
    assert [factory().text for factory in pending.take(3)] == ["q4", "q5", "q6"]
    assert len(pending) == 4


async def test_the_screen_is_laid_out_only_once_every_resumed_entry_is_mounted(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen, transcript = app.session, app.session.transcript
        # For each layout of the screen: whether each widget in the transcript was mounted by then (one that is not
        # is measured but not drawn, nor is anything inside it).
        layouts: list[list[bool]] = []
        after_each_layout(
            screen, monkeypatch, lambda: layouts.append([widget.is_mounted for widget in transcript.walk_children()])
        )
        drawn = transcript.show_history(history_of([entry for number in range(200) for entry in exchange(number)]))
        while not drawn.done():
            # The frame timer fires at every turn of the loop while the entries mount (a busy start-up, a fast timer).
            await asyncio.sleep(0)
            screen._on_timer_update()
        assert layouts and all(all(mounted) for mounted in layouts), layouts
        last = transcript.entries[-1]
        assert last.region.height > 0 and transcript.region.contains_region(last.region)


async def test_the_code_highlighter_loads_after_the_resumed_conversation_is_drawn(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import textual.highlight

    (session_id,) = write_sessions(workspace, [("the question", "2026-01-05T09:00:00+00:00", 4)])
    app = make_app(workspace, scripted_server, first_inputs=(f"/resume {session_id}",))
    # Whether the resumed conversation was on screen when the highlighter was first used.
    drawn_before: list[bool] = []
    highlight = textual.highlight.highlight

    def recorded(*args: object, **kwargs: object) -> object:
        entries = app.session.transcript.entries
        drawn_before.append(bool(entries) and entries[-1].region.height > 0)
        return highlight(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(textual.highlight, "highlight", recorded)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: bool(drawn_before), "the highlighter's preload")
        assert drawn_before[0] is True


async def test_opening_a_session_starts_the_link_at_once_not_in_a_gap_between_keys(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coder_tui.runtime import between_keys

    # No gap between keys ever comes: the steps left for such gaps never run.
    monkeypatch.setattr(between_keys, "PAUSED_S", 3600.0)
    monkeypatch.setattr(between_keys, "LONGEST_WAIT_S", 3600.0)
    (session_id,) = write_sessions(workspace, [("the question", "2026-01-05T09:00:00+00:00", 4)])
    app = make_app(workspace, scripted_server, first_inputs=(f"/resume {session_id}",))
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.session.transcript
        await wait_until(pilot, lambda: any(getattr(e, "text", "") == "the question" for e in transcript.entries),
                         "the resumed conversation")
