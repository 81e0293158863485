"""Where auto-verify may write (SPEC 8, 20; decision of 2026-12-07): its temp folder, and the build outputs and
caches a test run writes in the workspace; never configuration.

The test run executes the model's code (tests, `conftest.py`, package scripts), so what it may write is an allow-list
of folders, and nothing another tool reads as configuration or runs can be among them: not `.mcp.json`, a dotfile,
`.git/`, `.coder/`, an editor's folder, a manifest or a source file.

- Caches that can be moved are moved to the temp folder through the environment: Python's bytecode
  (``PYTHONPYCACHEPREFIX``), pytest's cache (``-o cache_dir`` in ``PYTEST_ADDOPTS``), coverage's data file, Go's
  build cache.
- The build output folders of the chosen command, at the top of the workspace of that tool's project (``target/``
  of cargo and Maven, ``build/`` and ``.gradle/`` of Gradle, the tool caches under an existing ``node_modules/``):
  made when missing, as the command would make them itself.
- The caches test tools keep in the workspace (``.hypothesis/``, ``htmlcov/``...), when they are already there.

A symbolic link is never granted (a grant follows it out of the workspace), nor made through.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

_NODE_CACHES = ("node_modules/.cache", "node_modules/.vite", "node_modules/.vitest")
_GRADLE = (("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"), ("build", ".gradle"))
# The build outputs each whitelisted command writes in the workspace, made when missing: (the files that make the
# workspace that tool's project, the outputs). A `build/` folder of a project that is not Gradle's is not an output.
_OUTPUTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cargo test": (("Cargo.toml",), ("target",)),
    "mvn -q test": (("pom.xml",), ("target",)),
    "gradle test": _GRADLE,
    "./gradlew test": _GRADLE,
    "npm test -- --watch=false": (("node_modules",), _NODE_CACHES),
    "pnpm test -- --watch=false": (("node_modules",), _NODE_CACHES),
    "yarn test --watch=false": (("node_modules",), _NODE_CACHES),
}
# Caches and reports test tools keep in the workspace whatever the command, granted when they exist (never a
# `build/` of another project: some keep their build scripts there).
_KEPT_CACHES = (".hypothesis", "htmlcov", ".nyc_output")


def verify_writable(workspace: Path, command: str) -> list[str]:
    """The workspace folders auto-verify running ``command`` may write, made first when the command makes them."""
    folders: list[str] = []
    markers, outputs = _OUTPUTS.get(command, ((), ()))
    if not any(_real_path(os.path.join(workspace, marker)) for marker in markers):
        outputs = ()
    for relative in outputs:
        folder = _inside(workspace, relative)
        if folder is not None and not os.path.lexists(folder) and os.path.isdir(os.path.dirname(folder)):
            try:
                os.mkdir(folder)
            except OSError:
                continue
        if folder is not None and _real_folder(folder) and folder not in folders:
            folders.append(folder)
    for relative in _KEPT_CACHES:
        folder = _inside(workspace, relative)
        if folder is not None and _real_folder(folder) and folder not in folders:
            folders.append(folder)
    return folders


def verify_environment(env: Mapping[str, str], tmpdir: str) -> dict[str, str]:
    """``env`` with the test tools' movable caches pointed into the temp folder."""
    addopts = f"-o cache_dir={shlex.quote(os.path.join(tmpdir, 'pytest-cache'))}"
    return {
        **env,
        "PYTHONPYCACHEPREFIX": os.path.join(tmpdir, "pycache"),
        "PYTEST_ADDOPTS": f"{addopts} {env['PYTEST_ADDOPTS']}" if env.get("PYTEST_ADDOPTS") else addopts,
        "COVERAGE_FILE": os.path.join(tmpdir, ".coverage"),
        "GOCACHE": os.path.join(tmpdir, "go-build"),
    }


def _inside(workspace: Path, relative: str) -> str | None:
    """``workspace/relative`` when no folder on the way is a link (``node_modules`` may not lead elsewhere)."""
    path = str(workspace)
    for part in relative.split("/"):
        if os.path.islink(path):
            return None
        path = os.path.join(path, part)
    return path


def _real_folder(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _real_path(path: str) -> bool:
    return os.path.exists(path) and not os.path.islink(path)
