"""How the file tools read and write text without damaging it.

A file is decoded once into a ``TextDocument``: its text with ``\\n`` newlines plus what is needed to write it back
the way it was (encoding, UTF-8 BOM, CRLF or LF). Writes are atomic (a temp file in the same folder, then
``os.replace``) and keep the old file's permission bits, so an interrupted write never leaves half a file and an
executable script stays executable.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from pathlib import Path
from typing import BinaryIO, Literal

from engine.errors import ToolError
from engine.record import record
from engine.text_diff import looks_binary
from engine.tools.base import ToolContext
from engine.tools.guard import ensure_opened_where_checked
from engine.tools.opened_where_checked import open_checked, open_folder_creating

UTF8_BOM = b"\xef\xbb\xbf"

_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)

Encoding = Literal["utf-8", "latin-1"]
Newline = Literal["\n", "\r\n"]


@record
class TextDocument:
    """A decoded text file: ``text`` always uses ``\\n``; the other fields say how to encode it back."""

    text: str
    encoding: Encoding = "utf-8"
    bom: bool = False
    newline: Newline = "\n"

    def encode(self, text: str, display_path: str) -> bytes:
        """``text`` (``\\n`` or CRLF newlines) as bytes in this document's encoding, newline style and BOM."""
        body = text.replace("\r\n", "\n")
        if self.newline == "\r\n":
            body = body.replace("\n", "\r\n")
        try:
            data = body.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = body[exc.start : exc.end]
            raise ToolError(
                f"cannot write {display_path}: the file is {self.encoding}-encoded and {bad!r} has no "
                f"{self.encoding} form; rewrite the whole file with write to change its encoding to UTF-8"
            ) from exc
        return UTF8_BOM + data if self.bom else data


def decode_text(data: bytes) -> TextDocument:
    """UTF-8 (with or without BOM), else latin-1, which decodes any byte: reading never fails on encoding."""
    bom = data.startswith(UTF8_BOM)
    payload = data[len(UTF8_BOM) :] if bom else data
    encoding: Encoding = "utf-8"
    try:
        raw = payload.decode("utf-8")
    except UnicodeDecodeError:
        raw = payload.decode("latin-1")
        encoding = "latin-1"
    crlf = raw.count("\r\n")
    lone_lf = raw.count("\n") - crlf
    newline: Newline = "\r\n" if crlf > lone_lf else "\n"
    return TextDocument(text=raw.replace("\r\n", "\n"), encoding=encoding, bom=bom, newline=newline)


def special_file_kind(mode: int) -> str | None:
    """What a FIFO, socket or device is called in an error; None for a regular file or a folder."""
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return None


def refuse_special_file(path: Path, display_path: str) -> None:
    """SPEC 13: a FIFO, socket or device is refused before it is opened (opening a FIFO blocks until a writer
    comes, and a device can be endless). A path that does not exist passes: the caller reports it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    kind = special_file_kind(mode)
    if kind is not None:
        raise ToolError(f"{display_path} is {kind}, not a regular file; the file tools work on regular files only")


def open_regular(path: Path, display_path: str) -> BinaryIO:
    """Opens a regular file for reading, never blocking on a FIFO swapped in after the check: it is opened with
    ``O_NONBLOCK`` (which makes a FIFO open return at once) and checked again on the descriptor. ``path`` is a
    real path the guard checked: it is opened without following a symlink swapped in since (``open_checked``)."""
    refuse_special_file(path, display_path)
    fd = open_checked(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY, display=display_path)
    try:
        kind = special_file_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise ToolError(f"{display_path} is {kind}, not a regular file; the file tools work on regular files only")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: Path, display_path: str) -> bytes:
    """The whole content of a regular file (``open_regular``); ``FileNotFoundError`` when it does not exist."""
    with open_regular(path, display_path) as handle:
        return handle.read()


def read_text_document(path: Path, display_path: str) -> TextDocument:
    """Reads and decodes a text file for editing; a clear ``ToolError`` for a folder or a binary file."""
    if path.is_dir():
        raise ToolError(f"{display_path} is a directory, not a file")
    try:
        with open_regular(path, display_path) as handle:
            ensure_opened_where_checked(handle.fileno(), path, display_path)
            data = handle.read()
    except FileNotFoundError as exc:
        raise ToolError(f"file not found: {display_path}") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {display_path}: {exc.strerror or exc}") from exc
    if looks_binary(data):
        raise ToolError(f"{display_path} looks like a binary file (it contains NUL bytes); it cannot be edited")
    return decode_text(data)


def atomic_write(path: Path, data: bytes, display_path: str) -> None:
    """Writes ``data`` to ``path`` through a temp file in the same folder and ``os.replace``.

    Parent folders are created. An existing file's permission bits are kept; a new file gets the usual
    ``0o666 & ~umask`` because the temp file is created with mode 0o666 and the kernel applies the umask.
    """
    try:
        _replace_atomically(path, data, display_path)
    except OSError as exc:
        raise ToolError(f"cannot write {display_path}: {exc.strerror or exc}") from exc


def _replace_atomically(path: Path, data: bytes, display_path: str) -> None:
    """Works inside the opened folder (``dir_fd``), opened (and its missing parents made) without following a
    symlink, so a folder swapped for a symlink after the check cannot redirect the write; the rename replaces a final
    symlink, never its target."""
    folder = open_folder_creating(path.parent, display=display_path)
    try:
        ensure_opened_where_checked(folder, path.parent, display_path)
        try:
            old_mode: int | None = stat.S_IMODE(os.stat(path.name, dir_fd=folder).st_mode)
        except FileNotFoundError:
            old_mode = None
        temp = f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                if old_mode is not None:
                    os.fchmod(handle.fileno(), old_mode)
            os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=folder)
            raise
    finally:
        os.close(folder)


def ensure_unchanged_since_known(ctx: ToolContext, path: Path, display_path: str) -> None:
    """Refuses to overwrite a file that changed on disk since this session last read or wrote it.

    The model's idea of the file would be stale: writing from it would silently throw away someone else's change.
    A file the session never saw is not checked here (``write`` asks for approval instead).
    """
    known = ctx.known_files.get(path)
    if known is None:
        return
    try:
        current = path.stat()
    except FileNotFoundError:
        return
    if current.st_mtime_ns != known.mtime_ns or current.st_size != known.size:
        raise ToolError(
            f"{display_path} changed on disk since it was last read in this session; read it again before "
            "changing it"
        )
