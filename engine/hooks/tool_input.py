"""A call's arguments as hooks see them (SPEC 23): the tool's own names, and Claude Code's beside them, so a hook
written for Claude Code (``jq -r .tool_input.file_path``) works unchanged.

Claude Code names a file ``file_path``, absolute; its edit takes ``old_string``/``new_string`` and its shell tool
``command``, which coder-tui's tools already use. The tool's own names stay, so hooks written for coder-tui keep
working too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def hook_tool_input(arguments: dict[str, Any], root: Path) -> dict[str, Any]:
    """``arguments`` with ``file_path`` (the absolute path) beside a ``path``, unless the call already names one."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path or "file_path" in arguments:
        return arguments
    return {**arguments, "file_path": str(root / path) if not Path(path).is_absolute() else path}
