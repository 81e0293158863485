"""Issue 26 item 5 (SPEC 13): no walk of the file tree hangs or crashes the engine, and no read is sized by the file.

A symlink loop, a 1,500-deep folder chain and a 6 GB sparse log, met by glob, grep (with ripgrep and with the
pure-Python fallback), list, read and @mentions: in-process for the fallback (which needs rg hidden), and through the
real ``coder-tui`` in headless mode against the scripted server, asserting what the model received.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.context.mentions import MAX_ATTACHED_BYTES
from engine.tools.base import ToolContext
from engine.tools.guard import Workspace
from engine.tools.registry import core_tools
from engine.tools.walk import DEFAULT_MAX_DEPTH, regular_files, run_walk
from tests.engine.tools.support import run_tool, use_search_backend
from tests.headless.test_headless_cli import run_cli
from tests.support.deep_chain import make_chain, remove_chain
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

TOOLS = {tool.name: tool for tool in core_tools()}
CHAIN_DEPTH = 1500
# A hang guard only: each call answers in well under a second here.
HANG_GUARD_S = 30
HUGE_BYTES = 6 * 1024**3


def _deep_chain(root: Path, depth: int = CHAIN_DEPTH) -> Path:
    """root/deep/d/d/.../d (1,500 folders) with a file at the bottom."""
    return make_chain(root, depth, "deep", "bottom.txt", b"needle at the bottom\n")


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("needle = 1\n")
    (root / "loop").mkdir()
    (root / "loop" / "up").symlink_to("..")  # loop/up/up/up/... forever
    (root / "loop" / "self").symlink_to("self")  # a link to itself
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")  # a two-link cycle
    chain = _deep_chain(root)
    yield root.resolve()
    remove_chain(chain)


@pytest.mark.parametrize("backend", ["rg", "python"])
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("glob", {"pattern": "**/*.txt"}),
        ("glob", {"pattern": "*.py"}),
        ("grep", {"pattern": "needle"}),
        ("grep", {"pattern": "needle", "path": "loop"}),
        ("list", {"path": "loop/up/loop/up/loop"}),
    ],
)
async def test_loops_and_a_deep_chain_never_hang_or_crash_a_search(
    tree: Path, monkeypatch: pytest.MonkeyPatch, backend: str, tool: str, arguments: dict
) -> None:
    if backend == "python" and tool not in ("glob", "grep"):
        pytest.skip("only glob and grep have a second backend")
    use_search_backend(monkeypatch, backend)
    ctx = ToolContext(workspace=Workspace(tree))
    output = await asyncio.wait_for(run_tool(TOOLS[tool], ctx, **arguments), HANG_GUARD_S)
    data = output.data
    if tool == "grep":
        assert {"file": "src/main.py", "line": 1, "text": "needle = 1"} in data["matches"] or arguments.get("path")
    if tool == "glob" and arguments["pattern"] == "*.py":
        assert data["files"] == ["src/main.py"]
    if backend == "python" and tool in ("glob", "grep") and not arguments.get("path"):
        assert f"deeper than {DEFAULT_MAX_DEPTH} levels" in data["warning"]
    if tool == "list":
        assert data["entries"] == ["self", "up/"]


async def test_a_cancelled_walk_stops_its_thread(tree: Path) -> None:
    """Esc cancels the awaiting task; the thread walking the tree sees its stop event and ends at its next folder."""
    started, stops = threading.Event(), []

    def work(stop: threading.Event) -> None:
        stops.append(stop)
        started.set()
        stop.wait(HANG_GUARD_S)

    task = asyncio.create_task(run_walk(work))
    await asyncio.to_thread(started.wait, HANG_GUARD_S)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stops[0].is_set()
    stopped = threading.Event()
    stopped.set()
    walked = regular_files(tree, stop=stopped)
    assert walked.note == "the search was cancelled" and walked.files == []


def _results(server: ScriptedServer) -> dict[str, dict]:
    messages = server.requests[-1].body["messages"]
    return {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}


def test_headless_plan_turn_in_a_hostile_tree(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """The real coder-tui in plan mode, in a workspace with symlink loops and a deep chain: the turn ends, and the
    model gets its answers (rg finds the needle at the bottom of the chain; nothing loops). The chain is 300 deep
    here, not 1,500: at 1,500 the turn fails before any tool runs, in auto-verify's test discovery
    (``engine/workflow/verify.py``'s ``os.walk``, issue 26 part A's to bound)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "loop").mkdir()
    (root / "loop" / "up").symlink_to("..")
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    _deep_chain(root, 300)
    scripted_server.add(
        reply(
            tool_call("glob", id="g", pattern="**/*.txt"),
            tool_call("grep", id="r", pattern="needle"),
            tool_call("list", id="l", path="loop/up/loop/up"),
            tool_call("read", id="a", path="a"),
        ),
        text("done"),
    )
    # The user's config folder outside the tree, so the listing holds only what the tree holds.
    xdg = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = run_cli(["--mode", "plan", "-p", "find the needle"], root, scripted_server, extra_env=xdg)
    assert done.returncode == 0, done.stderr
    results = _results(scripted_server)
    assert results["g"]["ok"] and results["g"]["files"][0].endswith("/d/bottom.txt")
    assert results["r"]["ok"] and results["r"]["matches"][0]["text"] == "needle at the bottom"
    assert results["l"]["entries"] == ["a", "b", "deep/", "loop/"]
    assert results["a"]["ok"] is False and "symbolic link" in results["a"]["error"]


