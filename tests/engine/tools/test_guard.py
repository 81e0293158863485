"""SPEC 13: every path is resolved, symlinks included, and must stay inside the workspace; .coder/ is not writable.

The cases live in data/hostile_paths.txt, one a line, so adding a case is one line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace
from engine.tools.guard import Workspace

CORPUS = Path(__file__).parent / "data" / "hostile_paths.txt"


def _cases() -> list[pytest.param]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        path, expected, *flags = line.split("\t")
        write = flags == ["write"]
        cases.append(pytest.param(path, expected, write, id=f"line{number}:{'write' if write else 'read'}:{path!r}"))
    return cases


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, str]:
    """The workspace the corpus talks about, and the values of its placeholders."""
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    for folder in (root / "src", root / ".coder" / "sessions", root / "dir with space", root / "café", outside):
        folder.mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / ".coder" / "config.json").write_text("{}\n")
    (root / "dir with space" / "file.txt").write_text("x\n")
    (root / "café" / "naïve.txt").write_text("x\n")
    (root / "~").write_text("a file called ~\n")
    (outside / "secret.txt").write_text("secret\n")
    links = {
        "link_in": root / "src",
        "link_out": outside,
        "link_out_file": outside / "secret.txt",
        "link_to_root_parent": tmp_path,
        "link_coder": root / ".coder",
        "dangling": root / "missing_target",
        "dangling_out": Path("/nonexistent-coder-tui-target/x"),
        "loop_a": root / "loop_b",
        "loop_b": root / "loop_a",
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    return {"root": str(root), "outside": str(outside), "alias": str(alias)}


@pytest.mark.parametrize(("path", "expected", "write"), _cases())
def test_guard_corpus(tree: dict[str, str], path: str, expected: str, write: bool) -> None:
    workspace = Workspace(tree["root"])
    path = path.format(**tree)
    if expected == "ok":
        resolved = workspace.resolve(path, write=write)
        assert resolved.is_relative_to(workspace.root)
        assert resolved == Path(os.path.realpath(resolved))
    else:
        with pytest.raises(PathOutsideWorkspace):
            workspace.resolve(path, write=write)


def test_guard_corpus_is_large_enough() -> None:
    assert len(_cases()) >= 30


def test_guard_resolves_symlinks_to_their_real_location(tree: dict[str, str]) -> None:
    workspace = Workspace(tree["root"])
    assert workspace.resolve("link_in/main.py") == Path(tree["root"]) / "src" / "main.py"


def test_guard_root_is_the_real_path_of_a_symlinked_folder(tree: dict[str, str]) -> None:
    assert Workspace(tree["alias"]).root == Path(tree["root"])


def test_guard_refusal_names_the_path_and_why(tree: dict[str, str]) -> None:
    workspace = Workspace(tree["root"])
    with pytest.raises(PathOutsideWorkspace, match=r"'link_out/secret.txt'.*outside the workspace"):
        workspace.resolve("link_out/secret.txt")
    with pytest.raises(PathOutsideWorkspace, match=r"'dangling'.*symbolic link whose target does not exist"):
        workspace.resolve("dangling")
    with pytest.raises(PathOutsideWorkspace, match=r"\.coder/.*read-only"):
        workspace.resolve(".coder/config.json", write=True)
    with pytest.raises(PathOutsideWorkspace, match="empty path"):
        workspace.resolve("")


def test_guard_refuses_a_nul_character(tree: dict[str, str]) -> None:
    with pytest.raises(PathOutsideWorkspace, match="NUL"):
        Workspace(tree["root"]).resolve("src/main.py\0.txt")


def test_guard_display_is_root_relative_posix(tree: dict[str, str]) -> None:
    workspace = Workspace(tree["root"])
    assert workspace.display(workspace.root) == "."
    assert workspace.display(workspace.resolve("src/main.py")) == "src/main.py"
    assert workspace.display(workspace.resolve("café/naïve.txt")) == "café/naïve.txt"


def test_guard_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError, match="missing"):
        Workspace(tmp_path / "missing")


def _swap_folder_for_symlink(folder: Path, target: Path) -> None:
    """What another process could do between the guard's check and the tool's use of the path."""
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    folder.symlink_to(target, target_is_directory=True)


def test_symlink_swapped_in_after_the_check_does_not_redirect_a_write(tmp_path: Path) -> None:
    from engine.tools.fileio import atomic_write

    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "f.txt").write_text("old")
    checked = Workspace(root).resolve("sub/f.txt", write=True)
    _swap_folder_for_symlink(root / "sub", outside)
    with pytest.raises(PathOutsideWorkspace, match="changed after it was checked"):
        atomic_write(checked, b"new", "sub/f.txt")
    assert list(outside.iterdir()) == []


def test_symlink_swapped_in_after_the_check_does_not_redirect_a_read(tmp_path: Path) -> None:
    from engine.tools.fileio import read_text_document

    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "f.txt").write_text("inside")
    (outside / "f.txt").write_text("secret")
    checked = Workspace(root).resolve("sub/f.txt")
    _swap_folder_for_symlink(root / "sub", outside)
    with pytest.raises(PathOutsideWorkspace):
        read_text_document(checked, "sub/f.txt")
