from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support import plugin_free_pytest as plugin_free
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)


@pytest.fixture
def plugin_free_pytest(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Auto-verify's `pytest -q` loads none of this environment's plugins (``tests.support.plugin_free_pytest``):
    returns the `bash` settings that let the variable set here reach it."""
    monkeypatch.setenv(plugin_free.VARIABLE, "1")
    return plugin_free.BASH


@pytest.fixture(autouse=True)
def interpreter_bin_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Auto-verify runs `pytest -q` from PATH; the interpreter's own bin/ (where pytest is installed) need not be on
    it (a virtualenv not activated, pipx). A test that sets PATH itself overrides this."""
    scripts = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([scripts, os.environ.get("PATH", "")]))
