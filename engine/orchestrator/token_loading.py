"""The token encoding loads beside the first request, not before it.

Loading an encoding takes a few tenths of a second once per process. Before a model call the exact count matters
only for ``maybe_compact``, and a request whose UTF-8 bytes stay under the compaction threshold cannot need a
compaction whatever it counts (``TokenCounter.upper_bound``). So a turn that starts before the encoding is loaded
goes ahead at once, the load starts in a thread once the request is out (or, with no input waiting, once the
engine is ready), and the context meter (and the notice when counts are only estimates) follow as soon as it is
done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from engine.context.compaction import should_compact
from engine.context.tokens import TokenCounter
from engine.events import Event, Notice, UsageUpdated
from engine.messages import Message

# How long after a turn's request starts a count that needs the encoding starts loading it (the request is out by
# then; a load running beside it would slow it to half speed).
LOAD_AFTER_S = 0.05

# Work waiting for the encoding (kept here so no task is collected while it waits).
_pending: set[asyncio.Future[None]] = set()


async def wait_loaded(counter: TokenCounter) -> None:
    """Loads the encoding, or waits for a load already running, in a thread: the event loop never waits."""
    if not counter.ready:
        await asyncio.to_thread(counter.load)


def start_loading(counter: TokenCounter) -> None:
    """Starts the load in a thread if it is not loaded; returns at once."""
    if not counter.ready:
        _keep(asyncio.ensure_future(wait_loaded(counter)))


def needs_exact_count(
    counter: TokenCounter,
    messages: Sequence[Message],
    *,
    system: str,
    tools: Sequence[dict[str, Any]],
    window: int,
    threshold: float,
) -> bool:
    """Whether this request could reach the compaction threshold: always once the encoding is loaded (counting is
    then cheap), else only when its byte-sized upper bound does."""
    if counter.ready:
        return True
    return should_compact(counter.upper_bound(messages, system=system, tools=tools), window, threshold)


def correct_when_loaded(
    counter: TokenCounter,
    prompt_tokens: int,
    sent: Sequence[Message],
    *,
    system: str,
    tools: Sequence[dict[str, Any]],
) -> None:
    """``TokenCounter.correct`` with the server's ``prompt_tokens`` for the request made of ``sent``: now if the
    encoding is loaded, else once it is (the event loop never waits for the load)."""
    if counter.ready:
        counter.correct(prompt_tokens, sent, system=system, tools=tools)
        return
    sent = tuple(sent)
    counter.usage_reports += 1  # already newer than any count announced from before it

    async def correct() -> None:
        await wait_loaded(counter)
        counter.correct(prompt_tokens, sent, system=system, tools=tools)

    _keep(asyncio.ensure_future(correct()))


def announce_when_loaded(
    counter: TokenCounter,
    messages: Sequence[Message],
    *,
    system: str,
    tools: Sequence[dict[str, Any]],
    window: int,
    emit: Callable[[Event], None],
) -> None:
    """Once the encoding is loaded: the notice if counts are not exact, then the context these messages hold (the
    request just sent; the list is copied now, so later messages do not count), unless the server's usage came
    first."""
    sent = tuple(messages)
    reports = counter.usage_reports

    async def announce() -> None:
        if not counter.ready:
            # The request this count is for goes out first: the load would hold the interpreter meanwhile.
            await asyncio.sleep(LOAD_AFTER_S)
        await wait_loaded(counter)
        note = counter.take_notice()
        if note:
            emit(Notice(note, level="warning"))
        if counter.usage_reports == reports:  # else the server's own usage has been shown since: it is newer
            emit(UsageUpdated(0, 0, counter.total(sent, system=system, tools=tools), window))

    _keep(asyncio.ensure_future(announce()))


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
