"""The session snapshot ``.coder/sessions/<id>.json`` (SPEC 12): OpenAI-form messages, the tools offered and the
model, saved after every message, so another program can replay any request.

Saving must stay cheap however long the session grows, so a new message is appended in place: the file is written
with the messages before a short tail (``], "model": ..., "updated_at": ...}``), and a save writes the new messages
plus a new tail over the old tail, in one ``pwrite``. A process killed at any moment leaves the file as it was
before or after that write: valid JSON either way. What changes the part before the messages (the system prompt,
which is rebuilt once a turn; the tools; a compaction that rewrites the history) rewrites the whole file
atomically (temp file + rename), as the first save does.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.messages import Message
from engine.record import record
from engine.storage.errors import StorageError
from engine.storage.names import checked_name, is_safe_name
from engine.storage.redact import default_redactor

SNAPSHOT_VERSION = 1


def sessions_dir(workspace: Path) -> Path:
    return workspace / ".coder" / "sessions"


def encode_message(message: Message) -> str:
    """The message's snapshot JSON, secrets redacted as in the database (SPEC 12)."""
    return json.dumps(redacted_record(message), ensure_ascii=False)


# A message record's keys that are for the transcript alone (a tool message's state and duration, a note's origin):
# the database keeps them, the snapshot leaves them out so that its messages stay what the API accepts.
TRANSCRIPT_ONLY = ("status", "duration_ms", "origin")


def snapshot_text(encoded: str) -> str:
    """A message record's JSON text as the snapshot holds it: without ``TRANSCRIPT_ONLY`` keys (found by their
    quoted key, which a string value can only hold escaped, so most texts are never parsed)."""
    if not any(f'"{key}": ' in encoded for key in TRANSCRIPT_ONLY):
        return encoded
    value = json.loads(encoded)
    return json.dumps({k: v for k, v in value.items() if k not in TRANSCRIPT_ONLY}, ensure_ascii=False)


def redacted_record(message: Message) -> dict[str, Any]:
    return default_redactor().redact_value(message.to_record())  # type: ignore[no-any-return]


@record
class SnapshotHeader:
    session_id: str
    model: str
    mode: str
    created_at: str
    updated_at: str


