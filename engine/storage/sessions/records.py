"""What the sessions room writes and reads back: a session's summary, the session as resume loads it, and its whole
history (messages and compaction markers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.record import record

if TYPE_CHECKING:
    from engine.messages import Message


@record
class SessionSummary:
    """One row of the ``/resume`` picker: title is the first request, trimmed."""

    id: str
    title: str
    created_at: str
    updated_at: str
    model: str
    mode: str
    message_count: int
    origin: str = "tui"  # where it was made: "tui" (the full screen), "headless" or "acp"


@record
class LoadedSession:
    """A session as resume needs it: ``messages`` is the model's view of the latest context epoch (after a
    compaction: its summary, then the messages kept and those made since), not the whole history."""

    info: SessionSummary
    messages: list[Message]
    # The task that was created or started but never ended: the process stopped during it.
    unfinished_task_id: str | None = None
    # Beside each message: its position in the session's history, and its stored (redacted) JSON text.
    seqs: tuple[int, ...] = ()
    encoded: tuple[str, ...] = ()
    epoch: int = 0


@record
class HistoryMessage:
    """One stored message of a session's whole history. ``epoch``: the context epoch it was made in; ``diff``: the
    diff a tool message showed when it ran (kept beside the message, never sent to the model); ``rewound``: cut from
    the conversation by a ``/rewind`` (the model no longer sees it)."""

    seq: int
    epoch: int
    message: Message
    created_at: str
    diff: str | None = None
    rewound: bool = False


@record
class CompactionMarker:
    """"Context compacted here": the point of the history where a compaction started context epoch ``epoch``.
    ``summary`` is the message that took the place of everything before it in the model's view; the messages from
    ``kept_from_seq`` on stayed in that view verbatim."""

    seq: int
    epoch: int
    summary: Message
    tokens_before: int
    tokens_after: int
    kept_from_seq: int | None
    created_at: str


HistoryEntry = HistoryMessage | CompactionMarker
