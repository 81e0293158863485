"""Issue 11 finding 8: a full disk mid-turn, an empty database beside the session files, an @-mention with a name
the file system refuses. Each is a clear message; nothing saved is lost; no temp file is left."""

from __future__ import annotations

import errno
from collections.abc import AsyncIterator
import json
import os
from pathlib import Path

import pytest

from engine.context.mentions import collect_mentions
from engine.events import ErrorEvent
from engine.storage.db import database_path
from engine.storage.sessions.snapshot import sessions_dir
from engine.storage.store import Store
from engine.tools.guard import Workspace
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer




async def test_disk_full_mid_turn_is_a_clear_error_and_loses_nothing(
    tmp_path: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    scripted_server.add(text("first answer"), reply(tool_call("read", path="a.txt")), text("never saved"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    assert (await orch.run_input("first")).ok
    snapshot = orch.session.path
    saved_before = snapshot.read_bytes()

    # The snapshot is appended to in place (pwrite) or rewritten (temp file + replace): both meet a full disk.
    real_replace, real_pwrite = os.replace, os.pwrite

    def no_space() -> OSError:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def full_replace(source: object, target: object) -> None:
        if str(target).endswith(".json"):
            raise no_space()
        real_replace(source, target)  # type: ignore[arg-type]

    def full_pwrite(fd: int, data: bytes, offset: int) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".json"):
            raise no_space()
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(os, "replace", full_replace)
    monkeypatch.setattr(os, "pwrite", full_pwrite)
    outcome = await orch.run_input("second")
    monkeypatch.setattr(os, "replace", real_replace)
    monkeypatch.setattr(os, "pwrite", real_pwrite)

    assert outcome.reason == "error"
    (error,) = [e.message for e in log.of(ErrorEvent)]
    assert f"cannot save the session file {snapshot}: No space left on device" in error
    assert "internal error" not in error
    assert list(sessions_dir(tmp_path).glob("*.tmp")) == [] and list(sessions_dir(tmp_path).glob(".*.tmp")) == []
    assert snapshot.read_bytes() == saved_before  # the last good snapshot is intact
    stored = [m.content for m in orch.store.conversation.load(orch.session_id).messages]
    assert stored[:3] == ["first", "first answer", "second"]


async def test_empty_database_is_rebuilt_from_the_session_files(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(text("older answer"), text("latest answer"))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("older request")
    older = orch.session_id
    orch.new_session()
    await orch.run_input("latest request")
    latest = orch.session_id
    await orch.aclose()
    database = database_path(tmp_path)
    for leftover in database.parent.glob("coder.db-*"):
        leftover.unlink()
    database.write_bytes(b"")

    store = Store.open(tmp_path)
    try:
        assert len(store.rebuilt) == 2 and all("restored from its snapshot" in note for note in store.rebuilt)
        assert store.sessions.latest_id() == latest
        contents = [m.content for m in store.conversation.load(older).messages]
        assert contents == ["older request", "older answer"]
    finally:
        store.close()


def test_a_database_that_has_content_is_never_rebuilt(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.close()
    sessions_dir(tmp_path).mkdir(parents=True)
    (sessions_dir(tmp_path) / "x.json").write_text(json.dumps({"id": "x", "messages": []}))
    again = Store.open(tmp_path)
    try:
        assert again.rebuilt == [] and again.sessions.latest_id() is None
    finally:
        again.close()


def test_mention_with_a_name_too_long_is_named_and_the_request_still_goes(tmp_path: Path) -> None:
    name = "a" * 300
    request = f"look at @{name} please"
    found = collect_mentions(request, Workspace(tmp_path))
    content, problems = found.text, found.problems
    assert content == request
    (problem,) = problems
    assert problem.startswith("@aaaa") and "…" in problem and "File name too long" in problem
    assert len(problem) < 120
