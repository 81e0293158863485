"""SPEC 19 / 23: the user's own hooks are in force in every folder; a project's only once the folder is trusted,
and then after the user's, never instead of them."""

from __future__ import annotations

import json
from pathlib import Path

from engine.config import load_config


def hooks(command: str) -> dict[str, object]:
    return {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": command}]}]}


def write_configs(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    workspace = tmp_path / "ws"
    (workspace / ".coder").mkdir(parents=True)
    (workspace / ".coder" / "config.json").write_text(json.dumps({"hooks": hooks("project-guard")}))
    user = tmp_path / "xdg" / "coder" / "config.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"hooks": hooks("user-guard")}))
    return workspace, {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def commands(loaded_hooks: dict[str, list]) -> list[str]:  # type: ignore[type-arg]
    return [hook.command for group in loaded_hooks.get("PreToolUse", []) for hook in group.hooks]


def test_the_users_hooks_are_in_force_in_an_untrusted_folder(tmp_path: Path) -> None:
    workspace, env = write_configs(tmp_path)
    loaded = load_config(workspace, env)
    assert not loaded.trusted and "hooks" in loaded.ignored_untrusted
    assert commands(loaded.config.hooks) == ["user-guard"]


def test_a_trusted_projects_hooks_run_after_the_users_never_instead(tmp_path: Path) -> None:
    workspace, env = write_configs(tmp_path)
    loaded = load_config(workspace, env, trust=True)
    assert commands(loaded.config.hooks) == ["user-guard", "project-guard"]


def test_a_projects_hooks_of_the_wrong_type_are_reported_and_the_users_kept(tmp_path: Path) -> None:
    workspace, env = write_configs(tmp_path)
    (workspace / ".coder" / "config.json").write_text(json.dumps({"hooks": {"PreToolUse": "rm -rf /"}}))
    loaded = load_config(workspace, env, trust=True)
    assert commands(loaded.config.hooks) == ["user-guard"]
    assert any(issue.key == "hooks.PreToolUse" for issue in loaded.issues)
