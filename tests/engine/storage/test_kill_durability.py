"""Issue 5: kill -9 at any moment loses nothing that was committed. A subprocess appends messages through the
Store and is SIGKILLed at a random point (between appends or in the middle of one); after reopening, every message
whose append had returned is there, intact and in order, and the database is not damaged."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.storage.store import Store
from tests.engine.storage.append_worker import message_for

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
@pytest.mark.parametrize("seed", range(5))
def test_sigkill_never_loses_a_committed_message(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    acknowledged_goal = rng.randint(1, 40)
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.engine.storage.append_worker", str(tmp_path), str(seed)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert worker.stdout is not None
    try:
        session_id = worker.stdout.readline().split()[1]
        acknowledged = -1
        while acknowledged + 1 < acknowledged_goal:
            line = worker.stdout.readline()
            assert line.startswith("ok "), f"the worker stopped early: {line!r}"
            acknowledged = int(line.split()[1])
        # A random pause lands the kill anywhere in the next append, from its first byte to its COMMIT.
        time.sleep(rng.uniform(0, 0.004))
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        worker.stdout.close()
    assert worker.returncode == -signal.SIGKILL

    store = Store.open(tmp_path)
    try:
        stored = store.conversation.load(session_id).messages
        with store.db.read() as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()
    assert len(stored) >= acknowledged + 1
    assert stored == [message_for(seed, seq) for seq in range(len(stored))]
