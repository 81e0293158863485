"""Tab completion rules: which token completes, slash commands by prefix, @paths fuzzily, what gets inserted."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest

from coder_tui.input.completion import (
    Completion,
    Token,
    apply_completion,
    fuzzy_score,
    path_completions,
    slash_completions,
    token_at_cursor,
)
from coder_tui.input.file_index import list_workspace_paths

COMMANDS = [("/help", "help"), ("/model", "model"), ("/mode", "mode"), ("/permissions", "perms"), ("/new", "new")]


def test_slash_token_only_as_the_first_word_of_the_input() -> None:
    assert token_at_cursor("/mo", 3, first_line=True) == Token("slash", 0, 3, "/mo")
    assert token_at_cursor("see /mo", 7, first_line=True) is None
    assert token_at_cursor("/mo", 3, first_line=False) is None


def test_mention_token_anywhere_under_the_cursor() -> None:
    assert token_at_cursor("read @src/ap and fix", 12, first_line=False) == Token("mention", 5, 12, "@src/ap")
    assert token_at_cursor("read @src/ap and fix", 16, first_line=True) is None


def test_slash_completions_by_prefix_then_fuzzy() -> None:
    assert [c.value for c in slash_completions("/mo", COMMANDS)] == ["/model", "/mode"]
    assert [c.value for c in slash_completions("/prm", COMMANDS)] == ["/permissions"]
    assert slash_completions("/zz", COMMANDS) == []


def test_fuzzy_path_prefers_file_names_and_runs() -> None:
    paths = ["a/b/deep/py.txt", "src/app.py", "docs/api.md", "src/"]
    assert path_completions("apy", paths)[0] == Completion("@src/app.py")
    assert fuzzy_score("xyz", "src/app.py") is None


def test_empty_mention_lists_shallow_paths_first() -> None:
    values = [c.value for c in path_completions("", ["src/deep/x.py", "README.md", "src/"])]
    assert values == ["@src/", "@README.md", "@src/deep/x.py"]


def test_applying_a_completion_adds_a_space_except_after_a_folder() -> None:
    token = Token("mention", 5, 8, "@sr")
    assert apply_completion("read @sr", token, Completion("@src/app.py")) == ("@src/app.py ", 17)
    assert apply_completion("read @sr", token, Completion("@src/")) == ("@src/", 10)
    assert apply_completion("read @sr now", token, Completion("@src/app.py")) == ("@src/app.py", 17)


@pytest.mark.parametrize("path_env", ["inherited", "without the environment's bin/"])
def test_workspace_paths_honour_gitignore_and_include_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path_env: str
) -> None:
    """A virtualenv not activated, pipx or `uv tool`: `rg` is beside the interpreter, not on PATH."""
    if path_env != "inherited":
        scripts = sysconfig.get_path("scripts")
        kept = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != Path(scripts)]
        monkeypatch.setenv("PATH", os.pathsep.join(p for p in kept if not (Path(p) / "rg").exists()))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.bin").write_text("")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / ".git").mkdir()
    paths = list_workspace_paths(tmp_path)
    assert "src/app.py" in paths and "src/" in paths
    assert not any(path.startswith(("build", ".git/")) for path in paths)
