"""Folder trust (SPEC 19): a folder's own ``.coder/config.json`` comes with the repository, so until the user trusts
the folder only the keys on an allow-list apply: the cosmetic ones, the ones that shape how the model is talked to,
and limits and switches that can only make things safer (a limit lowered, a switch turned off). Every other key,
including one the schema gains later, is ignored and named.

The decision is remembered per absolute path in the user's config: ``trusted_folders`` and ``untrusted_folders``
(the latter so that "don't trust" is not asked again). Keys are filtered on the raw JSON before validation, leaf by
leaf where a section mixes safe keys and others (``workflow.max_verify_attempts`` applies, ``workflow.verify_network``
does not).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.config.paths import user_config_path
from engine.config.project_file import read_config_file, write_config_file

# Whether an untrusted project's ``value`` may replace ``below`` (what the defaults and the user's config give).
# A value of the wrong type is kept, so that validation reports it with its file and key.
Applies = Callable[[Any, Any, Mapping[str, Any]], bool]


def _always(value: Any, below: Any, merged: Mapping[str, Any]) -> bool:
    return True


def _not_higher(value: Any, below: Any, merged: Mapping[str, Any]) -> bool:
    if not _is_number(value) or not _is_number(below):
        return not _is_number(value)
    return bool(value <= below)


def _only_off(value: Any, below: Any, merged: Mapping[str, Any]) -> bool:
    return value is False or not isinstance(value, bool)


def _plain_model(value: Any, below: Any, merged: Mapping[str, Any]) -> bool:
    """A model on the server the user chose: never ``profile:model``, which would send the session to another of
    the user's servers."""
    profiles = merged.get("providers")
    return not (isinstance(value, str) and isinstance(profiles, dict) and value.partition(":")[0] in profiles)


def _lower_budget(value: Any, below: Any, merged: Mapping[str, Any]) -> bool:
    """A spending budget where there was none, or a lower one: only ever stops requests sooner."""
    return below is None or _not_higher(value, below, merged)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# The dotted keys an untrusted project may set, each with when its value applies. Everything else is ignored.
UNTRUSTED_ALLOWED: dict[str, Applies] = {
    "model": _plain_model,
    "context_window": _always,
    "tool_call_format": _always,
    "theme": _always,
    "compaction.enabled": _always,
    "compaction.threshold": _always,
    "compaction.keep_recent": _always,
    "undo.max_turns": _always,
    "max_steps": _not_higher,
    "subagent.max_steps": _not_higher,
    "bash.timeout": _not_higher,
    "bash.max_timeout": _not_higher,
    "bash.output_cap_bytes": _not_higher,
    "fetch.timeout": _not_higher,
    "fetch.max_bytes": _not_higher,
    "fetch.allow_private": _only_off,
    "workflow.auto_verify_after_edit": _only_off,
    "workflow.max_verify_attempts": _not_higher,
    "workflow.verify_network": _only_off,
    "workflow.require_todo_for_complex": _always,
    "budget_usd": _lower_budget,
}
# Keys read from the user's config only: a repository cannot trust itself.
USER_ONLY_KEYS: tuple[str, ...] = ("trusted_folders", "untrusted_folders")
TRUSTED_KEY, UNTRUSTED_KEY = USER_ONLY_KEYS


def folder_key(workspace: Path) -> str:
    return str(workspace.expanduser().resolve())


def split_untrusted(
    layer: Mapping[str, Any], merged: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The part of an untrusted project's layer that applies, and the dotted names of the keys ignored. ``merged``
    is the configuration below the project's (defaults and the user's config), which a limit may only lower."""
    merged = merged or {}
    dropped: list[str] = []
    kept = _allowed_part(json.loads(json.dumps(layer)), (), merged, dropped)
    return kept, tuple(dropped)


def _allowed_part(
    section: dict[str, Any], path: tuple[str, ...], merged: Mapping[str, Any], dropped: list[str]
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in section.items():
        dotted = ".".join((*path, str(key)))
        applies = UNTRUSTED_ALLOWED.get(dotted)
        if applies is not None:
            if applies(value, _below(merged, (*path, str(key))), merged):
                kept[key] = value
            else:
                dropped.append(dotted)
        elif isinstance(value, dict) and any(name.startswith(dotted + ".") for name in UNTRUSTED_ALLOWED):
            inner = _allowed_part(value, (*path, str(key)), merged, dropped)
            if inner or not value:
                kept[key] = inner
        else:
            dropped.append(dotted)
    return kept


def _below(merged: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = merged
    for part in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


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
    """Remembers the folder as not trusted (only its allow-listed keys apply, and nobody asks again)."""
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
