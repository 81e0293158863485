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
