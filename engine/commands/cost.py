"""``/cost`` (SPEC 15, SPEC 27): what the session and today cost in money, and the tokens this run of the session
used, as the server counted them (``usage``). Prices come from the price library or the configuration
(``engine.cost.prices``); a model whose price is not known is named, never given a guessed price.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.settings_results import CostShown

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


async def cost_command(ctx: CommandContext, arg: str) -> CostShown:
    tally, spend = ctx.usage, ctx.spend
    session_usd, today_usd = spend.session(ctx.session_id), spend.today()
    lines = [
        f"this session: ${session_usd:.4f}",
        f"today (every session): ${today_usd:.4f}",
        f"tokens this run: {tally.prompt_tokens + tally.completion_tokens:,} "
        f"({tally.prompt_tokens:,} sent, {tally.completion_tokens:,} received) over {tally.requests} "
        f"request{'s' if tally.requests != 1 else ''} to {ctx.model}",
        f"cached prompt tokens: {tally.cached_tokens:,} of {tally.prompt_tokens:,} sent "
        f"({_share(tally.cached_tokens, tally.prompt_tokens)}, read from the server's prompt cache)",
    ]
    if ctx.config.budget_usd is not None:
        lines.append(f"budget: ${ctx.config.budget_usd:.2f} a session")
    if spend.unpriced:
        names = ", ".join(sorted(spend.unpriced))
        lines.append(
            f"not counted: the price of {names} on this server is not known; set it in the configuration "
            "(model_prices: input, output per million tokens)"
        )
    return CostShown(
        "/cost", "\n".join(lines), requests=tally.requests, prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens, cached_tokens=tally.cached_tokens,
        session_usd=float(session_usd), today_usd=float(today_usd), budget_usd=ctx.config.budget_usd,
        unpriced=tuple(sorted(spend.unpriced)),
    )


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "0%"
