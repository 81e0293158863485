"""Issue 18: a process killed with SIGKILL while a compaction runs (its summary request in flight) loses nothing:
every message made is in the database, and the resumed session is valid for the API and compacts again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from engine.context.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS
from engine.storage.sessions.records import CompactionMarker, HistoryMessage
from engine.storage.store import Store
from tests.engine.orchestrator.test_crash_resume import assert_valid_for_the_api
from tests.support.fakes import make_orchestrator
from tests.support.scenario import ReplyLike, reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[3]
FILLER = "The parser reads tokens, builds a tree, and the checker walks it to report each error it finds. " * 6
REQUESTS = ("create notes.txt", "/compact", "a second question", "/compact")


class Script:
    """Turn replies in order; the summary requests are answered until the ``stall_at``-th, which never ends."""

    def __init__(self, stall_at: int) -> None:
        self.replies: list[ReplyLike] = [
            reply(tool_call("write", id="w1", path="notes.txt", content="one\n")),
            text(f"Written. {FILLER}"),
            text(f"Second answer. {FILLER}"),
        ]
        self.stall_at = stall_at
        self.summaries = 0

    def __call__(self, body: dict[str, Any]) -> ReplyLike:
        if body["messages"][0]["content"] == SUMMARY_INSTRUCTIONS:
            self.summaries += 1
            if self.summaries >= self.stall_at:
                return stall(after=reply(text("## Goal\nPartial")), seconds=60)
            return text(f"SUMMARY {self.summaries}")
        return self.replies.pop(0) if self.replies else text(f"Later answer. {FILLER}")


def kill_during_summary(workspace: Path, server: ScriptedServer, script: Script) -> None:
    """Runs ``REQUESTS`` in a driver process and SIGKILLs it once the stalled summary request has reached the server."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # the user config folder: the autouse temp one, as this process uses
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.crash_driver", str(workspace), server.base_url, "yolo", *REQUESTS],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while script.summaries < script.stall_at:
            if process.poll() is not None:
                raise AssertionError(f"the driver ended early: {process.stderr.read().decode()}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise AssertionError("the compaction was never reached")
            time.sleep(0.02)
        time.sleep(0.2)  # the first bytes of the summary are on their way
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize("stall_at", [1, 2], ids=["first-compaction", "second-compaction"])
async def test_killed_mid_compaction_loses_nothing_and_resumes_valid(tmp_path: Path, stall_at: int) -> None:
    script = Script(stall_at)
    server = ScriptedServer(fallback=script).start()
    try:
        kill_during_summary(tmp_path, server, script)
        store = Store.open(tmp_path, environ={})
        try:
            session_id = store.sessions.latest_id()
            assert session_id is not None
            history = store.conversation.history(session_id)
            view = store.conversation.load(session_id).messages
        finally:
            store.close()
        made = [e.message.content for e in history if isinstance(e, HistoryMessage)]
        expected_requests = ["create notes.txt"] + (["a second question"] if stall_at == 2 else [])
        assert [c for c in made if c in REQUESTS] == expected_requests
        assert len(made) == (4 if stall_at == 1 else 6)  # request, call, result, answer (+ request, answer)
        assert len([e for e in history if isinstance(e, CompactionMarker)]) == stall_at - 1
        assert_valid_for_the_api(view)
        if stall_at == 2:
            assert (view[0].content or "").startswith(SUMMARY_HEADER) and "SUMMARY 1" in (view[0].content or "")

        script.stall_at = 99
        orch, _, _ = make_orchestrator(tmp_path, server.base_url)
        assert (await orch.run_input("/resume --last")).ok
        assert [m.to_record() for m in orch.session.messages] == [m.to_record() for m in view]
        assert (await orch.run_input("/compact")).ok
        assert_valid_for_the_api(orch.session.messages)
        assert (orch.session.messages[0].content or "").startswith(SUMMARY_HEADER)
        assert (await orch.run_input("one more")).ok
        assert_valid_for_the_api(orch.session.messages)
    finally:
        server.stop()
