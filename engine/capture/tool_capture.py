"""The capture around one tool call (SPEC 7): whatever the call changed in the workspace (a write, a shell command,
its hooks, an MCP tool's doing, an auto-verify run) goes to the session's undo recorder as the turn's change. The
first capture of the workspace starts with the first call at the latest and is waited for, up to
``undo.first_capture_wait_s``.

The recorder is the undo of the session whose call it is (``ChangeRecorder``: the storage's undo journal); the
capture knows it only by that protocol, and shares its content store with it (``objects``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.capture.index_file import INDEX_FILE
from engine.capture.objects import ObjectStore
from engine.config.schema import UndoConfig

if TYPE_CHECKING:
    from engine.capture.capture import Captured, WorkspaceCapture

_MB = 1024 * 1024


class ChangeRecorder(Protocol):
    """Where the changes a call made go: the undo of the session whose call it is."""

    @property
    def in_turn(self) -> bool: ...

    def record_captured(self, captured: Captured) -> None: ...


class ToolCapture:
    def __init__(self, root: Path, config: UndoConfig, objects: ObjectStore) -> None:
        self.root = root
        self.config = config
        self.objects = objects
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
        from engine.capture.skip import SkipRules

        try:
            skip = SkipRules(self.root, self.config.skip, use_gitignore=self.config.skip_gitignored)
            self.capture = WorkspaceCapture(
                self.root, self.objects, skip, max_file_bytes=int(self.config.max_file_mb * _MB),
                index_path=self.objects.folder.parent / INDEX_FILE,
            )
        finally:
            self._built.set()
        self.capture.run()

    @asynccontextmanager
    async def around(self, recorder: ChangeRecorder | None = None) -> AsyncIterator[None]:
        """What the enclosed step changes goes to ``recorder`` (the undo of the session whose call it is); None
        keeps the index current and records nothing."""
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
            if recorder is not None and recorder.in_turn:
                recorder.record_captured(captured)

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()
