"""Files that configure what runs later (SPEC 19): a repository's git configuration and hooks, the MCP servers
coder-tui and other agents start, and the files editors and shells run on opening a folder. A change to one is a
command that runs later, outside any approval, so the model's write, edit or patch of such a file asks first in
every mode but yolo, saying why. ``.coder/`` itself is refused by the workspace guard, not here.

Matched on the path inside the workspace at any depth (a nested repository's ``.git/``, a sub-project's
``.envrc`` and ``.vscode/`` act the same way when that folder is opened) and without regard to case (macOS and
Windows file systems ignore it).
"""

from __future__ import annotations

from pathlib import PurePosixPath

# A folder whose every file configures what runs: name -> what it is.
_FOLDERS: dict[str, str] = {
    ".git": "the repository's configuration and hooks, which can make later git commands run programs",
    ".idea": "JetBrains IDE settings and run configurations, which the IDE runs",
    ".devcontainer": "the dev container definition, whose commands run when the folder is opened in a container",
    ".husky": "git hooks installed by husky, which run on commit and push",
    ".claude": "another agent's settings and hooks, which run commands",
    ".gemini": "another agent's settings and hooks, which run commands",
    ".codex": "another agent's settings, which can name commands to run",
    ".cursor": "an editor's settings and MCP servers, which it starts",
}
# A file in a given folder (None: any folder): (folder, name) -> what it is.
_FILES: dict[tuple[str | None, str], str] = {
    (None, ".mcp.json"): "MCP servers, which coder-tui and other agents start as programs in a trusted folder",
    (None, ".envrc"): "a shell script that direnv runs on entering the folder",
    (".vscode", "tasks.json"): "VS Code tasks, which can run when the folder is opened",
    (".vscode", "settings.json"): "VS Code settings, which can name programs the editor runs",
    (".vscode", "launch.json"): "VS Code launch configurations, which run programs",
    (".vscode", "mcp.json"): "MCP servers that VS Code starts",
}


def configuring_file_reason(relative: str) -> str | None:
    """The approval reason for the model changing the workspace file at ``relative`` (posix, from the root), or
    None when the file configures nothing that runs later."""
    parts = [part.lower() for part in PurePosixPath(relative).parts]
    for part in parts[:-1]:
        if part in _FOLDERS:
            return _reason(relative, f"inside {part}/ ({_FOLDERS[part]})")
    if not parts:
        return None
    name, folder = parts[-1], parts[-2] if len(parts) > 1 else None
    what = _FILES.get((folder, name)) or _FILES.get((None, name))
    if what is None and name.endswith(".code-workspace"):
        what = "a VS Code workspace, whose settings and tasks the editor applies"
    if what is None and name in _FOLDERS:
        what = _FOLDERS[name]  # the folder's own name as a file (a worktree's .git file names its git folder)
    return None if what is None else _reason(relative, what)


def _reason(relative: str, what: str) -> str:
    return f"writes {relative}: {what}; it configures what runs later, outside any approval"
