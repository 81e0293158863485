"""Whose state is this (SPEC 19): ``.coder/`` can arrive with a clone or a pull, so what it holds is trusted only
where this user's coder-tui made it on this machine. Each piece of state that could give power (a session's saved
mode, an undo journal, a stored rule) carries a MAC made with a key that only this user can read: 32 random bytes in
the user's config folder (``state.key``, 0600, in a 0700 folder), made on first use. A repository cannot forge the
MAC, and the MAC names the workspace, so state copied from another project of the same user is foreign here too.

The API is small on purpose: ``StateKey.load`` once, then ``sign`` / ``verify`` over the parts that identify the
thing (its kind, the workspace, its id...). Any other store of state can use it the same way.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from engine.storage.errors import StorageError

KEY_FILE = "state.key"
KEY_BYTES = 32


def key_path(env: Mapping[str, str] | None = None) -> Path:
    """Beside the user's config (``engine.config.paths.user_config_path``, not imported: that package loads pydantic,
    and the engine process reads a session's history before it may)."""
    base = (env or {}).get("XDG_CONFIG_HOME") or os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "coder" / KEY_FILE


class StateKey:
    """The user's state key. ``sign(*parts)`` gives a hex MAC over the parts (joined unambiguously);
    ``verify(mac, *parts)`` compares in constant time."""

    def __init__(self, key: bytes) -> None:
        if len(key) < KEY_BYTES:
            raise ValueError("a state key holds at least 32 bytes")
        self._key = key

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None) -> StateKey:
        """Reads the key, making it on first use. ``StorageError`` naming the file when it is not a regular file
        of this user readable by nobody else (then nothing can be told apart, and the user must fix it)."""
        path = key_path(env)
        try:
            return cls(_read_key(path))
        except FileNotFoundError:
            pass
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return cls(_read_key(path))  # made by another process meanwhile
        except OSError as exc:
            raise StorageError(f"cannot create the state key {path}: {exc.strerror or exc}") from exc
        key = secrets.token_bytes(KEY_BYTES)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
        return cls(key)

    def sign(self, *parts: str | bytes) -> str:
        """The hex MAC of ``parts`` (text or bytes: a kind, a workspace, an id, a file's content...), each prefixed
        by its length so that no two different lists of parts sign alike."""
        mac = hmac.new(self._key, digestmod=hashlib.sha256)
        for part in parts:
            data = part.encode() if isinstance(part, str) else part
            mac.update(len(data).to_bytes(8, "big") + data)
        return mac.hexdigest()

    def verify(self, mac: object, *parts: str | bytes) -> bool:
        return isinstance(mac, str) and hmac.compare_digest(mac, self.sign(*parts))


def _read_key(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StorageError(
            f"cannot read the state key {path}: {exc.strerror or exc} (it must be a regular file, not a link; "
            "remove it to make a new one: your sessions then count as made elsewhere)"
        ) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise StorageError(
                f"the state key {path} must be a regular file of yours that only you can read (chmod 600 {path})"
            )
        key = handle.read()
    if len(key) < KEY_BYTES:
        raise StorageError(f"the state key {path} is too short; remove it to make a new one")
    return key
