"""``session/list`` (SPEC 24): the stored sessions of a folder (the request's ``cwd``, else the folders of the
sessions open in this agent), most recently updated first, a page at a time. A folder with no database is simply
one without sessions: listing never creates ``.coder/``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from acp.schema import ListSessionsResponse, SessionInfo

from engine.storage.db import database_path
from engine.storage.store import Store

PAGE_SIZE = 50
# The most sessions a listing reaches back to, per folder.
MAX_SESSIONS = 1000


def list_sessions(folders: Sequence[Path], cursor: str | None) -> ListSessionsResponse:
    """``ValueError`` for a cursor this agent did not give."""
    start = _offset(cursor)
    rows: list[tuple[str, SessionInfo]] = []
    for folder in folders:
        if not database_path(folder).is_file():
            continue
        store = Store.open(folder)
        try:
            summaries = store.sessions.summaries(limit=MAX_SESSIONS)
        finally:
            store.close()
        for summary in summaries:
            info = SessionInfo(
                session_id=summary.id, cwd=str(folder), title=summary.title or None, updated_at=summary.updated_at
            )
            rows.append((summary.updated_at, info))
    rows.sort(key=lambda row: row[0], reverse=True)
    page = [info for _, info in rows[start : start + PAGE_SIZE]]
    more = start + PAGE_SIZE < len(rows)
    return ListSessionsResponse(sessions=page, next_cursor=str(start + PAGE_SIZE) if more else None)


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise ValueError(f"unknown cursor {cursor!r}: pass back the nextCursor of a previous answer")
    return int(cursor)
