"""The workspace's ``.coder/`` folder: made with its own ``.gitignore`` holding ``*``, as pytest and virtualenv do
with their folders, so the database, transcripts and undo data never show in ``git status`` or ride along with a
``git add .``. A file a team wants to share (``config.json``, ``commands/``, ``skills/``) is added with
``git add -f``."""

from __future__ import annotations

from pathlib import Path

STATE_FOLDER = ".coder"
GITIGNORE_TEXT = (
    "# Created by coder-tui: its database, transcripts and undo data stay out of git.\n"
    "# To share the project's config.json, commands/ or skills/, add them with `git add -f`.\n"
    "*\n"
)


def ensure_state_folder(workspace: Path) -> Path:
    """``<workspace>/.coder``, created when absent, with its ``.gitignore`` written when absent (an existing one,
    the user's own, is left as it is). Raises ``OSError`` when the folder cannot be made."""
    folder = workspace / STATE_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        try:
            with open(ignore, "x", encoding="utf-8") as handle:
                handle.write(GITIGNORE_TEXT)
        except FileExistsError:
            pass  # made by another process meanwhile
    return folder
