"""What a patch says, whichever dialect it was written in: a list of file changes, each update a list of hunks.

Both parsers (unified diff and ``*** Begin Patch``) produce these; ``patch_apply`` and ``patch_plan`` never see
the dialect. Every hunk line keeps the line number it had in the patch so that a failure can point at it.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from engine.errors import ToolError
from engine.record import record

Tag = Literal[" ", "-", "+"]


class PatchSyntaxError(ToolError):
    """The patch text cannot be read; the message names the patch line."""

    def __init__(self, line_number: int | None, message: str) -> None:
        where = f"patch line {line_number}: " if line_number is not None else ""
        super().__init__(f"invalid patch: {where}{message}")


@record
class HunkLine:
    tag: Tag  # " " context, "-" removed, "+" added
    text: str
    patch_line: int  # 1-based line of the patch text it came from


@record
class Anchor:
    """An ``@@ <line>`` of the ``*** Begin Patch`` format: a line to find first; the hunk lies after it."""

    text: str
    patch_line: int


@record
class Hunk:
    header: str  # as written ("@@ -3,4 +3,5 @@", "@@ def f():"), for messages; "" when the chunk had none
    patch_line: int  # where the hunk starts in the patch text
    lines: tuple[HunkLine, ...]
    anchors: tuple[Anchor, ...] = ()
    # The 1-based old-file line the hunk claims to start at (unified diffs); a hint, offsets are tolerated.
    old_start: int | None = None
    # "*** End of File": the old lines are the last lines of the file.
    at_end: bool = False
    # "\ No newline at end of file" after an old-side / new-side line.
    old_missing_newline: bool = False
    new_missing_newline: bool = False

    @property
    def old_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.tag != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.tag != "-"]


class ChangeKind(str, Enum):
    ADD = "add"
    DELETE = "delete"
    UPDATE = "update"


@record
class FileChange:
    kind: ChangeKind
    path: str
    patch_line: int
    hunks: tuple[Hunk, ...] = ()
    # UPDATE: the new path when the file is also moved (renamed).
    move_to: str | None = None
    # ADD: the whole content of the new file.
    content: str = ""
    # UPDATE/DELETE from a plain diff: other spellings of the file to try when ``path`` does not exist (the other
    # side's name, the name without its first folder as ``patch -p1`` would read it).
    alternate_paths: tuple[str, ...] = ()
    # ADD / a move: an existing file at the target is replaced (the ``*** Begin Patch`` format, as Codex applies it);
    # a plain diff refuses instead, as ``git apply`` does.
    replaces_existing: bool = False

    def touched_paths(self) -> list[str]:
        return [self.path, self.move_to] if self.move_to else [self.path]
