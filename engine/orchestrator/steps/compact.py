"""``maybe_compact`` (SPEC 10): before every model call, the older context summarised once it passes the threshold
of the window; then the context size is announced, so the status line shows used / window."""

from __future__ import annotations

from engine.context.compaction import CompactionResult, Keep, compact_if_needed, model_summariser, original_request
from engine.errors import ProviderError
from engine.events import ContextCompacted, Notice, UsageUpdated
from engine.hooks.tool_hooks import scope_of
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.token_loading import announce_when_counted, count_exactly, needs_exact_count


async def maybe_compact(deps: TurnDeps, *, force: bool = False, focus: str = "") -> CompactionResult | None:
    """``force`` is ``/compact`` (``focus``: what the user asked the summary to focus on)."""
    session = deps.session
    counter, window, system, tools = deps.counter, deps.config.context_window, session.system_prompt, session.tools
    threshold = deps.config.compaction.threshold
    if not force and not needs_exact_count(
        counter, session.messages, system=system, tools=tools, window=window, threshold=threshold
    ):
        # Too small to need a compaction, whatever its exact count: the request goes now, the count follows (for a
        # front end that shows it). A server that reports usage gives the meter its figure with each answer, so
        # the encoding is loaded only for a server that does not (or near the threshold, below).
        if deps.counts_shown and (counter.ready or counter.server_reports is False):
            announce_when_counted(counter, session.messages, system=system, tools=tools, window=window, emit=deps.emit)
        elif deps.counts_shown and counter.server_reports is None:
            used, _ = counter.meter(session.messages, system=system, tools=tools)
            deps.emit(UsageUpdated(0, 0, used, window))
        return None
    await count_exactly(counter, session.messages)
    if note := counter.take_notice():
        deps.emit(Notice(note, level="warning"))
    todos = deps.tool_context.todos
    open_todos = "\n".join(f"{item.id}. [{item.status}] {item.content}" for item in todos.unfinished())
    keep = Keep(original_request(session.messages), open_todos or None, focus or None)
    hooks = deps.hooks

    async def pre_compact() -> None:
        if hooks is not None and hooks.configured("PreCompact"):
            await hooks.pre_compact(scope_of(deps), trigger="manual" if force else "auto", instructions=focus)

    try:
        result = await compact_if_needed(
            session.messages,
            model_summariser(deps.provider, session.model),
            counter=deps.counter,
            config=deps.config.compaction,
            window=deps.config.context_window,
            state=deps.compaction,
            system=session.system_prompt,
            tools=session.tools,
            force=force,
            keep=keep,
            before=pre_compact,
        )
    except ProviderError as exc:
        deps.emit(Notice(f"context compaction failed: {exc}", level="warning"))
        return None
    if result is not None and result.applied:
        # The prefix changes anyway: the system prompt takes what reminders told since, which the summary may drop.
        session.system_prompt = session.told_prompt or session.system_prompt
        session.start_epoch(
            result.messages[0], result.kept, tokens_before=result.tokens_before, tokens_after=result.tokens_after
        )
        kept = (*(("the original request",) if keep.original_request else ()),
                *((f"{len(todos.unfinished())} open todos",) if keep.open_todos else ()))
        deps.emit(ContextCompacted(result.tokens_before, result.tokens_after, result.summary or "", kept))
    elif result is not None:
        deps.emit(Notice(f"context not compacted: {result.reason}", level="warning"))
    tokens = deps.counter.total(session.messages, system=session.system_prompt, tools=session.tools)
    deps.emit(UsageUpdated(0, 0, tokens, deps.config.context_window))
    return result
