"""The capture's file events (engine/capture/watcher.py): gathered by watchfiles' own thread, read only when the
capture asks, so nothing of ours wakes while a model streams or the engine waits (issue 46)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.capture.watcher import Watcher


@pytest.fixture
def watcher(workspace: Path) -> Iterator[Watcher]:
    started = Watcher(workspace)
    yield started
    started.close()


def test_no_thread_of_the_engine_wakes_for_the_events(workspace: Path) -> None:
    before = {thread.ident for thread in threading.enumerate()}
    watcher = Watcher(workspace)
    try:
        assert {thread.ident for thread in threading.enumerate()} == before
    finally:
        watcher.close()


def test_what_changed_while_nobody_asked_is_taken_later(watcher: Watcher, workspace: Path) -> None:
    (workspace / "early.txt").write_text("1")
    (workspace / "sub").mkdir()
    time.sleep(0.3)  # no read meanwhile: the events wait in the watcher
    (workspace / "late.txt").write_text("2")
    assert watcher.sync()
    assert {"early.txt", "sub", "late.txt"} <= watcher.take()
    assert watcher.take() == set()


def test_a_sync_sees_every_change_made_before_it(watcher: Watcher, workspace: Path) -> None:
    for round_ in range(5):
        names = {f"f{round_}-{index}.txt" for index in range(20)}
        for name in names:
            (workspace / name).write_text(name)
        assert watcher.sync()
        assert names <= watcher.take()


def test_a_closed_watcher_says_it_cannot_sync(watcher: Watcher) -> None:
    watcher.close()
    assert not watcher.sync()
    assert watcher.take() == set()
