"""Fixtures for the tool tests: a fresh workspace in tmp_path and a tool context on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.tools.base import ToolContext
from engine.tools.guard import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(root))
