"""Input history kept across sessions (SPEC 15: Up/Down walk the history).

One JSON object per line in ``<workspace>/.coder/input_history.jsonl``, so each project keeps its own and a crash
loses at most the line being written. Walking keeps the draft the user was typing and gives it back at the end.

A ``.coder`` can arrive with the repository (SPEC 19), and an entry offered on Up runs on Enter (a ``!`` command,
unsandboxed). So each line carries a seal, the MAC of its text and the workspace under the user's state key
(``engine.storage.provenance``): only what this user typed here is offered; a line without a valid seal (planted,
copied from another project, or written before lines were sealed) is never read back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from engine.storage.errors import StorageError
from engine.storage.provenance import StateKey
from engine.storage.state_folder import check_state_folder

HISTORY_FILE = Path(".coder") / "input_history.jsonl"
MAX_ENTRIES = 1000


class InputHistory:
    """The submitted inputs, oldest first, and a cursor for walking them with Up/Down."""

    def __init__(self, path: Path | None, entries: list[str] | None = None, key: StateKey | None = None) -> None:
        """``path`` and ``key`` (what seals the lines written) are None for a history kept in memory only."""
        self.path = path if key is not None else None
        self._key = key
        # The workspace (the file is ``<workspace>/.coder/input_history.jsonl``), named in each seal.
        self._where = os.path.realpath(path.parent.parent) if path is not None else ""
        self.entries: list[str] = list(entries or [])
        self._index: int | None = None
        self._draft = ""

    @classmethod
    def load(cls, workspace: Path, env: Mapping[str, str] | None = None) -> InputHistory:
        """Reads the workspace's sealed history; a missing or unreadable file is an empty history, never an error.
        A ``.coder`` the engine refuses (a link to another project's, SPEC 19), or no state key to seal with, and
        the history is kept in memory only."""
        try:
            check_state_folder(workspace)
            key = StateKey.load(env)
        except StorageError:
            return cls(None)
        history = cls(workspace / HISTORY_FILE, key=key)
        try:
            lines = (workspace / HISTORY_FILE).read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines[-MAX_ENTRIES:]:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            text = value.get("text") if isinstance(value, dict) else None
            if isinstance(text, str) and text and history._sealed(text, value.get("seal")):
                history.entries.append(text)
        return history

    def _sealed(self, text: str, seal: object) -> bool:
        return self._key is not None and self._key.verify(seal, "input history", self._where, text)

    def add(self, text: str) -> None:
        """Records a submitted input (not twice in a row) and appends it to the file."""
        self.reset()
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        del self.entries[:-MAX_ENTRIES]
        if self.path is None or self._key is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            seal = self._key.sign("input history", self._where, text)
            with self.path.open("a", encoding="utf-8") as file:
                file.write(json.dumps({"text": text, "seal": seal}, ensure_ascii=False) + "\n")
        except OSError:
            # History is a convenience: a read-only workspace must not break submitting.
            self.path = None

    def previous(self, current: str) -> str | None:
        """The entry before the cursor; the first step remembers ``current`` as the draft. None at the oldest."""
        if not self.entries:
            return None
        if self._index is None:
            self._draft = current
            self._index = len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The entry after the cursor, then the draft; None when not walking."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def reset(self) -> None:
        self._index = None
        self._draft = ""

    @property
    def walking(self) -> bool:
        return self._index is not None
