"""Where the configuration files live: the user's (always trusted) and the project's (trusted only once the user
says so, SPEC 19)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/coder/config.json`` (``~/.config`` without it). ``env`` is looked at first, then the
    process environment."""
    base = (env or {}).get("XDG_CONFIG_HOME") or os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "coder" / "config.json"


def project_config_path(workspace: Path) -> Path:
    return workspace / ".coder" / "config.json"
