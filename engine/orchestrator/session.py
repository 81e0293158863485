"""The live conversation of one session: the model's view of it, each message persisted and announced as it is
appended. A compaction starts a new context epoch: the view shrinks to the summary and the kept messages, while
the store keeps every message (``engine.storage.sessions.conversation_log``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.context.images import without_images
from engine.events import Event, MessageAdded
from engine.messages import Message
from engine.orchestrator.message_log import MessageLog, SessionLog
from engine.storage.sessions.snapshot import SessionFile, SnapshotHeader, encode_message, redacted_record, snapshot_text
from engine.storage.store import Store


def new_session_id() -> str:
    return uuid.uuid4().hex[:12]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Session:
    """Owns the message list. The system prompt is kept apart: it is rebuilt for every request (mode, date, git).

    Messages are never changed once appended, so their snapshot JSON is made once each (a restored session reuses
    the text the store holds) and their wire dicts once, when first needed.
    """

    def __init__(
        self,
        workspace: Path,
        *,
        model: str,
        tools: list[dict[str, Any]],
        emit: Callable[[Event], None],
        store: Store | None,
        session_id: str | None = None,
        mode: str = "default",
        messages: Sequence[Message] = (),
        seqs: Sequence[int] = (),
        encoded: Sequence[str] = (),
        created_at: str | None = None,
        log: MessageLog | None = None,
    ) -> None:
        """A new session, or (``messages`` given) one restored from the store, which must already hold them at the
        positions ``seqs``, as the (redacted) JSON texts ``encoded`` when given. With a ``store`` the messages go to
        the session's history and a snapshot file; else to ``log`` (a sub-agent's), or nowhere."""
        self.id = session_id or new_session_id()
        self.model = model
        self.tools = tools
        self.mode = mode
        self.system_prompt = ""
        # The prompt as the model was last told it: the system prompt, then the changes told in reminders since.
        self.told_prompt = ""
        self.created_at = created_at or _now()
        self._messages: list[Message] = list(messages)
        self._seqs: list[int] = list(seqs) if seqs else list(range(len(self._messages)))
        self._next_seq = (self._seqs[-1] + 1) if self._seqs else 0
        self._wire: list[dict[str, Any] | None] = [None] * len(self._messages)
        # The snapshot's texts of the messages (``snapshot_text``: what the API accepts, nothing of the transcript's).
        texts = encoded if encoded else [encode_message(m) for m in self._messages]
        self._encoded: list[str] = [snapshot_text(text) for text in texts]
        if not len(self._seqs) == len(self._encoded) == len(self._messages):
            raise ValueError("a restored session needs one position and one text per message")
        # False once the model or server refused an image: later requests carry a note in its place.
        self.send_images = True
        self._system_cache: tuple[str, str] = ("", "")
        self._system_wire: tuple[str, dict[str, Any]] = ("", {})
        # The tool-call ids the view holds, kept as messages are appended (None: gathered at the next use).
        self._call_ids: set[str] | None = None
        self._emit = emit
        self._store = store
        self._log = SessionLog(store, self.id) if store is not None else log
        # A new session is this user's; a restored one carries its seal only if it was (SPEC 19).
        seal = None if store is None or store.seals is None else (
            store.seals.make(self.id) if session_id is None else store.sessions.file_seal(self.id)
        )
        self._file = SessionFile(workspace, self.id, seal) if store is not None else None

    @property
    def path(self) -> Path:
        if self._file is None:
            raise RuntimeError("an in-memory session has no snapshot file")
        return self._file.path

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(self._messages)

    @property
    def tool_call_ids(self) -> AbstractSet[str]:
        """The ids of the tool calls the view holds (a new stream's calls must not reuse one). Kept up to date as
        messages are appended, not gathered from the whole history for every request; read-only to callers."""
        if self._call_ids is None:
            self._call_ids = {call.id for message in self._messages for call in message.tool_calls or ()}
        return self._call_ids

    def append(self, message: Message, *, diff: str | None = None) -> None:
        """The database first (the durable log), then the snapshot file, then the announcement. ``diff``: what a
        tool message showed, stored beside it for the transcript (never sent to the model)."""
        record = redacted_record(message)
        encoded = json.dumps(record, ensure_ascii=False)
        if self._log is not None:
            seq = self._log.append(message, record, encoded, diff)
        else:
            seq = self._next_seq
        self._next_seq = seq + 1
        self._messages.append(message)
        if self._call_ids is not None:
            self._call_ids.update(call.id for call in message.tool_calls or ())
        self._seqs.append(seq)
        self._wire.append(message.to_wire())
        self._encoded.append(snapshot_text(encoded))
        self.save()
        self._emit(MessageAdded(message))

    def start_epoch(self, summary: Message, kept: int, *, tokens_before: int, tokens_after: int) -> None:
        """A compaction: the view becomes ``summary`` then the last ``kept`` messages. The store records the new
        context epoch and keeps every earlier message; the snapshot holds the new view, which a resume continues."""
        if not 0 <= kept <= len(self._messages):
            raise ValueError(f"cannot keep {kept} of {len(self._messages)} messages")
        first_kept = len(self._messages) - kept
        kept_from = self._seqs[first_kept] if kept else None
        if self._log is not None:
            seq = self._log.start_epoch(
                summary, kept_from_seq=kept_from, tokens_before=tokens_before, tokens_after=tokens_after
            )
        else:
            seq = self._next_seq
        self._next_seq = seq + 1
        self._messages = [summary, *self._messages[first_kept:]]
        self._call_ids = None
        self._seqs = [seq, *self._seqs[first_kept:]]
        self._wire = [None, *self._wire[first_kept:]]
        self._encoded = [encode_message(summary), *self._encoded[first_kept:]]
        self.save()

    def rewind_to(self, index: int) -> None:
        """``/rewind``: the view keeps its first ``index`` messages; the store marks the rest rewound (it keeps them
        in the history) and the snapshot holds the shorter view."""
        if not 0 <= index <= len(self._messages):
            raise ValueError(f"cannot rewind to message {index} of {len(self._messages)}")
        if index == len(self._messages):
            return
        if self._store is not None:
            self._store.conversation.rewind(self.id, self._seqs[index])
        del self._messages[index:], self._seqs[index:], self._wire[index:], self._encoded[index:]
        self._call_ids = None
        self.save()

    def request_messages(self) -> list[dict[str, Any]]:
        """The wire dicts, the same objects request after request (the provider encodes each one only once); those
        of restored messages are made at the first request."""
        wire = self._wire
        if None in wire:  # a scan at C speed; the loop runs once after a resume or a compaction
            for index, value in enumerate(wire):
                if value is None:
                    wire[index] = self._messages[index].to_wire()
        sent: list[dict[str, Any]] = wire if self.send_images else without_images(wire)  # type: ignore[arg-type]
        if not self.system_prompt:
            return list(sent)
        if self._system_wire[0] != self.system_prompt:
            self._system_wire = (self.system_prompt, Message.system(self.system_prompt).to_wire())
        return [self._system_wire[1], *sent]

    def _encoded_system_prompt(self) -> str:
        """The system prompt changes once a turn at most, and a save comes after every message: encode it once."""
        if self._system_cache[0] != self.system_prompt:
            self._system_cache = (self.system_prompt, encode_message(Message.system(self.system_prompt)))
        return self._system_cache[1]

    def save(self) -> None:
        if self._file is None:
            return
        encoded = self._encoded
        if self.system_prompt:
            encoded = [self._encoded_system_prompt(), *encoded]
        header = SnapshotHeader(self.id, self.model, self.mode, self.created_at, _now())
        self._file.save(header, self.tools, encoded)
