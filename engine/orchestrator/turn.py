"""A turn (SPEC 3): the pipeline, read top to bottom. ``run_turn`` only orchestrates; each step is a plain async
function over an explicit ``TurnState`` and the ``TurnDeps`` it is handed, and is unit-tested alone."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from engine.context.mentions import expand_mentions
from engine.context.system_prompt import probe_environment
from engine.errors import ProviderError
from engine.events import Notice, ReasoningDelta, TextDelta, TurnEndReason, UsageUpdated
from engine.messages import Message, ToolCall
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.tool_chain import error_result, run_tool_call, tool_message
from engine.provider.assembler import StreamAssembler
from engine.provider.base import ChatRequest, ReasoningChunk, RetryNotice, TextChunk, UsageChunk


@dataclass
class TurnState:
    turn_id: str
    user_text: str
    steps: int = 0
    tool_calls: int = 0
    edited_paths: list[str] = field(default_factory=list)
    final_text: str = ""
    end_reason: TurnEndReason | None = None
    error: str | None = None

    def end(self, reason: TurnEndReason, error: str | None = None) -> None:
        self.end_reason = reason
        self.error = error


async def run_turn(state: TurnState, deps: TurnDeps) -> TurnState:
    """Cancellation propagates (``asyncio.CancelledError``); every other ending is recorded in ``state``."""
    await prepare_turn_state(state, deps)
    return await run_steps(state, deps)


async def resume_turn(state: TurnState, deps: TurnDeps, message: Message, open_calls: list[ToolCall]) -> TurnState:
    """Continues a turn the process died in: the calls left open (their approval was pending) go through the tool
    chain again, which asks again, then the loop goes on from the stored conversation."""
    await refresh_system_prompt(deps)
    await tool_loop_step(state, deps, message, open_calls)
    return await run_steps(state, deps)


async def run_steps(state: TurnState, deps: TurnDeps) -> TurnState:
    """The loop of SPEC 3 step 2, then the final snapshot."""
    while state.end_reason is None:
        if state.steps >= deps.config.max_steps:
            state.end("step_limit", f"step limit reached ({deps.config.max_steps} model calls)")
            break
        try:
            message = await chat_step(state, deps)
        except ProviderError as exc:
            state.end("error", str(exc))
            break
        if not message.tool_calls:
            state.end("completed")
            break
        await tool_loop_step(state, deps, message)
    await persist_step(state, deps)
    return state


async def prepare_turn_state(state: TurnState, deps: TurnDeps) -> None:
    """Refreshes the system prompt (mode, environment) and appends the user message with its @mentions attached."""
    await refresh_system_prompt(deps)
    content, problems = expand_mentions(state.user_text, deps.tool_context.workspace)
    for problem in problems:
        deps.emit(Notice(problem, level="warning"))
    deps.session.append(Message.user(content))


async def refresh_system_prompt(deps: TurnDeps) -> None:
    environment = await asyncio.to_thread(probe_environment, deps.tool_context.workspace.root)
    deps.session.system_prompt = deps.build_prompt(deps.policy.mode, environment)
    deps.session.mode = deps.policy.mode.value


async def chat_step(state: TurnState, deps: TurnDeps) -> Message:
    """Streams one model answer, announcing deltas as they come, and appends it. A cancelled or broken stream
    keeps its partial text, marked interrupted, before the cancellation or error goes on up."""
    state.steps += 1
    request = ChatRequest(
        model=deps.session.model, messages=deps.session.request_messages(), tools=deps.session.tools
    )
    assembler = StreamAssembler()
    try:
        async for chunk in deps.provider.stream(request):
            assembler.feed(chunk)
            if isinstance(chunk, TextChunk):
                deps.emit(TextDelta(chunk.text))
            elif isinstance(chunk, ReasoningChunk):
                deps.emit(ReasoningDelta(chunk.text))
            elif isinstance(chunk, RetryNotice):
                deps.emit(
                    Notice(
                        f"{chunk.reason}; retrying in {chunk.delay_s:.1f}s "
                        f"(attempt {chunk.attempt} of {chunk.max_attempts})",
                        level="warning",
                    )
                )
            elif isinstance(chunk, UsageChunk):
                deps.emit(
                    UsageUpdated(
                        prompt_tokens=chunk.usage.prompt_tokens,
                        completion_tokens=chunk.usage.completion_tokens,
                        context_tokens=chunk.usage.total_tokens,
                        context_window=deps.config.context_window,
                    )
                )
    except (asyncio.CancelledError, ProviderError):
        if assembler.text or assembler.reasoning:
            # Tool calls of a cut stream are dropped: without results they would make the history invalid.
            partial = Message(
                role="assistant",
                content=assembler.text or None,
                reasoning=assembler.reasoning or None,
                interrupted=True,
            )
            deps.session.append(partial)
        raise
    for problem in assembler.problems:
        deps.emit(Notice(problem, level="warning"))
    message = assembler.message()
    deps.session.append(message)
    if message.content:
        state.final_text = message.content
    return message


async def tool_loop_step(
    state: TurnState, deps: TurnDeps, message: Message, calls: list[ToolCall] | None = None
) -> None:
    """Runs the message's tool calls (or the given subset, on resume) in order, appending each result. If
    cancelled, every call left without a result gets an "interrupted" one, so the history stays valid."""
    if calls is None:
        calls = message.tool_calls or []
    for position, call in enumerate(calls):
        try:
            outcome = await run_tool_call(call, deps)
        except asyncio.CancelledError:
            for pending in calls[position:]:
                deps.session.append(tool_message(pending, error_result("interrupted: the user cancelled the task")))
            raise
        state.tool_calls += 1
        state.edited_paths.extend(p for p in outcome.changed_paths if p not in state.edited_paths)
        deps.session.append(outcome.message)


async def persist_step(state: TurnState, deps: TurnDeps) -> None:
    """Writes the final snapshot. Messages were already persisted one by one as they were made."""
    deps.session.save()
