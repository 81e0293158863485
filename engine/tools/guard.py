"""The workspace guard (SPEC 13): every path a tool touches is resolved, symlinks included, and must stay inside
the workspace root. ``.coder/`` holds the session's own state, so the model's tools may read it but never write it;
coder-tui's own configuration folder (the user's config, commands, hooks and state key) is refused to every tool, in
every mode, wherever the workspace is.

The check is made on the real location (``os.path.realpath``), not on the text of the path: ``a/../../x``, an
absolute path and a symlink that leads out are all the same escape seen from different sides.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import PathOutsideWorkspace
from engine.home_folder import own_config_folder_of, own_config_folders

PROTECTED_DIR = ".coder"


class Workspace:
    """The folder the agent works in. Tools turn the model's paths into real paths only through ``resolve``.
    ``own_config``: coder-tui's own configuration folders (``engine.home_folder.own_config_folders``, of the
    process's environment by default)."""

    def __init__(self, root: str | os.PathLike[str], own_config: tuple[Path, ...] | None = None) -> None:
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            raise NotADirectoryError(f"workspace root {os.fspath(root)!r} is not a directory")
        self.root = real
        self.own_config = own_config_folders() if own_config is None else own_config

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def resolve(self, path: str, *, write: bool = False) -> Path:
        """The real location of ``path`` (relative to the root, or absolute inside it), or ``PathOutsideWorkspace``.

        ``~`` is not expanded: it is an ordinary file name here, as it is for the kernel. coder-tui's own
        configuration folder is refused, and with ``write=True`` anything under ``<root>/.coder/`` as well.
        """
        if not path or not path.strip():
            raise PathOutsideWorkspace("empty path: give a file or folder inside the workspace")
        if "\0" in path:
            raise PathOutsideWorkspace(f"path {path!r} is refused: it contains a NUL character")
        candidate = self.root / path  # an absolute ``path`` replaces the root, as it should
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(self.root):
            raise PathOutsideWorkspace(
                f"path {path!r} is refused: it resolves to {real}, outside the workspace {self.root}"
            )
        broken = _first_broken_link(candidate, self.root)
        if broken is not None:
            raise PathOutsideWorkspace(
                f"path {path!r} is refused: {self.display(broken)} is a symbolic link whose target does not exist"
            )
        own = own_config_folder_of(real, self.own_config)
        if own is not None:
            raise PathOutsideWorkspace(
                f"path {path!r} is refused: {own} is coder-tui's own configuration (its config, commands, hooks and "
                "keys), which no tool reads or writes"
            )
        if write and real.is_relative_to(self.root / PROTECTED_DIR):
            raise PathOutsideWorkspace(
                f"path {path!r} is refused for writing: {PROTECTED_DIR}/ holds coder's own state and is read-only "
                "for tools"
            )
        return real

    def refuse_coder_state(self, path: Path, display: str) -> None:
        """glob, grep and list never show what is inside `.coder/` (SPEC 13): a search there is refused."""
        if self.shows_coder_state(path):
            raise PathOutsideWorkspace(
                f"{display}: {PROTECTED_DIR}/ holds coder's own state (its database and transcripts), which glob, grep "
                "and list never show"
            )

    def shows_coder_state(self, path: Path) -> bool:
        """Whether ``path`` (a real path) is `.coder/` or lies inside it."""
        return path.is_relative_to(self.root / PROTECTED_DIR)

    def write_reason(self, path: str) -> str | None:
        """Why the model's write of ``path`` (as it wrote it) asks even where writes run unasked: it is not an
        ordinary file of the workspace reached without a link (SPEC 13, ``engine.policy.unasked_writes``)."""
        from engine.policy.unasked_writes import unasked_write_reason  # the policy package imports the tools

        return unasked_write_reason(self.root, path)

    def display(self, path: Path) -> str:
        """The root-relative posix form shown to the model and the user; "." for the root itself."""
        try:
            relative = path.relative_to(self.root)
        except ValueError:
            return path.as_posix()
        text = relative.as_posix()
        return text if text else "."


def _first_broken_link(candidate: Path, root: Path) -> Path | None:
    """The first component of ``candidate`` that is a symlink with no target (or a loop), if any.

    Each prefix is checked as written, so the kernel itself resolves any ``..`` after an earlier symlink: the answer
    matches what an ``open`` of the full path would meet. The ``root`` is a real path, with no symlink in it: a path
    written under it is checked from there on.
    """
    if candidate.is_relative_to(root):
        current, parts = root, candidate.parts[len(root.parts):]
    else:
        current, parts = Path(candidate.anchor), candidate.parts[1:]
    for part in parts:
        current = current / part
        if os.path.islink(current) and not os.path.exists(current):
            return current
    return None


def ensure_opened_where_checked(fd: int, expected: Path, display: str) -> None:
    """Refuses a file or folder that is not, once opened, the one ``resolve`` checked.

    ``resolve`` checks a path's real location, but the path is used a moment later: a symlink swapped in between
    (a folder replaced by a link to ``/etc``) would redirect the open. The descriptor tells the truth, so it is
    compared with the checked location. Where the system cannot tell (no ``/proc``), the check is skipped.
    """
    try:
        actual = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return
    if actual != str(expected):
        raise PathOutsideWorkspace(
            f"{display} changed while it was being opened (it now leads to {actual}, a symlink swapped in?); refused"
        )
