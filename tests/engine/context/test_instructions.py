"""SPEC 10: project instructions from AGENTS.md / CODER.md, root down to the working directory, plus the user's."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.context.instructions import MAX_INSTRUCTION_CHARS, load_instructions, repository_root


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """An environment whose home and config folder are empty folders of the test."""
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home")}


def test_no_instruction_files_gives_empty_text(tmp_path: Path, home: dict[str, str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    found = load_instructions(workspace, env=home)
    assert found.text == "" and found.files == () and not found.truncated


def test_files_from_repository_root_down_to_cwd_in_order(tmp_path: Path, home: dict[str, str]) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("Use tabs.")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "CODER.md").write_text("Package rules.")
    (repo / "pkg" / "sub").mkdir()
    (repo / "pkg" / "sub" / "AGENTS.md").write_text("Sub rules.")
    (repo / "pkg" / "sub" / "CODER.md").write_text("Sub coder rules.")
    (repo / "other").mkdir()
    (repo / "other" / "AGENTS.md").write_text("Not on the way.")
    found = load_instructions(repo / "pkg", cwd=repo / "pkg" / "sub", env=home)
    assert [f.label for f in found.files] == ["AGENTS.md", "pkg/CODER.md", "pkg/sub/AGENTS.md", "pkg/sub/CODER.md"]
    text = found.text
    assert text.index("## AGENTS.md\n\nUse tabs.") < text.index("## pkg/CODER.md\n\nPackage rules.")
    assert text.index("Package rules.") < text.index("Sub rules.") < text.index("Sub coder rules.")
    assert "Not on the way." not in text


def test_without_git_the_workspace_root_is_the_top(tmp_path: Path, home: dict[str, str]) -> None:
    (tmp_path / "AGENTS.md").write_text("Above the workspace.")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Workspace rules.")
    found = load_instructions(workspace, env=home)
    assert repository_root(workspace, workspace) == workspace
    assert "Workspace rules." in found.text and "Above the workspace." not in found.text


def test_a_git_file_marks_the_root_too(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: elsewhere")
    (tmp_path / "a").mkdir()
    assert repository_root(tmp_path / "a", tmp_path / "a") == tmp_path


def test_global_file_comes_first_and_respects_xdg_config_home(tmp_path: Path, home: dict[str, str]) -> None:
    config = tmp_path / "xdg" / "coder"
    config.mkdir(parents=True)
    (config / "AGENTS.md").write_text("Answer in English.")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Project rules.")
    found = load_instructions(workspace, env={**home, "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert found.files[0].path == (config / "AGENTS.md").resolve()
    assert found.text.index("Answer in English.") < found.text.index("Project rules.")


def test_global_file_defaults_to_home_config_and_is_named_from_home(tmp_path: Path, home: dict[str, str]) -> None:
    config = Path(home["HOME"]) / ".config" / "coder"
    config.mkdir(parents=True)
    (config / "AGENTS.md").write_text("Be terse.")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    found = load_instructions(workspace, env=home)
    assert found.files[0].label == "~/.config/coder/AGENTS.md"
    assert "## ~/.config/coder/AGENTS.md\n\nBe terse." in found.text


def test_instructions_are_capped_and_say_so(tmp_path: Path, home: dict[str, str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("x" * 500)
    found = load_instructions(workspace, env=home, max_chars=200)
    assert found.truncated
    assert found.text.startswith("## AGENTS.md\n\nxxx")
    assert "[instructions cut here:" in found.text and "200-character cap" in found.text
    assert len(found.text) < 300


def test_default_cap_is_32_kib(tmp_path: Path, home: dict[str, str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("y" * (MAX_INSTRUCTION_CHARS + 10))
    found = load_instructions(workspace, env=home)
    assert found.truncated and MAX_INSTRUCTION_CHARS == 32 * 1024


def test_empty_and_undecodable_files(tmp_path: Path, home: dict[str, str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("   \n")
    (workspace / "CODER.md").write_bytes(b"caf\xe9 rules")
    found = load_instructions(workspace, env=home)
    assert [f.label for f in found.files] == ["CODER.md"]
    assert "caf\ufffd rules" in found.text


def test_a_cap_below_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_chars"):
        load_instructions(tmp_path, max_chars=0)
