"""Where a command that runs unasked, and auto-verify, may read (SPEC 13, 20; decision of 2026-12-07): an allow-list.

- The workspace, the system's program, library and configuration folders, the private temp folder, a few devices,
  and the folders the user's own config adds (``sandbox.readable``).
- The toolchains' program and library folders: each ``PATH`` entry itself, and what a toolchain needs besides, by
  a small rule per toolchain (``TOOLCHAINS``: for ``~/.cargo/bin``, cargo's registry and rustup's toolchains; for
  ``~/.pyenv/shims``, pyenv's versions and scripts). Never the parent of a ``PATH`` entry as such: beside a
  toolchain's ``bin`` live its credentials (``~/.cargo/credentials.toml``, ``~/.docker/config.json``,
  ``~/.pulumi/credentials.json``, ``~/.fly/config.yml``). The one other way a parent is granted is when it is an
  installed prefix by its own marks (a virtual environment's ``pyvenv.cfg``, a conda environment's ``conda-meta``, a
  Go root's ``src/runtime``), or when it lies outside every home folder (``/srv/jdk`` for ``/srv/jdk/bin``).
- Credential files by name (``is_credential``) are denied on top. Landlock only allows, by folder tree, so a
  toolchain folder that holds such a name within two levels (``bin/.netrc``, a node prefix's ``etc/npmrc``) is
  granted child by child instead, without it (and without links, which a grant would follow to their target). The
  rules above point at program and library folders that hold none by design (``registry``, ``versions/*``), so two
  levels are enough to catch what a user put there.

Never the home folder itself nor any folder above it (a ``PATH`` entry of ``~`` grants nothing), and not ``/proc``:
it shows every process's command line, and through ``/proc/<pid>/environ`` what each was started with.
"""

from __future__ import annotations

import functools
import glob
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store")
# Names of files that hold credentials, never granted inside a toolchain's folders (matched without case): whole
# names, beginnings, endings and parts.
CREDENTIAL_NAMES = frozenset({
    "config", ".netrc", "_netrc", ".npmrc", "npmrc", ".pypirc", "hosts.yml", "hosts.yaml", "auth.json", ".dockercfg",
    ".env", ".htpasswd", "kubeconfig", ".condarc", "pip.conf", "pip.ini",
})  # fmt: skip
CREDENTIAL_STARTS = ("config.", "id_", ".env.", ".yarnrc")
CREDENTIAL_ENDS = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx")
CREDENTIAL_PARTS = ("credential", "token", "secret")
_PYENV_LIKE = ("bin", "shims", "versions/*", "libexec", "plugins", "version")
_NODE_PREFIX = ("bin", "lib", "include", "share")  # not `etc`: a prefix's `etc/npmrc` holds the registry token
# A toolchain's root folder, by name (found among a PATH entry's ancestors) -> what its programs read to run,
# relative to the root (glob patterns). Configuration and credentials beside them (`~/.cargo/config.toml`,
# `~/.cargo/credentials.toml`) stay unreadable.
TOOLCHAINS: dict[str, tuple[str, ...]] = {
    ".cargo": ("bin", "registry", "git", "../.rustup/toolchains/*", "../.rustup/settings.toml"),
    ".rustup": ("toolchains/*", "settings.toml"),
    ".pyenv": (*_PYENV_LIKE, "pyenv.d"),
    ".rbenv": (*_PYENV_LIKE, "rbenv.d"),
    ".nodenv": (*_PYENV_LIKE, "nodenv.d"),
    ".goenv": _PYENV_LIKE,
    ".plenv": _PYENV_LIKE,
    ".jenv": _PYENV_LIKE,
    ".nvm": tuple(f"versions/*/*/{folder}" for folder in _NODE_PREFIX),
    ".asdf": ("bin", "shims", "installs/*/*", "plugins", "lib", "libexec", "asdf.sh", "../.tool-versions"),
    ".sdkman": ("candidates/*/*", "bin", "libexec"),
    ".volta": ("bin", *(f"tools/image/node/*/{folder}" for folder in _NODE_PREFIX), "tools/image/npm/*",
               "tools/image/yarn/*", "tools/user/bins", "tools/user/platform.json"),
    ".bun": ("bin", "install/global/node_modules"),
    ".deno": ("bin",),
    "go": ("bin", "pkg/mod"),
    ".local": ("bin", "lib/python*", "share/pipx/venvs", "pipx/venvs", "share/uv/tools", "share/uv/python"),
    ".linuxbrew": ("bin", "sbin", "lib", "opt", "Cellar", "share", "include", "Homebrew"),
}  # fmt: skip
# A PATH entry named so is a toolchain's program folder; its parent is the toolchain's prefix.
_PROGRAM_FOLDERS = frozenset({"bin", "sbin", "shims"})
# Marks of an installed prefix, whose whole folder a program in its `bin` reads (the standard library, site-packages).
_PREFIX_MARKS = ("pyvenv.cfg", "conda-meta", "src/runtime")
# Where other people's home folders are; outside them (and the user's own), a `bin` entry's parent is a prefix.
_HOMES = ("/home", "/root", "/Users", "/var/home")


