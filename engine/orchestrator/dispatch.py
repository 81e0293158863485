"""How the orchestrator runs one input (SPEC 2): a ``!`` command, a ``/`` command or a request to the model, and
how a task (a request, a resumed turn, a command's prompt) runs its steps between its lifecycle records and inside
its undo snapshot. A failure ends the input readably, never the front end."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import uuid
from typing import TYPE_CHECKING

from engine.errors import ProviderError
from engine.events import ErrorEvent, TurnFinished, TurnStarted
from engine.hooks.dispatcher import HookScope
from engine.hooks.prompt_hooks import submit_request
from engine.orchestrator.bang import run_bang_input
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.runtime import running_runtime
from engine.orchestrator.slash import run_slash
from engine.orchestrator.turn import TurnState, TurnSteps, run_turn
from engine.orchestrator.deps import TurnDeps
from engine.storage.errors import StorageError

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts
    from engine.orchestrator.runtime import SessionRuntime

log = logging.getLogger(__name__)


async def run_input(orch: EngineParts, runtime: SessionRuntime, text: str) -> TurnOutcome:
    """Runs one input of ``runtime``'s session to its end, in a task of its own that ``runtime.cancel`` stops (a
    request or a ``!`` command; a ``/`` command acts on the session in view, so only there)."""
    text = text.strip()
    if not text:
        return TurnOutcome("completed")
    if runtime.busy:
        raise RuntimeError("an input is already running; queue it until the running one ends")
    if text.startswith("/") and runtime is not orch.runtime and runtime is not orch.agents.main_runtime():
        raise ValueError("a / command acts on the session in view (run from it, or from the main one)")
    turn_id = uuid.uuid4().hex[:12]
    runtime.emit(TurnStarted(turn_id, text))
    context = contextvars.copy_context()
    context.run(running_runtime.set, runtime)
    task = asyncio.create_task(dispatch(orch, runtime, text, turn_id), context=context)
    runtime.input_task = task
    outcome = TurnOutcome("cancelled", "cancelled by the user")
    try:
        outcome = await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
    finally:
        for holder in (runtime, *orch.runtimes.values()):  # a switch of session hands the input on
            if holder.input_task is task:
                holder.input_task = None
        runtime.emit(TurnFinished(turn_id, outcome.reason, outcome.error))
        # After what the turn's end sends has gone out (a front end writes it in the next round of the loop).
        asyncio.get_running_loop().call_soon(orch.store.settle)
    return outcome


async def dispatch(orch: EngineParts, runtime: SessionRuntime, text: str, turn_id: str) -> TurnOutcome:
    """Runs one input of ``runtime``'s session (a ``/`` command acts on the session in view)."""
    try:
        if text.startswith("!"):
            return await run_bang_input(orch, runtime, text[1:].strip())
        if text.startswith("/"):
            result = await run_slash(orch, text)
            if isinstance(result, TurnOutcome):
                return result
            orch.emit(result)
            return TurnOutcome("completed" if result.ok else "error", None if result.ok else result.text)
        return await run_prompt(orch, runtime, text, turn_id)
    except asyncio.CancelledError:
        raise
    except StorageError as exc:  # the disk is full, the database locked...: a known failure, said plainly
        orch.emit(ErrorEvent(str(exc)))
        return TurnOutcome("error", str(exc))
    except Exception as exc:  # a bug must end this input readably, never the app; the log has the traceback
        log.exception("input failed")
        message = f"internal error: {type(exc).__name__}: {exc}"
        orch.emit(ErrorEvent(message))
        return TurnOutcome("error", message)


async def run_prompt(orch: EngineParts, runtime: SessionRuntime, text: str, turn_id: str | None = None) -> TurnOutcome:
    """A turn with ``text`` as the user's request: typed, or made by a command (``/init``, a custom command, an MCP
    prompt). Starts the MCP servers if nothing did yet; a non-interactive run waits (bounded) for them.
    ``@server:uri`` mentions of MCP resources are attached here (``@path`` files in ``prepare_turn_state``)."""
    turn_id = turn_id or uuid.uuid4().hex[:12]
    if (no_model := await orch.server_ready()) is not None:  # the first turn uses the server's window and model
        runtime.emit(ErrorEvent(no_model))
        return TurnOutcome("error", no_model)
    orch.mcp.start()
    if not orch.interactive:
        await orch.mcp.settle()
    await orch.mcp.lists_current()  # a server said its tools changed: the first request offers the new ones
    attached = await orch.mcp.attach_resources(text)
    session = runtime.session
    scope = HookScope(session.id, turn_id, str(session.path))
    request = await submit_request(runtime.hooks or orch.hooks, scope, text, session_start=runtime.session_start)
    runtime.session_start = None
    if request.blocked:
        runtime.emit(ErrorEvent(request.reason))
        return TurnOutcome("error", request.reason)
    recorder = TaskRecorder(orch.store, session.id, turn_id)
    recorder.task("TaskCreated", text)
    recorder.task("TaskStarted")
    state = TurnState(turn_id=turn_id, user_text=attached, hook_context=request.context)
    return await run_task(orch, runtime, state, recorder, run_turn)


async def run_task(
    orch: EngineParts, runtime: SessionRuntime, state: TurnState, recorder: TaskRecorder, steps: TurnSteps
) -> TurnOutcome:
    """Runs a task of ``runtime``'s session: its steps with its lifecycle events and its undo snapshot around
    them."""
    try:
        deps = orch.turn_deps(recorder, runtime)
    except ProviderError as exc:
        recorder.task("TaskFailed", str(exc))
        runtime.emit(ErrorEvent(str(exc)))
        return TurnOutcome("error", str(exc))
    runtime.undo.begin_turn(state.turn_id, state.user_text)
    runtime.task_id = state.turn_id
    running = running_runtime.set(runtime)  # a resumed turn runs in the input that switched to its session
    try:
        await steps(state, deps)
    except asyncio.CancelledError:
        recorder.task("TaskCanceled")
        raise
    finally:
        running_runtime.reset(running)
        runtime.task_id = None
        runtime.undo.end_turn()
    assert state.end_reason is not None
    if state.end_reason == "completed":
        recorder.task("TaskCompleted")
    elif state.end_reason == "refused":
        recorder.task("TaskCanceled")  # the user stopped it with a "no": no error to show
    else:
        recorder.task("TaskFailed", state.error)
        runtime.emit(ErrorEvent(state.error or state.end_reason))
    return TurnOutcome(state.end_reason, state.error, state.final_text)


def turn_deps(orch: EngineParts, runtime: SessionRuntime, recorder: TaskRecorder | None = None) -> TurnDeps:
    """The collaborators the steps of a turn of ``runtime``'s session are handed: its session, policy, tools'
    state, compaction state, loop detector and undo journal, and the engine's provider, hooks and settings. Raises
    ``ProviderError`` when no model is configured."""
    return TurnDeps(
        session=runtime.session,
        provider=orch.provider(),
        registry=orch.registry,
        tool_context=runtime.tool_context,
        policy=runtime.policy,
        interaction=orch.interaction,
        approvals=orch.approvals,
        config=orch.config,
        emit=runtime.emit,
        recorder=recorder or TaskRecorder(orch.store, runtime.id, None),
        build_prompt=orch.system_prompt,
        counter=orch.token_counter,
        compaction=runtime.compaction,
        loops=runtime.loops,
        hooks=runtime.hooks or orch.hooks,
        project_trusted=lambda: orch.project_trusted,
        counts_shown=orch.counts_shown,
        capture=runtime.capture,
        spend=orch.spend,
    )
