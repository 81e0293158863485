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
        # Folder patterns (``node_modules/``) match no file by itself: a file under a matched folder is never
        # asked about, the walk does not enter the folder. So files are matched only when a pattern could.
        self._files_match = any(_may_match_a_file(line) for line in patterns)
        self._use_gitignore = use_gitignore
        self._gitignores: dict[str, pathspec.GitIgnoreSpec | None] = {}
        # Per folder: the folders from the root down to it that hold rules, each with its own (a file's rules are
        # looked up once per folder, not once per file and depth).
        self._chains: dict[str, tuple[tuple[int, pathspec.GitIgnoreSpec], ...]] = {}

    def reason(self, relative: str, is_dir: bool) -> str | None:
        """Why ``relative`` (a workspace path, posix) is not captured, or None when it is."""
        first = relative.split("/", 1)[0]
        if first == GIT_DIR:
            return "git's own state (.git/) is not rewound"
        if first == STATE_DIR:
            return "coder's state folder"
        probe = relative + "/" if is_dir else relative
        if (is_dir or self._files_match) and self._configured.match_file(probe):
            return "in undo.skip"
        if self._use_gitignore and self._ignored_by_git(relative, is_dir):
            return "ignored by .gitignore"
        return None

    def keeps_every_file_in(self, folder: str) -> bool:
        """Whether no rule can skip a file directly in ``folder`` (one the walk entered: not skipped itself)."""
        return not self._files_match and not (self._use_gitignore and self._chain(folder))

    def forget(self, relative_gitignore: str) -> None:
        """A ``.gitignore`` changed: its rules are read again when next needed."""
        self._gitignores.pop(relative_gitignore.rpartition("/")[0], None)
        self._chains.clear()

    def _ignored_by_git(self, relative: str, is_dir: bool) -> bool:
        chain = self._chain(relative.rpartition("/")[0])
        if not chain:
            return False
        parts = relative.split("/")
        ignored = False
        for depth, spec in chain:
            rest = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(rest)
            if result.include is not None:
                ignored = result.include
        return ignored

    def _chain(self, folder: str) -> tuple[tuple[int, pathspec.GitIgnoreSpec], ...]:
        chain = self._chains.get(folder)
        if chain is None:
            parent, _, _name = folder.rpartition("/")
            above = self._chain(parent) if folder else ()
            spec = self._spec(folder)
            depth = folder.count("/") + 1 if folder else 0
            chain = above if spec is None else (*above, (depth, spec))
            self._chains[folder] = chain
        return chain

    def _spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._gitignores:
            path = self.root / folder / ".gitignore" if folder else self.root / ".gitignore"
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._gitignores[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._gitignores[folder]


def _may_match_a_file(line: str) -> bool:
    pattern = line.strip()
    return bool(pattern) and not pattern.startswith("#") and not pattern.endswith("/")
