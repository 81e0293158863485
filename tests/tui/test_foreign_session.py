"""SPEC 19 in the full screen: a session that came with the repository (made under another user's key) resumes
with its history shown, but in the mode the user runs, never its saved yolo, and the screen says why."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.notice_line import NoticeLine
from engine.messages import Message
from engine.storage.db import Database, database_path
from engine.storage.provenance import StateKey
from engine.storage.sessions.seals import SessionSeals
from engine.storage.store import Store
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit


def ship_yolo_session(workspace: Path, attacker_config: Path) -> str:
    seals = SessionSeals(StateKey.load({"XDG_CONFIG_HOME": str(attacker_config)}), workspace)
    store = Store(Database.open(database_path(workspace)), seals=seals)
    try:
        session_id = store.sessions.create(model="scripted-model", mode="yolo", session_id="shipped00001")
        store.conversation.append(session_id, Message.user("hello from the repository"))
        store.conversation.append(session_id, Message.assistant("shipped answer"))
    finally:
        store.close()
    return session_id


async def test_resuming_a_shipped_yolo_session_keeps_the_users_mode(
    workspace: Path, scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    session_id = ship_yolo_session(workspace, tmp_path / "attacker-config")
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, f"/resume {session_id}")
        await settle(pilot)
        notices = [str(n.render()) for n in app.session.transcript.query(NoticeLine)]
        assert any("session shipped00001 was not made by your coder-tui" in n and "yolo" in n for n in notices)
        assert app.link.mode.value == "default"
