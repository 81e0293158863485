"""The workspace's ``.coder/`` folder: made with its own ``.gitignore`` holding ``*``, as pytest and virtualenv do
with their folders, so the database, transcripts and undo data never show in ``git status`` or ride along with a
``git add .``. A file a team wants to share (``config.json``, ``commands/``, ``skills/``) is added with
``git add -f``.

A ``.coder`` can also arrive with the repository (SPEC 19). One that is a symbolic link (state would be written
into, and read from, wherever it points), not a folder, not this user's, or writable by everyone is refused before
anything in it is read or written; so is every entry in it, or in a folder in it, that is a link (whatever its
name), or that is not what it should be. Deeper folders are checked where they are opened (``refuse_links`` for a
session's undo folder; the content store checks ``undo/objects/ab`` itself). Only what a team shares
with the repository (``config.json``, ``commands/``, ``skills/``) may be a link: it is read, never written, and used
only as configuration.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.storage.errors import StorageError

STATE_FOLDER = ".coder"
GITIGNORE_TEXT = (
    "# Created by coder-tui: its database, transcripts and undo data stay out of git.\n"
    "# To share the project's config.json, commands/ or skills/, add them with `git add -f`.\n"
    "*\n"
)
# What coder-tui writes inside ``.coder/``: folders, then files. Each must be what it says, never a link.
STATE_FOLDERS = ("sessions", "locks", "undo", "blobs", "logs")
STATE_FILES = (
    "coder.db", "coder.db-wal", "coder.db-shm", "coder.db-journal", "search.db", "search.db-wal", "search.db-shm",
    "input_history.jsonl",
)
# What a team shares in ``.coder/`` (read as configuration, never written by coder-tui): the only entries that may be
# links. Every other entry, folder or file, known or not, is state.
SHARED_ENTRIES = frozenset({"config.json", "commands", "skills", ".gitignore"})
# How deep the start looks for links below ``.coder/``: its entries and theirs (``undo/objects``, ``logs/x.log``).
# A deeper folder is checked by what opens it, so the start's cost does not grow with the number of sessions.
_LINK_DEPTH = 2


class StateFolderRefused(StorageError):
    """The workspace's ``.coder`` (or an entry in it) cannot be used; the message says what to do."""


def check_state_folder(workspace: Path) -> bool:
    """True when ``<workspace>/.coder`` exists and may be used, False when it does not exist yet;
    ``StateFolderRefused`` saying what to do otherwise."""
    folder = workspace / STATE_FOLDER
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StateFolderRefused(f"cannot look at {folder}: {exc.strerror or exc}") from exc
    fix = f"move it away (mv {folder} {folder}.moved) and coder-tui makes its own"
    if stat.S_ISLNK(info.st_mode):
        raise StateFolderRefused(
            f"{folder} is a symbolic link (to {os.readlink(folder)}); coder-tui keeps its state only in a folder of "
            f"its own, not wherever a link points: {fix}"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise StateFolderRefused(f"{folder} is not a folder: {fix}")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise StateFolderRefused(f"{folder} belongs to another user (uid {info.st_uid}), not to you: {fix}")
    if info.st_mode & stat.S_IWOTH:
        raise StateFolderRefused(f"{folder} is writable by every user; make it yours only (chmod o-w {folder})")
    for name in (*STATE_FOLDERS, *STATE_FILES):
        _check_entry(folder / name, want_folder=name in STATE_FOLDERS)
    _refuse_links_below(folder, depth=1)
    return True


def ensure_state_folder(workspace: Path) -> Path:
    """``<workspace>/.coder``, checked (``check_state_folder``) or created (0700) when absent, with its
    ``.gitignore`` written when absent (an existing one, the user's own, is left as it is). Raises ``OSError``
    when the folder cannot be made, ``StateFolderRefused`` when it may not be used."""
    folder = workspace / STATE_FOLDER
    if not check_state_folder(workspace):
        workspace.mkdir(parents=True, exist_ok=True)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass  # made by another process meanwhile: checked below
        check_state_folder(workspace)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        try:
            with open(ignore, "x", encoding="utf-8") as handle:
                handle.write(GITIGNORE_TEXT)
        except FileExistsError:
            pass  # made by another process meanwhile
    return folder


def _check_entry(path: Path, *, want_folder: bool) -> None:
    fix = f"move it away (mv {path} {path}.moved) and coder-tui makes its own"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StateFolderRefused(f"cannot look at {path}: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(info.st_mode):
        raise StateFolderRefused(f"{path} is a symbolic link; coder-tui never writes through one: {fix}")
    if want_folder != stat.S_ISDIR(info.st_mode) or (not want_folder and not stat.S_ISREG(info.st_mode)):
        kind = "a folder" if want_folder else "a regular file"
        raise StateFolderRefused(f"{path} is not {kind}: {fix}")


def _refuse_links_below(folder: Path, *, depth: int) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            if depth == 1 and entry.name in SHARED_ENTRIES:
                continue
            if entry.is_symlink():
                raise StateFolderRefused(
                    f"{entry.path} is a symbolic link; coder-tui never reads or writes its state through one: "
                    f"move it away (mv {entry.path} {entry.path}.moved)"
                )
            if depth < _LINK_DEPTH and entry.is_dir(follow_symlinks=False):
                _refuse_links_below(Path(entry.path), depth=depth + 1)


def refuse_links(path: Path, below: Path) -> None:
    """``StateFolderRefused`` when ``path`` or a folder between ``below`` and it is a symbolic link: state is written
    and swept there, never through a link a repository planted (``.coder/undo/<session>`` pointing elsewhere)."""
    current = path
    while current != below and below in current.parents:
        if current.is_symlink():
            raise StateFolderRefused(
                f"{current} is a symbolic link; coder-tui never writes or sweeps through one: "
                f"move it away (mv {current} {current}.moved)"
            )
        current = current.parent
