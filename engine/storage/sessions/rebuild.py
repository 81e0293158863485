"""Rebuilding the database from the session snapshots (SPEC 12): when ``.coder/coder.db`` is missing or empty (a
0-byte file after a full disk or a bad copy) but ``.coder/sessions/*.json`` are there, every session is read back
from its snapshot, so ``--continue`` and ``/resume`` find them and nothing is lost. Task events, the audit log and
the undo journal live only in the database and cannot come back; the conversations do."""

from __future__ import annotations

from pathlib import Path

from engine.counted import counted
from engine.storage.errors import StorageError
from engine.storage.log.records import TaskEvent
from engine.storage.sessions.snapshot import load_snapshot, sessions_dir
from engine.storage.store import Store


def needs_rebuild(database: Path) -> bool:
    """True when the database holds nothing yet (absent, or 0 bytes with no write-ahead log behind it)."""
    wal = database.with_name(database.name + "-wal")
    try:
        empty = not database.exists() or database.stat().st_size == 0
        return empty and (not wal.exists() or wal.stat().st_size == 0)
    except OSError:
        return False


def rebuild_from_snapshots(store: Store, workspace: Path) -> list[str]:
    """Imports every snapshot, oldest first (so the latest is the one ``--continue`` picks); returns one note per
    session restored or snapshot skipped."""
    snapshots = []
    notes: list[str] = []
    for path in sessions_dir(workspace).glob("*.json"):
        if path.is_symlink():  # another project's transcript, say: never read through a link (SPEC 19)
            notes.append(f"{path} is a symbolic link; not read")
            continue
        try:
            # The file's time breaks ties between snapshot times written within the same second.
            snapshots.append((load_snapshot(path), path.stat().st_mtime_ns))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            notes.append(f"{path} could not be read back ({exc}); left as it is")
    for snapshot, _ in sorted(snapshots, key=lambda pair: (pair[0].updated_at or pair[0].created_at, pair[1])):
        when = snapshot.updated_at or snapshot.created_at
        # Snapshots are redacted already; dating the rows as the snapshot was keeps the sessions' order.
        dated = Store(store.db, clock=(lambda when=when: when), seals=store.seals) if when else store
        messages = [message for message in snapshot.messages if message.role != "system"]
        title = next((m.content or "" for m in messages if m.role == "user"), "")
        try:
            # A snapshot without this user's seal came from elsewhere: its session is stored as foreign (SPEC 19).
            own = store.seals is None or store.seals.holds(snapshot.session_id, snapshot.seal)
            dated.sessions.create(
                model=snapshot.model, mode=snapshot.mode, session_id=snapshot.session_id, title=title, own=own
            )
            dated.conversation.append_many(snapshot.session_id, messages)
            if any(m.role == "assistant" for m in messages):
                # One task stands for the restored conversation, so --continue counts it as one with the model.
                task_id = f"restored-{snapshot.session_id}"
                dated.events.record(snapshot.session_id, TaskEvent("TaskCreated", task_id, title))
                done = TaskEvent("TaskCompleted", task_id, "restored from its snapshot")
                dated.events.record(snapshot.session_id, done)
        except StorageError as exc:
            notes.append(f"session {snapshot.session_id} could not be restored: {exc}")
            continue
        notes.append(f"session {snapshot.session_id} restored from its snapshot ({counted(len(messages), 'message')})")
    return notes


def rebuilt_notice(store: Store) -> str | None:
    """The one notice a front end shows after ``Store.open`` rebuilt the database, or None."""
    if not store.rebuilt:
        return None
    return (
        f"{store.path} was empty: rebuilt it from the session files (their task events, audit log and undo history "
        "were only in the database):\n" + "\n".join(f"  {note}" for note in store.rebuilt)
    )
