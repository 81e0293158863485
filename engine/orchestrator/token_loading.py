"""Exact token counts beside the requests, not before them.

Before a model call the exact count matters only for ``maybe_compact``, and a request whose upper bound (the exact
counts of what is counted, the UTF-8 bytes of the rest: ``TokenCounter.upper_bound``) stays under the compaction
threshold cannot need a compaction whatever it counts. So such a request goes at once, and its new messages are
counted once it is out, while the server works on it, and the context meter follows (on the event loop: the
encoder holds the interpreter while it encodes, so a thread would only add its hand-over). The encoding itself (a
few tenths of a second once per process, and tens of megabytes) loads the same way, in a thread, once a request is
out, and only when a count must be exact: near the compaction threshold, or for a front end that shows the context
while the server reports no usage (``maybe_compact``); with the notice when counts are only estimates.

Counts run one after the other, in the order they were asked for, so the meter never goes back to an older one.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from engine.background import in_background_thread
from engine.context.compaction import should_compact
from engine.context.tokens import TokenCounter
from engine.events import Event, Notice, UsageUpdated
from engine.messages import Message

# How long after a turn's request starts a count that needs the encoding starts loading it (the request is out by
# then; a load running beside it would slow it to half speed).
LOAD_AFTER_S = 0.05
# How long after a request starts its new messages are counted: its writes take a few rounds of the event loop (the
# HTTP stack yields before each), and a count made before them would hold the request back.
COUNT_AFTER_S = 0.002
# New text up to this many characters is counted at once, before the request: cheaper than a count scheduled after
# it (a task, a timer, a round of the event loop), and too short to hold the request back.
INLINE_CHARS = 2048

# Work waiting for the encoding or a count (kept here so no task is collected while it waits).
_pending: set[asyncio.Future[None]] = set()
# One count at a time per counter, in the order asked for.
_turns: weakref.WeakKeyDictionary[TokenCounter, asyncio.Lock] = weakref.WeakKeyDictionary()
# The number of the latest context count asked for, per counter: an older one still under way is not shown.
_announced: weakref.WeakKeyDictionary[TokenCounter, int] = weakref.WeakKeyDictionary()


async def wait_loaded(counter: TokenCounter) -> None:
    """Loads the encoding, or waits for a load already running, in a thread of lower priority
    (``engine.background``): the event loop never waits."""
    if not counter.ready:
        await in_background_thread(counter.load)


def needs_exact_count(
    counter: TokenCounter,
    messages: Sequence[Message],
    *,
    system: str,
    tools: Sequence[dict[str, Any]],
    window: int,
    threshold: float,
) -> bool:
    """Whether this request could reach the compaction threshold: whether its upper bound does."""
    return should_compact(counter.upper_bound(messages, system=system, tools=tools), window, threshold)


async def count_exactly(counter: TokenCounter, messages: Sequence[Message]) -> None:
    """Loads the encoding if needed (in a thread) and counts the messages not counted yet, after the counts asked
    for before; ``counter.total`` of them is then a sum."""
    async with _turn(counter):
        await wait_loaded(counter)
        new = counter.uncounted(messages)
        counter.remember(new, [counter.measure(message) for message in new])


def _turn(counter: TokenCounter) -> asyncio.Lock:
    lock = _turns.get(counter)
    if lock is None:
        lock = _turns[counter] = asyncio.Lock()
    return lock


def correct_when_loaded(
    counter: TokenCounter,
    prompt_tokens: int,
    sent: Sequence[Message],
    *,
    system: str,
    tools: Sequence[dict[str, Any]],
) -> None:
    """``TokenCounter.correct`` with the server's ``prompt_tokens`` for the request made of ``sent``: now if every
    message of it is counted, else once it is (the event loop never waits for the load or a long count)."""
    if counter.ready and not _turn(counter).locked() and not counter.uncounted(sent):
        counter.correct(prompt_tokens, sent, system=system, tools=tools)
        return
    sent = tuple(sent)
    counter.usage_reports += 1  # already newer than any count announced from before it

    async def correct() -> None:
        await count_exactly(counter, sent)
        counter.correct(prompt_tokens, sent, system=system, tools=tools)

    _keep(asyncio.ensure_future(correct()))


def announce_when_counted(
    counter: TokenCounter,
    messages: Sequence[Message],
    *,
    system: str,
    tools: Sequence[dict[str, Any]],
    window: int,
    emit: Callable[[Event], None],
) -> None:
    """Once the request made of these messages is out and they are counted: the notice if counts are not exact,
    then the context they hold (the list is copied now, so later messages do not count), unless the server's
    usage or a later count came first. What is short to count is counted and shown at once."""
    sent = tuple(messages)
    reports = counter.usage_reports
    number = _announced[counter] = _announced.get(counter, 0) + 1

    def announce_now() -> None:
        note = counter.take_notice()
        if note:
            emit(Notice(note, level="warning"))
        # Not when the server's own usage has been shown since (it is newer), nor a later count.
        if counter.usage_reports == reports and _announced.get(counter) == number:
            emit(UsageUpdated(0, 0, counter.total(sent, system=system, tools=tools), window))

    if counter.ready:
        new = counter.uncounted(sent)
        if sum(map(_text_size, new)) <= INLINE_CHARS:
            counter.remember(new, [counter.measure(message) for message in new])
            announce_now()
            return

    async def announce() -> None:
        # The request this count is for goes out first: the load or the count would hold the interpreter meanwhile.
        await asyncio.sleep(COUNT_AFTER_S if counter.ready else LOAD_AFTER_S)
        await count_exactly(counter, sent)
        announce_now()

    _keep(asyncio.ensure_future(announce()))


def _text_size(message: Message) -> int:
    return len(message.content or "") + sum(len(call.function.arguments) for call in message.tool_calls or ())


async def counts_settled() -> None:
    """Waits for the counts announced or corrected while the encoding loads (a few tenths of a second once per
    process at most): a turn ends with its context shown."""
    loop = asyncio.get_running_loop()
    waiting = [task for task in _pending if task.get_loop() is loop]
    if waiting:
        await asyncio.gather(*waiting, return_exceptions=True)


def _keep(task: asyncio.Future[None]) -> None:
    _pending.add(task)
    task.add_done_callback(_pending.discard)
