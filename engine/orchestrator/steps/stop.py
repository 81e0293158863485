"""The ``Stop`` hooks (SPEC 23, in Claude Code's protocol) where a turn ends. When the model has finished, a hook
may refuse the stop (exit code 2, or ``{"decision": "block", "reason": ...}``): its reason goes to the model as
the next message and the turn goes on, with ``stop_hook_active`` set for the hooks' next run so that a hook can
let go. A turn that ended otherwise (an error, the step limit, a failed check) only tells the hooks; a cancelled
turn does not run them (Claude Code's rule for a user's interrupt)."""

from __future__ import annotations

from engine.events import Notice
from engine.hooks.tool_hooks import scope_of
from engine.messages import Message
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.state import TurnState


async def stop_hook_step(state: TurnState, deps: TurnDeps) -> bool:
    """The model has finished: True when a Stop hook asks it to go on (the reason is appended for it)."""
    if deps.hooks is None or not deps.hooks.configured("Stop"):
        return False
    reason = await deps.hooks.stop(scope_of(deps), active=state.stop_hook_continuations > 0)
    if reason is None:
        return False
    state.stop_hook_continuations += 1
    deps.emit(Notice(f"a Stop hook asked the model to go on: {reason}"))
    deps.session.append(Message.user(f"Stop hook feedback:\n{reason}"))
    return True


async def stop_hooks_hear(state: TurnState, deps: TurnDeps) -> None:
    """The turn ended without the model finishing: the hooks hear of it and cannot keep it going."""
    if deps.hooks is not None and deps.hooks.configured("Stop"):
        await deps.hooks.stop(scope_of(deps), active=state.stop_hook_continuations > 0)
