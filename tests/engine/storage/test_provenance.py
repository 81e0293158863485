"""SPEC 19: the per-user state key, the session seals made with it, and the migration of sessions stored before
seals existed (adopted as the user's own unless the repository's git tracks something under ``.coder/``)."""

from __future__ import annotations

import shutil
import sqlite3
import stat
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from engine.storage.db import database_path
from engine.storage.errors import StorageError
from engine.storage.names import checked_name, is_safe_name
from engine.storage.provenance import StateKey, key_path
from engine.storage.sessions.seals import SessionSeals
from engine.storage.store import Store

V2_DATABASE = Path(__file__).parent / "data" / "v2.db"


def env(tmp_path: Path, who: str = "me") -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / who)}


def test_the_key_is_made_once_readable_by_the_user_only(tmp_path: Path) -> None:
    first = StateKey.load(env(tmp_path))
    path = key_path(env(tmp_path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert StateKey.load(env(tmp_path)).sign("a") == first.sign("a")
    assert StateKey.load(env(tmp_path, "other")).sign("a") != first.sign("a")


def test_a_key_others_can_read_or_a_linked_key_is_refused(tmp_path: Path) -> None:
    StateKey.load(env(tmp_path))
    path = key_path(env(tmp_path))
    path.chmod(0o644)
    with pytest.raises(StorageError, match="chmod 600"):
        StateKey.load(env(tmp_path))
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StorageError, match="not a link"):
        StateKey.load(env(tmp_path))


def test_a_seal_names_the_session_and_the_workspace(tmp_path: Path) -> None:
    key = StateKey.load(env(tmp_path))
    here, there = SessionSeals(key, tmp_path / "a"), SessionSeals(key, tmp_path / "b")
    seal = here.make("abc123")
    assert here.holds("abc123", seal)
    assert not here.holds("abc124", seal) and not there.holds("abc123", seal)
    assert not here.holds("abc123", None) and not here.holds("abc123", "0" * 64)


@pytest.mark.parametrize(
    "name", ["..", "../x", "a/b", "a\\b", "a\x00b", "%2e%2e", ".hidden", "", "a" * 200, "a..b.c", "é", "a b"]
)
def test_names_that_could_become_another_path_are_refused(name: str) -> None:
    assert not is_safe_name(name)
    with pytest.raises(StorageError, match="refused session id"):
        checked_name(name, "session id")


@pytest.mark.parametrize("name", ["0123456789ab", "v2session000", "session-1", f"{'f' * 64}.png", "fork_2"])
def test_names_coder_tui_makes_pass(name: str) -> None:
    assert is_safe_name(name)


def copy_v2(workspace: Path) -> None:
    database_path(workspace).parent.mkdir(parents=True)
    shutil.copy(V2_DATABASE, database_path(workspace))


@pytest.mark.parametrize("repository", ["none", "workspace", "parent", "parent-tracked"])
def test_sessions_stored_before_seals_stay_foreign_wherever_the_repository_is(tmp_path: Path, repository: str) -> None:
    """No git, the workspace's own repository, a monorepo whose root is above the workspace (tracking the state or
    not): nothing tells a shipped old-schema database from the user's own, so none is taken as the user's."""
    root = tmp_path / "mono"
    workspace = root / "services" / "api" if repository.startswith("parent") else root
    copy_v2(workspace)
    if repository != "none":
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    if repository == "parent-tracked":
        subprocess.run(["git", "-C", str(root), "add", "-f", "services/api/.coder/coder.db"], check=True)
    store = Store.open(workspace, environ={}, state_key=StateKey.load(env(tmp_path)))
    try:
        assert not store.sessions.is_own("v2session000")
        assert store.sessions.latest_id() is None
        assert store.conversation.load("v2session000").messages  # still readable: nothing is lost
    finally:
        store.close()
    with closing(sqlite3.connect(database_path(workspace))) as conn:
        assert conn.execute("SELECT COUNT(*) FROM unsealed_sessions").fetchone()[0] == 0


def test_parts_are_signed_unambiguously_text_or_bytes(tmp_path: Path) -> None:
    key = StateKey.load(env(tmp_path))
    assert key.sign("ab", "c") != key.sign("a", "bc")
    assert key.sign("journal", b"\x00\xffcontent") == key.sign("journal", b"\x00\xffcontent")
    assert key.verify(key.sign("x", b"y"), "x", b"y") and not key.verify(key.sign("x", b"y"), "x", b"z")
