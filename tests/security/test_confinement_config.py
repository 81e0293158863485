"""SPEC 13: the settings that widen what an unasked command reads or sees (`sandbox.readable`, `bash.env`) come from
the user's own config only; a repository's `.coder/config.json` cannot set them, trusted or not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config.loader import load_config
from engine.sandbox import Confinement, SandboxGrant, detect
from engine.sandbox.child_env import approved_environment, unasked_environment
from engine.tools.bash import run_command


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("trust", [False, True])
def test_a_repository_cannot_widen_reads_or_the_environment(tmp_path: Path, trust: bool) -> None:
    root = tmp_path / "ws"
    xdg = tmp_path / "xdg"
    _write(xdg / "coder" / "config.json", {"sandbox": {"readable": ["/srv/mine"]}, "bash": {"env": ["MINE"]}})
    _write(root / ".coder" / "config.json",
           {"sandbox": {"readable": ["~"], "writable": ["/tmp"]}, "bash": {"env": ["OPENAI_API_KEY"], "timeout": 5}})  # fmt: skip
    loaded = load_config(root, {"XDG_CONFIG_HOME": str(xdg)}, trust=trust)
    assert loaded.config.sandbox.readable == ["/srv/mine"]
    assert loaded.config.bash.env == ["MINE"]
    keys = {issue.key for issue in loaded.issues}
    assert {"sandbox.readable", "bash.env"} <= keys
    if trust:  # the rest of the sections still applies from a trusted project
        assert loaded.config.bash.timeout == 5


def test_environment_allow_list_and_secret_names() -> None:
    parent = {
        "PATH": "/usr/bin", "HOME": "/h", "LC_ALL": "C", "JAVA_HOME": "/j", "DATABASE_URL": "pg://x", "MYSQL_PWD": "p",
        "GH_PAT": "g", "SENTRY_DSN": "d", "CI_JOB_JWT": "j", "SESSION_COOKIE": "c", "DB_PASS": "p", "AWS_ACCESS_KEY_ID": "k",
        "GIT_AUTHOR_NAME": "me", "EDITOR": "vi",
    }  # fmt: skip
    unasked = unasked_environment(parent, Path("/nonexistent"), "/t", ["JAVA_HOME"])
    assert {"PATH", "HOME", "LC_ALL", "JAVA_HOME", "TMPDIR"} <= unasked.keys()
    assert not {"DATABASE_URL", "MYSQL_PWD", "GH_PAT", "EDITOR", "GIT_AUTHOR_NAME"} & unasked.keys()
    approved = approved_environment(parent, "/t", ["GH_PAT"])
    assert approved["GH_PAT"] == "g" and approved["GIT_AUTHOR_NAME"] == "me" and approved["EDITOR"] == "vi"
    for name in ("DATABASE_URL", "MYSQL_PWD", "SENTRY_DSN", "CI_JOB_JWT", "SESSION_COOKIE", "DB_PASS", "AWS_ACCESS_KEY_ID"):
        assert name not in approved, name


@pytest.mark.skipif(not detect().confines_unasked, reason="this machine cannot confine reads")
async def test_sandbox_readable_adds_a_folder_for_unasked_commands(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    extra = tmp_path / "docs"
    extra.mkdir()
    (extra / "f.txt").write_text("shared docs\n")
    plain = await run_command(f"cat {extra}/f.txt", root, 20, 10_000, sandbox=SandboxGrant(Confinement.UNASKED))
    widened = SandboxGrant(Confinement.UNASKED, extra_readable=(str(extra),))
    allowed = await run_command(f"cat {extra}/f.txt", root, 20, 10_000, sandbox=widened)
    assert plain.stdout == "" and allowed.stdout == "shared docs\n"