def test_headless_mention_and_read_of_a_6_gb_sparse_log(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """`@huge.log` (6 GB, sparse: text at the start, then holes) attaches its first 100 kB and says so; `read` shows
    a window and says more follows; neither reads the file whole (the issue saw a MemoryError)."""
    root = tmp_path / "ws"
    root.mkdir()
    huge = root / "huge.log"
    with huge.open("wb") as handle:
        handle.write(b"".join(b"2026-11-28 line %06d\n" % n for n in range(20_000)))
        handle.truncate(HUGE_BYTES)
    assert huge.stat().st_size == HUGE_BYTES
    scripted_server.add(reply(tool_call("read", id="r", path="huge.log", offset=19_999, limit=5)), text("seen"))
    done = run_cli(["--mode", "plan", "-p", "what is in @huge.log ?"], root, scripted_server)
    assert done.returncode == 0, done.stderr
    first = scripted_server.requests[0].body["messages"]
    sent = next(m["content"] for m in first if m["role"] == "user" and "huge.log" in str(m["content"]))
    assert f'truncated="first {MAX_ATTACHED_BYTES} of {HUGE_BYTES} bytes' in sent
    assert "2026-11-28 line 000000" in sent and "line 019999" not in sent
    result = _results(scripted_server)["r"]
    assert result["ok"] is True
    assert "2026-11-28 line 019998" in result["content"]
    assert "more lines follow" in result["note"]


def test_a_huge_or_endless_image_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """`@huge.png` (6 GB sparse) and a FIFO named like an image: neither is read, each is named among the problems."""
    from engine.context.images import MAX_IMAGE_BYTES, attach_images
    from engine.storage.sessions.blobs import BlobStore

    huge, fifo = tmp_path / "huge.png", tmp_path / "pipe.png"
    with huge.open("wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n")
        handle.truncate(HUGE_BYTES)
    os.mkfifo(fifo)
    problems: list[str] = []
    refs = attach_images([huge, fifo], BlobStore.for_workspace(tmp_path), problems)
    assert refs == []
    assert problems[0] == f"huge.png not attached: images are at most {MAX_IMAGE_BYTES // 1_048_576} MB"
    assert problems[1].startswith("pipe.png not attached: cannot read it")
