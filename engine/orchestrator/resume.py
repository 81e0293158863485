"""Resume (SPEC 12): a stored session made valid for the API again, and what is left to do in it.

A process killed mid-turn leaves assistant tool calls without results. Calls whose approval was pending are run
again through the tool chain (so the user is asked again); every other open call gets a synthetic "interrupted"
result, because it may have half-run and must never run twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.events import HistoryRestored
from engine.messages import Message, ToolCall
from engine.record import record
from engine.storage.sessions import conversation_log
from engine.storage.sessions.history_read import read_history
from engine.storage.sessions.records import LoadedSession
from engine.storage.sessions.recovery import open_tool_calls, repair_history
from engine.storage.sessions.snapshot import encode_message
from engine.storage.store import Store


@record
class ResumePlan:
    """``messages``: the model's view of the latest context epoch, repaired; ``seqs`` and ``encoded``: each one's
    position in the session's history and its stored JSON text."""

    loaded: LoadedSession
    messages: list[Message]
    seqs: list[int]
    encoded: list[str]
    notes: list[str]
    # Calls to run again (their approval was pending), and the assistant message that made them.
    open_calls: list[ToolCall]
    open_message: Message | None

    @property
    def session_id(self) -> str:
        return self.loaded.info.id


def plan_resume(store: Store, session_ref: str) -> ResumePlan:
    """Loads the model's view of the session's latest context epoch and repairs it (raising ``UnknownSession`` with
    a readable message for an unknown id), writing the messages a repair adds into the stored history, so the
    database and the snapshot agree."""
    loaded = store.conversation.load(session_ref)
    # Nothing in a foreign session runs (SPEC 19): its open calls are marked interrupted, never asked again.
    own = store.sessions.is_own(loaded.info.id)
    pending = store.events.pending_interaction(loaded.info.id) if loaded.unfinished_task_id and own else None
    pending_call = pending.request.data.get("call_id") if pending is not None else None
    messages, notes = repair_history(loaded.messages, resume_from_call=pending_call)
    seqs, encoded = list(loaded.seqs), list(loaded.encoded)
    if len(messages) != len(loaded.messages):
        seqs, encoded = _store_insertions(store, loaded, messages)
    open_calls = open_tool_calls(messages)
    open_message = next(
        (m for m in reversed(messages) if m.role == "assistant" and m.tool_calls), None
    ) if open_calls else None
    return ResumePlan(loaded, messages, seqs, encoded, notes, open_calls, open_message)


def _store_insertions(store: Store, loaded: LoadedSession, repaired: Sequence[Message]) -> tuple[list[int], list[str]]:
    """A repair only inserts messages (synthetic results): each is stored right after the stored message it follows.
    Returns the positions and texts of the whole repaired view."""
    insertions: list[tuple[int, Message]] = []
    position = 0
    for message in repaired:
        if position < len(loaded.messages) and message is loaded.messages[position]:
            position += 1
            continue
        insertions.append((loaded.seqs[position - 1], message))
    if position != len(loaded.messages):
        raise AssertionError("a history repair may only insert messages")
    added = iter(store.conversation.insert(loaded.info.id, insertions))
    after = [seq for seq, _ in insertions]
    seqs: list[int] = []
    encoded: list[str] = []
    position = 0
    for message in repaired:
        if position < len(loaded.messages) and message is loaded.messages[position]:
            old = loaded.seqs[position]
            # Every insertion before a stored message moved it down by one.
            seqs.append(old + sum(1 for point in after if point < old))
            encoded.append(loaded.encoded[position])
            position += 1
        else:
            seqs.append(next(added))
            encoded.append(encode_message(message))
    return seqs, encoded


def history_restored(store: Store, session_ref: str) -> HistoryRestored:
    """The event that gives a front end the resumed session's whole history (``engine.storage.sessions.history_read``);
    ``session_ref`` may be a unique prefix of the id."""
    with store.db.read() as conn:
        return read_history(conn, conversation_log.resolve_session_id(conn, store.path, session_ref))
