"""``/cost`` (SPEC 15): the tokens this run of the session used, as the server counted them (``usage``), request by
request. A price is not guessed: servers speaking the OpenAI API report tokens, not money, so ``/cost`` says so
rather than invent one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.settings_results import CostShown

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


async def cost_command(ctx: CommandContext, arg: str) -> CostShown:
    tally = ctx.usage
    lines = [
        f"tokens this run: {tally.prompt_tokens + tally.completion_tokens:,} "
        f"({tally.prompt_tokens:,} sent, {tally.completion_tokens:,} received) over {tally.requests} "
        f"request{'s' if tally.requests != 1 else ''} to {ctx.model}",
        f"cached prompt tokens: {tally.cached_tokens:,} of {tally.prompt_tokens:,} sent "
        f"({_share(tally.cached_tokens, tally.prompt_tokens)}, read from the server's prompt cache)",
        "cost: not reported by the server (it counts tokens; see your provider's prices)",
    ]
    return CostShown(
        "/cost", "\n".join(lines), requests=tally.requests, prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens, cached_tokens=tally.cached_tokens,
    )


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "0%"
