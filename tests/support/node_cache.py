"""npm packages that tests install once into a folder of ``.test-cache/`` and reuse on later runs.

The suite runs in several worker processes at once: a lock file beside the folder lets one of them install while
the others wait, then find the package there (two ``npm install`` in one folder at once leave it broken).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest


def npm_install_once(
    cache: Path, package_json: Path, installed: Path, needs: str, npm: Sequence[str] | None = None
) -> None:
    """Installs ``package_json``'s dependencies into ``cache`` unless ``installed`` (a path inside it) is already
    there. Skips the test, saying why, where Node.js or npm is missing (``needs`` names what cannot run then) or the
    install fails. ``npm``: the command that runs npm (default: the ``npm`` on the PATH)."""
    if npm is None:
        found = shutil.which("npm")
        if shutil.which("node") is None or found is None:
            pytest.skip(f"Node.js and npm are not installed: {needs} cannot run")
        npm = [found]
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / f"{cache.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed.exists():
            return
        cache.mkdir(exist_ok=True)
        shutil.copy(package_json, cache / "package.json")
        done = subprocess.run([*npm, "install", "--no-audit", "--no-fund"], cwd=cache, capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            pytest.skip(f"npm could not install {needs}: {done.stderr.strip()[-300:]}")
