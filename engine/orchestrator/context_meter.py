"""The context meter after a session switch (SPEC 15: context tokens above the prompt).

``/new``, ``/resume`` and ``--continue`` put another conversation in view; the front end is told how much context
it holds, counted as the next request would send it (system prompt, tools, messages), so the status line never
keeps the previous session's count nor shows 0 for a restored one.
"""

from __future__ import annotations

import asyncio

from engine.context.tokens import TokenCounter
from engine.events import UsageUpdated
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.session import Session
from engine.orchestrator.steps.prepare import refresh_system_prompt


async def session_context(session: Session, counter: TokenCounter, window: int, deps: TurnDeps | None) -> UsageUpdated:
    """The context ``session`` holds: 0 for an empty one (as at start-up). ``deps`` (None when no model is
    configured) rebuilds the system prompt first, so it is counted as the next request will send it."""
    if not session.messages:
        return UsageUpdated(0, 0, 0, window)
    if deps is not None:
        await refresh_system_prompt(deps)
    else:
        await asyncio.to_thread(counter.load)
    tokens = counter.total(session.messages, system=session.system_prompt, tools=session.tools)
    return UsageUpdated(0, 0, tokens, window)
