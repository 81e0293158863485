"""A turn (SPEC 3): the pipeline, read top to bottom. ``run_turn`` only orchestrates; each step is a plain async
function over an explicit ``TurnState`` and the ``TurnDeps`` it is handed (``engine.orchestrator.steps``), and is
unit-tested alone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from engine.errors import ProviderError
from engine.messages import Message, ToolCall
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.state import TurnState
from engine.orchestrator.steps.chat import chat_step
from engine.orchestrator.steps.compact import maybe_compact
from engine.orchestrator.steps.prepare import prepare_turn_state, refresh_system_prompt
from engine.orchestrator.steps.stop import stop_hook_step, stop_hooks_hear
from engine.orchestrator.steps.tools import tool_loop_step
from engine.orchestrator.steps.verify import auto_verify_step
from engine.orchestrator.token_loading import counts_settled

__all__ = [
    "TurnState",
    "TurnSteps",
    "auto_verify_step",
    "chat_step",
    "maybe_compact",
    "persist_step",
    "prepare_turn_state",
    "resume_turn",
    "run_steps",
    "run_turn",
    "tool_loop_step",
]


# What a task runs over its state: a whole turn (``run_turn``), or the end of one the process died in.
TurnSteps = Callable[[TurnState, TurnDeps], Awaitable[TurnState]]


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
    """SPEC 3 steps 2 and 3: compact if needed, ask the model, run its tool calls, until it answers without any;
    then auto-verify, which may hand a failure back and go on, and the Stop hooks, which may ask the model to go on;
    then the final snapshot."""
    while state.end_reason is None:
        if state.steps >= deps.config.max_steps:
            state.end("step_limit", f"step limit reached ({deps.config.max_steps} model calls)")
            break
        await maybe_compact(deps)
        try:
            message = await chat_step(state, deps)
        except ProviderError as exc:
            state.end("error", str(exc))
            break
        if state.end_reason is not None or message is None:
            break
        if message.tool_calls:
            await tool_loop_step(state, deps, message)
            continue
        if await auto_verify_step(state, deps):
            continue
        if state.end_reason is None and await stop_hook_step(state, deps):
            continue
        if state.end_reason is None:
            state.end("completed")
    if state.end_reason != "completed":
        await stop_hooks_hear(state, deps)
    await counts_settled()  # the context count of a request sent while the encoding loaded
    await persist_step(state, deps)
    return state


async def persist_step(state: TurnState, deps: TurnDeps) -> None:
    """Writes the final snapshot. Messages were already persisted one by one as they were made."""
    deps.session.save()
