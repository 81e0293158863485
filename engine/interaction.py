"""The one interface through which the engine asks the front end something and awaits the answer.

The TUI answers with modal dialogs, headless mode by configuration, tests with scripted answers. The engine never
calls the UI in any other way.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Protocol

from engine.record import record


class ApprovalDecision(str, Enum):
    YES = "yes"
    NO = "no"
    ALWAYS = "always"
    # "always", and written to ./.coder/config.json so it holds in later sessions too.
    ALWAYS_PROJECT = "always_project"
    # Esc in the dialog: not a "no", it cancels the whole task.
    CANCEL = "cancel"


@record
class ApprovalAnswer:
    """A decision with the user's words: "no, and tell the model why" carries the reason the model reads.

    For write, edit and patch the user may keep some hunks of the previewed diff and drop others (SPEC 5):
    ``kept_hunks`` numbers the kept ones in the preview's order (``engine.text_diff.diff_hunks``); None keeps them
    all. ACP and headless never send it: their approvals are whole or nothing."""

    decision: ApprovalDecision
    reason: str | None = None
    kept_hunks: tuple[int, ...] | None = None


@record
class ApprovalRequest:
    """Everything the approval dialog shows: the tool, its key argument, a preview and every reason it asks."""

    call_id: str
    tool: str
    key_argument: str
    arguments: dict[str, Any]
    reasons: tuple[str, ...]
    # A unified diff the call would make, or the full command; shown in the dialog.
    preview: str | None = None
    # What "always" would allow, said in the dialog so it is never broader than shown (e.g. "bash: git checkout *").
    always_scope: str | None = None
    # The agent that asks (SPEC 26) and the worktree it works in; None for the main session.
    agent: str | None = None
    worktree: str | None = None


@record
class QuestionRequest:
    question: str
    options: tuple[str, ...] = ()
    allow_input: bool = True
    call_id: str | None = None
    # The agent that asks (SPEC 26); None for the main session.
    agent: str | None = None


@record
class QuestionAnswer:
    answer: str | None
    cancelled: bool = False


class TrustDecision(str, Enum):
    """The answer to "Trust this folder?" (SPEC 19). TRUST and DONT_TRUST are remembered in the user's config;
    LATER (Esc) leaves the folder untrusted for this run and asks again next time."""

    TRUST = "trust"
    DONT_TRUST = "dont_trust"
    LATER = "later"


@record
class TrustRequest:
    """Asked once, on first opening a folder whose own config sets keys that widen what runs or where data goes."""

    folder: str
    config_file: str
    # The dotted names of the keys that stay ignored unless the folder is trusted (e.g. "provider", "mode").
    keys: tuple[str, ...]


@record
class ElicitationRequest:
    """An MCP server asks the user for input (SPEC 22): a form built from ``schema`` (a flat JSON Schema object of
    strings, numbers, booleans and enums), or, when ``url`` is set, a page to open (nothing to fill in)."""

    server: str
    message: str
    schema: dict[str, Any]
    url: str | None = None
    call_id: str | None = None


@record
class ElicitationAnswer:
    """``accept`` with the values (by property name), ``decline`` (with why, for a log), or ``cancel`` (dismissed)."""

    action: str  # "accept" | "decline" | "cancel"
    content: dict[str, Any] | None = None
    reason: str | None = None


class InteractionHandler(Protocol):
    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer: ...

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer: ...

    async def request_trust(self, request: TrustRequest) -> TrustDecision: ...

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...
