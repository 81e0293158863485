"""Opening a path exactly where the workspace guard checked it (SPEC 13, issue 27 item 6).

``Workspace.resolve`` answers with a real path: absolute, no ``..``, no symbolic link in any component. A moment
later the tool opens it; if a component was swapped for a symlink in between (a folder replaced by a link to
``/etc``), an ordinary ``open`` follows it out of the workspace. So the open itself refuses to follow any symlink:

- Linux 5.6 and later: ``openat2`` with ``RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` (Python has no wrapper, so
  through ``ctypes``): the kernel walks the checked components and fails with ``ELOOP`` at any link.
- Elsewhere (older kernels, a seccomp filter that refuses the call, macOS): one component at a time from ``/``, each
  opened with ``O_NOFOLLOW`` relative to the folder before it (``dir_fd``), so the same rule holds.

A path that cannot be opened this way because it met a symlink raises ``PathOutsideWorkspace`` naming it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import sys
from pathlib import Path

from engine.errors import PathOutsideWorkspace

_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
# openat2's number is the same on every Linux architecture (it was added after the tables were unified).
_SYS_OPENAT2 = 437
_AT_FDCWD = -100


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _load_syscall() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
    except (OSError, AttributeError):
        return None
    syscall.restype = ctypes.c_long
    syscall.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    return syscall


_syscall = _load_syscall()
# False once the kernel said it has no openat2 (ENOSYS, or EPERM from a seccomp filter): the walk is used from then.
kernel_openat2 = _syscall is not None


def open_checked(path: Path, flags: int, mode: int = 0o666, *, display: str | None = None) -> int:
    """A descriptor for the real path ``path`` (as ``Workspace.resolve`` gives it), opened without following any
    symlink in any of its components; ``PathOutsideWorkspace`` when one is met. Other errors are the usual
    ``OSError`` (``FileNotFoundError``...). ``O_CLOEXEC`` is always added."""
    global kernel_openat2
    flags |= os.O_CLOEXEC
    if kernel_openat2:
        fd = _openat2(os.fsencode(path), flags, mode)
        if fd >= 0:
            return fd
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EPERM):
            _raise(code, path, display)
        kernel_openat2 = False
    return _open_by_components(path, flags, mode, display)


def _openat2(encoded: bytes, flags: int, mode: int) -> int:
    # openat2 refuses a mode without O_CREAT or O_TMPFILE (whose bits include O_DIRECTORY's: tested whole).
    tmpfile = getattr(os, "O_TMPFILE", 0)
    creates = flags & os.O_CREAT or (tmpfile and flags & tmpfile == tmpfile)
    how = _OpenHow(flags, mode if creates else 0, _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS)
    assert _syscall is not None
    size = ctypes.sizeof(how)
    return int(_syscall(_SYS_OPENAT2, _AT_FDCWD, encoded, ctypes.byref(how), size))  # type: ignore[operator]


def _open_by_components(path: Path, flags: int, mode: int, display: str | None) -> int:
    if len(path.parts) == 1:  # the root folder itself
        return os.open(path, flags, mode)
    folder = _descend(path, path.parts[1:-1], display, create=False)
    try:
        return os.open(path.parts[-1], flags | os.O_NOFOLLOW, mode, dir_fd=folder)
    except OSError as exc:
        _raise_if_link(exc, path, display)
        raise
    finally:
        os.close(folder)


def _descend(path: Path, names: tuple[str, ...], display: str | None, *, create: bool) -> int:
    """The folder ``/names...`` of the checked real ``path``, each opened with ``O_NOFOLLOW`` inside the one before
    (made first when ``create``)."""
    if not path.is_absolute() or ".." in path.parts:
        raise PathOutsideWorkspace(f"{display or path}: only a checked real path can be opened")
    folder = os.open(path.anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=folder)
            try:
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            except OSError as exc:
                _raise_if_link(exc, path, display)
                raise
            os.close(folder)
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder


def _raise_if_link(exc: OSError, path: Path, display: str | None) -> None:
    # O_NOFOLLOW on a link gives ELOOP; O_DIRECTORY | O_NOFOLLOW on a link to a folder gives ENOTDIR on some systems.
    if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and _is_link_somewhere(path)):
        _raise(errno.ELOOP, path, display)


def _is_link_somewhere(path: Path) -> bool:
    current = Path(path.anchor)
    for part in path.parts[1:]:
        current = current / part
        if os.path.islink(current):
            return True
    return False


def _raise(code: int, path: Path, display: str | None) -> None:
    shown = display or str(path)
    if code in (errno.ELOOP, errno.EXDEV):
        raise PathOutsideWorkspace(
            f"{shown} changed after it was checked: a symbolic link now stands in its path (swapped in while it was "
            "being opened?); refused"
        )
    raise OSError(code, os.strerror(code), str(path))


def open_folder_creating(path: Path, *, display: str | None = None) -> int:
    """A descriptor for the folder ``path`` (a checked real path), the missing folders on the way made with
    ``mkdir`` inside the folder opened before them: never through a symlink, so a folder swapped for a link to the
    outside cannot make ``mkdir -p`` create folders there."""
    try:
        return open_checked(path, os.O_RDONLY | os.O_DIRECTORY, display=display)
    except FileNotFoundError:
        return _descend(path, path.parts[1:], display, create=True)
