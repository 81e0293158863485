"""One owner per session (SPEC 21): a process holds ``.coder/locks/<session_id>.lock`` with ``flock`` while the
session is its own. The operating system drops the lock when the process ends, crash or ``kill -9`` included, so
there is never a stale lock to clean up. Python opens the file non-inheritable, so a bash child that outlives its
parent does not keep the lock either.

The holder writes its pid and command line into the file, so a refused second process can name it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.storage.errors import StorageError
from engine.storage.names import checked_name

try:
    import fcntl
except ImportError:  # not POSIX: sessions are not locked there
    fcntl = None  # type: ignore[assignment]


def locks_dir(workspace: Path) -> Path:
    return workspace / ".coder" / "locks"


class SessionBusy(StorageError):
    """The session is open in another live process; the message names it and says what to do."""

    def __init__(self, session_id: str, holder: str) -> None:
        self.session_id = session_id
        self.holder = holder
        super().__init__(
            f"session {session_id} is open in another coder-tui process ({holder}); close that one first, "
            "or continue in a copy with --fork (/fork <id> inside the app)"
        )


@dataclass
class SessionLock:
    session_id: str
    path: Path
    _fd: int

    @classmethod
    def acquire(cls, workspace: Path, session_id: str) -> SessionLock:
        """Takes the session's lock at once or raises ``SessionBusy`` naming the live holder."""
        path = locks_dir(workspace) / f"{checked_name(session_id, 'session id')}.lock"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Never through a link a repository planted: the lock file is truncated and written.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise StorageError(f"cannot create the session lock {path}: {exc.strerror or exc}") from exc
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _describe_holder(fd)
                os.close(fd)
                raise SessionBusy(session_id, holder) from None
            except OSError:  # a file system without locks: run unlocked rather than not at all
                pass
        _write_holder(fd)
        return cls(session_id, path, fd)

    def release(self) -> None:
        if self._fd < 0:
            return
        try:
            os.ftruncate(self._fd, 0)
        except OSError:
            pass
        os.close(self._fd)  # closing drops the flock
        self._fd = -1


class SessionLocks:
    """The locks one orchestrator holds: its session's, and one claimed ahead of a switch (``/resume``)."""

    def __init__(self, workspace: Path) -> None:
        self._workspace = workspace
        self._held: dict[str, SessionLock] = {}

    def claim(self, session_id: str) -> None:
        """Holds ``session_id``'s lock (a no-op when already held); ``SessionBusy`` when another process has it."""
        if session_id not in self._held:
            self._held[session_id] = SessionLock.acquire(self._workspace, session_id)

    def adopt(self, lock: SessionLock) -> None:
        """Holds a lock taken before this set was made (the session the engine process opened with)."""
        self._held.setdefault(lock.session_id, lock)

    def keep_only(self, *session_ids: str) -> None:
        """Releases every lock but those of ``session_ids`` (the sessions open)."""
        for held in [key for key in self._held if key not in session_ids]:
            self._held.pop(held).release()

    def release_all(self) -> None:
        for lock in self._held.values():
            lock.release()
        self._held.clear()


def _write_holder(fd: int) -> None:
    record = f"{os.getpid()}\n{_command_line(os.getpid()) or ''}\n"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, record.encode("utf-8", errors="replace"), 0)
    except OSError:
        pass  # naming the holder is a courtesy; the lock itself is what counts


def _describe_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", errors="replace")
    except OSError:
        text = ""
    pid_text, _, rest = text.partition("\n")
    if not pid_text.strip().isdigit():
        return "a process that did not say which"
    pid = int(pid_text)
    command = _command_line(pid) or rest.strip()
    return f"pid {pid}" + (f": {command}" if command else "")


def _command_line(pid: int) -> str | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part) or None
