"""The typed results of the ``!`` and ``/`` commands (SPEC 6, 7, 23) about the session, its conversation and its
files: a picker to offer, a session switched, files put back, a shell command's output, a failure. Those about what
the run works with (the mode, the model, the theme, permissions, trust, tools, MCP servers) are in
``engine.settings_results``. Each is an event of the closed union (``engine.events.Event``) and a ``CommandReply``:
``command`` (as typed), ``text`` (what any front end may print) and ``ok``. A front end matches on the type, never
on the command's name.

Rows a picker or a table shows are plain JSON objects (``dict``), as they cross the engine protocol.
"""

from __future__ import annotations

from typing import Any

from engine.record import record

Row = dict[str, Any]


class CommandReply:
    """What every command result has: ``command``, ``text`` and ``ok`` (False: the command failed, ``text`` says
    why)."""

    __slots__ = ()
    command: str
    text: str
    ok: bool


@record
class HelpShown(CommandReply):
    """``/help``: the commands (name, usage, summary) and the input rules (key, action)."""

    command: str
    text: str
    commands: tuple[Row, ...]
    input_rules: tuple[Row, ...]
    ok: bool = True


@record
class ModelsOffered(CommandReply):
    """``/model`` with no name: the model in use and the server's models (empty when they could not be listed)."""

    command: str
    text: str
    model: str
    models: tuple[str, ...]
    ok: bool = True


@record
class SessionsListed(CommandReply):
    """``/resume`` with no id: the recent sessions (id, title, updated_at, message_count, own), newest first.
    ``query``: the words ``/resume <words>`` was given instead of an id, for the picker to search."""

    command: str
    text: str
    sessions: tuple[Row, ...]
    ok: bool = True
    query: str = ""


@record
class SessionResumed(CommandReply):
    """``/resume <id>``: the session now in view (its history came before, as ``HistoryRestored``)."""

    command: str
    text: str
    session_id: str
    ok: bool = True


@record
class SessionStarted(CommandReply):
    """``/new`` or ``/clear``: a new, empty session is in view; ``previous_session_id`` stays resumable."""

    command: str
    text: str
    session_id: str
    previous_session_id: str | None = None
    ok: bool = True


@record
class SessionForked(CommandReply):
    """``/fork``: a new session in view, carrying the history (message records) of ``forked_from``."""

    command: str
    text: str
    session_id: str
    forked_from: str
    messages: tuple[Row, ...]
    ok: bool = True


@record
class RewindOffered(CommandReply):
    """``/rewind`` with no number: the requests to go back to (number, text, files, archived)."""

    command: str
    text: str
    points: tuple[Row, ...]
    ok: bool = True


@record
class ConversationRewound(CommandReply):
    """``/rewind N`` with the conversation: the messages kept (records) and the request put back in the prompt;
    the files put back, if any."""

    command: str
    text: str
    prompt_text: str
    messages: tuple[Row, ...]
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    ok: bool = True


@record
class CopyRequested(CommandReply):
    """``/copy``: the text the front end puts on the clipboard."""

    command: str
    text: str
    copy_text: str
    ok: bool = True


@record
class ExitRequested(CommandReply):
    """``/quit``, ``/exit``: the front end exits."""

    command: str
    text: str
    session_id: str
    ok: bool = True


@record
class SetupOffered(CommandReply):
    """``/setup`` with nothing after it: the server URL and model in force (empty when none is set) and the user's
    config file the setup form saves to."""

    command: str
    text: str
    base_url: str
    model: str
    config_file: str
    api_key_env: str  # the variable the key is read from (the form's "Test" sends it, as a turn would)
    ok: bool = True


@record
class DiffShown(CommandReply):
    """``/diff``: the changed files (path, added, removed, status, binary), the whole diff, and where they come
    from ("git" or the session's own changes)."""

    command: str
    text: str
    source: str
    files: tuple[Row, ...]
    diff: str
    note: str | None = None
    ok: bool = True


@record
class ContextSummarised(CommandReply):
    """``/compact``: the context was compacted; ``summary`` is what the model reads from now on."""

    command: str
    text: str
    tokens_before: int
    tokens_after: int
    summary: str
    ok: bool = True


