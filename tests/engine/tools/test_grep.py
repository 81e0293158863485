"""SPEC 5 grep(pattern, path?, glob?, ...): rg --json, .gitignore honoured, file/line/text results capped with a note.

The behaviours both backends share run twice: with rg, and with the pure-Python fallback used only without rg.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.base import ToolContext
from engine.tools.grep import GrepTool
from engine.tools.ripgrep import find_ripgrep
from tests.engine.tools.support import run_tool, use_search_backend, with_limits

grep = GrepTool()
needs_rg = pytest.mark.skipif(find_ripgrep() is None, reason="rg is not installed")


@pytest.fixture(params=[pytest.param("rg", marks=needs_rg), "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    use_search_backend(monkeypatch, request.param)
    return request.param


@pytest.fixture
def project(root: Path) -> Path:
    files = {
        "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return 0\n",
        "src/util.py": "def helper():\n    return 'hello world'\n",
        "README.md": "# Hello project\n",
        ".config/settings.toml": "greeting = 'hello'\n",
        ".git/HEAD": "hello from git\n",
        ".coder/sessions/s1.json": '{"content": "hello from an old session"}\n',
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def _hits(output_data: dict) -> list[tuple[str, int, str]]:
    return [(m["file"], m["line"], m["text"]) for m in output_data["matches"]]


async def test_grep_returns_file_line_and_text_sorted_by_path(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern="hello")
    assert _hits(output.data) == [
        (".config/settings.toml", 1, "greeting = 'hello'"),
        ("src/util.py", 2, "    return 'hello world'"),
    ]
    assert output.data["total"] == 2
    assert "note" not in output.data


async def test_grep_ignore_case(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern="hello", ignore_case=True)
    assert [m["file"] for m in output.data["matches"]] == [
        ".config/settings.toml",
        "README.md",
        "src/app.py",
        "src/util.py",
    ]


async def test_grep_is_a_regex_search(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern=r"^def \w+\(\):$")
    assert _hits(output.data) == [("src/app.py", 3, "def main():"), ("src/util.py", 1, "def helper():")]


async def test_grep_context_lines_are_marked(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern="print", path="src/app.py", context=1)
    assert output.data["matches"] == [
        {"file": "src/app.py", "line": 3, "text": "def main():", "context": True},
        {"file": "src/app.py", "line": 4, "text": "    print('Hello')"},
        {"file": "src/app.py", "line": 5, "text": "    return 0", "context": True},
    ]
    assert output.data["total"] == 1


async def test_grep_glob_restricts_the_files(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern="ello", glob="*.md", ignore_case=True)
    assert _hits(output.data) == [("README.md", 1, "# Hello project")]


async def test_grep_path_limits_the_search(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern="hello", path="src")
    assert _hits(output.data) == [("src/util.py", 2, "    return 'hello world'")]
    assert output.data["path"] == "src"


async def test_grep_caps_results_and_counts_them_all(backend: str, ctx: ToolContext, root: Path) -> None:
    (root / "many.txt").write_text("".join(f"match {n}\n" for n in range(50)))
    output = await run_tool(grep, with_limits(ctx, max_results=3), pattern="match")
    assert [m["line"] for m in output.data["matches"]] == [1, 2, 3]
    assert output.data["total"] == 50
    assert output.data["note"].startswith("truncated: showing 3 of 50 matching lines")


async def test_grep_cut_keeps_the_context_of_the_last_match(backend: str, ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("match 1\nafter\nbetween\nbefore\nmatch 2\n")
    output = await run_tool(grep, ctx, pattern="match", max_results=1, context=1)
    assert [(m["line"], m.get("context", False)) for m in output.data["matches"]] == [(1, False), (2, True)]
    assert output.data["total"] == 2


async def test_grep_max_results_overrides_the_default_cap(backend: str, ctx: ToolContext, root: Path) -> None:
    (root / "many.txt").write_text("".join(f"match {n}\n" for n in range(50)))
    output = await run_tool(grep, ctx, pattern="match", max_results=10)
    assert len(output.data["matches"]) == 10


async def test_grep_skips_binary_files(backend: str, ctx: ToolContext, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"needle\0\0\0")
    (root / "text.txt").write_text("needle\n")
    output = await run_tool(grep, ctx, pattern="needle")
    assert [m["file"] for m in output.data["matches"]] == ["text.txt"]


async def test_grep_cuts_over_long_lines(backend: str, ctx: ToolContext, root: Path) -> None:
    (root / "min.js").write_text("x" * 300 + "needle" + "y" * 300 + "\n")
    output = await run_tool(grep, with_limits(ctx, read_max_line_chars=50), pattern="needle")
    assert output.data["matches"][0]["text"] == "x" * 50 + " [... line cut at 50 characters]"


async def test_grep_invalid_regex_is_a_clear_error(backend: str, ctx: ToolContext, project: Path) -> None:
    with pytest.raises(ToolError, match=r"(?s)grep 'a\(' failed: .*(unclosed group|missing \))"):
        await run_tool(grep, ctx, pattern="a(")


async def test_grep_pattern_may_start_with_a_dash(backend: str, ctx: ToolContext, root: Path) -> None:
    (root / "cli.py").write_text("parser.add_argument('--verbose')\n")
    output = await run_tool(grep, ctx, pattern="--verbose")
    assert [m["line"] for m in output.data["matches"]] == [1]


async def test_grep_without_matches_is_an_empty_result(backend: str, ctx: ToolContext, project: Path) -> None:
    output = await run_tool(grep, ctx, pattern="no such text")
    assert output.data["matches"] == [] and output.data["total"] == 0


async def test_grep_does_not_follow_symlinks_out(backend: str, ctx: ToolContext, root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("needle\n")
    (root / "escape").symlink_to(tmp_path / "outside")
    (root / "secret_link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    output = await run_tool(grep, ctx, pattern="needle")
    assert output.data["matches"] == []


@needs_rg
async def test_grep_honours_gitignore(ctx: ToolContext, project: Path) -> None:
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "out.py").write_text("hello again\n")
    output = await run_tool(grep, ctx, pattern="hello again")
    assert output.data["matches"] == []


async def test_grep_refuses_a_path_outside_the_workspace(ctx: ToolContext) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await run_tool(grep, ctx, pattern="root", path="/etc")


async def test_grep_missing_path_is_a_clear_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="path not found: nope"):
        await run_tool(grep, ctx, pattern="x", path="nope")


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path("/proc", entry, "cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc to look for the rg process")
async def test_grep_cancellation_kills_rg(
    ctx: ToolContext, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An `rg` that never finishes stands in for a search that runs until it is cancelled.
    target = "searched-until-cancelled"  # the pattern: it is on rg's command line
    (root / "file.txt").write_text("x\n")
    slow_rg = tmp_path / "rg"
    slow_rg.write_text(f'#!/bin/sh\nexec {sys.executable} -c "import time; time.sleep(600)" "$@"\n')
    slow_rg.chmod(0o755)
    monkeypatch.setattr("engine.tools.grep.find_ripgrep", lambda: str(slow_rg))
    task = asyncio.create_task(run_tool(grep, ctx, pattern=target, path="file.txt"))
    for _ in range(500):
        if _processes_mentioning(target):
            break
        await asyncio.sleep(0.01)
    assert _processes_mentioning(target), "rg did not start"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _processes_mentioning(target) == []
