"""The capture around one tool call (SPEC 7): whatever the call changed in the workspace (a write, a shell command,
its hooks, an MCP tool's doing) goes into the session's undo journal as the turn's change. The first capture of the
workspace starts with the first call at the latest and is waited for, up to ``undo.first_capture_wait_s``."""

from __future__ import annotations

import asyncio
import threading
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
        self._built = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Starts, once, a thread that loads the capture (watchfiles and pathspec load there, never on the event
        loop), starts the watcher and makes the first capture. Returns at once."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="coder-capture", daemon=True)
            self._thread.start()

    def wait_built(self) -> WorkspaceCapture | None:
        """The capture, once its thread made it (the first capture may still be running)."""
        self.start()
        self._built.wait()
        return self.capture

    def _run(self) -> None:
        from engine.capture.capture import WorkspaceCapture
        from engine.capture.objects import ObjectStore
        from engine.capture.skip import SkipRules

        try:
            skip = SkipRules(self.root, self.config.skip, use_gitignore=self.config.skip_gitignored)
            objects = ObjectStore(self.root / ".coder" / "undo" / "objects")
            self.capture = WorkspaceCapture(self.root, objects, skip, max_file_bytes=int(self.config.max_file_mb * _MB))
        finally:
            self._built.set()
        self.capture.run()

    @asynccontextmanager
    async def around(self, journal: UndoJournal | None = None) -> AsyncIterator[None]:
        """What the enclosed step changes goes to ``journal`` (the session's whose call it is), by default the
        journal of the session in view."""
        capture = self.capture if self._built.is_set() else await asyncio.to_thread(self.wait_built)
        if capture is None:  # it could not even be made (an unreadable workspace): the call runs uncaptured
            yield
            return
        if not capture.ready.is_set():
            await asyncio.to_thread(capture.wait_ready, self.config.first_capture_wait_s)
        mark = await asyncio.to_thread(capture.mark)
        try:
            yield
        finally:
            captured = await asyncio.to_thread(capture.collect, mark)
            journal = journal or self._journal()
            journal.live_objects = capture.live_digests
            journal.released_objects = capture.take_released
            if journal.in_turn:
                journal.record_captured(captured)

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()
