"""Loading the configuration when a session starts: the folder-trust question (SPEC 19) and the notices a front
end shows about the result. Runs on the engine's side; the front end only answers the ``TrustRequest``."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from engine.config.loader import ConfigIssue, LoadedConfig, load_config
from engine.config.paths import project_config_path, user_config_path
from engine.config.trust import folder_decision, folder_key, trust_folder, untrust_folder, untrusted_notice
from engine.interaction import InteractionHandler, TrustDecision, TrustRequest


async def load_config_asking_trust(
    workspace: Path, env: Mapping[str, str], interaction: InteractionHandler, *, trust: bool = False
) -> LoadedConfig:
    """Loads the configuration; when the folder's own config sets power-widening keys and the user was never
    asked about this folder, asks once and remembers the answer. After "trust" the keys apply."""
    loaded = await asyncio.to_thread(load_config, workspace, env, trust=trust)
    if loaded.trusted or not loaded.ignored_untrusted or folder_decision(workspace, env) is not None:
        return loaded
    request = TrustRequest(
        folder=folder_key(workspace), config_file=str(project_config_path(workspace)), keys=loaded.ignored_untrusted
    )
    decision = await interaction.request_trust(request)
    if decision is TrustDecision.LATER:
        return loaded
    remember = trust_folder if decision is TrustDecision.TRUST else untrust_folder
    try:
        remember(workspace, env)
    except (OSError, ValueError) as exc:
        problem = ConfigIssue(str(user_config_path(env)), "trusted_folders", f"the answer was not remembered: {exc}")
    else:
        problem = None
    if decision is TrustDecision.TRUST:
        loaded = await asyncio.to_thread(load_config, workspace, env, trust=True)
    if problem is not None:
        loaded.issues.append(problem)
    return loaded


def config_notices(loaded: LoadedConfig, workspace: Path) -> list[tuple[str, str]]:
    """(text, level) for each thing the user should know about the loaded configuration."""
    notices = [(f"config: {issue} (ignored)", "warning") for issue in loaded.issues]
    if loaded.ignored_untrusted:
        notices.append((untrusted_notice(project_config_path(workspace), loaded.ignored_untrusted), "warning"))
    return notices
