"""What ``/diff`` shows (SPEC 7): the workspace's changes, per file (path, lines added, lines removed) plus the full
unified diff text for the viewer.

In a git repository that is ``git diff`` against HEAD (staged and unstaged changes of tracked files) with the
untracked files listed; outside git (or with no git installed) it is what this session's tools changed, from the
undo journal's first snapshot of each file against the file now. ``.coder/`` is never part of it.

Git runs with ``--no-optional-locks`` so that looking at the diff never takes the index lock from a git command
the user runs at the same time.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from engine.record import record
from engine.sandbox.child_env import git_environment
from engine.text_diff import diff_stats, looks_binary, unified_diff

if TYPE_CHECKING:
    from engine.storage.undo.file_state import FileState
    from engine.storage.undo.journal import UndoJournal

FileStatus = Literal["modified", "added", "deleted", "renamed", "untracked"]
GIT_TIMEOUT_S = 30.0
_EXCLUDE_STATE = ":(exclude).coder"
_GIT_STATUS: dict[str, FileStatus] = {"M": "modified", "T": "modified", "A": "added", "D": "deleted", "R": "renamed"}


@record
class FileDiff:
    path: str
    added: int
    removed: int
    status: FileStatus
    binary: bool = False
    old_path: str | None = None


@record
class WorkspaceDiff:
    source: Literal["git", "session"]
    files: tuple[FileDiff, ...]
    text: str
    note: str = ""

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)


def collect_workspace_diff(root: Path, journal: UndoJournal | None) -> WorkspaceDiff:
    """Blocking (runs git): call it from a worker thread."""
    diff = git_diff(root)
    return diff if diff is not None else session_diff(journal)


def git_diff(root: Path) -> WorkspaceDiff | None:
    """None when ``root`` is not inside a git work tree or git is not installed."""
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != b"true":
        return None
    head = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if head is not None and head.returncode == 0:
        base = "HEAD"
    else:  # no commit yet: everything tracked is new, compared with the empty tree
        empty = _git(root, "hash-object", "-t", "tree", "/dev/null")
        base = empty.stdout.decode().strip() if empty is not None else ""
    scope = ("--", ".", _EXCLUDE_STATE)
    common = ("diff", "--no-ext-diff", "--no-color", "--relative", "-M", base)
    numstat = _git(root, *common, "--numstat", "-z", *scope)
    names = _git(root, *common, "--name-status", "-z", *scope)
    text = _git(root, *common, *scope)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z", *scope)
    for run in (numstat, names, text, untracked):
        if run is None or run.returncode != 0:
            error = "" if run is None else run.stderr.decode(errors="replace").strip()
            return WorkspaceDiff("git", (), "", note=f"git diff failed in {root}: {error or 'no output'}")
    assert numstat is not None and names is not None and text is not None and untracked is not None
    statuses = _parse_name_status(names.stdout)
    files: list[FileDiff] = []
    for path, added, removed, binary in _parse_numstat(numstat.stdout):
        status, old_path = statuses.get(path, ("modified", None))
        files.append(FileDiff(path, added, removed, status, binary, old_path))
    files += [_untracked(root, name) for name in untracked.stdout.decode(errors="replace").split("\0") if name]
    return WorkspaceDiff("git", tuple(files), text.stdout.decode(errors="replace"))


def session_diff(journal: UndoJournal | None) -> WorkspaceDiff:
    """The files this session's tools changed, original against now, as a git-style multi-file patch."""
    changes = journal.session_changes() if journal is not None else []
    if not changes:
        return WorkspaceDiff("session", (), "", note="not a git repository; this session's tools changed no file")
    files: list[FileDiff] = []
    chunks: list[str] = []
    for change in changes:
        before, after = change.before, change.after
        status: FileStatus = "added" if not before.exists else "deleted" if not after.exists else "modified"
        header = [f"diff --git a/{change.path} b/{change.path}\n"]
        if status == "added":
            header.append(f"new file mode 100{after.mode or 0:o}\n")
        elif status == "deleted":
            header.append(f"deleted file mode 100{before.mode or 0:o}\n")
        elif before.mode != after.mode:
            header += [f"old mode 100{before.mode or 0:o}\n", f"new mode 100{after.mode or 0:o}\n"]
        binary = looks_binary(before.data or b"") or looks_binary(after.data or b"")
        if binary:
            body = f"Binary files a/{change.path} and b/{change.path} differ\n" if before.data != after.data else ""
            added = removed = 0
        else:
            body = unified_diff(_text(before), _text(after), change.path)
            added, removed = diff_stats(body)
        chunks.append("".join(header) + body)
        files.append(FileDiff(change.path, added, removed, status, binary))
    return WorkspaceDiff("session", tuple(files), "".join(chunks))


def _text(state: FileState) -> str | None:
    """The file as text with its line endings as they are, so a CRLF change shows; None when it does not exist."""
    if state.data is None:
        return None
    try:
        return state.data.decode("utf-8")
    except UnicodeDecodeError:
        return state.data.decode("latin-1")


def _untracked(root: Path, name: str) -> FileDiff:
    try:
        data = (root / name).read_bytes()
    except OSError:
        return FileDiff(name, 0, 0, "untracked")
    if looks_binary(data):
        return FileDiff(name, 0, 0, "untracked", binary=True)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return FileDiff(name, lines, 0, "untracked")


def _parse_numstat(output: bytes) -> list[tuple[str, int, int, bool]]:
    """Rows ``added\\tremoved\\tpath\\0``, or for a rename ``added\\tremoved\\t\\0old\\0new\\0``; ``-`` means
    binary."""
    fields = output.decode(errors="replace").split("\0")
    rows: list[tuple[str, int, int, bool]] = []
    index = 0
    while index < len(fields) and fields[index]:
        added, removed, path = fields[index].split("\t", 2)
        index += 1
        if not path:  # a rename: the old and new paths follow
            path = fields[index + 1]
            index += 2
        binary = added == "-"
        rows.append((path, 0 if binary else int(added), 0 if binary else int(removed), binary))
    return rows


def _parse_name_status(output: bytes) -> dict[str, tuple[FileStatus, str | None]]:
    """``X\\0path\\0``, or for a rename/copy ``R100\\0old\\0new\\0``: path -> (status, old path)."""
    fields = output.decode(errors="replace").split("\0")
    statuses: dict[str, tuple[FileStatus, str | None]] = {}
    index = 0
    while index < len(fields) and fields[index]:
        letter = fields[index][0]
        if letter in "RC":
            old, new = fields[index + 1], fields[index + 2]
            statuses[new] = ("renamed" if letter == "R" else "added", old if letter == "R" else None)
            index += 3
        else:
            statuses[fields[index + 1]] = (_GIT_STATUS.get(letter, "modified"), None)
            index += 2
    return statuses


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    """None when git is not installed or did not answer in time."""
    command = ["git", "--no-optional-locks", "-c", "core.quotepath=off", *args]
    try:
        # A hostile .git/config must not run its fsmonitor, textconv or external diff here (SPEC 13).
        env = git_environment(root)
        return subprocess.run(command, cwd=root, capture_output=True, timeout=GIT_TIMEOUT_S, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
