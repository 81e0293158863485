"""Files that configure what runs later (SPEC 19): a repository's git configuration and hooks, the MCP servers
coder-tui and other agents start, the files editors, IDEs and shells run on opening a folder or when they change,
git hook managers, CI pipelines (run on a push, with the repository's secrets). A change to one is a command that
runs later, outside any approval, so the model's write, edit or patch of such a file asks first in every mode but
yolo, saying why. ``.coder/`` itself is refused by the workspace guard, not here.

These names are the second line (SPEC 13, decision of 2026-12-07): ``unasked_writes`` already asks before any
dotfile or file in a dot-folder. The names here give such a file its precise reason, and catch the ones without a
dot. Build files that run only when the user runs the project's own commands (``Makefile``, ``package.json``,
``setup.py``, ``noxfile.py``, ``tox.ini``, ``Justfile``, ``conftest.py``...) are the project's code like its
sources, and stay ordinary; a build script an IDE runs by itself when it changes (Gradle's, ``build.rs``,
``pom.xml``) is listed.

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
    ".zed": "Zed's settings and tasks, which name programs the editor runs",
    ".github": "GitHub's settings and workflows, which run on a push with the repository's secrets",
    ".gitlab": "GitLab's settings and CI includes, which run on a push",
    ".circleci": "CircleCI pipelines, which run on a push with the repository's secrets",
    ".buildkite": "Buildkite pipelines, which run on a push",
    ".lefthook": "git hook scripts of lefthook, which run on commit and push",
}
# A file in a given folder (None: any folder): (folder, name) -> what it is.
_FILES: dict[tuple[str | None, str], str] = {
    (None, ".mcp.json"): "MCP servers, which coder-tui and other agents start as programs in a trusted folder",
    (None, ".envrc"): "a shell script that direnv runs on entering the folder",
    (".vscode", "tasks.json"): "VS Code tasks, which can run when the folder is opened",
    (".vscode", "settings.json"): "VS Code settings, which can name programs the editor runs",
    (".vscode", "launch.json"): "VS Code launch configurations, which run programs",
    (".vscode", "mcp.json"): "MCP servers that VS Code starts",
    (None, ".pre-commit-config.yaml"): "pre-commit hooks, which run programs on every commit",
    **{(None, name): "lefthook's git hooks, which run programs on commit and push" for name in (
        "lefthook.yml", "lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml", ".lefthook.yml",
        ".lefthook.yaml",
    )},
    **{(None, name): "a CI pipeline, which runs on a push with the repository's secrets" for name in (
        ".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", "azure-pipelines.yaml", "bitbucket-pipelines.yml",
        "appveyor.yml", ".appveyor.yml", ".travis.yml", "cloudbuild.yaml", "cloudbuild.yml", ".drone.yml",
    )},
    (None, ".gitpod.yml"): "Gitpod's tasks, which run when the workspace opens",
    **{(None, name): "mise's settings, whose hooks and tasks run on entering the folder" for name in (
        "mise.toml", "mise.local.toml", ".mise.toml", ".mise.local.toml",
    )},
    **{(None, name): "a build script that an IDE runs by itself when the file changes" for name in (
        "build.rs", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "pom.xml",
    )},
    ("wrapper", "gradle-wrapper.properties"): "the Gradle wrapper, whose distribution URL names a program to run",
    **{(None, name): "a file Python runs at every start of an environment" for name in (
        "sitecustomize.py", "usercustomize.py", "pyvenv.cfg",
    )},
}
# Endings of names another tool runs or applies: ending -> what it is.
_ENDINGS: dict[str, str] = {
    ".code-workspace": "a VS Code workspace, whose settings and tasks the editor applies",
    ".sublime-project": "a Sublime Text project, whose build systems run programs",
    ".pth": "a Python path file, whose import lines Python runs at every start",
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
    if what is None:
        what = next((what for ending, what in _ENDINGS.items() if name.endswith(ending)), None)
    if what is None and name in _FOLDERS:
        what = _FOLDERS[name]  # the folder's own name as a file (a worktree's .git file names its git folder)
    return None if what is None else _reason(relative, what)


def _reason(relative: str, what: str) -> str:
    return f"writes {relative}: {what}; it configures what runs later, outside any approval"
