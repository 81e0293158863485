"""Layered configuration: defaults < ``~/.config/coder/config.json`` < ``./.coder/config.json`` < environment.

A bad value never stops the app: the key that is wrong is reported with its file and the rest still loads. Keys
are applied one at a time (recursing into sections), so one typo costs only that key. Values are never coerced
(``"yes"`` is not a boolean): a wrong type is reported like any bad value and the default applies.

The project's file is filtered first when the folder is not trusted: only the keys on the allow-list of
``engine.config.trust`` apply (SPEC 19).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.config.paths import project_config_path, user_config_path
from engine.config.schema import Config
from engine.config.trust import USER_ONLY_KEYS, decision_in, split_untrusted

# Settings a repository must not choose for itself (SPEC 13): what unasked commands may read, which variables reach
# them.
USER_ONLY_SETTINGS: tuple[tuple[str, str], ...] = (("sandbox", "readable"), ("bash", "env"))
from engine.record import record

_SECRET_HINT = "API keys are read from the environment (see provider.api_key_env), never from a config file"


@record
class ConfigIssue:
    source: str
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}: {self.key}" if self.key else self.source
        return f"{where}: {self.message}"


@dataclass
class LoadedConfig:
    config: Config
    issues: list[ConfigIssue] = field(default_factory=list)
    # Which files were read, in the order applied.
    sources: list[Path] = field(default_factory=list)
    # Whether the project's own config was applied whole (SPEC 19), and the keys ignored because it was not.
    trusted: bool = False
    ignored_untrusted: tuple[str, ...] = ()


def load_config(workspace: Path, env: Mapping[str, str] | None = None, *, trust: bool = False) -> LoadedConfig:
    """``trust`` trusts the folder for this load (``--trust``) whatever the user's config remembers."""
    env = dict(os.environ) if env is None else env
    # The model stays out of the defaults, so a config no layer named a model in says so (``model_fields_set``):
    # then the server's only model is used, or the user is asked (``engine.provider.server_models``).
    merged: dict[str, Any] = Config().model_dump(exclude={"model"})
    result = LoadedConfig(config=Config())
    user_path, project_path = user_config_path(env), project_config_path(workspace)
    user_layer = _read_layer(user_path, result.issues)
    result.trusted = trust or decision_in(user_layer, workspace) is True
    for path, layer in ((user_path, user_layer), (project_path, _read_layer(project_path, result.issues))):
        if layer is None:
            continue
        added_hooks = None
        if path == project_path:
            layer = _project_layer(layer, path, result, merged)
            added_hooks = layer.pop("hooks", None)
        result.sources.append(path)
        for key, value in layer.items():
            merged = _apply(merged, (key,), value, str(path), result.issues)
        if added_hooks is not None:
            merged = _add_hooks(merged, added_hooks, str(path), result.issues)
    env_layer = {}
    if env.get("OPENAI_BASE_URL"):
        env_layer[("provider", "base_url")] = env["OPENAI_BASE_URL"]
    if env.get("CODER_MODEL"):
        env_layer[("model",)] = env["CODER_MODEL"]
    if env.get("CODER_BUDGET_USD"):  # ``--max-budget-usd``
        env_layer[("budget_usd",)] = _number(env["CODER_BUDGET_USD"])
    for path_key, value in env_layer.items():
        merged = _apply(merged, path_key, value, "environment", result.issues)
    result.config = Config.model_validate(merged)
    return result


def _number(text: str) -> float | str:
    """A number given in the environment; the text itself when it is none, for validation to name."""
    try:
        return float(text)
    except ValueError:
        return text


