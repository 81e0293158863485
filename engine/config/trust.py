"""Folder trust (SPEC 19): a folder's own ``.coder/config.json`` comes with the repository, so the keys that widen
what runs or where data goes are ignored until the user trusts the folder.

The decision is remembered per absolute path in the user's config: ``trusted_folders`` and ``untrusted_folders``
(the latter so that "don't trust" is not asked again). Keys are filtered by name on the raw JSON, before
validation, so a key the schema gains later is covered as soon as it is listed here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.config.paths import user_config_path
from engine.config.project_file import read_config_file, write_config_file

# Dotted names of the project-config keys an untrusted folder may not set.
UNTRUSTED_KEYS: tuple[str, ...] = (
    "provider",
    "providers",
    "mode",
    "permissions",
    "auto_approve_ask",
    "approval",
    "bash",
    "workflow.verify_commands",
    "mcp_servers",
    "hooks",
    "sandbox",
)
# Keys read from the user's config only: a repository cannot trust itself.
USER_ONLY_KEYS: tuple[str, ...] = ("trusted_folders", "untrusted_folders")
TRUSTED_KEY, UNTRUSTED_KEY = USER_ONLY_KEYS


def folder_key(workspace: Path) -> str:
    return str(workspace.expanduser().resolve())


def split_untrusted(layer: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The project layer without the power-widening keys, and the dotted names of those it had."""
    kept = json.loads(json.dumps(layer))
    dropped: list[str] = []
    for dotted in UNTRUSTED_KEYS:
        *parents, last = dotted.split(".")
        node: Any = kept
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and last in node:
            del node[last]
            dropped.append(dotted)
    return kept, tuple(dropped)


def folder_decision(workspace: Path, env: Mapping[str, str]) -> bool | None:
    """True if the user trusted this folder, False if they declined, None if never asked (or unreadable)."""
    try:
        data = read_config_file(user_config_path(env))
    except (OSError, ValueError):
        return None
    return decision_in(data, workspace)


def decision_in(user_layer: Mapping[str, Any] | None, workspace: Path) -> bool | None:
    if not user_layer:
        return None
    key = folder_key(workspace)
    if key in _folders(user_layer, UNTRUSTED_KEY):
        return False
    if key in _folders(user_layer, TRUSTED_KEY):
        return True
    return None


def folder_trusted(workspace: Path, env: Mapping[str, str]) -> bool:
    return folder_decision(workspace, env) is True


def trust_folder(workspace: Path, env: Mapping[str, str]) -> Path:
    """Remembers the folder as trusted; returns the user config written. ``ValueError`` when that file is not a
    JSON object (it is never overwritten then), ``OSError`` when it cannot be written."""
    return _remember(workspace, env, add_to=TRUSTED_KEY, remove_from=UNTRUSTED_KEY)


def untrust_folder(workspace: Path, env: Mapping[str, str]) -> Path:
    """Remembers the folder as not trusted (its power-widening keys stay ignored, and nobody asks again)."""
    return _remember(workspace, env, add_to=UNTRUSTED_KEY, remove_from=TRUSTED_KEY)


def untrusted_notice(config_file: Path, ignored: tuple[str, ...]) -> str:
    """The one notice an untrusted folder gets."""
    return (
        f"this folder is not trusted: ignored {', '.join(ignored)} from {config_file} "
        "(trust it with /trust on, or --trust for one run)"
    )


def untrusted_rule_notice(config_file: Path, rule: str) -> str:
    """What "Always here" says in a folder that is not trusted: the rule is saved, and waits for trust."""
    return (
        f"saved in {config_file}: {rule}, for this session now; this folder is not trusted, so later sessions use it "
        "only once you trust the folder (/trust on)"
    )


def _folders(layer: Mapping[str, Any], key: str) -> list[str]:
    value = layer.get(key)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _remember(workspace: Path, env: Mapping[str, str], *, add_to: str, remove_from: str) -> Path:
    path = user_config_path(env)
    data = read_config_file(path)
    key = folder_key(workspace)
    for name in (add_to, remove_from):
        if name in data and not isinstance(data[name], list):
            raise ValueError(f"{path}: {name} is not a list; not changed")
    data[remove_from] = [item for item in data.get(remove_from, []) if item != key]
    if not data[remove_from]:
        del data[remove_from]
    if key not in data.get(add_to, []):
        data[add_to] = [*data.get(add_to, []), key]
    return write_config_file(path, data)
