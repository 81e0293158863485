"""File events for the workspace: watchfiles' Rust watcher (inotify, FSEvents...) read on a daemon thread, the changed
paths gathered until the capture takes them.

``sync`` answers "has every event up to now arrived?": it writes a marker file inside the watched tree and waits
until the watcher reports it; events of one watch come in order, so everything before the marker has arrived too.
When the marker does not come back in time (or no watcher could start: too many folders for the system's inotify
limit), the caller falls back to comparing the whole tree by stat, slower but complete.
"""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

from watchfiles._rust_notify import RustNotify

from engine.capture.skip import STATE_DIR

SYNC_FOLDER = f"{STATE_DIR}/capture"
# How often the Rust loop wakes to look at what arrived. Each wake takes the GIL (at 1 ms the idle engine used 3% of
# a core), and a ``sync`` waits for the wake after the debounce (at 10 ms a bash command's capture cost 18 ms, over
# issue 28's 15). At 3 ms: 1.8% idle, 7 ms a command (``benchmarks/capture.py``).
_STEP_MS = 3
# A batch is handed over after at most this long, even while events keep coming (a sync waits on it).
_DEBOUNCE_MS = 5
_SYNC_TIMEOUT_S = 2.0


class Watcher:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._prefix = str(root) + os.sep
        self._marker = root / SYNC_FOLDER / f"sync-{os.getpid()}"
        self._state_prefix = self._prefix + STATE_DIR + os.sep
        self._lock = threading.Condition()
        self._paths: set[str] = set()
        self._seen_marks: set[str] = set()
        self._counter = itertools.count(1)
        self._stop = threading.Event()
        self.broken: str | None = None
        self._marker.parent.mkdir(parents=True, exist_ok=True)
        self._notify = RustNotify([str(root)], False, False, 50, True, True)
        self._thread = threading.Thread(target=self._run, name="coder-capture-watch", daemon=True)
        self._thread.start()

    def take(self) -> set[str]:
        """The workspace paths (relative, posix) changed since the last ``take``."""
        with self._lock:
            paths, self._paths = self._paths, set()
        return paths

    def sync(self) -> bool:
        """Waits until every event up to now has arrived; False when the watcher cannot say so."""
        if self.broken is not None:
            return False
        token = str(next(self._counter))
        self._marker.write_text(token)
        with self._lock:
            arrived = self._lock.wait_for(lambda: token in self._seen_marks or self.broken, _SYNC_TIMEOUT_S)
            self._seen_marks.clear()
        return bool(arrived) and self.broken is None

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)
        self._marker.unlink(missing_ok=True)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                changes = self._notify.watch(_DEBOUNCE_MS, _STEP_MS, 500, self._stop)
                if isinstance(changes, str):
                    continue
                self._gather(changes)
        except Exception as exc:  # the watcher died (a limit, a removed root): the capture falls back to stat
            with self._lock:
                self.broken = f"{type(exc).__name__}: {exc}"
                self._lock.notify_all()
        finally:
            self._notify.close()

    def _gather(self, changes: set[tuple[int, str]]) -> None:
        marker = str(self._marker)
        relative: set[str] = set()
        marked = False
        for _change, path in changes:
            if path == marker:
                marked = True
            elif path.startswith(self._prefix) and not path.startswith(self._state_prefix):
                relative.add(path[len(self._prefix):].replace(os.sep, "/"))
        with self._lock:
            self._paths |= relative
            if marked:
                try:
                    self._seen_marks.add(self._marker.read_text())
                except OSError:
                    pass
                self._lock.notify_all()
