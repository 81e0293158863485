"""What the model may write without asking (SPEC 13, decision of 2026-12-07): an allow-list, not a list of bad names.

Auto-edit, an `allow` rule, a session's "always" and any other way a write goes through unasked cover only an
ordinary file inside the workspace, reached without a link: not a dotfile, not in a dot-folder at any depth (where
editors, hook managers, CI services, agents and shells keep what they run), and not a file of another tool's known
names (``configuring_files``: the second line, for the ones that carry no dot, such as ``lefthook.yml``). Every
other write asks, with the reason, in every mode but yolo; the write, edit and patch tools and the bash policy's
write targets ask the same question here.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from engine.policy.configuring_files import configuring_file_reason

_ONLY_ORDINARY = "only ordinary files inside the workspace are written without asking"
# Device nodes a command writes to without touching a file: they swallow or show output.
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})


def is_not_a_file(path: str) -> bool:
    """Whether writing ``path`` swallows or shows output instead of writing a file anyone keeps."""
    return path in _NOT_FILES or path.startswith("/dev/fd/")


def unasked_write_reason(root: Path, path: str, base: Path | None = None) -> str | None:
    """Why writing ``path`` (as the model wrote it: relative to ``base``, by default the workspace ``root``, or
    absolute) must ask; None for an ordinary file inside the workspace. ``root`` is a real path."""
    if is_not_a_file(path):
        return None
    candidate = (base or root) / path  # an absolute ``path`` replaces the base, as it should
    real = Path(os.path.realpath(candidate))
    if not real.is_relative_to(root):
        return f"writes {path}: it is outside the workspace ({real}); {_ONLY_ORDINARY}"
    link = _first_link(candidate, root)
    if link is not None:
        return f"writes {path}: it is reached through the link {link}, which leads to {real}; {_ONLY_ORDINARY}"
    parts = real.relative_to(root).parts
    if not parts:
        return None
    relative = PurePosixPath(*parts).as_posix()
    known = configuring_file_reason(relative)
    if known is not None:
        return known
    dotted = next((part for part in parts[:-1] if part.startswith(".")), None)
    if dotted is not None:
        return (
            f"writes {relative}: it is inside the dot-folder {dotted}/, where tools keep settings and scripts they "
            f"run; {_ONLY_ORDINARY}"
        )
    if parts[-1].startswith("."):
        return f"writes {relative}: it is a dotfile, which tools read as configuration; {_ONLY_ORDINARY}"
    return None


def _first_link(candidate: Path, root: Path) -> str | None:
    """The first component of ``candidate``, as written, that is a symbolic link (shown as written), if any. A path
    that does not lie under the root as written reached it through a link (or ``..`` out and back)."""
    if not candidate.is_relative_to(root):
        return str(candidate)
    current = root
    for part in candidate.parts[len(root.parts) :]:
        current = current / part
        if os.path.islink(current):
            return current.relative_to(root).as_posix() if current.is_relative_to(root) else str(current)
    return None
