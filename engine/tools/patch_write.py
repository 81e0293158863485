"""Writing a planned patch to disk, every file or none (SPEC 5: a failed patch changes no file).

Each file is written atomically (``fileio.atomic_write``: temp file, then rename). Between files there is no such
guarantee from the file system, so the original bytes and permission bits of every path are kept in memory first;
if any write or delete fails, the ones already done are undone and the folders created for new files removed.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from engine.errors import ToolError
from engine.record import record
from engine.tools.fileio import atomic_write, read_regular_bytes
from engine.tools.opened_where_checked import open_checked
from engine.tools.patch_plan import PlannedWrite


@record
class _Original:
    write: PlannedWrite
    data: bytes | None  # None: the path did not exist
    mode: int | None


def write_all_or_nothing(writes: Sequence[PlannedWrite]) -> None:
    """Carries out ``writes`` in order; on any failure restores every path already changed, then raises."""
    originals = [_capture(write) for write in writes]
    new_folders = _missing_folders(writes)
    done: list[_Original] = []
    try:
        for original in originals:
            _carry_out(original.write)
            done.append(original)
    except ToolError as exc:
        problems = _restore(done, new_folders)
        outcome = (
            "the files written before it were restored, so no file was changed"
            if not problems
            else f"restoring the files written before it failed too ({'; '.join(problems)})"
        )
        raise ToolError(f"{exc}; {outcome}") from exc


def _capture(write: PlannedWrite) -> _Original:
    try:
        data = read_regular_bytes(write.path, write.display)
        mode = stat.S_IMODE(write.path.stat().st_mode)
    except FileNotFoundError:
        return _Original(write, None, None)
    except OSError as exc:
        raise ToolError(f"cannot read {write.display} before changing it: {exc.strerror or exc}") from exc
    return _Original(write, data, mode)


def _missing_folders(writes: Sequence[PlannedWrite]) -> list[Path]:
    """The folders that writing new files will create, deepest first."""
    missing: set[Path] = set()
    for write in writes:
        if write.payload is None:
            continue
        folder = write.path.parent
        while not folder.exists():
            missing.add(folder)
            folder = folder.parent
    return sorted(missing, key=lambda folder: len(folder.parts), reverse=True)


def _carry_out(write: PlannedWrite) -> None:
    if write.payload is not None:
        atomic_write(write.path, write.payload, write.display)
        return
    try:
        _unlink_where_checked(write)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ToolError(f"cannot delete {write.display}: {exc.strerror or exc}") from exc


def _unlink_where_checked(write: PlannedWrite) -> None:
    """Deletes in the folder opened where it was checked: a folder swapped for a symlink cannot redirect it."""
    folder = open_checked(write.path.parent, os.O_RDONLY | os.O_DIRECTORY, display=write.display)
    try:
        os.unlink(write.path.name, dir_fd=folder)
    finally:
        os.close(folder)


def _restore(done: list[_Original], new_folders: list[Path]) -> list[str]:
    """Undoes ``done`` newest first; returns what could not be undone."""
    problems: list[str] = []
    for original in reversed(done):
        write = original.write
        try:
            if original.data is None:
                with contextlib.suppress(FileNotFoundError):
                    _unlink_where_checked(write)
            else:
                atomic_write(write.path, original.data, write.display)
                if original.mode is not None:
                    os.chmod(write.path, original.mode)
        except (ToolError, OSError) as exc:
            problems.append(f"{write.display}: {exc}")
    for folder in new_folders:
        try:
            folder.rmdir()
        except OSError:
            continue  # not empty or already gone: leave it
    return problems
