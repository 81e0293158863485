"""The context meter after a session switch (SPEC 15: context tokens above the prompt).

``/resume`` and ``--continue`` put another conversation in view; the front end is told how much context it holds,
counted as the next request would send it (system prompt, tools, messages), so the status line never keeps the
previous session's count nor shows 0 for a restored one: exactly once the token encoding is loaded, else estimated
from its size (``TokenCounter.meter``), so a resume does not load the encoding's tables for the meter alone. Neither the model SDK nor the event loop is held for it:
the count runs in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from engine.context.system_prompt import Environment
from engine.context.tokens import TokenCounter
from engine.events import UsageUpdated
from engine.modes import Mode
from engine.orchestrator.session import Session
from engine.orchestrator.steps.prepare import current_system_prompt


async def session_context(
    session: Session,
    counter: TokenCounter,
    window: int,
    *,
    root: Path,
    mode: Mode,
    build_prompt: Callable[[Mode, Environment, str], str],
) -> UsageUpdated:
    """The context ``session`` holds: 0 for an empty one (as at start-up)."""
    if not session.messages:
        return UsageUpdated(0, 0, 0, window)
    system, _ = await current_system_prompt(root, mode, build_prompt)
    tokens, _ = await asyncio.to_thread(counter.meter, session.messages, system=system, tools=session.tools)
    return UsageUpdated(0, 0, tokens, window)
