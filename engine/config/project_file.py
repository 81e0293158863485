"""Writing to the project's ``./.coder/config.json`` (``/model``, "always for this project"): one key set, every
other key kept, and a file that is not valid JSON never overwritten (the user's file is never lost to a rewrite)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.config.paths import project_config_path
from engine.storage.atomic import write_atomic


def update_project_config(workspace: Path, key_path: tuple[str, ...], value: Any) -> Path:
    """Sets ``key_path`` (e.g. ``("permissions", "bash", "git checkout *")``) to ``value``; raises ``ValueError``
    naming the file when it cannot be read as a JSON object, ``OSError`` when it cannot be written."""
    return update_config_file(project_config_path(workspace), key_path, value)


def read_config_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` (empty when there is no file); ``ValueError`` naming the file when it is not one."""
    if not path.exists():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(loaded, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return loaded


def write_config_file(path: Path, data: dict[str, Any]) -> Path:
    write_atomic(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def update_config_file(path: Path, key_path: tuple[str, ...], value: Any) -> Path:
    """Sets ``key_path`` to ``value`` in the config file at ``path`` (the project's or the user's), keeping the rest."""
    data = read_config_file(path)
    node = data
    for part in key_path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            if child is not None:
                raise ValueError(f"{path}: {'.'.join(key_path[:-1])} is not an object")
            child = {}
            node[part] = child
        node = child
    node[key_path[-1]] = value
    return write_config_file(path, data)
