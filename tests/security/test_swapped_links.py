"""Issue 27 item 6 (SPEC 13, "opened where checked"): a symlink swapped in between the guard's check and the open
never leads a file tool, a search or an @mention out of the workspace.

The swap is driven deterministically: ``Workspace.resolve`` is wrapped so that, right after the real check, a folder
(or the file itself) of the checked path is replaced by a symlink to a folder outside holding a secret. Each case
runs with the kernel's ``openat2`` and with the per-component ``O_NOFOLLOW`` walk used where the kernel lacks it,
and with ripgrep and the pure-Python search. What is asserted is what the tool returned (what the model would
receive) and what happened outside, never which check fired.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.context.mentions import collect_mentions
from engine.errors import EngineError
from engine.tools import opened_where_checked
from engine.tools.base import ToolContext
from engine.tools.guard import Workspace
from engine.tools.registry import core_tools
from tests.engine.tools.support import run_tool, use_search_backend
from tests.security.conftest import snapshot

SECRET = "OUTSIDE-SECRET-4711"
TOOLS = {tool.name: tool for tool in core_tools()}


@pytest.fixture(params=["openat2", "component-walk"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "openat2" and not opened_where_checked.kernel_openat2:
        pytest.skip("this kernel has no openat2 (Linux 5.6+): the component walk is what runs here")
    if request.param == "component-walk":
        monkeypatch.setattr(opened_where_checked, "kernel_openat2", False)
    return request.param


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "ws", tmp_path / "out"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "notes.txt").write_text("inside notes\n")
    (root / "notes.txt").write_text("inside notes\n")
    outside.mkdir()
    (outside / "notes.txt").write_text(f"{SECRET}\n")
    return root.resolve(), outside.resolve()


Swap = Callable[[], None]


def _swap_folder(root: Path, outside: Path) -> Swap:
    def swap() -> None:
        (root / "sub").rename(root / "sub.moved")
        (root / "sub").symlink_to(outside, target_is_directory=True)

    return swap


def _swap_file(root: Path, outside: Path) -> Swap:
    def swap() -> None:
        (root / "notes.txt").unlink()
        (root / "notes.txt").symlink_to(outside / "notes.txt")

    return swap


@pytest.fixture
def swap_after_check(monkeypatch: pytest.MonkeyPatch) -> Callable[[Swap], list[str]]:
    """Arms ``swap`` to run once, right after the next ``Workspace.resolve`` has checked its path."""
    real = Workspace.resolve

    def arm(swap: Swap) -> list[str]:
        done: list[str] = []

        def resolve(self: Workspace, path: str, *, write: bool = False) -> Path:
            checked = real(self, path, write=write)
            if not done:
                swap()
                done.append(path)
            return checked

        monkeypatch.setattr(Workspace, "resolve", resolve)
        return done

    return arm


READS: list[tuple[str, dict[str, Any], str]] = [
    ("read", {"path": "sub/notes.txt"}, "folder"),
    ("read", {"path": "notes.txt"}, "file"),
    ("list", {"path": "sub"}, "folder"),
    ("grep", {"pattern": "SECRET|notes", "path": "sub"}, "folder"),
    ("grep", {"pattern": "SECRET|notes", "path": "sub/notes.txt"}, "folder"),
    ("grep", {"pattern": "SECRET|notes", "path": "notes.txt"}, "file"),
    ("glob", {"pattern": "*.txt", "path": "sub"}, "folder"),
]


@pytest.mark.parametrize("backend", ["rg", "python"])
@pytest.mark.parametrize(
    ("tool", "arguments", "swapped"), READS, ids=lambda v: json.dumps(v) if isinstance(v, dict) else str(v)
)
async def test_a_swapped_link_leads_no_read_outside(
    world: tuple[Path, Path],
    kernel: str,
    swap_after_check: Callable[[Swap], list[str]],
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
    tool: str,
    arguments: dict[str, Any],
    swapped: str,
) -> None:
    if backend == "python" and tool not in ("glob", "grep"):
        pytest.skip("only glob and grep have a second backend")
    use_search_backend(monkeypatch, backend)
    root, outside = world
    done = swap_after_check(_swap_folder(root, outside) if swapped == "folder" else _swap_file(root, outside))
    ctx = ToolContext(workspace=Workspace(root))
    try:
        output = await run_tool(TOOLS[tool], ctx, **arguments)
    except EngineError as exc:
        seen = str(exc)
        assert "changed after it was checked" in seen
    else:
        seen = json.dumps(output.data)
        # glob lists names only; the outside folder's file is named like the inside one, so nothing may be listed
        assert output.data.get("files", []) == [] and output.data.get("matches", []) == []
    assert done, "the swap did not happen"
    assert SECRET not in seen


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit", {"path": "sub/notes.txt", "old_string": "inside", "new_string": "changed"}),
        ("write", {"path": "sub/notes.txt", "content": "overwritten\n"}),
        ("write", {"path": "sub/new.txt", "content": "planted\n"}),
        ("write", {"path": "sub/deeper/new.txt", "content": "planted\n"}),
        ("patch", {"patch": "*** Begin Patch\n*** Delete File: sub/notes.txt\n*** End Patch\n"}),
        ("patch", {"patch": "*** Begin Patch\n*** Add File: sub/added.txt\n+planted\n*** End Patch\n"}),
        ("patch", {"patch": "*** Begin Patch\n*** Update File: sub/notes.txt\n@@\n-inside notes\n+changed\n"
                            "*** End Patch\n"}),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
async def test_a_swapped_link_leads_no_write_outside(
    world: tuple[Path, Path],
    kernel: str,
    swap_after_check: Callable[[Swap], list[str]],
    tool: str,
    arguments: dict[str, Any],
) -> None:
    root, outside = world
    before = snapshot(outside)
    names_before = sorted(p.name for p in outside.rglob("*"))
    done = swap_after_check(_swap_folder(root, outside))
    ctx = ToolContext(workspace=Workspace(root))
    with pytest.raises(EngineError, match="changed after it was checked"):
        await run_tool(TOOLS[tool], ctx, **arguments)
    assert done
    assert snapshot(outside) == before
    assert sorted(p.name for p in outside.rglob("*")) == names_before


def test_a_swapped_link_attaches_nothing_from_outside_to_a_mention(
    world: tuple[Path, Path], kernel: str, swap_after_check: Callable[[Swap], list[str]]
) -> None:
    root, outside = world
    for mention, swap in (("@sub/notes.txt", _swap_folder), ("@notes.txt", _swap_file)):
        done = swap_after_check(swap(root, outside))
        found = collect_mentions(f"look at {mention}", Workspace(root))
        assert done
        assert SECRET not in found.text
        assert any("changed after it was checked" in problem for problem in found.problems), found.problems


def test_openat2_is_what_runs_on_this_kernel() -> None:
    """The CI line: which of the two ways this machine uses (skips, with the reason, where it has no openat2)."""
    if not opened_where_checked.kernel_openat2:
        pytest.skip("no openat2 here: files are opened by the per-component O_NOFOLLOW walk")
    assert opened_where_checked.kernel_openat2
