"""``/doctor`` (and ``coder-tui --check-server``, SPEC 18): what the configured model server is and how it answers,
in a few lines to paste into a bug report (``server_check``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.config.loader import resolve_api_key
from engine.provider.server_check import check_server
from engine.settings_results import ServerChecked

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

DEFAULT_BASE_URL = "https://api.openai.com/v1"


async def doctor_command(ctx: CommandContext, arg: str) -> ServerChecked:
    await ctx.server_ready()  # the window in use is then the server's, and its only model the one checked
    config = ctx.config
    check = await check_server(
        config.provider.base_url or DEFAULT_BASE_URL,
        config.model,
        api_key=resolve_api_key(config, ctx.env),
        headers=config.provider.headers,
        window_in_use=ctx.context_window,
        api=config.provider.api or "chat",
    )
    return ServerChecked(
        "/doctor", "model server check:\n" + check.report(), verdict=check.verdict(), server=check.info.kind,
        context_window=check.info.context_window, tool_calls=check.call.tool_calls if check.call else None,
        streams=check.call.streamed if check.call else None, ok=check.call is not None and check.model_served,
    )
