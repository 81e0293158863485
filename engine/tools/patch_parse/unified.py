"""Unified diffs, as ``git diff`` and ``diff -u`` write them, and as models write them by hand.

Accepted: several files; git extended headers (``new file mode``, ``deleted file mode``, ``rename from``/``to``);
``--- /dev/null`` for a new file and ``+++ /dev/null`` for a deleted one; ``a/``/``b/`` prefixes; timestamps after
the names; ``\\ No newline at end of file``; hunk headers with wrong line counts or no numbers at all (``@@ @@``).
The counts, when present, say where a hunk ends, so a content line that looks like a header (``--- x``) is still
content; when they run out while the next lines still look like hunk lines, the counts were wrong and the lines are
kept. Line numbers are hints only: ``patch_apply`` finds each hunk by its lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.tools.patch_parse.envelope import PatchText
from engine.tools.patch_parse.model import ChangeKind, FileChange, Hunk, HunkLine, PatchSyntaxError, Tag

DEV_NULL = "/dev/null"
_HUNK_HEADER = re.compile(r"^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_TAGS: dict[str, Tag] = {" ": " ", "-": "-", "+": "+"}
_GIT_IGNORED = ("index ", "similarity index", "dissimilarity index", "old mode", "new mode")


def parse_unified(patch: PatchText) -> list[FileChange]:
    parser = _Parser(patch)
    changes: list[FileChange] = []
    while parser.index < len(patch.lines):
        line = parser.line()
        if line.startswith("diff --git "):
            changes.append(parser.git_file())
        elif line.startswith("--- ") and parser.line(1).startswith("+++ "):
            changes.append(parser.plain_file())
        elif _HUNK_HEADER.match(line):
            raise PatchSyntaxError(parser.number(), "a hunk comes before any '--- a/<path>' / '+++ b/<path>' header")
        else:
            parser.index += 1  # preamble: a commit message, "Index:" lines, separators
    if not changes:
        raise PatchSyntaxError(None, "no file header ('--- a/<path>' followed by '+++ b/<path>') was found")
    return changes


@dataclass
class _FileHeader:
    start: int
    old: str | None = None  # None: /dev/null
    new: str | None = None
    git: bool = False
    created: bool = False
    deleted: bool = False
    rename_from: str | None = None
    rename_to: str | None = None
    hunks: list[Hunk] = field(default_factory=list)


class _Parser:
    def __init__(self, patch: PatchText) -> None:
        self.patch = patch
        self.index = 0

    def line(self, ahead: int = 0) -> str:
        position = self.index + ahead
        return self.patch.lines[position] if position < len(self.patch.lines) else ""

    def number(self, ahead: int = 0) -> int:
        return self.patch.number(self.index + ahead)

    def at_end(self) -> bool:
        return self.index >= len(self.patch.lines)

    def starts_file(self, ahead: int = 0) -> bool:
        line = self.line(ahead)
        return line.startswith("diff --git ") or (line.startswith("--- ") and self.line(ahead + 1).startswith("+++ "))

    def git_file(self) -> FileChange:
        header = _FileHeader(start=self.number(), git=True)
        header.old, header.new = _git_header_paths(self.line()[len("diff --git ") :])
        self.index += 1
        while not self.at_end() and not self.starts_file() and not self.line().startswith("@@"):
            line = self.line()
            if line.startswith("new file mode"):
                header.created = True
            elif line.startswith("deleted file mode"):
                header.deleted = True
            elif line.startswith("rename from "):
                header.rename_from = _unquote(line[len("rename from ") :])
            elif line.startswith("rename to "):
                header.rename_to = _unquote(line[len("rename to ") :])
            elif line.startswith(("copy from ", "copy to ")):
                raise PatchSyntaxError(self.number(), "copies ('copy from'/'copy to') are not supported")
            elif line.startswith(("Binary files ", "GIT binary patch")):
                raise PatchSyntaxError(self.number(), "binary patches are not supported; use write for that file")
            elif not line.startswith(_GIT_IGNORED) and line.strip():
                break
            self.index += 1
        if self.line().startswith("--- ") and self.line(1).startswith("+++ "):
            self._names(header)
        self._hunks(header)
        return _file_change(header)

    def plain_file(self) -> FileChange:
        header = _FileHeader(start=self.number())
        self._names(header)
        self._hunks(header)
        return _file_change(header)

    def _names(self, header: _FileHeader) -> None:
        old, new = _header_path(self.line()[4:]), _header_path(self.line(1)[4:])
        git_style = header.git or (
            (old is None or old.startswith("a/"))
            and (new is None or new.startswith("b/"))
            and (old is not None or new is not None)
        )
        header.old = old[2:] if git_style and old and old.startswith("a/") else old
        header.new = new[2:] if git_style and new and new.startswith("b/") else new
        self.index += 2

    def _hunks(self, header: _FileHeader) -> None:
        while not self.at_end() and self.line().startswith("@@"):
            header.hunks.append(self._hunk())

    def _hunk(self) -> Hunk:
        header_line, start = self.line(), self.number()
        numbers = _HUNK_HEADER.match(header_line)
        old_start = None
        old_left = new_left = None
        if numbers:
            old_count = int(numbers.group(2)) if numbers.group(2) is not None else 1
            old_start = int(numbers.group(1)) + (1 if old_count == 0 else 0)
            old_left, new_left = old_count, int(numbers.group(4)) if numbers.group(4) is not None else 1
        self.index += 1
        lines: list[HunkLine] = []
        old_missing = new_missing = False
        while not self.at_end():
            line = self.line()
            if line.startswith("\\"):
                previous = lines[-1].tag if lines else " "
                old_missing = old_missing or previous != "+"
                new_missing = new_missing or previous != "-"
                self.index += 1
                continue
            counted = old_left is not None and new_left is not None and (old_left > 0 or new_left > 0)
            tag = self._content_tag(line, counted)
            if tag is None:
                break
            lines.append(HunkLine(tag, line[1:], self.number()))
            if old_left is not None and new_left is not None:
                old_left -= tag != "+"
                new_left -= tag != "-"
            self.index += 1
        if not lines:
            raise PatchSyntaxError(start, f"the hunk {header_line.strip()!r} has no lines")
        return Hunk(
            header=header_line.strip(),
            patch_line=start,
            lines=tuple(lines),
            old_start=old_start,
            at_end=old_missing,
            old_missing_newline=old_missing,
            new_missing_newline=new_missing,
        )

    def _content_tag(self, line: str, counted: bool) -> Tag | None:
        """The tag of ``line`` if it belongs to the hunk being read, else None (the hunk ends before it).

        While the header's counts are not used up, only a hunk header or a ``diff --git`` line ends the hunk.
        """
        if line.startswith(("@@", "diff --git ")) or (not counted and self.starts_file()):
            return None
        if line == "":
            # A blank context line whose single space was stripped, if the hunk goes on after it.
            return " " if counted or self._more_hunk_lines_after_blanks() else None
        if line == "-- " and not counted:
            return None  # the signature line that ends ``git format-patch`` output
        return _TAGS.get(line[:1])

    def _more_hunk_lines_after_blanks(self) -> bool:
        ahead = 1
        while self.line(ahead) == "" and self.index + ahead < len(self.patch.lines):
            ahead += 1
        following = self.line(ahead)
        return following[:1] in _TAGS and not self.starts_file(ahead)


def _file_change(header: _FileHeader) -> FileChange:
    if header.rename_from and header.rename_to:
        return FileChange(
            ChangeKind.UPDATE, header.rename_from, header.start, tuple(header.hunks), move_to=header.rename_to
        )
    if header.created or (header.old is None and header.new is not None):
        path = header.new or header.old
        if path is None:
            raise PatchSyntaxError(header.start, "a new file needs a name on its '+++' line")
        return FileChange(ChangeKind.ADD, path, header.start, content=_new_content(header.hunks))
    if header.deleted or (header.new is None and header.old is not None):
        path = header.old or header.new
        if path is None:
            raise PatchSyntaxError(header.start, "a deleted file needs a name on its '---' line")
        return FileChange(
            ChangeKind.DELETE, path, header.start, hunks=tuple(header.hunks),
            alternate_paths=_alternates(path, header),
        )
    path = header.new or header.old
    if path is None:
        raise PatchSyntaxError(header.start, "the file header names no file")
    if not header.hunks:
        raise PatchSyntaxError(header.start, f"the diff of {path} has no hunks ('@@ ... @@' lines)")
    return FileChange(
        ChangeKind.UPDATE, path, header.start, tuple(header.hunks), alternate_paths=_alternates(path, header)
    )


def _alternates(path: str, header: _FileHeader) -> tuple[str, ...]:
    names = [name for name in (header.old, header.new) if name]
    candidates = names + [name.split("/", 1)[1] for name in names if "/" in name]
    return tuple(dict.fromkeys(c for c in candidates if c != path))


def _new_content(hunks: list[Hunk]) -> str:
    lines = [line for hunk in hunks for line in hunk.new_lines]
    if not lines:
        return ""
    missing_newline = any(hunk.new_missing_newline for hunk in hunks)
    return "\n".join(lines) + ("" if missing_newline else "\n")


def _header_path(text: str) -> str | None:
    """The path of a ``---``/``+++`` line without its timestamp; None for /dev/null."""
    path = text.split("\t", 1)[0].rstrip()
    path = _unquote(path)
    return None if path == DEV_NULL else path


def _git_header_paths(text: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git a/x b/y`` (both the same unless renamed), without their prefixes."""
    text = text.strip()
    if text.startswith('"'):
        quoted = re.match(r'^("(?:[^"\\]|\\.)*")\s+(.*)$', text)
        if quoted:
            return _strip_prefix(_unquote(quoted.group(1)), "a/"), _strip_prefix(_unquote(quoted.group(2)), "b/")
    half = (len(text) - 1) // 2
    if text[half] == " " and text[:half][2:] == text[half + 1 :][2:]:
        return _strip_prefix(text[:half], "a/"), _strip_prefix(text[half + 1 :], "b/")
    split = text.rfind(" b/")
    if split == -1:
        return None, None
    return _strip_prefix(text[:split], "a/"), _strip_prefix(_unquote(text[split + 1 :]), "b/")


def _strip_prefix(path: str, prefix: str) -> str:
    return path[len(prefix) :] if path.startswith(prefix) else path


def _unquote(path: str) -> str:
    """Git's C-style quoting (``"a/caf\\303\\251.txt"``) undone; unquoted paths come back unchanged."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    raw = bytearray()
    body = path[1:-1]
    escapes = {"n": 10, "t": 9, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "r": 13, "v": 11}
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            octal = body[index + 1 : index + 4]
            if re.fullmatch(r"[0-7]{3}", octal):
                raw.append(int(octal, 8))
                index += 4
                continue
            raw.append(escapes.get(body[index + 1], ord(body[index + 1])))
            index += 2
            continue
        raw += char.encode("utf-8")
        index += 1
    return raw.decode("utf-8", errors="replace")