def _project_layer(
    layer: dict[str, Any], path: Path, result: LoadedConfig, below: dict[str, Any]
) -> dict[str, Any]:
    for key in USER_ONLY_KEYS:
        if key in layer:
            result.issues.append(ConfigIssue(str(path), key, "read from the user's config only"))
    layer = {key: value for key, value in layer.items() if key not in USER_ONLY_KEYS}
    for section, key in USER_ONLY_SETTINGS:
        if isinstance(layer.get(section), dict) and key in layer[section]:
            result.issues.append(ConfigIssue(str(path), f"{section}.{key}", "read from the user's config only"))
            layer = {**layer, section: {k: v for k, v in layer[section].items() if k != key}}
    if result.trusted:
        return layer
    layer, result.ignored_untrusted = split_untrusted(layer, below)
    return layer


def _add_hooks(merged: dict[str, Any], hooks: Any, source: str, issues: list[ConfigIssue]) -> dict[str, Any]:
    """A trusted project's hooks run after the user's own of the same event, never instead of them (SPEC 19: a
    user's guard hook is never switched off by a repository)."""
    if not isinstance(hooks, dict):
        return _apply(merged, ("hooks",), hooks, source, issues)  # reported as the wrong type
    for event, groups in hooks.items():
        mine = _get_in(merged, ("hooks", str(event)))
        together = [*mine, *groups] if isinstance(mine, list) and isinstance(groups, list) else groups
        merged = _apply(merged, ("hooks", str(event)), together, source, issues)
    return merged


def _read_layer(path: Path, issues: list[ConfigIssue]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        issues.append(ConfigIssue(str(path), "", f"cannot read: {exc.strerror or exc}"))
        return None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        issues.append(ConfigIssue(str(path), "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"))
        return None
    if not isinstance(data, dict):
        issues.append(ConfigIssue(str(path), "", "must hold a JSON object"))
        return None
    return data


def _apply(
    merged: dict[str, Any], path: tuple[str, ...], value: Any, source: str, issues: list[ConfigIssue]
) -> dict[str, Any]:
    """Merges ``value`` at ``path``: a section merges key by key, a value replaces if the result validates,
    otherwise the key is reported and the previous value kept."""
    current = _get_in(merged, path)
    if isinstance(value, dict) and isinstance(current, dict):
        for sub_key, sub_value in value.items():
            merged = _apply(merged, (*path, str(sub_key)), sub_value, source, issues)
        return merged
    candidate = copy.deepcopy(merged)
    _set_in(candidate, path, value)
    try:
        Config.model_validate(candidate)
    except ValidationError as exc:
        key = _key_named(exc.errors(), path, value)
        issues.append(ConfigIssue(source, ".".join(key), _describe(exc.errors(), key)))
        return merged
    return candidate


def _key_named(errors: list[Any], path: tuple[str, ...], value: Any) -> tuple[str, ...]:
    """The key the first error is about: ``path``, or a key inside a new section given at ``path`` whole
    (``providers.x.api`` rather than ``providers.x``)."""
    for error in errors:
        loc = tuple(str(part) for part in error["loc"])
        if loc[: len(path)] != path:
            continue
        key, node = path, value
        for part in loc[len(path):]:
            if not isinstance(node, dict) or part not in node:
                break
            key, node = (*key, part), node[part]
        return key
    return path


def _describe(errors: list[Any], path: tuple[str, ...]) -> str:
    for error in errors:
        loc = tuple(str(part) for part in error["loc"])
        if loc[: len(path)] == path or path[: len(loc)] == loc:
            if error["type"] == "extra_forbidden":
                if "key" in path[-1].lower() and path[-1] != "api_key_env":
                    return f"unknown key ({_SECRET_HINT})"
                return "unknown key"
            given = error.get("input")
            shown = json.dumps(given) if _jsonable(given) else repr(given)
            return f"{error['msg']} (got {shown})"
    return errors[0]["msg"] if errors else "invalid value"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _set_in(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[path[-1]] = value


def _get_in(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = data
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def resolve_api_key(config: Config, env: Mapping[str, str] | None = None) -> str | None:
    env = dict(os.environ) if env is None else env
    return env.get(config.provider.api_key_env) or None
