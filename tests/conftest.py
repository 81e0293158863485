"""Shared fixtures. Sub-folders keep their own conftest.py for what only they need."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.scripted_server import ScriptedServer


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A started scripted server with an empty script: the test adds replies with ``.add(...)``."""
    with ScriptedServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _user_config_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The user's state key (and anything else the engine keeps in the user's config folder) is made in a temp
    folder, never in the developer's home, when a test does not choose a folder itself."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
