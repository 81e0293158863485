"""``chat_step`` (SPEC 3.2): one model answer streamed, announced delta by delta and appended. A cancelled or
broken stream keeps its partial text, marked interrupted; a stream that chants the same text over and over is cut
(SPEC 11) and ends the turn."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

from engine.context.images import refused_images
from engine.errors import ProviderError
from engine.context.tokens import CHARS_PER_TOKEN
from engine.events import LoopDetected, Notice, ReasoningDelta, TextDelta, UsageUpdated
from engine.messages import Message
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.state import TurnState
from engine.orchestrator.token_loading import correct_when_loaded
from engine.provider.assembler import StreamAssembler
from engine.provider.base import ChatRequest, ReasoningChunk, RetryNotice, StreamChunk, TextChunk, UsageChunk
from engine.provider.prompt_cut import prompt_cut_warning
from engine.provider.server_probe import cached
from engine.workflow.loop_detection import LoopFound


async def chat_step(state: TurnState, deps: TurnDeps) -> Message | None:
    """The model's answer; None when the turn ended before asking (the request would pass the budget)."""
    session = deps.session
    sent = session.messages
    if deps.spend is not None:
        stop = deps.spend.over_budget(deps.recorder.session_id, deps.config, _prompt_estimate(deps, sent))
        if stop is not None:
            state.end("error", stop)
            return None
    state.steps += 1
    request = ChatRequest(
        model=session.model, messages=session.request_messages(), tools=session.tools, cache_key=session.id
    )
    assembler = StreamAssembler(taken_ids=session.tool_call_ids)
    deps.loops.new_stream()
    loop: LoopFound | None = None
    try:
        async with aclosing(deps.provider.stream(request)) as stream:  # type: ignore[type-var]
            async for chunk in stream:
                assembler.feed(chunk)
                loop = _announce(chunk, deps, sent)
                if loop is not None:
                    break
    except ProviderError as exc:
        if session.send_images and refused_images(exc, request.messages, deps.emit):
            session.send_images = False
            state.steps -= 1
            return await chat_step(state, deps)
        _keep_partial(assembler, deps)
        raise
    except asyncio.CancelledError:
        _keep_partial(assembler, deps)
        raise
    if loop is not None:
        partial = _keep_partial(assembler, deps)
        deps.emit(LoopDetected(loop.kind, loop.what))
        state.end("loop_detected", f"loop detected: {loop.what}")
        return partial or Message(role="assistant", content=None, interrupted=True)
    deps.counter.server_reports = assembler.usage is not None
    for problem in assembler.problems:
        deps.emit(Notice(problem, level="warning"))
    message = assembler.message()
    session.append(message)
    if message.refusal:
        deps.emit(Notice("the model refused this request", level="warning"))
    if message.content:
        state.final_text = message.content
    return message


def _announce(chunk: StreamChunk, deps: TurnDeps, sent: tuple[Message, ...]) -> LoopFound | None:
    """Turns one chunk into its event; returns what repeats when the text has started to loop."""
    if isinstance(chunk, TextChunk):
        deps.emit(TextDelta(chunk.text))
        return deps.loops.add_text(chunk.text)
    if isinstance(chunk, ReasoningChunk):
        deps.emit(ReasoningDelta(chunk.text))
    elif isinstance(chunk, RetryNotice):
        deps.emit(
            Notice(
                f"{chunk.reason}; retrying in {chunk.delay_s:.1f}s (attempt {chunk.attempt} of {chunk.max_attempts})",
                level="warning",
            )
        )
    elif isinstance(chunk, UsageChunk):
        session = deps.session
        deps.counter.server_context = chunk.usage.total_tokens
        cut = _prompt_cut(chunk.usage.prompt_tokens, deps, sent)
        if cut is not None:
            deps.emit(Notice(cut, level="warning"))  # and no correction: the count of what was sent stands
        else:
            parts = {"system": session.system_prompt, "tools": session.tools}
            # The next request's bound starts from it, so the encoding is loaded only near the threshold.
            deps.counter.report(chunk.usage.prompt_tokens, sent, **parts)
            if deps.counter.ready:  # a correction counts what it corrects: with no encoding, nothing to correct
                correct_when_loaded(deps.counter, chunk.usage.prompt_tokens, sent, **parts)
        spent = None if deps.spend is None else deps.spend.charge(deps.recorder.session_id, chunk.usage, deps.config)
        deps.emit(
            UsageUpdated(
                prompt_tokens=chunk.usage.prompt_tokens,
                completion_tokens=chunk.usage.completion_tokens,
                context_tokens=chunk.usage.total_tokens,
                context_window=deps.config.context_window,
                cached_tokens=chunk.usage.cached_tokens,
                session_cost_usd=None if spent is None else float(spent),
            )
        )
    return None


def _prompt_estimate(deps: TurnDeps, sent: tuple[Message, ...]) -> int:
    """About how many tokens the next request's prompt holds: counted when the counts are at hand, else from its
    size (never loading the encoding for it)."""
    counter, session = deps.counter, deps.session
    if counter.ready and not counter.uncounted(sent):
        return counter.total(sent, system=session.system_prompt, tools=session.tools)
    return counter.upper_bound(sent, system=session.system_prompt, tools=session.tools) // CHARS_PER_TOKEN


def _prompt_cut(reported: int, deps: TurnDeps, sent: tuple[Message, ...]) -> str | None:
    """The warning when the server read far fewer prompt tokens than were sent. It never loads or counts anything:
    the exact counts when they are at hand, else about ``CHARS_PER_TOKEN`` bytes a token of what was sent (the
    warning needs the server to have read less than half, far beyond that estimate's error)."""
    counter, session = deps.counter, deps.session
    if counter.ready and not counter.uncounted(sent):
        sent_tokens = counter.total(sent, system=session.system_prompt, tools=session.tools) - counter.correction
    else:
        sent_tokens = counter.upper_bound(sent, system=session.system_prompt, tools=session.tools) // CHARS_PER_TOKEN
    server = cached(deps.config.provider.base_url, deps.config.model)
    return prompt_cut_warning(reported, sent_tokens, server.kind if server else None)


def _keep_partial(assembler: StreamAssembler, deps: TurnDeps) -> Message | None:
    """Keeps what streamed before a cut, marked interrupted. Tool calls of a cut stream are dropped: without
    results they would make the history invalid."""
    if not (assembler.text or assembler.reasoning):
        return None
    partial = assembler.message(interrupted=True)
    deps.session.append(partial)
    return partial
