"""Markdown that grows while the model streams, at a bounded rate, with only its last block re-rendered.

The engine calls ``feed`` on every delta (hundreds a second from a fast model); a worker takes what arrived at most
every ``APPEND_INTERVAL_S``, so the screen re-lays out a few times a second, never per delta, and keys typed
meanwhile are drawn at once. Of the text so far only the last top-level block can still change
(``markdown_blocks``): the blocks before it are appended to one ``MarkdownLines`` and never rendered again, and the
last block is re-rendered alone into a second one. One round is two synchronous widget updates, one layout, no
mounting and nothing that holds the screen's repaints, and its cost does not grow with the answer. A finished answer
is a container and one widget shown (the second is hidden: removing it took a layout of its own).

A new answer is rendered at the width of the one before it (``like``), so its first words are shown by the layout
that places it, not one layout later: a short answer costs the transcript one layout, not three.

Finding the blocks (a markdown-it parse) and rendering them (Rich's renderer is pure Python: a fast model's second
of text is tens of milliseconds of it) happen in one worker-thread job per round, so the event loop keeps handling
and drawing keys meanwhile, and the end of a long answer is shown without a freeze: only lines already rendered are
handed to the widgets.

Why not Textual's ``Markdown`` widget with ``Markdown.get_stream()``, as Toad streams: measured on this app
(the old in-process ``typing_latency`` benchmark), its appends and re-mounts hold ``App.batch_update`` while new block widgets
mount, which stops every repaint, typed keys included, and keeping only the last block in it costs two or three
layouts a round; with a 20k-token answer streaming, keystroke p95 stayed at 48-55 ms against 35-44 ms here.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from coder_tui.transcript.markdown_blocks import finished_chunks
from coder_tui.widgets.markdown_lines import Lines, MarkdownLines
from coder_tui.widgets.sized_by_layout import SizedByLayout, UniformLines

# How often, at most, new text reaches the screen while streaming: reads as live, leaves the loop free for typing.
APPEND_INTERVAL_S = 0.15
# At most this much finished text is rendered in one step: when a very fast model is far ahead of the screen, the
# screen catches up in short steps with the loop free between them.
ROUND_CHARS = 6000
# A first round of at most this much text is rendered at once on the loop (about a millisecond), before the answer's
# first layout, which then shows it; a worker thread would let that layout go first, and the round take another.
INLINE_CHARS = 1000
# A key typed this recently may not be drawn yet: a round waits for its frame (``_after_typed_key``), for at most
# this many frames.
TYPED_JUST_NOW_S = 0.03
KEY_FRAMES_AWAITED = 3
# Someone who typed a key this recently is typing: a round waits (at most ``NEXT_KEY_WAIT_S``) for their next key and
# goes right after its frame, so the round's layout fills the gap between two keys instead of delaying the next one.
TYPING_S = 0.25
NEXT_KEY_WAIT_S = 0.08
NEXT_KEY_POLL_S = 0.004


class StreamingMarkdown(SizedByLayout, UniformLines, Vertical):
    """``feed(fragment)`` while the model streams, ``finish()`` at the end; ``text`` is everything fed so far."""

    DEFAULT_CSS = """
    StreamingMarkdown {
        height: auto;
        padding: 0 1;
        /* No room at all before its first words: laid out empty (to learn its width), it moves nothing on screen. */
        &.-shown { margin: 1 0 0 0; }
        /* Between the finished blocks and the last one, the blank line Rich puts between blocks. */
        & > .finished.-filled { margin-bottom: 1; }
        &.-done > .finished { margin-bottom: 0; }
        &.-done > .last { display: none; }
    }
    """

    class Settled(Message):
        """The stream is finished and shown: the widget will not change again."""

    class RoundShown(Message):
        """New text was put on screen: what else changes with the stream (the status line's token count) changes
        in the same frame, instead of writing frames of its own."""

    def __init__(self, *, classes: str = "", like: StreamingMarkdown | None = None) -> None:
        """``like``: the answer before this one in the same place, whose width this one presumes until laid out."""
        super().__init__(classes=classes)
        self._finished_blocks = MarkdownLines(classes="finished")
        self._last_block = MarkdownLines(classes="last")
        if like is not None:
            self._finished_blocks.presume_width_of(like._finished_blocks)
            self._last_block.presume_width_of(like._finished_blocks)
        self._pending: list[str] = []
        self._fed: list[str] = []
        self._tail = ""
        self._wake = asyncio.Event()
        # Set by ``finish``: the pause between rounds ends at once (the end of an answer, or of one Esc stopped, is
        # shown without waiting for the next round).
        self._ending = asyncio.Event()
        self._finished = False
        self._settled = False

    def compose(self) -> ComposeResult:
        yield self._finished_blocks
        yield self._last_block

    @property
    def text(self) -> str:
        """All the text fed so far (shown or still pending)."""
        return "".join(self._fed)

    @property
    def is_streaming(self) -> bool:
        return not self._finished

    @property
    def is_settled(self) -> bool:
        """Finished and fully shown: nothing will change it any more."""
        return self._settled

    def feed(self, fragment: str) -> None:
        """Adds a fragment; cheap, safe to call many times a second and before the widget is mounted."""
        if self._finished or not fragment:
            return
        self._fed.append(fragment)
        self._pending.append(fragment)
        self._wake.set()

    def finish(self) -> None:
        """No more fragments: the worker shows what is pending and stops."""
        self._finished = True
        self._wake.set()
        self._ending.set()

    def on_mount(self) -> None:
        self._pump()

    @work(group="markdown-stream")
    async def _pump(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                await self._until_laid_out()
                finishing = self._finished
                arrived = "".join(self._pending)
                self._pending.clear()
                await self._show(arrived, finishing)
                if finishing:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._ending.wait(), APPEND_INTERVAL_S)
        finally:
            self.add_class("-done")
            self._settled = True
            self.post_message(self.Settled())

    async def _until_laid_out(self) -> None:
        """Until both widgets know their width: before it (a new answer's first round, or after a resize) a round
        would not render in the worker thread but in the layout, on the event loop: at the start of a fast answer,
        a frame of tens of milliseconds."""
        while not (self._finished_blocks.has_width and self._last_block.has_width):
            await self._next_refresh()

    async def _after_typed_key(self, *, waits_for_next: bool) -> None:
        """While the user types, waits for their next key (``NEXT_KEY_WAIT_S`` at most; not for the last round of
        an answer, whose end, or the stop Esc asked for, is shown at once) and until the frame that shows it is drawn
        (a few frames at most): the round's layout (the transcript scrolls, so it repaints all of it) then comes
        right after that frame instead of in front of it, and is over before the next key of a fast typist. A round
        that went as soon as its text was rendered would land at a random moment between two keys, and the next key
        would often wait for its layout. After Enter sent the input, nobody is typing: the echo, if not drawn yet,
        is drawn with the round, in one layout."""
        app = self.app
        last_key_at = getattr(app, "last_key_at", 0.0)
        if not getattr(app, "typing", True) and getattr(app, "last_key_handled_at", 0.0) >= last_key_at:
            return
        now = time.monotonic()
        if waits_for_next and TYPED_JUST_NOW_S <= now - last_key_at < TYPING_S:
            deadline = now + NEXT_KEY_WAIT_S
            while getattr(app, "last_key_at", 0.0) == last_key_at and time.monotonic() < deadline:
                await asyncio.sleep(NEXT_KEY_POLL_S)
        for _ in range(KEY_FRAMES_AWAITED):
            if time.monotonic() - getattr(app, "last_key_at", 0.0) >= TYPED_JUST_NOW_S or _last_key_drawn(app):
                return
            await self._next_refresh()

    async def _next_refresh(self) -> None:
        refreshed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.call_after_refresh(lambda: refreshed.done() or refreshed.set_result(None))
        await refreshed

    async def _show(self, arrived: str, finishing: bool) -> None:
        """One round. In a worker thread: the text is cut into its finished blocks (in chunks of at most
        ``ROUND_CHARS``, each rendered on its own) and its last block, which is rendered alone. Then all of it is
        shown at once, so the screen never shows a block twice nor a gap. When finishing, the last block is a
        finished one too."""
        finished, last = self._finished_blocks, self._last_block
        text = self._tail + arrived
        finished_renderer, last_renderer = finished.renderer(), last.renderer()
        replaces_last = bool(arrived) and not finishing
        first = not finished.text

        def cut_and_render() -> tuple[list[str], str, list[Lines | None], Lines | None]:
            chunks, rest = finished_chunks(text, ROUND_CHARS, whole=finishing)
            rendered: list[Lines | None] = []
            is_first = first
            for chunk in chunks:
                lines = None  # without a width yet, the widget renders it at its first layout
                if finished_renderer is not None and chunk.strip():
                    lines = finished_renderer[1](chunk, is_first)
                    is_first = False
                rendered.append(lines)
            rest_lines = None
            if replaces_last and last_renderer is not None and rest.strip():
                rest_lines = last_renderer[1](rest, True)
            return chunks, rest, rendered, rest_lines

        if not self.size.width and len(text) <= INLINE_CHARS:
            chunks, self._tail, rendered, rest_lines = cut_and_render()
        else:
            chunks, self._tail, rendered, rest_lines = await asyncio.to_thread(cut_and_render)
        await self._after_typed_key(waits_for_next=not finishing)
        for chunk, lines in zip(chunks, rendered, strict=True):
            if lines is None or finished_renderer is None:
                finished.extend(chunk)
            else:
                finished.extend_rendered(chunk, finished_renderer[0], lines)
        finished.set_class(bool(finished.text), "-filled")
        self.set_class(bool(finished.text) or (not finishing and bool(self._tail.strip())), "-shown")
        if finishing:
            last.replace("")  # and hidden with the class ``-done``, in the same layout as the round's
        elif arrived:
            if rest_lines is None or last_renderer is None:
                last.replace(self._tail)
            else:
                last.replace_rendered(self._tail, last_renderer[0], rest_lines)
        if arrived:
            self.post_message(self.RoundShown())


def _last_key_drawn(app: object) -> bool:
    """Whether the last key that arrived is handled and a frame was written after it (the app stamps all three:
    ``CoderApp``): its frame is on screen, and a round need not wait for it."""
    handled = getattr(app, "last_key_handled_at", None)
    if handled is None:
        return False
    return handled >= getattr(app, "last_key_at", 0.0) and getattr(app, "last_frame_at", 0.0) > handled
