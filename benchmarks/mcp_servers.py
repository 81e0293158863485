"""Three MCP servers for the start-up benchmark (``pty_latency.py --mcp``): the reference time and git servers and
the test suite's SDK server, over stdio, written into a user config folder so coder-tui starts them as it would a
user's. They start in the background after the engine is up, so start-up and the first keys should not change."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_user_config(home: Path, repository: Path) -> Path:
    """``home/.config/coder/config.json`` naming three stdio MCP servers; returns the config folder."""
    servers = {
        "time": {"command": "mcp-server-time"},
        "git": {"command": "mcp-server-git", "args": ["--repository", str(repository)]},
        "sdk": {
            "command": sys.executable,
            "args": ["-m", "tests.engine.mcp.broken_server"],
            "env": {"PYTHONPATH": str(ROOT)},
        },
    }
    config = home / ".config"
    (config / "coder").mkdir(parents=True, exist_ok=True)
    (config / "coder" / "config.json").write_text(json.dumps({"mcp_servers": servers}))
    return config
