"""``/vim`` (SPEC 27): switches vim keys in the prompt on or off and saves the choice in the user's config
(``"vim": true``). The engine only keeps and saves the setting; the front end's prompt does the keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.command_results import VimToggled
from engine.config.paths import user_config_path
from engine.config.project_file import update_config_file

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


async def vim_command(ctx: CommandContext, arg: str) -> VimToggled:
    wanted = {"on": True, "off": False}.get(arg.strip().lower(), not ctx.config.vim)
    ctx.set_vim(wanted)
    state = "on: Esc for normal mode, i to insert" if wanted else "off"
    try:
        path = update_config_file(user_config_path(ctx.env), ("vim",), wanted)
    except (OSError, ValueError) as exc:
        return VimToggled("/vim", f"vim keys {state} (for this session only: could not save it: {exc})", wanted)
    return VimToggled("/vim", f"vim keys {state} (saved in {path})", wanted)
