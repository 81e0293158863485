"""``/trust`` (SPEC 19): shows whether this folder's own config is trusted and which of its keys are ignored;
``/trust on|off`` changes it, remembered in the user's config, and applies the reloaded config at once."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from engine.config import load_config, project_config_path
from engine.config.trust import folder_decision, trust_folder, untrust_folder
from engine.command_results import CommandFailed
from engine.settings_results import TrustShown

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


async def trust_command(ctx: CommandContext, arg: str) -> TrustShown | CommandFailed:
    root, env = ctx.workspace_root, ctx.env
    choice = arg.lower()
    if choice not in ("", "on", "off"):
        return CommandFailed("/trust", "usage: /trust [on|off]")
    if choice:
        try:
            written = await asyncio.to_thread(trust_folder if choice == "on" else untrust_folder, root, env)
        except (OSError, ValueError) as exc:
            return CommandFailed("/trust", f"trust not changed: {exc}")
        if choice == "off":
            ctx.trusted_for_run = False
        loaded = await asyncio.to_thread(load_config, root, env)
        await ctx.reconfigure(loaded.config)
    loaded = await asyncio.to_thread(load_config, root, env, trust=ctx.trusted_for_run)
    remembered = folder_decision(root, env)
    if loaded.trusted:
        state = "trusted" if remembered else "trusted for this run (--trust), not remembered"
    else:
        state = "not trusted" + ("" if remembered is False else " (never asked)")
    lines = [f"folder: {root}", f"trust: {state}"]
    if loaded.ignored_untrusted:
        lines.append(f"ignored from {project_config_path(root)}: {', '.join(loaded.ignored_untrusted)}")
    elif not loaded.trusted:
        lines.append("nothing ignored: this folder's config sets no key that needs trust")
    if choice:
        lines.append(f"(remembered in {written}; the configuration in force was reloaded)")
    lines.append("change with /trust on or /trust off")
    return TrustShown(
        "/trust",
        "\n".join(lines),
        folder=str(root),
        trusted=loaded.trusted,
        remembered=remembered,
        ignored=tuple(loaded.ignored_untrusted),
    )
