"""Shared fixtures. Sub-folders keep their own conftest.py for what only they need."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest

from engine.sandbox.support import detect, feature_line
from tests.support.scripted_server import ScriptedServer

pytest_plugins = ["tests.support.parallel_snapshots"]


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A started scripted server with an empty script: the test adds replies with ``.add(...)``."""
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port of 127.0.0.1 where a connection is refused: bound for the whole test but never listening, so that no
    other process (a server of a test running in parallel) can take it meanwhile."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


@pytest.fixture(autouse=True)
def _user_config_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The user's state key (and anything else the engine keeps in the user's config folder) is made in a temp
    folder, never in the developer's home, when a test does not choose a folder itself."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))


@pytest.fixture(autouse=True)
def no_developer_model_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own model settings (``OPENAI_*``, ``CODER_*``) never reach a test, nor a process it starts:
    each test names the server, key and model it means (the README tells users to export these, and ``.ci/run``
    sets them to values that point nowhere to prove no test leans on them)."""
    for name in [name for name in os.environ if name.startswith(("OPENAI_", "CODER_"))]:
        monkeypatch.delenv(name)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The CI line: which kernel features this machine had, so a skipped confinement test is seen for what it is.
    Written here, not in ``tests/security/``, because with worker processes only the top conftest reaches the
    process that writes the summary."""
    reports = [report for kind in terminalreporter.stats.values() for report in kind]
    if any(getattr(report, "nodeid", "").startswith("tests/security/") for report in reports):
        terminalreporter.write_line(feature_line(detect()))
