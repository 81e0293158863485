"""What the undo capture does not keep, and why (SPEC 7: named in the result, never skipped silently): ``.git/``
(git's own state: branch, index, stash), ``.coder/`` (this program's state), the folders of ``undo.skip``
(default ``node_modules/`` and ``.venv/``) and, by default, what ``.gitignore`` files ignore, matched with
gitignore's own rules (pathspec), in and outside a git repository.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pathspec

GIT_DIR = ".git"
STATE_DIR = ".coder"


class SkipRules:
    def __init__(self, root: Path, patterns: Sequence[str], *, use_gitignore: bool) -> None:
        self.root = root
        self._configured = pathspec.GitIgnoreSpec.from_lines(patterns)
        self._use_gitignore = use_gitignore
        self._gitignores: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def reason(self, relative: str, is_dir: bool) -> str | None:
        """Why ``relative`` (a workspace path, posix) is not captured, or None when it is."""
        first = relative.split("/", 1)[0]
        if first == GIT_DIR:
            return "git's own state (.git/) is not rewound"
        if first == STATE_DIR:
            return "coder's state folder"
        probe = relative + "/" if is_dir else relative
        if self._configured.match_file(probe):
            return "in undo.skip"
        if self._use_gitignore and self._ignored_by_git(relative, is_dir):
            return "ignored by .gitignore"
        return None

    def forget(self, relative_gitignore: str) -> None:
        """A ``.gitignore`` changed: its rules are read again when next needed."""
        self._gitignores.pop(relative_gitignore.rpartition("/")[0], None)

    def _ignored_by_git(self, relative: str, is_dir: bool) -> bool:
        parts = relative.split("/")
        ignored = False
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            spec = self._spec(folder)
            if spec is None:
                continue
            rest = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(rest)
            if result.include is not None:
                ignored = result.include
        return ignored

    def _spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._gitignores:
            path = self.root / folder / ".gitignore" if folder else self.root / ".gitignore"
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._gitignores[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._gitignores[folder]
