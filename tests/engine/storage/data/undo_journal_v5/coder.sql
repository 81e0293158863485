BEGIN TRANSACTION;
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
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    record TEXT NOT NULL,
    created_at TEXT NOT NULL, epoch INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'summary')), diff TEXT, rewound INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, seq)
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
CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at TEXT NOT NULL
);
INSERT INTO "schema_version" VALUES(1,'sessions, messages, events, audit_log, todos, permission_log','2026-12-07T19:27:52.910292+00:00');
INSERT INTO "schema_version" VALUES(2,'undo journal: per-turn file snapshots and session baselines','2026-12-07T19:27:52.910546+00:00');
INSERT INTO "schema_version" VALUES(3,'full history: context epochs, tool diffs, sub-agent conversations','2026-12-07T19:27:52.911397+00:00');
INSERT INTO "schema_version" VALUES(4,'undo of every change: path kinds, link targets, content-store objects','2026-12-07T19:27:52.911940+00:00');
INSERT INTO "schema_version" VALUES(5,'session seals: which sessions this user made here','2026-12-07T19:27:52.912075+00:00');
CREATE TABLE session_seals (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    mac TEXT NOT NULL
);
INSERT INTO "session_seals" VALUES('legacy-session','92688a76730daef04dac71921e6a9caaad3d7412d3be96bb211de5268232e270');
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL,
    mode TEXT NOT NULL
);
INSERT INTO "sessions" VALUES('legacy-session','2026-12-07T19:27:52.918044+00:00','2026-12-07T19:27:52.918044+00:00','','m','auto-edit');
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
CREATE TABLE todos (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    content TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'cancelled')),
    PRIMARY KEY (session_id, position)
);
CREATE TABLE undo_baselines (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    existed INTEGER NOT NULL,
    mode INTEGER,
    blob TEXT,
    PRIMARY KEY (session_id, path)
);
INSERT INTO "undo_baselines" VALUES('legacy-session','a.txt',1,420,'baseline/275dfd4eb455439ebfdf769951fc4afa');
INSERT INTO "undo_baselines" VALUES('legacy-session','new/deep/made.txt',0,NULL,NULL);
INSERT INTO "undo_baselines" VALUES('legacy-session','run.sh',1,489,'baseline/5bde98dc3bb949c09cdaaf353ecc2d36');
CREATE TABLE undo_files (
    turn INTEGER NOT NULL REFERENCES undo_turns (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    existed INTEGER NOT NULL,
    mode INTEGER,
    blob TEXT,
    created_dirs TEXT,
    after_state TEXT, kind TEXT CHECK (kind IN ('absent', 'file', 'dir', 'link')), target TEXT,
    PRIMARY KEY (turn, path)
);
INSERT INTO "undo_files" VALUES(1,'a.txt',1,420,'1/0',NULL,'61bab82824f3717771a43b367c527ee6f54524d91e7fb79cbecca59e82a84941:644','file',NULL);
INSERT INTO "undo_files" VALUES(1,'new/deep/made.txt',0,NULL,NULL,'new','638835fd98a8f607ab7f1197454fc637cead71d9920c5b1503d9c450f29ead6e:644','absent',NULL);
INSERT INTO "undo_files" VALUES(2,'a.txt',1,420,'2/0',NULL,'2b39fea03ad68cef247a3bc238f1695c559c907409a85b6e08889cdcebfc42b3:644','file',NULL);
INSERT INTO "undo_files" VALUES(2,'run.sh',1,489,'2/1',NULL,'absent','file',NULL);
CREATE TABLE undo_turns (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL,
    ended_at TEXT
, not_captured TEXT NOT NULL DEFAULT '[]');
INSERT INTO "undo_turns" VALUES(1,'legacy-session','t1','first turn','2026-12-07T19:27:52.955060+00:00','2026-12-07T19:27:52.957249+00:00','[]');
INSERT INTO "undo_turns" VALUES(2,'legacy-session','t2','second turn','2026-12-07T19:27:52.957427+00:00','2026-12-07T19:27:52.959164+00:00','[]');
CREATE TABLE unsealed_sessions (session_id TEXT PRIMARY KEY);
CREATE INDEX sessions_by_update ON sessions (updated_at);
CREATE INDEX events_by_session ON events (session_id, id);
CREATE INDEX events_by_interaction ON events (interaction_id) WHERE interaction_id IS NOT NULL;
CREATE INDEX audit_by_call ON audit_log (session_id, call_id);
CREATE INDEX permission_by_session ON permission_log (session_id, id);
CREATE INDEX undo_turns_by_session ON undo_turns (session_id, id);
COMMIT;
