"""Where a detached engine (SPEC 26) waits for ``coder-tui --attach``: a Unix socket only its user can reach, named
for the workspace, in a private folder, and beside it a small file naming the process that listens there.

The folder is ``$XDG_RUNTIME_DIR/coder-tui`` (the user's own runtime folder) or ``coder-tui-<uid>`` in the system's
temporary folder when there is none (or when a path there would pass the 107 bytes a socket's address may hold). It
must be a real folder, not a link, owned by this user, with no access for anyone else (0700); the socket is 0600.
The socket is the engine's whole control surface (an attached client answers approvals), so both ends check all of
this before they use it, and each checks the other's user on the connection itself (``SO_PEERCRED``).

The file beside the socket holds the engine's pid, its workspace and the socket's path: nothing secret.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import stat
import struct
from collections.abc import Mapping
from pathlib import Path

from engine.record import record

# A socket's address (``sun_path``) holds 108 bytes with its terminating NUL.
SOCKET_PATH_MAX = 107
FOLDER_NAME = "coder-tui"


class RendezvousError(Exception):
    """The socket or its folder cannot be trusted (a link, another owner, access for others), or cannot be made."""


@record
class Rendezvous:
    """The socket of a workspace's detached engine and the file that says who listens on it."""

    folder: Path
    socket: Path
    info: Path


def rendezvous_for(workspace: Path, env: Mapping[str, str] | None = None) -> Rendezvous:
    """Where the engine of ``workspace`` listens once detached (nothing is made or checked here)."""
    env = os.environ if env is None else env
    key = hashlib.sha256(str(workspace).encode()).hexdigest()[:24]
    uid = os.getuid()
    runtime = env.get("XDG_RUNTIME_DIR", "")
    candidates = [Path(runtime) / FOLDER_NAME] if runtime.startswith("/") else []
    candidates += [Path(env.get("TMPDIR") or "/tmp") / f"{FOLDER_NAME}-{uid}", Path("/tmp") / f"{FOLDER_NAME}-{uid}"]
    for folder in candidates:
        if len(os.fsencode(folder / f"{key}.sock")) <= SOCKET_PATH_MAX:
            return Rendezvous(folder, folder / f"{key}.sock", folder / f"{key}.json")
    raise RendezvousError(f"no folder for the engine's socket has a path short enough: {candidates[0]}")


def make_folder(rendezvous: Rendezvous) -> None:
    """Makes the private folder (0700) when it does not exist, then checks it."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(rendezvous.folder, 0o700)
    check_folder(rendezvous.folder)


def check_folder(folder: Path) -> None:
    """A real folder of this user's that nobody else may enter or change; else ``RendezvousError``."""
    try:
        found = os.lstat(folder)
    except OSError as exc:
        raise RendezvousError(f"{folder}: {exc.strerror}") from exc
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        raise RendezvousError(f"{folder} is not a folder (a link or a file): refused")
    _check_owner_and_mode(folder, found, "folder")


def check_socket(path: Path) -> None:
    """A socket of this user's, 0600 at most (no link to one); else ``RendezvousError``."""
    try:
        found = os.lstat(path)
    except OSError as exc:
        raise RendezvousError(f"{path}: {exc.strerror}") from exc
    if not stat.S_ISSOCK(found.st_mode):
        raise RendezvousError(f"{path} is not a socket (a link or a file): refused")
    _check_owner_and_mode(path, found, "socket")


def _check_owner_and_mode(path: Path, found: os.stat_result, what: str) -> None:
    if found.st_uid != os.getuid():
        raise RendezvousError(f"the {what} {path} belongs to user {found.st_uid}, not to you: refused")
    if found.st_mode & 0o077:
        raise RendezvousError(
            f"the {what} {path} is open to other users (mode {stat.S_IMODE(found.st_mode):o}): refused"
        )


@record
class Peer:
    """The process at the other end of a connected Unix socket, as the kernel saw it connect."""

    pid: int
    uid: int


def peer_of(connection: socket.socket) -> Peer:
    """``SO_PEERCRED``: the kernel's record of the peer's pid, uid and gid (it cannot be forged by the peer)."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", credentials)
    return Peer(pid, uid)


def write_info(rendezvous: Rendezvous, pid: int, workspace: Path) -> None:
    """Says which engine listens on the socket (written whole or not at all, 0600)."""
    partial = rendezvous.info.with_suffix(".partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"pid": pid, "workspace": str(workspace), "socket": str(rendezvous.socket)}, out)
    os.replace(partial, rendezvous.info)


def read_pid(rendezvous: Rendezvous) -> int | None:
    """The pid the file names, when it is there and readable."""
    try:
        fd = os.open(rendezvous.info, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd) as found:
            pid = json.load(found).get("pid")
    except (OSError, ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) else None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove(rendezvous: Rendezvous) -> None:
    for path in (rendezvous.socket, rendezvous.info):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
