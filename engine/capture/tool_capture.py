"""The capture around one tool call (SPEC 7): whatever the call changed in the workspace (a write, a shell command,
its hooks, an MCP tool's doing) goes into the session's undo journal as the turn's change. The first capture of the
workspace starts with the first call at the latest and is waited for, up to ``undo.first_capture_wait_s``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from engine.config.schema import UndoConfig

if TYPE_CHECKING:
    from engine.capture.capture import WorkspaceCapture
    from engine.storage.undo import UndoJournal

_MB = 1024 * 1024


class ToolCapture:
    def __init__(self, root: Path, config: UndoConfig, journal: Callable[[], UndoJournal]) -> None:
        self.root = root
        self.config = config
        self._journal = journal
        self.capture: WorkspaceCapture | None = None

    def start(self) -> WorkspaceCapture:
        """Starts the watcher and the first capture in the background, once."""
        if self.capture is None:
            from engine.capture.capture import WorkspaceCapture  # watchfiles and pathspec load here, not at start-up
            from engine.capture.objects import ObjectStore
            from engine.capture.skip import SkipRules

            skip = SkipRules(self.root, self.config.skip, use_gitignore=self.config.skip_gitignored)
            objects = ObjectStore(self.root / ".coder" / "undo" / "objects")
            self.capture = WorkspaceCapture(self.root, objects, skip, max_file_bytes=int(self.config.max_file_mb * _MB))
            self.capture.start()
        return self.capture

    @asynccontextmanager
    async def around(self) -> AsyncIterator[None]:
        capture = self.start()
        if not capture.ready.is_set():
            await asyncio.to_thread(capture.wait_ready, self.config.first_capture_wait_s)
        mark = await asyncio.to_thread(capture.mark)
        try:
            yield
        finally:
            captured = await asyncio.to_thread(capture.collect, mark)
            journal = self._journal()
            journal.live_objects = capture.live_digests
            journal.released_objects = capture.take_released
            if journal.in_turn:
                journal.record_captured(captured)

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()
