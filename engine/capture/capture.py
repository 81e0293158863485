"""The workspace capture (SPEC 7): a content store kept current with file events, so that any change a tool call
makes (a shell command's included) can be put back, at a cost that follows what changed, not the workspace's size.

- The first capture walks the workspace on a background thread: every kept file's bytes go to the content store
  (hash-named, stored once), every path's kind, bits and stat fields to the index.
- ``mark`` before a tool call takes the events that arrived since the last call (changes made by someone else)
  into the index; ``collect`` after it takes the events the call caused and turns them into ``Change`` s: each
  path's state before (from the index, its bytes already in the store) and after (read now, stored). A folder
  removed or renamed reports only itself, so every indexed path under it is checked too; a folder created reports
  itself before its watch exists, so it is walked.
- A change made while the first capture is running is still restorable when the walk had already read that path
  (or its folder) before the call began; otherwise it is returned in ``unknown`` and named in the undo result.
- The index is saved for the next process (``index_file``) after a first capture that read files, and when the capture
  closes once enough changed since: that process's first capture reads again only the files whose stat fields
  differ from the saved ones, or whose object is gone from the store.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.capture.entry import Entry, kind_of
from engine.capture.index_file import SavedIndex, save_index
from engine.capture.objects import ObjectStore
from engine.capture.skip import GIT_DIR, STATE_DIR, SkipRules
from engine.record import record

if TYPE_CHECKING:
    from engine.capture.watcher import Watcher

# The index is saved again once this many files were read or changed since it was: fewer cost the next process a
# read each, less than writing the whole index of a large workspace at every exit.
_SAVE_AFTER = 200


@record
class Change:
    path: str
    before: Entry | None
    after: Entry | None


@record
class Skipped:
    path: str  # the outermost skipped folder, or the file
    reason: str


@record
class Mark:
    epoch: int
    first_capture_done: bool


@record
class Captured:
    changes: tuple[Change, ...] = ()
    unknown: tuple[str, ...] = ()  # changed during the first capture before it read them: earlier state not kept
    skipped: tuple[Skipped, ...] = ()


class WorkspaceCapture:
    def __init__(
        self, root: Path, objects: ObjectStore, skip: SkipRules, *, max_file_bytes: int, index_path: Path | None = None
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.objects = objects
        objects.live = self.live_digests
        self.index_path = index_path  # where the index is saved between processes (None: not saved)
        self._unsaved = 0  # files read or changed since the index was saved (each one a read for the next process)
        self._pinned: set[str] = set()  # the saved index's objects, while the first capture may take them
        self.skip = skip
        self.max_file_bytes = max_file_bytes
        self.index: dict[str, Entry] = {}
        self._children: dict[str, set[str]] = {"": set()}
        self._scanned: dict[str, int] = {}  # folders the first capture has read, with the epoch it read them in
        self._epoch = 0
        self._lock = threading.RLock()
        self._call_lock = threading.Lock()
        self.ready = threading.Event()
        self.first_capture_seconds: float | None = None
        self._watcher: Watcher | None = None
        self._thread: threading.Thread | None = None
        self.watch_problem: str | None = None

    # -- life -------------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Starts the watcher, then the first capture on a daemon thread (returns at once)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self.run, name="coder-capture-walk", daemon=True)
        self._thread.start()

    def run(self) -> None:
        """Starts watching, then makes the first capture, in the calling thread. The watcher comes first (its
        watches take a while on a large tree): a change made during the walk is reported by it or read by the walk."""
        self.start_watching()
        self.first_capture()

    def start_watching(self) -> None:
        from engine.capture.watcher import Watcher

        try:
            self._watcher = Watcher(self.root)
        except Exception as exc:  # no inotify, or over its limit: every call compares the tree by stat instead
            self.watch_problem = f"{type(exc).__name__}: {exc}"

    def wait_ready(self, timeout: float | None) -> bool:
        return self.ready.wait(timeout)

    def live_digests(self) -> set[str]:
        """The content-store objects the index names: the workspace as it is now (never pruned); while the first
        capture runs, those the saved index names too (the walk may still take them)."""
        with self._lock:
            return {entry.digest for entry in self.index.values() if entry.digest} | self._pinned

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
        if self._unsaved >= _SAVE_AFTER:
            self.save()

    def save(self) -> None:
        """Saves the index for the next process when it changed since it was read, once the first capture is
        complete (a partial one is not)."""
        if self.index_path is None or not self.ready.is_set():
            return
        with self._lock:
            files = {relative: entry for relative, entry in self.index.items() if entry.digest}
            self._unsaved = 0
        save_index(self.index_path, self.root, files)

    # -- around a tool call ----------------------------------------------------------------------------------------
    def mark(self) -> Mark:
        """Before a call: absorbs what changed since the last one (not the call's doing), then opens a new epoch."""
        with self._call_lock:
            # No wait for the watcher here: the last call's ``collect`` waited for its own events, and what someone
            # else changed in the milliseconds since is at worst counted as this call's (and undone with it).
            self._absorb(self._pending(wait=False), epoch=None)
            with self._lock:
                self._epoch += 1
                return Mark(self._epoch, self.ready.is_set())

    def collect(self, mark: Mark) -> Captured:
        """After a call: what it changed, each path's state before and after."""
        with self._call_lock:
            return self._absorb(self._pending(wait=True), epoch=mark)

    # -- inside -----------------------------------------------------------------------------------------------------
    def _pending(self, *, wait: bool) -> set[str] | None:
        """The paths events reported since the last look (``wait``: up to now), or None when only a full comparison
        can tell."""
        watcher = self._watcher
        if watcher is None or watcher.broken is not None or (wait and not watcher.sync()):
            return None
        return watcher.take()

    def _absorb(self, reported: set[str] | None, epoch: Mark | None) -> Captured:
        with self._lock:
            paths = self._all_known_and_present() if reported is None else self._widen(reported)
            changes: list[Change] = []
            unknown: list[str] = []
            skipped: dict[str, Skipped] = {}
            befores = {relative: self.index.get(relative) for relative in paths}  # before a folder's removal drops
            for relative in sorted(paths):
                outside = self._skipped_top(relative)
                if outside is not None:
                    skipped.setdefault(outside.path, outside)
                    if outside.path != relative or relative not in self.index:
                        continue
                before = befores[relative]
                after = self._read(relative, before)
                if after is None and before is None:
                    if epoch is not None and not self._known_before(relative, before, epoch):
                        unknown.append(relative)  # gone before the walk reached it: it may have been there
                    continue
                self._unsaved += 1
                if after is not None and before is not None and after.fingerprint() == before.fingerprint():
                    self._put(relative, after)
                    continue
                if after is not None and after.kind == "file" and after.digest is None and epoch is not None:
                    skipped.setdefault(relative, Skipped(relative, self._not_kept(after)))
                if epoch is not None and not self._known_before(relative, before, epoch):
                    unknown.append(relative)
                else:
                    changes.append(Change(relative, before, after))
                self._put(relative, after)
            return Captured(tuple(changes), tuple(unknown), tuple(skipped.values()))

    def _not_kept(self, entry: Entry) -> str:
        if entry.size > self.max_file_bytes:
            return f"over undo.max_file_mb ({entry.size} bytes): its content is not kept"
        return "unreadable: its content is not kept"

    def _known_before(self, relative: str, before: Entry | None, mark: Mark) -> bool:
        """Whether ``before`` is the path's state when the call began (always, once the first capture is done)."""
        if mark.first_capture_done:
            return True
        if before is not None:
            return before.epoch is None or before.epoch < mark.epoch
        parent = relative.rpartition("/")[0]
        scanned = self._scanned.get(parent)
        return scanned is not None and scanned < mark.epoch

    def _widen(self, reported: set[str]) -> set[str]:
        """The reported paths, every indexed path under them (a folder removed or renamed reports only itself),
        and everything inside a folder that exists now (one created reports itself before its watch exists)."""
        paths: set[str] = set()
        for alias in reported:
            relative = self._canonical(alias)
            if relative is None or relative in paths:
                continue
            paths.add(relative)
            paths.update(self._indexed_under(relative))
            if relative.endswith("/.gitignore") or relative == ".gitignore":
                self.skip.forget(relative)
            full = self.root / relative
            if full.is_dir() and not full.is_symlink() and self._skipped_top(relative) is None:
                paths.update(rel for rel, _info in self._walk(relative))
        return paths

    def _canonical(self, relative: str) -> str | None:
        """The path without links in its folders: the watcher follows a link to a folder and may report what
        happens there under the link's name. None when the real folder is gone or outside the workspace."""
        parent, _, name = relative.rpartition("/")
        if not parent:
            return relative
        real = os.path.realpath(self.root / parent)
        if real == str(self.root / parent):
            return relative
        if not os.path.isdir(real) or not Path(real).is_relative_to(self.root) or real == str(self.root):
            return None if real != str(self.root) else name
        return f"{Path(real).relative_to(self.root).as_posix()}/{name}"

    def _indexed_under(self, relative: str) -> Iterator[str]:
        stack = [relative]
        while stack:
            folder = stack.pop()
            for name in self._children.get(folder, ()):
                child = f"{folder}/{name}" if folder else name
                yield child
                stack.append(child)

    def _all_known_and_present(self) -> set[str]:
        paths = set(self.index)
        paths.update(rel for rel, _info in self._walk(""))
        return paths

    def _skipped_top(self, relative: str) -> Skipped | None:
        parts = relative.split("/")
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            is_dir = depth < len(parts) or (self.root / prefix).is_dir()
            reason = self.skip.reason(prefix, is_dir)
            if reason is not None:
                return Skipped(prefix + ("/" if is_dir else ""), reason)
        return None

    def _read(self, relative: str, before: Entry | None) -> Entry | None:
        full = self.root / relative
        try:
            info = full.lstat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        return self._entry(full, info, before, epoch=None)

    def _entry(self, full: Path, info: os.stat_result, before: Entry | None, epoch: int | None) -> Entry | None:
        kind = kind_of(info)
        if kind is None:
            return None
        mode = stat.S_IMODE(info.st_mode)
        if kind == "dir":
            return Entry("dir", mode, epoch=epoch)
        if kind == "link":
            return Entry("link", mode, target=os.readlink(full), epoch=epoch)
        if before is not None and before.same_stat(info) and before.mode == mode:
            digest = before.digest
        elif info.st_size > self.max_file_bytes:
            digest = None
        else:
            try:
                digest = self.objects.put_file(full)
            except FileNotFoundError:
                return None  # gone meanwhile
            except OSError:
                digest = None  # unreadable (permissions): kept as a file whose content undo cannot put back
        return Entry(
            "file", mode, digest, size=info.st_size, mtime_ns=info.st_mtime_ns, ctime_ns=info.st_ctime_ns,
            inode=info.st_ino, epoch=epoch,
        )

    def _put(self, relative: str, entry: Entry | None) -> None:
        parent, _, name = relative.rpartition("/")
        old = self.index.get(relative)
        if old is not None and old.digest and (entry is None or entry.digest != old.digest):
            self.objects.release((old.digest,))
        if entry is None:
            self.index.pop(relative, None)
            self._children.get(parent, set()).discard(name)
            gone = [self.index.pop(child, None) for child in list(self._indexed_under(relative))]
            self.objects.release(entry.digest for entry in gone if entry is not None and entry.digest)
            self._children.pop(relative, None)
            return
        self.index[relative] = entry
        siblings = self._children.get(parent)
        if siblings is None:
            self._children[parent] = {name}
        else:
            siblings.add(name)
        if entry.kind == "dir" and relative not in self._children:
            self._children[relative] = set()

    def _walk(self, start: str) -> Iterator[tuple[str, os.stat_result]]:
        """Every captured path under ``start`` (not following links, not entering skipped folders)."""
        stack = [start]
        while stack:
            for _name, relative, info in self._listed(stack.pop()):
                yield relative, info
                if stat.S_ISDIR(info.st_mode):
                    stack.append(relative)

    def _listed(self, folder: str) -> list[tuple[str, str, os.stat_result]]:
        """The captured entries of ``folder`` (its own state, ``.git`` and skipped paths left out), each by name and
        relative path; none when it cannot be listed."""
        try:
            with os.scandir(self.root / folder if folder else self.root) as entries:
                listed = [(entry.name, entry.stat(follow_symlinks=False)) for entry in entries]
        except OSError:
            return []
        children = []
        every_file = self.skip.keeps_every_file_in(folder)
        for name, info in listed:
            relative = f"{folder}/{name}" if folder else name
            if not folder and name in (GIT_DIR, STATE_DIR):
                continue
            is_dir = stat.S_ISDIR(info.st_mode)
            if (every_file and not is_dir) or self.skip.reason(relative, is_dir) is None:
                children.append((name, relative, info))
        return children

    def first_capture(self) -> None:
        """Reads every captured path into the index and its content into the store (a folder at a time). A file
        the saved index names with the same stat fields, whose object the store holds, is not read again."""
        started = time.perf_counter()
        saved = SavedIndex(self.index_path, self.root, self.objects.present)
        with self._lock:
            self._pinned = saved.digests()
        try:
            stack = [""]
            while stack:
                with self._lock:
                    stack.extend(self._first_capture_folder(stack.pop(), saved))
        finally:
            with self._lock:
                self._pinned = set()
            self.first_capture_seconds = time.perf_counter() - started
            self.ready.set()
        if self._unsaved >= _SAVE_AFTER or (self._unsaved and len(saved) == 0):
            self.save()  # what this walk read is not read again by the next process, even if this one is killed

    def _first_capture_folder(self, folder: str, saved: SavedIndex) -> list[str]:
        """Indexes what ``folder`` holds that the index does not yet (a file the saved index vouches for is not
        read); returns its subfolders."""
        epoch = self._epoch
        self._scanned[folder] = epoch
        index = self.index
        names = self._children.setdefault(folder, set())
        subfolders = []
        for name, relative, info in self._listed(folder):
            mode = info.st_mode
            if relative not in index:
                digest = saved.digest_for(relative, info)
                if digest is not None:
                    # Most files of a large workspace, once saved: a new path, nothing to release (``_put``'s work).
                    index[relative] = Entry(
                        "file", stat.S_IMODE(mode), digest, None, info.st_size, info.st_mtime_ns, info.st_ctime_ns,
                        info.st_ino, epoch,
                    )
                    names.add(name)
                else:
                    entry = self._entry(self.root / relative, info, None, epoch)
                    self._unsaved += entry is not None and entry.kind == "file"
                    if entry is not None:
                        self._put(relative, entry)
            if stat.S_ISDIR(mode):
                subfolders.append(relative)
        return subfolders
