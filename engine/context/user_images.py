"""Which image file a user's request may send (SPEC 23), one rule for an ``@shot.png`` mention and a pasted path.

A file of the workspace goes by the workspace's rule, as for every tool: its real location must be inside it, so a
repository's link to a file elsewhere (``docs/shot.png -> ~/.ssh/id_ed25519``) is refused whether it is mentioned or
its absolute path is pasted. A file the user names outside the workspace (a screenshot dragged from the desktop) is
theirs to send: it is only read, with this request. Whether a path names a workspace file is decided on the path as
written and on its folder's real location, so neither a link on the way in nor one on the way out escapes the rule.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.tools.guard import Workspace


def user_image_path(raw: str, workspace: Workspace) -> Path:
    """The file to read for the image ``raw`` names (relative to the workspace, absolute, or ``~``).
    ``PathOutsideWorkspace`` for a workspace file whose real location is outside it, or for coder's own state."""
    path = Path(raw).expanduser()
    if path.is_absolute() and not _names_a_workspace_file(path, workspace.root):
        return path
    resolved = workspace.resolve(str(path))
    workspace.refuse_coder_state(resolved, raw)
    return resolved


def _names_a_workspace_file(path: Path, root: Path) -> bool:
    written = Path(os.path.abspath(path))
    folder = Path(os.path.realpath(written.parent))
    return written.is_relative_to(root) or folder.is_relative_to(root)