@record
class TodosShown(CommandReply):
    """``/todos``: the session's todo list (id, content, status)."""

    command: str
    text: str
    todos: tuple[Row, ...]
    ok: bool = True

@record
class CommandFailed(CommandReply):
    """A command that could not do what was asked (a usage error, an unknown name or id, nothing to act on):
    ``text`` says why."""

    command: str
    text: str
    ok: bool = False


@record
class SessionRenamed(CommandReply):
    """``/rename``: the session ``session_id`` is now titled ``title``."""

    command: str
    text: str
    session_id: str
    title: str
    ok: bool = True


@record
class ShellCommandRan(CommandReply):
    """``!command`` (SPEC 6): the shell command (``command``, without the ``!``) ran in the workspace; ``text`` is
    the fixed structure the model reads. ``exit_code`` is None when it was killed on timeout."""

    command: str
    text: str
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: int
    timed_out: bool = False
    ok: bool = True


@record
class ChangesUndone(CommandReply):
    """``/undo``: the files the last turn changed put back (``remaining``: turns left to undo), or, with ``ok``
    False, why not: files changed since (``conflicts``, the user declined to overwrite them) or ``errors``."""

    command: str
    text: str
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    remaining: int = 0
    conflicts: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    ok: bool = True


@record
class FilesRewound(CommandReply):
    """``/rewind N code``: the files put back as they were before request N (the conversation stays); with ``ok``
    False, ``text`` says what stopped it after the files listed."""

    command: str
    text: str
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    ok: bool = True


@record
class ConversationExported(CommandReply):
    """``/export``: the session's history written as Markdown to ``path`` (``messages`` of them)."""

    command: str
    text: str
    path: str
    messages: int
    ok: bool = True


@record
class VimToggled(CommandReply):
    """``/vim``: vim keys in the prompt switched on or off (saved in the user's config)."""

    command: str
    text: str
    enabled: bool
    ok: bool = True


@record
class ReviewFindings(CommandReply):
    """``/review``: what the model found, each a row (path relative to the workspace, line, text), most important
    first."""

    command: str
    text: str
    findings: tuple[Row, ...]
    ok: bool = True


@record
class AgentsListed(CommandReply):
    """``/agents``, ``/spawn``, and the ``/agents`` actions (cancel, keep, discard): every agent of the workspace
    (name, task, state, branch, worktree, todos_done, todos_total, elapsed_s, tokens, note...) after the command.
    ``agent``: the one the command acted on, if any."""

    command: str
    text: str
    agents: tuple[Row, ...]
    agent: str | None = None
    ok: bool = True


@record
class AgentShown(CommandReply):
    """``/agents show <name>`` or ``/agents main``: the session now in view (``agent`` None: the main one). A front
    end shows that session's transcript; commands and prompts act on it from now on."""

    command: str
    text: str
    session_id: str
    agent: str | None = None
    worktree: str | None = None
    ok: bool = True


@record
class AgentMerged(CommandReply):
    """``/merge <agent>``: the agent's changed files brought into this tree (``applied``), refused at their
    approval (``declined``), failed, and those the merge left alone (``conflicts``, ``skipped``: path, why)."""

    command: str
    text: str
    applied: tuple[str, ...] = ()
    declined: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    conflicts: tuple[Row, ...] = ()
    skipped: tuple[Row, ...] = ()
    ok: bool = True


CommandEvent = (
    HelpShown
    | SessionRenamed
    | ReviewFindings
    | VimToggled
    | ModelsOffered
    | SessionsListed
    | SessionResumed
    | SessionStarted
    | SessionForked
    | RewindOffered
    | ConversationRewound
    | FilesRewound
    | ChangesUndone
    | CopyRequested
    | ExitRequested
    | SetupOffered
    | DiffShown
    | ContextSummarised
    | TodosShown
    | AgentsListed
    | AgentShown
    | AgentMerged
    | ConversationExported
    | ShellCommandRan
    | CommandFailed
)
