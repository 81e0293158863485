"""Fixtures of the server tests: the project folder an ACP session works in."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project with one buggy file (``calc.py``: ``add`` subtracts)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return root
