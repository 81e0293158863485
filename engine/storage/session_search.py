"""Finding sessions by what was said in them (SPEC 27): the read side of ``search_index``.

``search_sessions`` asks one folder's index, read-only (a front end in another process than the engine may ask
while the engine writes: WAL readers never block the writer). The words typed are each matched as a prefix
(``pars`` finds "parser"), all of them in one message or title; the sessions come most recent first, each with the
newest matching text cut around the match, the matched words between ``MARK_START`` and ``MARK_END``. (Words found
whole in enough sessions fill the list first, which keeps a search over a word said everywhere fast.)

The folders a user's sessions live in are remembered in ``session_folders`` in the user's config folder (one path a
line, added when a store opens), so the picker can search every folder at once.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import stat
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from engine.record import record
from engine.storage.db import database_path
from engine.storage.search_index import SEARCH_FILE, TITLE_ROLE

log = logging.getLogger(__name__)

MARK_START = "\x02"
MARK_END = "\x03"
FOLDERS_FILE = "session_folders"
DEFAULT_LIMIT = 50
# Read through the OS's page cache in place, not copied page by page into SQLite's own.
MMAP_BYTES = 256 * 1024 * 1024
# The characters of text kept around a match.
SNIPPET_CHARS = 90


@record
class SessionHit:
    """One session a search found. ``snippet``: the matching text around the match (marked); empty when only the
    title matched, or for a listing without words."""

    session_id: str
    title: str
    updated_at: str
    message_count: int
    snippet: str
    folder: str


def fts_query(words: str, *, prefix: bool = True) -> str:
    """The FTS5 query for what the user typed: each word quoted (so no character of it is syntax), as a prefix
    unless ``prefix`` is False."""
    terms = [term.replace('"', '""') for term in words.split()]
    star = "*" if prefix else ""
    return " ".join(f'"{term}"{star}' for term in terms if term.strip('"'))


def search_sessions(folder: Path, words: str, limit: int = DEFAULT_LIMIT) -> list[SessionHit]:
    """The sessions of ``folder`` whose messages or title hold every word, most recently updated first (without
    words: the latest sessions). A folder without an index has none; a damaged one is logged and has none."""
    path = database_path(folder).with_name(SEARCH_FILE)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return []
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=2)
        conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    except (OSError, sqlite3.Error):
        return []
    try:
        return _search(conn, folder, words, limit)
    except sqlite3.Error as exc:
        log.warning("searching %s failed: %s", path, exc)
        return []
    finally:
        conn.close()


def _newest_sessions(conn: sqlite3.Connection, query: str, limit: int) -> dict[str, int]:
    """The sessions with a text matching ``query``, newest first, each with the row id of its newest match. Newest
    rows first: a word said in every session still stops after ``limit`` sessions."""
    found: dict[str, int] = {}
    rows = conn.execute(
        "SELECT t.session_id, t.id FROM search_fts f JOIN search_texts t ON t.id = f.rowid "
        "WHERE search_fts MATCH ? ORDER BY f.rowid DESC",
        (query,),
    )
    for session_id, row_id in rows:
        found.setdefault(session_id, row_id)
        if len(found) >= limit:
            break
    return found


def _search(conn: sqlite3.Connection, folder: Path, words: str, limit: int) -> list[SessionHit]:
    query = fts_query(words)
    found: dict[str, int] = {}  # session -> the row id of its newest matching text
    if query:
        # Whole words first: FTS5 reads a prefix's every row before the first, a word's as it goes. Words found
        # whole in ``limit`` sessions are the answer; else (a word still being typed) every word is a prefix.
        found = _newest_sessions(conn, fts_query(words, prefix=False), limit)
        if len(found) < limit:
            found = _newest_sessions(conn, query, limit)
        if not found:
            return []
        marks = ",".join("?" * len(found))
        sessions = conn.execute(
            f"SELECT id, title, updated_at FROM search_sessions WHERE id IN ({marks})", list(found)
        ).fetchall()
    else:
        sessions = conn.execute(
            "SELECT s.id, s.title, s.updated_at FROM search_sessions s "
            "WHERE EXISTS (SELECT 1 FROM search_texts t WHERE t.session_id = s.id AND t.seq >= 0) "
            "ORDER BY s.updated_at DESC LIMIT ?",
            (limit,),
        ).fetchall()
    hits = []
    for session_id, title, updated_at in sorted(sessions, key=lambda row: row[2], reverse=True):
        snippet = _snippet(conn, words, found[session_id]) if session_id in found else ""
        hits.append(SessionHit(session_id, title, updated_at, _message_count(conn, session_id), snippet, str(folder)))
    return hits


def _snippet(conn: sqlite3.Connection, words: str, row_id: int) -> str:
    """The text around the first matched word, every matched word marked (FTS5's own ``snippet`` would run the
    whole query again for one row)."""
    row = conn.execute("SELECT role, body FROM search_texts WHERE id = ?", (row_id,)).fetchone()
    if row is None or row[0] == TITLE_ROLE:
        return ""
    return marked_snippet(" ".join(str(row[1]).split()), words)


def marked_snippet(text: str, words: str, width: int = SNIPPET_CHARS) -> str:
    """``text`` cut to about ``width`` characters around the first word that starts with one of ``words``, each
    such word start between ``MARK_START`` and ``MARK_END``."""
    pattern = word_pattern(words)
    first = pattern.search(text) if pattern else None
    start = 0 if first is None else max(0, first.start() - width // 4)
    if start:
        start = text.rfind(" ", 0, start) + 1  # at the start of a word
    cut = text[start : start + width]
    if pattern is not None:
        cut = pattern.sub(lambda match: f"{MARK_START}{match.group(0)}{MARK_END}", cut)
    return ("…" if start else "") + cut + ("…" if start + width < len(text) else "")


def word_pattern(words: str) -> re.Pattern[str] | None:
    """What a search matches of ``words``, as a pattern: the start of a word, whatever the case."""
    terms = sorted({term.strip('"') for term in words.split()} - {""}, key=len, reverse=True)
    if not terms:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(term) for term in terms) + ")", re.IGNORECASE)


def _message_count(conn: sqlite3.Connection, session_id: str) -> int:
    (count,) = conn.execute(
        "SELECT COUNT(*) FROM search_texts WHERE session_id = ? AND seq >= 0", (session_id,)
    ).fetchone()
    return int(count)


def search_folders(
    here: Path, others: Sequence[Path], words: str, limit: int = DEFAULT_LIMIT
) -> tuple[list[SessionHit], float]:
    """``here``'s sessions first, then those of ``others`` (most recent first among them); and how long the
    search took, in milliseconds."""
    started = time.perf_counter()
    hits = search_sessions(here, words, limit)
    elsewhere: list[SessionHit] = []
    for folder in others:
        if folder.resolve() != here.resolve():
            elsewhere.extend(search_sessions(folder, words, limit))
    elsewhere.sort(key=lambda hit: hit.updated_at, reverse=True)
    return hits + elsewhere[:limit], (time.perf_counter() - started) * 1000


def folders_file(env: Mapping[str, str] | None = None) -> Path:
    """``session_folders`` beside the user's config (as ``provenance.key_path`` finds that folder)."""
    base = (env or {}).get("XDG_CONFIG_HOME") or os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "coder" / FOLDERS_FILE


def known_folders(env: Mapping[str, str] | None = None) -> list[Path]:
    """The folders that hold this user's sessions, as remembered; a folder gone since is left out."""
    try:
        lines = folders_file(env).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [Path(line) for line in dict.fromkeys(lines) if line and Path(line, ".coder").is_dir()]


def remember_folder(workspace: Path, env: Mapping[str, str] | None = None) -> None:
    """Adds ``workspace`` to ``session_folders`` when it is not there yet. A failure is logged: only the
    all-folders search misses the folder."""
    path = folders_file(env)
    line = str(workspace.resolve())
    if "\n" in line:  # cannot be one line of the file
        return
    try:
        if path.is_file() and line in path.read_text(encoding="utf-8").splitlines():
            return
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError as exc:
        log.warning("cannot remember %s in %s: %s", workspace, path, exc)
