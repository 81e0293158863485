"""The database schema as a list of forward migrations (SPEC 12). A migration is never edited once released: a
change to the schema is a new entry at the end, and ``db.migrate`` applies the missing ones in order, each in one
transaction together with its ``schema_version`` row.

Version 1 holds the three logs and the session state; version 2 adds the undo journal (file contents themselves
live under ``.coder/undo/``, see ``undo/journal.py``); version 3 keeps every message across compactions (context
epochs), the diff each tool message showed, and the sub-agents' conversations (see ``sessions/conversation_log.py``);
version 4 lets undo cover every change (path kinds, link targets, content-store objects; ``engine/capture``);
version 5 marks the sessions this user made here (``sessions/seals.py``); version 6 says where each session was
made.
"""

from __future__ import annotations

import sqlite3

from engine.record import record


@record
class Migration:
    version: int
    description: str
    script: str

    def statements(self) -> list[str]:
        """The script cut into single statements (``sqlite3.complete_statement`` knows where each one ends), so
        they can run inside the caller's transaction; ``executescript`` would commit it first."""
        statements: list[str] = []
        pending = ""
        for line in self.script.splitlines(keepends=True):
            pending += line
            if sqlite3.complete_statement(pending):
                statements.append(pending.strip())
                pending = ""
        if pending.strip():
            raise ValueError(f"migration {self.version} ends with an incomplete statement: {pending.strip()[:60]!r}")
        return statements


_V1_LOGS = """
CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at TEXT NOT NULL
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL,
    mode TEXT NOT NULL
);
CREATE INDEX sessions_by_update ON sessions (updated_at);
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    record TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    task_id TEXT,
    type TEXT NOT NULL CHECK (type IN (
        'TaskCreated', 'TaskStarted', 'TaskCompleted', 'TaskFailed', 'TaskCanceled',
        'UserInteractionRequested', 'UserInteractionResponded'
    )),
    interaction_id TEXT,
    kind TEXT CHECK (kind IS NULL OR kind IN ('Select', 'Confirm', 'Input')),
    purpose TEXT CHECK (purpose IS NULL OR purpose IN (
        'choose_strategy', 'request_info', 'confirm_risky_action', 'assign_subtask', 'generic'
    )),
    display TEXT,
    options TEXT,
    answer TEXT,
    detail TEXT,
    data TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX events_by_session ON events (session_id, id);
CREATE INDEX events_by_interaction ON events (interaction_id) WHERE interaction_id IS NOT NULL;
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    task_id TEXT,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    actor TEXT NOT NULL CHECK (actor IN ('model', 'user')),
    input TEXT NOT NULL,
    output TEXT,
    is_error INTEGER,
    duration_ms REAL,
    requested_at TEXT NOT NULL,
    completed_at TEXT
);
CREATE INDEX audit_by_call ON audit_log (session_id, call_id);
CREATE TABLE todos (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    content TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'cancelled')),
    PRIMARY KEY (session_id, position)
);
CREATE TABLE permission_log (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    task_id TEXT,
    call_id TEXT,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    decision TEXT NOT NULL,
    reasons TEXT NOT NULL,
    decided_by TEXT NOT NULL CHECK (decided_by IN ('policy', 'user', 'config')),
    rule TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX permission_by_session ON permission_log (session_id, id);
"""

_V2_UNDO = """
CREATE TABLE undo_turns (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX undo_turns_by_session ON undo_turns (session_id, id);
CREATE TABLE undo_files (
    turn INTEGER NOT NULL REFERENCES undo_turns (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    existed INTEGER NOT NULL,
    mode INTEGER,
    blob TEXT,
    created_dirs TEXT,
    after_state TEXT,
    PRIMARY KEY (turn, path)
);
CREATE TABLE undo_baselines (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    existed INTEGER NOT NULL,
    mode INTEGER,
    blob TEXT,
    PRIMARY KEY (session_id, path)
);
"""

# Compaction no longer rewrites ``messages``: it appends the summary as a row of kind 'summary' that starts a new
# context epoch (``context_epochs`` says which stored messages the model still sees), so nothing is ever deleted.
# A ``/rewind`` marks the messages it cuts ``rewound`` instead of deleting them. Rows written before version 3 are
# epoch 0; a version-2 compaction's summary stays an ordinary message, which is
# what it was in that conversation.
_V3_HISTORY = """
ALTER TABLE messages ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'summary'));
ALTER TABLE messages ADD COLUMN diff TEXT;
ALTER TABLE messages ADD COLUMN rewound INTEGER NOT NULL DEFAULT 0;
CREATE TABLE context_epochs (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    epoch INTEGER NOT NULL CHECK (epoch > 0),
    summary_seq INTEGER NOT NULL,
    kept_from_seq INTEGER,
    tokens_before INTEGER NOT NULL,
    tokens_after INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, epoch)
);
CREATE TABLE subagent_messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    parent_call_id TEXT NOT NULL,
    task_id TEXT,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'summary')),
    record TEXT NOT NULL,
    diff TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, parent_call_id, seq)
);
"""

# Undo covers every change a turn makes (shell commands included): a row says what kind of path it was before
# (absent, file, dir, link; NULL in older rows means file or absent, as ``existed`` says) and a link's target; its
# ``blob`` may name an object of the content store (``sha256:<hex>``); a turn lists what it could not capture.
_V4_CAPTURE = """
ALTER TABLE undo_files ADD COLUMN kind TEXT CHECK (kind IN ('absent', 'file', 'dir', 'link'));
ALTER TABLE undo_files ADD COLUMN target TEXT;
ALTER TABLE undo_turns ADD COLUMN not_captured TEXT NOT NULL DEFAULT '[]';
"""

# Which sessions this user's coder-tui made here (SPEC 19, ``sessions/seals.py``): a MAC per session. The sessions
# stored before this version are listed in ``unsealed_sessions``; ``SessionSeals.forget_legacy`` leaves them foreign.
_V5_SEALS = """
CREATE TABLE session_seals (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    mac TEXT NOT NULL
);
CREATE TABLE unsealed_sessions (session_id TEXT PRIMARY KEY);
INSERT INTO unsealed_sessions SELECT id FROM sessions;
"""

# Where each session was made: the full screen, a headless run or an editor (ACP); the full screen's --continue and the
# picker tell them apart. Sessions stored before this version were the full screen's.
_V6_ORIGIN = """
ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'tui' CHECK (origin IN ('tui', 'headless', 'acp'));
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "sessions, messages, events, audit_log, todos, permission_log", _V1_LOGS),
    Migration(2, "undo journal: per-turn file snapshots and session baselines", _V2_UNDO),
    Migration(3, "full history: context epochs, tool diffs, sub-agent conversations", _V3_HISTORY),
    Migration(4, "undo of every change: path kinds, link targets, content-store objects", _V4_CAPTURE),
    Migration(5, "session seals: which sessions this user made here", _V5_SEALS),
    Migration(6, "session origin: full screen, headless or editor", _V6_ORIGIN),
)
