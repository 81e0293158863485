"""Issue 32: an exchange costs the transcript as few full layouts as it can (each one repaints a transcript that
scrolls, and their number per exchange set the time per exchange once the screen is full): a new answer shows its
first words in the layout that places it, a new exchange with its pruning is laid out once, and the screen skips the
layout requests a later full reflow already answered."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual import messages
from textual.containers import VerticalScroll

from coder_tui.screens import session as session_screen
from coder_tui.screens.single_reflow import SingleReflow
from coder_tui.widgets.assistant_message import AssistantMessage
from coder_tui.widgets.markdown_lines import MarkdownLines
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, slow, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.widget_host import Host, shown_lines
from tests.tui.helpers import after_each_layout, make_app, ready, settle, submit, wait_until

FIRST = "The **first** answer, long enough to wrap: " + "words that fill the line " * 6
SECOND = "The second answer, as long: " + "more words that fill the line " * 6


async def test_a_new_answer_shows_its_first_words_in_the_layout_that_places_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """It presumes the width of the answer before it, so its first round renders before its first layout (an answer
    waited for a layout of its own to learn its width, then took another to show its words)."""
    first = AssistantMessage()
    async with Host(first).run_test(size=(60, 30)) as pilot:
        first.feed(FIRST)
        first.finish()
        await wait_until(pilot, lambda: first.is_settled, "the first answer")
        second = AssistantMessage(like=first)
        second.feed(SECOND)
        second.finish()
        width_at_round: list[int] = []
        original = MarkdownLines.extend_rendered

        def extend_rendered(self: MarkdownLines, *args: object) -> None:
            width_at_round.append(self.size.width)
            original(self, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(MarkdownLines, "extend_rendered", extend_rendered)
        await pilot.app.query_one(VerticalScroll).mount(second)
        await wait_until(pilot, lambda: second.is_settled, "the second answer")
        await pilot.pause()
        assert width_at_round == [0]  # rendered (at the presumed width) before the answer was laid out
        whole = shown_lines(first.query_one(".finished", MarkdownLines))
        shown = shown_lines(second.query_one(".finished", MarkdownLines))
        assert len(whole) > 1 and shown[0].startswith("The second answer")
        assert len(shown) == len(whole)  # the same width: as many lines


async def test_a_presumed_width_that_turns_out_wrong_is_rendered_again_at_the_layout() -> None:
    first = AssistantMessage()
    narrow = VerticalScroll()
    async with Host(first, narrow).run_test(size=(60, 30)) as pilot:
        first.feed(FIRST)
        first.finish()
        await wait_until(pilot, lambda: first.is_settled, "the first answer")
        narrow.styles.width = 30
        second = AssistantMessage(like=first)  # presumes 58 columns, gets 28
        second.feed(SECOND)
        second.finish()
        await narrow.mount(second)
        await wait_until(pilot, lambda: second.is_settled, "the second answer")
        await pilot.pause()
        reference = MarkdownLines(SECOND, classes="-entry")  # padded as an answer is
        await narrow.mount(reference)
        await pilot.pause()
        lines = shown_lines(second.query_one(".finished", MarkdownLines))
        assert max(len(line) for line in lines) <= 28
        assert [line.strip() for line in lines] == [line.strip() for line in shown_lines(reference)]


async def test_a_layout_request_made_before_a_full_reflow_is_not_laid_out_again() -> None:
    answer = AssistantMessage()
    async with Host(answer).run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, SingleReflow)
        reflows: list[float] = []
        original = screen._refresh_layout
        screen._refresh_layout = (  # type: ignore[method-assign]
            lambda *args, **kwargs: (reflows.append(time.monotonic()), original(*args, **kwargs))[1]
        )
        answered = messages.Layout(answer)
        screen._refresh_layout()  # a full reflow, begun after the request was made
        reflows.clear()
        screen.post_message(answered)
        await pilot.pause()
        await pilot.pause()
        assert reflows == []
        screen.post_message(messages.Layout(answer))  # made after: laid out
        await wait_until(pilot, lambda: bool(reflows), "a reflow")


@pytest.mark.parametrize("typing", [False, True])
async def test_a_round_waits_for_the_frame_of_a_typed_key_but_not_for_the_echo_of_enter(typing: bool) -> None:
    """A key typed while an answer streams is drawn before the round's layout; after Enter nobody types, and the
    echo not drawn yet is drawn with the round, in one layout."""
    answer = AssistantMessage()
    async with Host(answer).run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        app = pilot.app
        awaited: list[bool] = []
        original = answer._next_refresh

        async def next_refresh() -> None:
            awaited.append(True)
            await original()

        answer._next_refresh = next_refresh  # type: ignore[method-assign]
        # The last key arrived and was handled just now; no frame written since.
        app.last_key_at = app.last_key_handled_at = time.monotonic()  # type: ignore[attr-defined]
        app.last_frame_at = app.last_key_at - 0.01  # type: ignore[attr-defined]
        app.typing = typing  # type: ignore[attr-defined]
        answer.feed("The answer.")
        answer.finish()
        await wait_until(pilot, lambda: answer.is_settled, "the answer")
        assert bool(awaited) is typing


async def test_a_new_exchange_and_its_answer_are_laid_out_at_most_twice_however_long_the_session(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group, the input, the old exchange pruned and the elided line in one layout (they were three or four), and
    the answer mounted and shown in one more (it was three: placed empty, its words, its last block removed)."""
    exchanges = 30
    for index in range(exchanges):
        # One delta an answer: its words reach the screen in one round however loaded the machine is (in pieces, a
        # busy machine split some answers over two or three rounds, each a layout of its own).
        scripted_server.add(reply(text(f"Answer {index}: **done** and a few more words.", chunk=200)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = app.session
        counts: list[int] = []

        def counted() -> None:
            counts[-1] += 1

        after_each_layout(screen, monkeypatch, counted)
        for index in range(exchanges):
            counts.append(0)
            await submit(pilot, f"question {index}")
            await settle(pilot)
            await pilot.pause()
        assert screen.transcript.older_count > 0  # the late exchanges pruned older ones
        late = sorted(counts[10:])
        # The whole was three to four an exchange before, every exchange.
        assert late[len(late) // 2] <= 2 and late[-1] <= 3, counts
        assert sum(late) <= 2 * len(late) + 2, counts


async def test_the_echo_of_a_fast_answer_is_laid_out_with_it(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The echo waits for the answer's first entry (``hold_for_next``; here for as long as it takes, so that a slow
    test machine does not decide): the echo is never laid out without its answer. Each answer starts 50 ms after the
    request, so an echo that did not wait would be drawn alone every time."""
    monkeypatch.setattr(session_screen, "ECHO_WAITS_S", 30.0)
    exchanges = 16
    for index in range(exchanges):
        scripted_server.add(slow(reply(text(f"Answer {index}: **done** and a few more words.", chunk=200)), 0.05))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        screen = app.session
        shown: list[list[tuple[bool, bool]]] = []

        def recorded() -> None:
            entries = screen.transcript.entries
            visible = screen._compositor.visible_widgets
            echoes = [index for index, entry in enumerate(entries) if isinstance(entry, UserMessage)]
            after = entries[echoes[-1] + 1:] if echoes else []
            answer = [entry for entry in after if isinstance(entry, AssistantMessage)]
            shown[-1].append((bool(echoes) and entries[echoes[-1]] in visible, bool(answer) and answer[0] in visible))

        after_each_layout(screen, monkeypatch, recorded)
        for index in range(exchanges):
            shown.append([])
            await submit(pilot, f"question {index}")
            await settle(pilot)
            await pilot.pause()
        late = shown[4:]
        assert all((True, False) not in layouts for layouts in late), late  # never the echo without its answer
        counts = sorted(len(layouts) for layouts in late)
        # The echo with the answer's first words, and its finishing round when the stream came in two reads.
        assert counts[len(counts) // 2] <= 2, late