def readable_folders(
    workspace: Path, tmpdir: str, env: Mapping[str, str], extra: Iterable[str] = ()
) -> list[str]:
    """The folders (and a few files) an unasked command may read, real paths, without repeats; none is the home
    folder or above it, none is named like a credential outside the system folders, the workspace and ``extra``."""
    home = _real(env.get("HOME") or os.path.expanduser("~"))
    plain, toolchain = _candidates(str(workspace), env.get("PATH", ""), home, tuple(extra))
    found = [tmpdir, *plain]
    for candidate in toolchain:  # looked at on every call: a credential file may have appeared since
        for granted in without_credentials(candidate):
            _add(found, granted, home)
    return found


@functools.lru_cache(maxsize=16)
def _candidates(workspace: str, path_variable: str, home: str, extra: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(folders granted whole, toolchain folders to check for credentials), real paths, worked out once per
    workspace, PATH, home and config (a few dozen stat calls)."""
    plain: list[str] = []
    for candidate in (workspace, *SYSTEM_FOLDERS, *glob.glob("/lib*"), *(os.path.expanduser(f) for f in extra)):
        _add(plain, _real(candidate), home)
    toolchain: list[str] = []
    for candidate in (*_toolchains(path_variable, home), sys.prefix, sys.base_prefix):
        real = _real(candidate)
        if _is_home_or_above(real, home) or real in toolchain:
            continue
        if not any(real == folder or _under(real, folder) for folder in plain):  # not inside /usr and the like
            toolchain.append(real)
    return plain, toolchain


def without_credentials(path: str, depth: int = 2) -> list[str]:
    """``path`` itself, or, when a credential's name is found in it within ``depth`` levels, the parts of it that
    hold none: its other children (links left out, since a grant follows them), split the same way. A file named
    like a credential is nothing."""
    if not path or not os.path.lexists(path) or is_credential(os.path.basename(path)):
        return []
    if not os.path.isdir(path) or depth == 0:
        return [path]
    try:
        entries = list(os.scandir(path))
    except OSError:
        return []
    parts: list[str] = []
    whole = True
    for entry in entries:
        if is_credential(entry.name):
            whole = False
        elif entry.is_dir(follow_symlinks=False) and depth > 1:
            inner = without_credentials(entry.path, depth - 1)
            whole = whole and inner == [entry.path]
            parts += inner
        elif not entry.is_symlink():
            parts.append(entry.path)
    if whole:
        return [path]
    return parts


def is_credential(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered in CREDENTIAL_NAMES
        or lowered.startswith(CREDENTIAL_STARTS)
        or lowered.endswith(CREDENTIAL_ENDS)
        or any(part in lowered for part in CREDENTIAL_PARTS)
    )


def _toolchains(path_variable: str, home: str) -> list[str]:
    """For each absolute PATH entry: the entry, what its toolchain's rule names, its prefix when marked as one."""
    folders: list[str] = []
    for entry in path_variable.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative PATH entry names whatever folder the command is in: the workspace already
        real = _real(entry)
        folders.append(real)
        root = _toolchain_root(real, home)
        if root is not None:
            for need in TOOLCHAINS[os.path.basename(root)]:
                folders += glob.glob(os.path.normpath(os.path.join(glob.escape(root), need)))
        parent = os.path.dirname(real)
        if os.path.basename(real) in _PROGRAM_FOLDERS and _is_prefix(parent, home):
            folders.append(parent)
    return folders


def _toolchain_root(folder: str, home: str) -> str | None:
    """The nearest ancestor of ``folder`` (itself included) named in ``TOOLCHAINS``, below the home folder when the
    folder is in it (`~/.local/bin`'s `.local`, never a `go` folder above the home)."""
    current = folder
    while current not in ("/", "") and current != home:
        if os.path.basename(current) in TOOLCHAINS:
            return current
        current = os.path.dirname(current)
    return None


def _is_prefix(folder: str, home: str) -> bool:
    if any(os.path.exists(os.path.join(folder, mark)) for mark in _PREFIX_MARKS):
        return True
    return not _under(folder, home) and not any(_under(folder, h) or folder == h for h in _HOMES)


def _add(found: list[str], path: str, home: str) -> None:
    if not path or not os.path.exists(path) or _is_home_or_above(path, home):
        return
    if not any(path == folder or _under(path, folder) for folder in found):
        found.append(path)


def _under(path: str, folder: str) -> bool:
    return bool(folder) and path.startswith(folder.rstrip("/") + "/")


def _is_home_or_above(folder: str, home: str) -> bool:
    if folder == "/":
        return True
    return bool(home) and (home == folder or _under(home, folder))


def _real(path: str) -> str:
    return os.path.realpath(path) if path else ""
