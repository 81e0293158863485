"""Which image file a user's request may send (SPEC 23), one rule for an ``@shot.png`` mention and a pasted path.

A file of the workspace goes by the workspace's rule, as for every tool: its real location must be inside it, so a
repository's link to a file elsewhere (``docs/shot.png -> ~/.ssh/id_ed25519``) is refused whether it is mentioned or
its absolute path is pasted. A file the user names outside the workspace (a screenshot dragged from the desktop) is
theirs to send: it is only read, with this request. Whether a path names a workspace file is decided on the path as
written and on its folder's real location, so neither a link on the way in nor one on the way out escapes the rule.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from engine.tools.guard import PROTECTED_DIR, Workspace

_DIGEST_NAME = re.compile(r"[0-9a-f]{64}\.(?:png|jpe?g|gif|webp)")


def user_image_path(raw: str, workspace: Workspace) -> Path:
    """The file to read for the image ``raw`` names (relative to the workspace, absolute, or ``~``).
    ``PathOutsideWorkspace`` for a workspace file whose real location is outside it, or for coder's own state."""
    path = Path(raw).expanduser()
    if path.is_absolute() and not _names_a_workspace_file(path, workspace.root):
        return path
    resolved = workspace.resolve(str(path))
    if not _a_kept_image(resolved, workspace.root):
        workspace.refuse_coder_state(resolved, raw)
    return resolved


def _a_kept_image(path: Path, root: Path) -> bool:
    """An image coder itself kept for a request (an editor's pasted image over ACP, stored by its digest in
    ``.coder/blobs/``): the one file of coder's state a request may send, by its real path."""
    return (path.parent == root / PROTECTED_DIR / "blobs" and _DIGEST_NAME.fullmatch(path.name) is not None
            and path.is_file() and not path.is_symlink())


def _names_a_workspace_file(path: Path, root: Path) -> bool:
    written = Path(os.path.abspath(path))
    folder = Path(os.path.realpath(written.parent))
    return written.is_relative_to(root) or folder.is_relative_to(root)
