"""SPEC 13: the environment of a command that runs unasked, and the git settings that outrank the repository's
config, driver names included (found through a `.git` file, `commondir` and `include.path`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.sandbox.child_env import FIXED_GIT_SETTINGS, PLAIN_DIFF, driver_settings, unasked_environment


def _settings(env: dict[str, str]) -> dict[str, str]:
    count = int(env["GIT_CONFIG_COUNT"])
    return {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(count)}


def test_unasked_environment_drops_what_changes_programs_and_secrets(tmp_path: Path) -> None:
    parent = {
        "PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8",
        "GIT_DIR": "/x", "GIT_CONFIG_PARAMETERS": "'core.pager'='evil'", "GIT_CONFIG_COUNT": "9",
        "LD_PRELOAD": "/x.so", "DYLD_INSERT_LIBRARIES": "/x", "BASH_ENV": "/x", "ENV": "/x",
        "BASH_FUNC_git%%": "() { evil; }", "PROMPT_COMMAND": "evil", "SHELLOPTS": "allexport", "CDPATH": "..",
        "OPENAI_API_KEY": "sk-123", "GITHUB_TOKEN": "t", "AWS_SECRET_ACCESS_KEY": "s", "DB_PASSWORD": "p",
        "TMPDIR": "/tmp/shared",
    }  # fmt: skip
    env = unasked_environment(parent, tmp_path, "/tmp/private")
    assert {"PATH", "HOME", "LANG"} <= env.keys()
    for name in ("GIT_DIR", "GIT_CONFIG_PARAMETERS", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV",
                 "BASH_FUNC_git%%", "PROMPT_COMMAND", "SHELLOPTS", "CDPATH", "OPENAI_API_KEY", "GITHUB_TOKEN",
                 "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD"):  # fmt: skip
        assert name not in env, name
    assert env["TMPDIR"] == "/tmp/private"
    assert _settings(env) == dict(FIXED_GIT_SETTINGS)  # not a repository: no drivers to neutralise
    assert _settings(env)["core.fsmonitor"] == "false" and _settings(env)["core.hooksPath"] == "/dev/null"


def test_drivers_are_found_through_a_gitdir_file_commondir_and_includes(tmp_path: Path) -> None:
    common = tmp_path / "main.git"
    worktree_dir = common / "worktrees" / "wt"
    worktree_dir.mkdir(parents=True)
    (worktree_dir / "commondir").write_text("../..\n")
    (worktree_dir / "config.worktree").write_text('[filter "wt"]\n\tclean = evil\n')
    (common / "config").write_text(
        '[core]\n\tbare = false\n[diff]\n\texternal = evil\n[diff "tc"]\n\ttextconv = evil\n'
        "[include]\n\tpath = extra.cfg\n"
        '[includeIf "gitdir:/nowhere/"] path = ../conditional.cfg\n'
        "[diff.oldstyle]\n\tcommand = evil\n"
    )
    (common / "extra.cfg").write_text('[filter "inc"]\n\tprocess = evil\n[include]\n\tpath = extra.cfg\n')
    (tmp_path / "conditional.cfg").write_text('[diff "cond"]\n\tcommand = evil\n')
    workspace = tmp_path / "wt"
    (workspace / "sub").mkdir(parents=True)
    (workspace / ".git").write_text(f"gitdir: {worktree_dir}\n")
    settings = dict(driver_settings(workspace / "sub"))
    assert settings["diff.external"] == PLAIN_DIFF
    assert settings["diff.tc.textconv"] == "cat" and settings["diff.tc.command"] == PLAIN_DIFF
    assert settings["diff.oldstyle.command"] == PLAIN_DIFF
    assert settings["diff.cond.command"] == PLAIN_DIFF
    assert settings["filter.wt.clean"] == "cat" and settings["filter.inc.process"] == ""
    assert settings["filter.inc.required"] == "false"


def test_repository_without_drivers_keeps_gits_own_diff(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n\tbare = false\n")
    assert driver_settings(tmp_path) == []


def test_drivers_of_every_repository_under_the_workspace_are_named(tmp_path: Path) -> None:
    """Nested repositories at any depth, a `.git` file's target and a bare repository under any name."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n\tbare = false\n")
    for folder, section in (("vendor/lib/.git", '[diff "nested"]'), ("a/b/c/d/e/f/.git", '[filter "deep"]'),
                            ("vendor/odd", '[diff "bare"]'), ("elsewhere/gitdir", '[filter "pointed"]')):  # fmt: skip
        git_dir = tmp_path / folder
        (git_dir / "objects").mkdir(parents=True)
        (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
        (git_dir / "config").write_text(f"{section}\n\tcommand = evil\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../elsewhere/gitdir\n")
    names = {key for key, _ in driver_settings(tmp_path)}
    assert {"diff.nested.command", "filter.deep.clean", "diff.bare.command", "filter.pointed.process"} <= names
    assert "diff.external" not in names


def test_a_scan_cut_short_switches_the_external_diff_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the walk's bound a repository may name an external diff unseen: it is replaced for every repository."""
    (tmp_path / ".git").mkdir()
    for index in range(5):
        (tmp_path / f"folder{index}").mkdir()
    monkeypatch.setattr("engine.sandbox.git_repos.MAX_FOLDERS", 3)
    assert dict(driver_settings(tmp_path))["diff.external"] == PLAIN_DIFF
