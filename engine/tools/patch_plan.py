"""Working out everything a patch does before touching the disk (SPEC 5: all-or-nothing).

The changes are played in order against a virtual view of the workspace (so a patch may delete a file and add it
again, or update a file twice), each path checked by the workspace guard and against the session's knowledge of
the file. Only when every change has worked in memory does ``PatchPlan`` hold the bytes to write, each file
encoded back in its own encoding, BOM and line endings, with the combined unified diff and a summary per file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.errors import ToolError
from engine.record import record
from engine.text_diff import HunkChoice, looks_binary, unified_diff
from engine.tools.base import ToolContext
from engine.tools.fileio import (
    TextDocument,
    decode_text,
    ensure_unchanged_since_known,
    read_regular_bytes,
)
from engine.tools.patch_apply import apply_hunks
from engine.tools.patch_parse import ChangeKind, FileChange

ChangeLabel = Literal["added", "updated", "deleted", "moved"]


@record
class PlannedWrite:
    path: Path
    display: str
    payload: bytes | None  # None: delete the file


@record
class PatchPlan:
    writes: list[PlannedWrite]
    diff: str
    # One entry per file the patch changes: {"path", "change"} and, for a move, {"from"}.
    files: list[dict[str, str]]


@dataclass
class _FileState:
    """One path as the patch sees it: what is on disk, and what it holds after the changes played so far."""

    display: str
    disk: bytes | None  # None: absent on disk
    original: TextDocument | None  # the decoded disk content; None when absent or binary
    text: str | None  # the content now; None: absent
    style: TextDocument  # how ``text`` is encoded back (encoding, BOM, line endings)
    moved_from: Path | None = None  # the file on disk this one's content was moved from

    @property
    def binary(self) -> bool:
        return self.disk is not None and self.original is None


def plan_patch(changes: list[FileChange], ctx: ToolContext, choice: HunkChoice | None = None) -> PatchPlan:
    """Every file's end state; with ``choice``, only the hunks the user kept (a file whose every hunk is dropped
    stays as it is: not created, not deleted). What is kept is still written all or nothing."""
    planner = _Planner(ctx)
    for change in changes:
        planner.play(change)
    return planner.plan(choice or HunkChoice())


class _Planner:
    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.states: dict[Path, _FileState] = {}

    def play(self, change: FileChange) -> None:
        if change.kind is ChangeKind.ADD:
            self._add(change)
            return
        path, state, text = self._existing(change)
        if change.kind is ChangeKind.DELETE:
            if change.hunks and not state.binary:
                self._check_deleted_content(text, change, state.display)
            state.text = None
            return
        if state.binary:
            raise ToolError(
                f"{state.display} looks like a binary file (it contains NUL bytes); a patch cannot change it"
            )
        new_text = apply_hunks(text, change.hunks, state.display) if change.hunks else text
        target_path = self._resolve(change.move_to) if change.move_to is not None else path
        if target_path == path:
            state.text = new_text
            return
        target = self._state(target_path)
        if target.text is not None and not change.replaces_existing:
            raise ToolError(
                f"cannot move {state.display} to {target.display}: {target.display} already exists; delete it "
                "first in the same patch if it should be replaced"
            )
        target.text, target.style = new_text, state.style
        target.moved_from = state.moved_from or (path if state.disk is not None else None)
        state.text, state.moved_from = None, None

    def plan(self, choice: HunkChoice) -> PatchPlan:
        writes: list[PlannedWrite] = []
        deletes: list[PlannedWrite] = []
        diffs: list[str] = []
        files: list[dict[str, str]] = []
        moved_away = {s.moved_from for s in self.states.values() if s.text is not None and s.disk is None}
        for path, state in self.states.items():
            if state.text is None:
                if state.disk is None:
                    continue
                if path not in moved_away and state.original is not None:
                    if choice.apply(state.original.text, None, state.display) is not None:
                        continue  # the deletion was dropped
                deletes.append(PlannedWrite(path, state.display, None))
                if path not in moved_away:  # a move's diff already shows where the content went
                    diffs.append(_deletion_diff(state))
                    files.append({"path": state.display, "change": "deleted"})
                continue
            payload = state.style.encode(state.text, state.display)
            source = self.states[state.moved_from] if state.moved_from is not None else None
            if source is not None and state.disk is None:
                moved_text = source.original.text if source.original is not None else ""
                text = choice.apply(moved_text, state.text, state.display) or ""
                writes.append(PlannedWrite(path, state.display, state.style.encode(text, state.display)))
                diffs.append(_move_diff(source, text, state.display))
                files.append({"path": state.display, "change": "moved", "from": source.display})
            elif payload != state.disk:
                old_text = state.original.text if state.original is not None else None
                text = choice.apply(old_text, state.text, state.display)
                if text is None or text == old_text:
                    continue  # every hunk of this file was dropped
                writes.append(PlannedWrite(path, state.display, state.style.encode(text, state.display)))
                diffs.append(unified_diff(old_text, text, state.display))
                label: ChangeLabel = "added" if state.disk is None else "updated"
                files.append({"path": state.display, "change": label})
        # Writes before deletes: a move whose second half fails never loses the file's content.
        return PatchPlan(writes=writes + deletes, diff="".join(diffs), files=files)

    @staticmethod
    def _check_deleted_content(text: str, change: FileChange, display: str) -> None:
        """A plain diff's delete lists the lines it removes: they must be the file's, as ``git apply`` checks, so a
        model that misremembers a file does not delete a different one."""
        left = apply_hunks(text, change.hunks, display)
        if left.strip():
            raise ToolError(
                f"cannot delete {display}: the lines the patch removes are not the whole file ("
                f"{len(left.splitlines())} line(s) would remain); read it again, or use '*** Delete File: {display}'"
            )

    def _add(self, change: FileChange) -> None:
        state = self._state(self._resolve(change.path))
        if state.text is not None and not change.replaces_existing:
            raise ToolError(
                f"cannot add {state.display}: it already exists; change it with an update instead, or delete it "
                "first in the same patch"
            )
        state.text, state.style, state.moved_from = change.content, TextDocument(text=""), None

    def _resolve(self, name: str) -> Path:
        path = self.ctx.workspace.resolve(name, write=True)
        if path.is_dir():
            raise ToolError(f"{self.ctx.workspace.display(path)} is a directory, not a file")
        return path

    def _existing(self, change: FileChange) -> tuple[Path, _FileState, str]:
        """The file an update or delete is about: its path, or an alternate spelling from a plain diff."""
        primary = self._resolve(change.path)
        candidates = [primary]
        for name in change.alternate_paths:
            try:
                candidates.append(self._resolve(name))
            except ToolError:
                continue
        for path in candidates:
            state = self._state(path)
            if state.text is not None:
                return path, state, state.text
        verb = "delete" if change.kind is ChangeKind.DELETE else "update"
        raise ToolError(f"cannot {verb} {self.ctx.workspace.display(primary)}: file not found")

    def _state(self, path: Path) -> _FileState:
        """The state of ``path``, read from disk on first use (and checked against what the session knows)."""
        state = self.states.get(path)
        if state is not None:
            return state
        display = self.ctx.workspace.display(path)
        try:
            disk: bytes | None = read_regular_bytes(path, display)
        except FileNotFoundError:
            disk = None
        except OSError as exc:
            raise ToolError(f"cannot read {display}: {exc.strerror or exc}") from exc
        if disk is None:
            state = _FileState(display, None, None, None, TextDocument(text=""))
        else:
            ensure_unchanged_since_known(self.ctx, path, display)
            document = None if looks_binary(disk) else decode_text(disk)
            text = "" if document is None else document.text  # a binary file is present but has no text
            state = _FileState(display, disk, document, text, document or TextDocument(text=""))
        self.states[path] = state
        return state


def _deletion_diff(state: _FileState) -> str:
    if state.original is None:
        return f"Binary files a/{state.display} and /dev/null differ\n"
    return unified_diff(state.original.text, None, state.display)


def _move_diff(source: _FileState, new_text: str, display: str) -> str:
    """The diff of a move: ``--- a/<old path>`` / ``+++ b/<new path>``, then the hunks of any content change."""
    header = f"--- a/{source.display}\n+++ b/{display}\n"
    old_text = source.original.text if source.original is not None else ""
    changes = unified_diff(old_text, new_text, display)
    return header + changes.split("\n", 2)[2] if changes else header
