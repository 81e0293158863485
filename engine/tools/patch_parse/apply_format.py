"""The ``*** Begin Patch`` format that OpenAI models are trained to emit (Codex's ``apply_patch``).

    *** Begin Patch
    *** Add File: path        then every line of the new file prefixed with "+"
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path     optional, right after Update
    @@ class Foo              optional context line(s) to find first; the first chunk may have none
     context / -removed / +added lines
    *** End of File           optional: the chunk ends at the end of the file
    *** End Patch

Markers are recognised with white space around them. An empty line inside a chunk is an empty context line (models
drop the single space of a blank context line); empty lines at the edges of a chunk only separate chunks. An ``@@``
line that carries unified-diff numbers (``@@ -12,4 +12,5 @@``) gives a line hint instead of a context line.
"""

from __future__ import annotations

import re

from engine.tools.patch_parse.envelope import PatchText
from engine.tools.patch_parse.model import Anchor, ChangeKind, FileChange, Hunk, HunkLine, PatchSyntaxError, Tag

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
FILE_MARKERS = (ADD, DELETE, UPDATE)
_SECTION_ENDS = (*FILE_MARKERS, END)
_NUMBERED_ANCHOR = re.compile(r"^-(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")
_TAGS: dict[str, Tag] = {" ": " ", "-": "-", "+": "+"}


def parse_apply_patch(patch: PatchText) -> list[FileChange]:
    lines = patch.lines
    if lines[0].strip() != BEGIN:
        raise PatchSyntaxError(patch.number(0), f"the first line must be {BEGIN!r}, got {lines[0]!r}")
    if lines[-1].strip() != END:
        raise PatchSyntaxError(
            patch.number(len(lines) - 1), f"the last line must be {END!r}; was the patch cut short?"
        )
    reader = _Reader(patch, end=len(lines) - 1)
    changes: list[FileChange] = []
    while reader.index < reader.end:
        line = reader.current().strip()
        if not line:
            reader.index += 1
        elif line.startswith(ADD):
            changes.append(_add_file(reader, _path_after(ADD, line, reader)))
        elif line.startswith(DELETE):
            changes.append(FileChange(ChangeKind.DELETE, _path_after(DELETE, line, reader), reader.number()))
            reader.index += 1
        elif line.startswith(UPDATE):
            changes.append(_update_file(reader, _path_after(UPDATE, line, reader)))
        else:
            raise PatchSyntaxError(
                reader.number(),
                f"expected '{ADD} <path>', '{DELETE} <path>' or '{UPDATE} <path>', got {reader.current()!r}",
            )
    return changes


class _Reader:
    def __init__(self, patch: PatchText, end: int) -> None:
        self.patch = patch
        self.index = 1
        self.end = end

    def current(self) -> str:
        return self.patch.lines[self.index]

    def number(self) -> int:
        return self.patch.number(self.index)

    def at_file_marker(self) -> bool:
        return self.current().strip().startswith(_SECTION_ENDS)


def _path_after(marker: str, line: str, reader: _Reader) -> str:
    path = line[len(marker) :].strip()
    if not path:
        raise PatchSyntaxError(reader.number(), f"{marker.rstrip(':')} needs a path")
    return path


def _add_file(reader: _Reader, path: str) -> FileChange:
    start = reader.number()
    reader.index += 1
    content: list[str] = []
    blanks = 0  # empty lines held back: content only if more "+" lines follow
    while reader.index < reader.end and not reader.at_file_marker():
        line = reader.current()
        if line.startswith("+"):
            content += [""] * blanks + [line[1:]]
            blanks = 0
        elif not line.strip():
            blanks += 1
        else:
            raise PatchSyntaxError(
                reader.number(), f"every line of the new file {path} must start with '+', got {line!r}"
            )
        reader.index += 1
    text = "\n".join(content) + "\n" if content else ""
    return FileChange(ChangeKind.ADD, path, start, content=text, replaces_existing=True)


def _update_file(reader: _Reader, path: str) -> FileChange:
    start = reader.number()
    reader.index += 1
    move_to = None
    if reader.index < reader.end and reader.current().strip().startswith(MOVE):
        move_to = _path_after(MOVE, reader.current().strip(), reader)
        reader.index += 1
    hunks = _ChunkBuilder(path)
    while reader.index < reader.end and not reader.at_file_marker():
        line = reader.current()
        number = reader.number()
        tag = _TAGS.get(line[:1])
        if line.strip() == END_OF_FILE:
            hunks.finish(at_end=True, number=number)
        elif line.startswith("@@"):
            hunks.header_line(line, number)
        elif tag is not None:
            hunks.add(tag, line[1:], number)
        elif not line.strip():
            hunks.blank(number)
        else:
            raise PatchSyntaxError(
                number,
                f"unexpected line in the update of {path}: {line!r}; every line of a chunk starts with ' ' "
                "(context), '-' (removed) or '+' (added), and chunks are separated by '@@' lines",
            )
        reader.index += 1
    hunks.finish(at_end=False, number=reader.number())
    if not hunks.done and move_to is None:
        raise PatchSyntaxError(start, f"'{UPDATE} {path}' has no changes")
    return FileChange(
        ChangeKind.UPDATE, path, start, hunks=tuple(hunks.done), move_to=move_to, replaces_existing=True
    )


class _ChunkBuilder:
    """Collects the chunks of one Update File, one ``@@`` group at a time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.done: list[Hunk] = []
        self._reset()

    def _reset(self) -> None:
        self.header = ""
        self.start: int | None = None
        self.anchors: list[Anchor] = []
        self.old_start: int | None = None
        self.lines: list[HunkLine] = []
        self.blanks: list[HunkLine] = []

    def header_line(self, line: str, number: int) -> None:
        if self.lines:
            self.finish(at_end=False, number=number)
        if self.start is None:
            self.start = number
        self.header = f"{self.header} {line.strip()}".strip()
        text = line[2:].strip()
        numbered = _NUMBERED_ANCHOR.match(text)
        if numbered:
            self.old_start = int(numbered.group(1))
            return
        if text.endswith(" @@"):
            text = text[:-3].rstrip()
        if text:
            self.anchors.append(Anchor(text, number))

    def add(self, tag: Tag, text: str, number: int) -> None:
        self.lines += self.blanks
        self.blanks = []
        self.lines.append(HunkLine(tag, text, number))

    def blank(self, number: int) -> None:
        if self.lines:
            self.blanks.append(HunkLine(" ", "", number))

    def finish(self, *, at_end: bool, number: int) -> None:
        if not self.lines:
            if self.anchors or at_end:
                raise PatchSyntaxError(number, f"a chunk of the update of {self.path} has no lines")
            return
        self.done.append(
            Hunk(
                header=self.header,
                patch_line=self.start or self.lines[0].patch_line,
                lines=tuple(self.lines),
                anchors=tuple(self.anchors),
                old_start=self.old_start,
                at_end=at_end,
            )
        )
        self._reset()
