"""``/setup [URL [MODEL]]`` (issue 43 item 9): the model server and model, saved in the user's own config, which
applies in every folder, trusted or not (a folder's ``.coder/config.json`` may not name a server until it is
trusted). Alone, it offers the full screen's setup form; with a URL it saves and applies at once."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from engine.command_results import CommandFailed, SetupOffered
from engine.config import load_config
from engine.config.paths import user_config_path
from engine.config.project_file import read_config_file, write_config_file
from engine.settings_results import ServerSet

if TYPE_CHECKING:
    from pathlib import Path

    from engine.commands.context import CommandContext

USAGE = "usage: /setup [URL [MODEL]], e.g. /setup http://localhost:11434/v1 qwen3:8b"


async def setup_command(ctx: CommandContext, arg: str) -> SetupOffered | ServerSet | CommandFailed:
    path = user_config_path(ctx.env)
    words = arg.split()
    if not words:
        model = ctx.model if ctx.model_chosen else ""
        text = (f"model server: {ctx.config.provider.base_url or '(none)'}, model: {model or '(none)'}\n"
                f"set them with /setup URL [MODEL] (saved in {path})")
        return SetupOffered(
            "/setup", text, ctx.config.provider.base_url or "", model, str(path), ctx.config.provider.api_key_env
        )
    if len(words) > 2 or not words[0].startswith(("http://", "https://")):
        return CommandFailed("/setup", USAGE)
    url, model = words[0], words[1] if len(words) == 2 else None
    try:
        await asyncio.to_thread(_save, path, url, model)
    except (OSError, ValueError) as exc:
        return CommandFailed("/setup", f"not saved: {exc}")
    loaded = await asyncio.to_thread(load_config, ctx.workspace_root, ctx.env, trust=ctx.trusted_for_run)
    await ctx.reconfigure(loaded.config)
    if model:
        ctx.set_model(model)
    chosen = model or "the server's own (asked now)"
    return ServerSet(
        "/setup", f"model server: {url}, model: {chosen} (saved in {path})", base_url=url, model=model,
        config_file=str(path),
    )


def _save(path: Path, url: str, model: str | None) -> None:
    """Sets ``provider.base_url`` (and ``model``) in the user's config, keeping every other key."""
    data = read_config_file(path)
    provider = data.get("provider")
    if provider is not None and not isinstance(provider, dict):
        raise ValueError(f"{path}: provider is not an object")
    data["provider"] = {**(provider or {}), "base_url": url}
    if model:
        data["model"] = model
    else:
        data.pop("model", None)  # the server's own model is used (or asked for)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_config_file(path, data)
