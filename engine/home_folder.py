"""The user's home folder and coder-tui's own folder in it (SPEC 13, decision of 2026-12-07).

The workspace is never the home folder or a folder above it: there the model's "workspace" would be the user's shell
start-up files, keys and every other project. And coder-tui's own configuration folder (its config, commands,
hooks, skills and state key) is never written by a tool, whatever the workspace. Both are decided here, from the
environment the process was started with and the account's entry in the password database, so that neither a
changed ``HOME`` nor a link hides them.

Light on purpose: the workspace guard and the bash policy import it.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Mapping
from pathlib import Path

# Folders that hold every user's home folder: never a workspace, wherever this user's home is.
_HOMES_PARENTS = (Path("/home"), Path("/Users"))


def home_folders(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The real home folder(s): ``HOME`` of ``env`` and of the process, and the account's own."""
    found: list[str] = []
    for mapping in (env or {}, os.environ):
        if mapping.get("HOME"):
            found.append(mapping["HOME"])
    try:
        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    return _real_unique(found)


def own_config_folders(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """coder-tui's own configuration folders (``$XDG_CONFIG_HOME/coder``, ``~/.config/coder``), as real paths:
    every place the user's config, commands, hooks, skills and state key may be, whichever variable is in force."""
    found: list[str] = []
    for mapping in (env or {}, os.environ):
        if mapping.get("XDG_CONFIG_HOME"):
            found.append(os.path.join(mapping["XDG_CONFIG_HOME"], "coder"))
    found.extend(os.path.join(home, ".config", "coder") for home in home_folders(env))
    return _real_unique(found)


def own_config_folder_of(path: Path, folders: tuple[Path, ...]) -> Path | None:
    """The folder of ``folders`` that ``path`` (a real path) is or lies in, if any."""
    return next((folder for folder in folders if path.is_relative_to(folder)), None)


def home_workspace_problem(workspace: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Why ``workspace`` may not be a workspace (it is the home folder, or above it), or None for a project folder."""
    real = Path(os.path.realpath(workspace))
    if real == Path(real.anchor):
        return f"{real} is the root of the file system, above your home folder"
    for home in home_folders(env):
        if real == home:
            return f"{real} is your home folder"
        if home.is_relative_to(real):
            return f"{real} is above your home folder {home}"
    if real in _HOMES_PARENTS:
        return f"{real} holds the home folders of the users"
    return None


def _real_unique(paths: list[str]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(Path(os.path.realpath(path)) for path in paths))
