"""Input history kept across sessions (SPEC 15: Up/Down walk the history).

One JSON string per line in ``<workspace>/.coder/input_history.jsonl``, so each project keeps its own and a crash
loses at most the line being written. Walking keeps the draft the user was typing and gives it back at the end.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.storage.errors import StorageError
from engine.storage.state_folder import check_state_folder

HISTORY_FILE = Path(".coder") / "input_history.jsonl"
MAX_ENTRIES = 1000


class InputHistory:
    """The submitted inputs, oldest first, and a cursor for walking them with Up/Down."""

    def __init__(self, path: Path | None, entries: list[str] | None = None) -> None:
        self.path = path
        self.entries: list[str] = list(entries or [])
        self._index: int | None = None
        self._draft = ""

    @classmethod
    def load(cls, workspace: Path) -> InputHistory:
        """Reads the workspace's history; a missing or unreadable file is an empty history, never an error. A
        ``.coder`` the engine refuses (a link to another project's, SPEC 19) is neither read nor written."""
        try:
            check_state_folder(workspace)
        except StorageError:
            return cls(None)
        path = workspace / HISTORY_FILE
        entries: list[str] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines[-MAX_ENTRIES:]:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, str) and value:
                entries.append(value)
        return cls(path, entries)

    def add(self, text: str) -> None:
        """Records a submitted input (not twice in a row) and appends it to the file."""
        self.reset()
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        del self.entries[:-MAX_ENTRIES]
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as file:
                file.write(json.dumps(text, ensure_ascii=False) + "\n")
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
