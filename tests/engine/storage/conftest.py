"""Fixtures for the storage tests: a workspace, a store on it with a fake clock and no environment secrets."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.storage.db import Database, database_path
from engine.storage.redact import Redactor
from engine.storage.store import Store


class FakeClock:
    """Timestamps one millisecond apart, always increasing: orderings by time are deterministic."""

    def __init__(self) -> None:
        self._now = datetime(2025, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> str:
        self._now += timedelta(milliseconds=1)
        return self._now.isoformat(timespec="microseconds")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def store(workspace: Path) -> Iterator[Store]:
    opened = Store(Database.open(database_path(workspace)), redactor=Redactor({}), clock=FakeClock())
    yield opened
    opened.close()
