"""``/theme [name]`` (SPEC 23): shows or switches the TUI's colour theme and saves the choice in the user's config.
The engine only validates and saves; the front end applies the theme named in the result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.config.paths import user_config_path
from engine.config.project_file import update_config_file
from engine.command_results import CommandFailed
from engine.settings_results import ThemeChanged

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

# Textual's built-in themes (``textual.theme.BUILTIN_THEMES`` of the pinned version; a test keeps them equal). Named
# here because the engine never imports Textual.
THEMES = (
    "textual-dark", "textual-light", "nord", "gruvbox", "catppuccin-mocha", "dracula", "tokyo-night", "monokai",
    "flexoki", "catppuccin-latte", "catppuccin-frappe", "catppuccin-macchiato", "solarized-light", "solarized-dark",
    "rose-pine", "rose-pine-moon", "rose-pine-dawn", "atom-one-dark", "atom-one-light", "ansi-dark", "ansi-light",
)
DEFAULT_THEME = "textual-dark"


async def theme_command(ctx: CommandContext, arg: str) -> ThemeChanged | CommandFailed:
    current = ctx.config.theme or DEFAULT_THEME
    if not arg:
        listing = "\n".join(f"  {'*' if name == current else ' '} {name}" for name in THEMES)
        return ThemeChanged("/theme", f"theme: {current} (switch with /theme <name>):\n{listing}", current, THEMES)
    name = arg.strip().lower()
    if name not in THEMES:
        return CommandFailed("/theme", f"unknown theme {arg!r}: choose one of {', '.join(THEMES)}")
    ctx.set_theme(name)
    try:
        path = update_config_file(user_config_path(ctx.env), ("theme",), name)
    except (OSError, ValueError) as exc:
        return ThemeChanged("/theme", f"theme: {name} (for this session only: could not save it: {exc})", name)
    return ThemeChanged("/theme", f"theme: {name} (saved in {path})", name)
