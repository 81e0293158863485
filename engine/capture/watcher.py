"""File events for the workspace: watchfiles' Rust watcher (inotify, FSEvents...) gathers them on its own thread,
and they are read when the capture asks (``take``, ``sync``): no thread of ours wakes while nothing is asked, so an
idle engine, or one streaming an answer, spends nothing on them.

``sync`` answers "has every event up to now arrived?": it writes a marker file inside the watched tree and reads
events until the marker's is among them; events of one watch come in order, so everything before the marker has
arrived too. When the marker does not come back in time (or no watcher could start: too many folders for the
system's inotify limit), the caller falls back to comparing the whole tree by stat, slower but complete.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

from watchfiles._rust_notify import RustNotify

from engine.capture.skip import STATE_DIR

SYNC_FOLDER = f"{STATE_DIR}/capture"
# A read of the events waits this long between two looks at what arrived (each look takes the interpreter's lock).
# The watcher's own thread gathers events meanwhile; a read returns once a look finds no more than the one before.
# Nothing looks between reads: a thread looking every 3 ms would cost an idle engine 1.8% of a core, and take the
# lock from a streaming engine's loop 300 times a second.
_STEP_MS = 1
_SYNC_TIMEOUT_S = 2.0


class Watcher:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._prefix = str(root) + os.sep
        self._marker = root / SYNC_FOLDER / f"sync-{os.getpid()}"
        self._state_prefix = self._prefix + STATE_DIR + os.sep
        # One reader at a time (the Rust watcher's ``watch`` and ``close`` must not overlap), and what it gathered.
        self._lock = threading.Lock()
        self._paths: set[str] = set()
        self._counter = itertools.count(1)
        self._closed = False
        self.broken: str | None = None
        self._marker.parent.mkdir(parents=True, exist_ok=True)
        self._notify = RustNotify([str(root)], False, False, 50, True, True)

    def take(self) -> set[str]:
        """The workspace paths (relative, posix) changed since the last ``take``: what has arrived by now."""
        with self._lock:
            self._read(timeout_ms=1)
            paths, self._paths = self._paths, set()
        return paths

    def sync(self) -> bool:
        """Waits until every event up to now has arrived; False when the watcher cannot say so."""
        with self._lock:
            if self.broken is not None or self._closed:
                return False
            token = str(next(self._counter))
            self._marker.write_text(token)
            deadline = time.monotonic() + _SYNC_TIMEOUT_S
            while self.broken is None:
                remaining_ms = int((deadline - time.monotonic()) * 1000)
                if remaining_ms <= 0:
                    return False
                if token in self._read(timeout_ms=remaining_ms):
                    return True
            return False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._notify.close()
        self._marker.unlink(missing_ok=True)

    def _read(self, timeout_ms: int) -> set[str]:
        """Gathers the events that arrived (waiting up to ``timeout_ms`` for the first); the marker tokens seen."""
        if self.broken is not None or self._closed:
            return set()
        try:
            changes = self._notify.watch(0, _STEP_MS, timeout_ms, None)
        except Exception as exc:  # the watcher died (a limit, a removed root): the capture falls back to stat
            self.broken = f"{type(exc).__name__}: {exc}"
            return set()
        if changes == "signal":  # read on the main thread, which a signal interrupted: what arrived is dropped
            self.broken = "interrupted by a signal"
            return set()
        if isinstance(changes, str):  # "timeout": nothing arrived
            return set()
        return self._gather(changes)

    def _gather(self, changes: set[tuple[int, str]]) -> set[str]:
        marker = str(self._marker)
        marks: set[str] = set()
        for _change, path in changes:
            if path == marker:
                try:
                    marks.add(self._marker.read_text())
                except OSError:
                    pass
            elif path.startswith(self._prefix) and not path.startswith(self._state_prefix):
                self._paths.add(path[len(self._prefix):].replace(os.sep, "/"))
        return marks
