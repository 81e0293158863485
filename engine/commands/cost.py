"""``/cost`` (SPEC 15): the tokens this run of the session used, as the server counted them, request by request.

The tally listens to the session's own events (``UsageUpdated`` with the server's counts; a sub-agent's arrive
wrapped in ``SubagentEvent`` and count too), so it needs nothing from the turn. A price is not guessed: servers
speaking the OpenAI API report tokens, not money, so ``/cost`` says so rather than invent one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import CommandResult, Event, SubagentEvent, UsageUpdated

if TYPE_CHECKING:
    from engine.orchestrator.orchestrator import Orchestrator


class UsageTally:
    """Subscribe it to the session's events; it sums what the server reported."""

    def __init__(self) -> None:
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def __call__(self, event: Event) -> None:
        while isinstance(event, SubagentEvent):
            event = event.event
        if isinstance(event, UsageUpdated) and (event.prompt_tokens or event.completion_tokens):
            self.requests += 1
            self.prompt_tokens += event.prompt_tokens
            self.completion_tokens += event.completion_tokens


async def cost_command(orch: Orchestrator, arg: str) -> CommandResult:
    tally = orch.usage
    lines = [
        f"tokens this run: {tally.prompt_tokens + tally.completion_tokens:,} "
        f"({tally.prompt_tokens:,} sent, {tally.completion_tokens:,} received) over {tally.requests} "
        f"request{'s' if tally.requests != 1 else ''} to {orch.model}",
        "cost: not reported by the server (it counts tokens; see your provider's prices)",
    ]
    return CommandResult.slash(
        "/cost", "\n".join(lines), requests=tally.requests, prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens,
    )
