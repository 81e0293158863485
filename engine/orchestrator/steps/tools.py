"""``tool_loop_step`` (SPEC 3.2, 5, 11): the answer's tool calls run in order through the tool chain, each result
appended. A call repeating the same call over and over (or a cycle of them) ends the turn instead of running, and
so does a call the user refused with a plain "no" (the calls after it are not run)."""

from __future__ import annotations

import asyncio

from engine.errors import ToolError
from engine.events import LoopDetected, TodosChanged, ToolCallFinished, ToolCallScheduled, ToolStatus
from engine.messages import ImageRef, Message, ToolCall
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.state import TurnState
from engine.orchestrator.tool_chain import INTERRUPTED, CallCancelled, error_result, run_tool_call, tool_message

NOT_RUN_AFTER_REFUSAL = "not run: the user refused an earlier call of this answer and stopped the turn"


async def tool_loop_step(
    state: TurnState, deps: TurnDeps, message: Message, calls: list[ToolCall] | None = None
) -> None:
    """Runs the message's tool calls (or the given subset, on resume) in order. Every call ends with a result in
    the history, even when the turn is cancelled or stopped by a loop, so the history stays valid for the API."""
    if calls is None:
        calls = message.tool_calls or []
    images: list[tuple[str, ImageRef]] = []
    for position, call in enumerate(calls):
        loop = deps.loops.add_tool_call(call.name, call.function.arguments)
        if loop is not None:
            for pending in calls[position:]:
                deps.session.append(tool_message(pending, error_result(f"not run: loop detected: {loop.what}")))
            deps.emit(LoopDetected(loop.kind, loop.what))
            state.end("loop_detected", f"loop detected: {loop.what}")
            return
        try:
            outcome = await run_tool_call(call, deps)
        except asyncio.CancelledError as exc:
            # The running call's own result keeps what it printed; the calls after it never ran.
            result = exc.result if isinstance(exc, CallCancelled) else error_result(INTERRUPTED)
            deps.session.append(tool_message(call, result, ToolStatus.CANCELLED))
            for pending in calls[position + 1:]:
                deps.session.append(tool_message(pending, error_result(INTERRUPTED), ToolStatus.CANCELLED))
            raise
        state.tool_calls += 1
        state.edited_paths.extend(p for p in outcome.changed_paths if p not in state.edited_paths)
        deps.session.append(outcome.message, diff=outcome.diff)
        images += [(call.name, image) for image in outcome.images]
        if call.name == "todowrite" and outcome.status is ToolStatus.SUCCESS:
            deps.recorder.todos_changed(deps.tool_context.todos.items)
            deps.emit(TodosChanged(deps.tool_context.todos.items))
        if outcome.stops_turn:
            for pending in calls[position + 1:]:
                not_run(pending, deps, NOT_RUN_AFTER_REFUSAL)
            state.end("refused", f"you refused {call.name}; the turn stopped")
            break
    if images:
        deps.session.append(images_message(images))


def not_run(call: ToolCall, deps: TurnDeps, why: str) -> None:
    """A call of the answer that will not run: answered for the API, and shown as cancelled, live as when resumed."""
    result = error_result(why)
    tool = deps.registry.get(call.name)
    try:
        arguments = call.parsed_arguments()
        key_argument = tool.key_argument(tool.parse(arguments)) if tool is not None else ""
    except (ValueError, ToolError):
        arguments, key_argument = {}, ""
    deps.emit(ToolCallScheduled(call.id, call.name, key_argument, arguments))
    deps.emit(ToolCallFinished(call.id, call.name, key_argument, ToolStatus.CANCELLED, None, result))
    deps.session.append(tool_message(call, result, ToolStatus.CANCELLED))


def images_message(images: list[tuple[str, ImageRef]]) -> Message:
    """The images the calls returned (an MCP tool's image content), in a user message after all the results: a
    tool message carries text only, and the API wants the results right after the calls."""
    names = ", ".join(dict.fromkeys(name for name, _ in images))
    text = f"[{len(images)} image{'s' if len(images) > 1 else ''} returned by the tool call results above ({names})]"
    return Message(role="user", content=text, images=[image for _, image in images])
