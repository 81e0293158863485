"""Fixtures for the TUI tests: snapshots stored in the top-level ``snapshots/`` folder, an app wired to the
scripted server, and a deterministic clock for tool durations.

pytest-textual-snapshot's ``snap_compare`` asks the ``snapshot`` fixture for its SVG extension; the ``snapshot``
fixture below hands out an assertion whose ``use_extension`` swaps in an extension that keeps the files in
``snapshots/<test module>/`` instead of ``tests/tui/__snapshots__/``.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from syrupy.location import PyTestLocation

SNAPSHOT_ROOT = Path(__file__).resolve().parents[2] / "snapshots"


class TopLevelSVGExtension(SVGImageExtension):
    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


class TopLevelSnapshotAssertion(SnapshotAssertion):
    def use_extension(self, extension_class: Any = None) -> SnapshotAssertion:
        return super().use_extension(TopLevelSVGExtension)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return TopLevelSnapshotAssertion(
        session=snapshot.session,
        extension_class=TopLevelSVGExtension,
        test_location=snapshot.test_location,
        update_snapshots=snapshot.update_snapshots,
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small project: what the tool calls of the scenarios read and edit."""
    root = tmp_path / "demo-project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text('def greet(name):\n    return "Hello " + name\n\nprint(greet("world"))\n')
    (root / "src" / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "README.md").write_text("# demo project\n")
    return root


@pytest.fixture(autouse=True)
def fixed_tool_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tool call takes exactly 12 ms, so durations in snapshots never vary."""
    import engine.orchestrator.tool_chain as tool_chain

    ticks = iter(range(0, 10**9, 12))
    clock = types.SimpleNamespace(perf_counter=lambda: next(ticks) / 1000)
    monkeypatch.setattr(tool_chain, "time", clock)


@pytest.fixture(autouse=True)
def fixed_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The system prompt names the workspace, the OS release and today's date, and the status line shows its
    token count: pin them (and keep the user's own config and skills out) so snapshots match on any machine."""
    from engine.context.system_prompt import Environment
    import engine.orchestrator.steps.prepare as prepare

    fixed = Environment(
        workspace=Path("/home/dev/demo-project"), os_name="Linux", today="2026-01-15", git_branch=None, git_status=None
    )
    monkeypatch.setattr(prepare, "probe_environment", lambda root: fixed)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture(autouse=True)
def fixed_sandbox_description(monkeypatch: pytest.MonkeyPatch) -> None:
    """/status and /permissions name the sandbox the machine offers; snapshots show the same line everywhere."""
    import engine.policy.policy as policy

    monkeypatch.setattr(policy, "describe", lambda support: "landlock (ABI 7): writes limited to the workspace")


@pytest.fixture(autouse=True)
def footer_keys_after_a_short_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the app the footer's keys (and the highlighter's warm-up) wait for the user to stop typing for 0.3 s
    (``between_keys.STOPPED_TYPING_S``); here for as short a pause as any other step waits for, so a test (and every
    snapshot) finds the footer complete right after ``ready()`` as before. The tests of that wait set it back."""
    from coder_tui.runtime import between_keys

    monkeypatch.setattr(between_keys, "STOPPED_TYPING_S", between_keys.PAUSED_S)