class SessionFile:
    """Writes one session's snapshot: the whole file atomically when its head changes, else appends in place."""

    def __init__(self, workspace: Path, session_id: str, seal: str | None = None) -> None:
        """``seal``: the session's MAC (``seals``), kept in the file's head so that a database rebuilt from
        the snapshots still knows which sessions are this user's; None for a foreign session."""
        self.path = sessions_dir(workspace) / f"{checked_name(session_id, 'session id')}.json"
        self._seal = seal
        self._tmp = self.path.with_name(f".{self.path.name}.tmp")
        self._folder_ready = False
        self._tools_source: object = None
        self._head_key: tuple[str, str] | None = None
        self._head_text_cache = ""
        # What the file holds now: its head (everything before the first message), the messages' texts, where the
        # tail starts and the file's size. ``None`` until the first save, and after a failed write.
        self._head: str | None = None
        self._written: list[str] = []
        self._tail_at = 0
        self._size = 0
        self._tail = b""

    def save(self, header: SnapshotHeader, tools: list[dict[str, Any]], encoded_messages: list[str]) -> None:
        """``encoded_messages`` are the messages' JSON texts (``encode_message``), the system prompt first. A write
        that fails (the disk is full) leaves the previous snapshot whole and no temp file, and raises a
        ``StorageError`` saying so."""
        try:
            self._save(header, tools, encoded_messages)
        except OSError as exc:
            raise StorageError(
                f"cannot save the session file {self.path}: {exc.strerror or exc}. The messages before this one "
                "are saved (the database has this one too, if it could be written); free some space, then "
                "continue with --continue or /resume"
            ) from exc

    def _save(self, header: SnapshotHeader, tools: list[dict[str, Any]], encoded_messages: list[str]) -> None:
        head = self._head_text(header, tools)
        tail = "\n" + json.dumps(
            {"model": header.model, "mode": header.mode, "updated_at": header.updated_at}, ensure_ascii=False
        ).replace("{", "], ", 1) + "\n"
        if self._appends_to_file(head, encoded_messages):
            try:
                self._append(encoded_messages[len(self._written):], tail)
                return
            except FileNotFoundError:
                pass  # removed behind our back: written anew below
        self._rewrite(head, encoded_messages, tail)

    def _head_text(self, header: SnapshotHeader, tools: list[dict[str, Any]]) -> str:
        """Everything before the first message; made again only when the tools or the header's fields in it change
        (the same text object otherwise, so comparing it with the file's is a pointer check)."""
        key = (header.session_id, header.created_at)
        if tools is not self._tools_source or key != self._head_key:
            fields: dict[str, Any] = {
                "version": SNAPSHOT_VERSION, "id": header.session_id, "created_at": header.created_at
            }
            if self._seal is not None:
                fields["seal"] = self._seal
            opening = json.dumps(fields, ensure_ascii=False)
            self._head_text_cache = f'{opening[:-1]}, "tools": {json.dumps(tools, ensure_ascii=False)}, "messages": [\n'
            self._tools_source, self._head_key = tools, key
        return self._head_text_cache

    def _appends_to_file(self, head: str, encoded: list[str]) -> bool:
        """Whether the file holds exactly the first messages of ``encoded`` under the same head. The texts are the
        session's own cached objects, so comparing the first and the last written ones by identity is enough."""
        written = self._written
        if head != self._head or len(encoded) < len(written):
            return False
        if not written:
            return True
        return encoded[0] is written[0] and encoded[len(written) - 1] is written[-1]

    def _append(self, new: list[str], tail: str) -> None:
        messages = (",\n" if self._written and new else "") + ",\n".join(new)
        added = messages.encode("utf-8")
        data = added + tail.encode("utf-8")
        # A shorter tail (another mode's name) leaves old bytes past it: spaces keep the file valid JSON.
        data += b" " * max(0, self._size - self._tail_at - len(data))
        try:
            with open(self.path, "r+b") as handle:
                written = os.pwrite(handle.fileno(), data, self._tail_at)
                if written != len(data):
                    os.pwrite(handle.fileno(), self._tail, self._tail_at)  # a full disk: put the old tail back
                    os.ftruncate(handle.fileno(), self._size)
                    raise OSError(errno.ENOSPC, f"the disk is full ({written} of {len(data)} bytes written)")
        except OSError:
            self._head = None  # the next save rewrites the whole file
            raise
        self._size = self._tail_at + len(data)
        self._tail_at += len(added)
        self._tail = data[len(added):]
        self._written.extend(new)

    def _rewrite(self, head: str, encoded: list[str], tail: str) -> None:
        body = (head + ",\n".join(encoded)).encode("utf-8")
        self._tail = tail.encode("utf-8")
        self._head = None
        self._replace(body + self._tail)
        self._head, self._written = head, list(encoded)
        self._tail_at, self._size = len(body), len(body) + len(self._tail)

    def _replace(self, data: bytes) -> None:
        """Temp file + rename, as ``write_atomic`` does, trimmed for a file rewritten once a turn: one writer per
        session, so the temp name is fixed and the folder is made once."""
        if not self._folder_ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._folder_ready = True
        try:
            with open(self._tmp, "wb") as handle:
                handle.write(data)
            os.replace(self._tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)
            raise


@dataclass
class LoadedSnapshot:
    session_id: str
    model: str
    mode: str
    created_at: str
    tools: list[dict[str, Any]]
    messages: list[Message]
    updated_at: str = ""
    seal: str | None = None


def load_snapshot(path: Path) -> LoadedSnapshot:
    """``ValueError`` for a file that is not a snapshot, or whose id is not a safe name (SPEC 19)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    session_id = data["id"]
    if not is_safe_name(session_id):
        raise ValueError(f"its session id {session_id!r} is not a safe name")
    seal = data.get("seal")
    return LoadedSnapshot(
        seal=seal if isinstance(seal, str) else None,
        session_id=session_id,
        model=data.get("model", ""),
        mode=data.get("mode", "default"),
        created_at=data.get("created_at", ""),
        tools=data.get("tools", []),
        messages=[Message.from_record(record) for record in data.get("messages", [])],
        updated_at=data.get("updated_at", ""),
    )
