"""The content store of undo: every kept file's bytes once, named by their sha256
(``.coder/undo/objects/ab/cdef...``), for the capture's index and every undo row alike (a file tool's snapshot
and a shell command's change).

A file that many turns saw unchanged, or that two folders hold, is stored once. Objects are written atomically and
readable by the owner only (0600): they are copies of workspace files, secrets included. A read checks the bytes
against their name, so a damaged or planted object is never written back into the workspace. Objects no undo row
and no live index names are pruned with the undo stack (``prune``): the capture tells the store which objects its
index names (``live``) and which it stopped naming (``release``).

``.coder/undo/`` is opened in one place, ``undo_folder``: never through a link, never outside the workspace.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from engine.errors import EngineError

OBJECT_PREFIX = "sha256:"
_CHUNK = 1 << 20
_HEX = frozenset("0123456789abcdef")


class ObjectStoreError(EngineError):
    """An object is missing, damaged, or not where undo keeps its copies."""


def object_name(digest: str) -> str:
    """The name an undo row stores for the object holding ``digest``."""
    return f"{OBJECT_PREFIX}{digest}"


def is_digest(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and _HEX.issuperset(text)


def undo_folder(workspace_root: Path) -> Path:
    """``<workspace>/.coder/undo``, where the content store and the capture's index live. ``ObjectStoreError`` when
    it, or a folder on the way, is a link or leads outside the workspace (a repository can ship ``.coder/``)."""
    root = Path(os.path.realpath(workspace_root))
    folder = root / ".coder" / "undo"
    for path in (folder.parent, folder, folder / "objects"):
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise ObjectStoreError(
                f"{path} is a link or not a folder; coder-tui keeps undo copies only in a folder of its own: "
                f"move it away (mv {path} {path}.moved)"
            )
    return folder


def open_object_store(workspace_root: Path) -> ObjectStore:
    """The workspace's content store, its folder checked (``undo_folder``)."""
    return ObjectStore(undo_folder(workspace_root) / "objects")


class ObjectStore:
    def __init__(self, folder: Path) -> None:
        """``ObjectStoreError`` when ``folder``, a folder above it up to the state folder, or a two-letter folder in it is
        a link: checked where the store is opened, as ``.coder/`` can arrive with the repository."""
        self.folder = folder
        self._folders: set[str] = set()  # the two-letter folders known to exist (a mkdir per file costs)
        # The objects a live capture index names (the workspace as it is now: never pruned), and those it stopped
        # naming (pruned with the undo turns once no row names them either).
        self.live: Callable[[], Collection[str]] = frozenset
        self._released: set[str] = set()
        self._released_lock = threading.Lock()
        self._refuse_links()

    def _refuse_links(self) -> None:
        for folder in (self.folder, *self.folder.parents):
            if folder.is_symlink():
                raise ObjectStoreError(f"{folder} is a symbolic link; undo copies are never written through one")
            if folder.name == ".coder":
                break
        try:
            with os.scandir(self.folder) as entries:
                linked = next((entry.path for entry in entries if entry.is_symlink()), None)
        except FileNotFoundError:
            return
        if linked is not None:
            raise ObjectStoreError(f"{linked} is a symbolic link; undo copies are never written through one")

    def path_of(self, digest: str) -> Path:
        if not is_digest(digest):
            raise ObjectStoreError(f"{digest!r} is not a sha256 digest: the undo data is damaged")
        return self.folder / digest[:2] / digest[2:]

    def present(self) -> set[str]:
        """The digests of every object the store holds (a listing of its folders: no stat per object)."""
        digests: set[str] = set()
        try:
            with os.scandir(self.folder) as folders:
                prefixes = [f.name for f in folders if len(f.name) == 2 and f.is_dir(follow_symlinks=False)]
        except OSError:
            return digests
        for prefix in prefixes:
            try:
                # A name that is no digest is refused when read (``path_of``): not checked one by one here.
                digests.update(prefix + name for name in os.listdir(self.folder / prefix) if len(name) == 62)
            except OSError:
                continue
        return digests

    def release(self, digests: Iterable[str]) -> None:
        with self._released_lock:
            self._released.update(digests)

    def take_released(self) -> set[str]:
        with self._released_lock:
            released, self._released = self._released, set()
        return released

    def put_file(self, path: Path) -> str:
        """Copies the file at ``path`` into the store (once per content) and returns its sha256. The copy is hashed
        as it is made, so what is stored is exactly what was read."""
        with open(path, "rb", buffering=0) as source:
            head = source.read(_CHUNK)
            if len(head) < _CHUNK:  # a small file (most of them): one read, and no copy when the store has it
                return self.put_bytes(head)
        digest = hashlib.sha256()
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".in.", dir=self.folder)
        try:
            with os.fdopen(fd, "wb") as out, open(path, "rb", buffering=0) as source:
                while chunk := source.read(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
            name = digest.hexdigest()
            final = self.path_of(name)
            if final.exists():
                os.unlink(temp)
            else:
                self._make_folder(name)
                os.replace(temp, final)
            return name
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise

    def put_bytes(self, data: bytes) -> str:
        name = hashlib.sha256(data).hexdigest()
        final = self.path_of(name)
        if not final.exists():
            self._make_folder(name)
            temp = final.with_name(f".in.{os.getpid()}.{threading.get_ident()}")
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            except FileNotFoundError:  # the store's folder was removed meanwhile: made again
                self._folders.clear()
                self._make_folder(name)
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(temp, final)
            except BaseException:
                temp.unlink(missing_ok=True)
                raise
        return name

    def _make_folder(self, digest: str) -> None:
        """Makes the object's two-letter folder; ``ObjectStoreError`` when it is a link (copies of workspace files would
        be written wherever it points)."""
        if digest[:2] not in self._folders:
            folder = self.folder / digest[:2]
            folder.mkdir(parents=True, exist_ok=True)
            if folder.is_symlink() or self.folder.is_symlink():
                raise ObjectStoreError(f"{folder} is a symbolic link; undo copies are never written through one")
            self._folders.add(digest[:2])

    def read(self, digest: str) -> bytes:
        try:
            data = self.path_of(digest).read_bytes()
        except OSError as exc:
            raise ObjectStoreError(
                f"the undo copy {digest[:12]}… is missing or unreadable: {exc.strerror or exc}"
            ) from exc
        if hashlib.sha256(data).hexdigest() != digest:
            raise ObjectStoreError(f"the undo copy {digest[:12]}… does not hold what its name says: not used")
        return data

    def prune(self, candidates: Collection[str], named: Collection[str]) -> None:
        """Deletes the objects among ``candidates`` (and those the capture released) that neither ``named`` (by an
        undo row) nor the live index names."""
        doomed = (set(candidates) | self.take_released()) - set(named) - set(self.live())
        for digest in doomed:
            try:
                self.path_of(digest).unlink(missing_ok=True)
            except (OSError, ObjectStoreError):
                continue
