"""Reading a patch in either dialect a model may use (SPEC 5): unified diff or ``*** Begin Patch``."""

from __future__ import annotations

from engine.tools.patch_parse.apply_format import BEGIN, END, FILE_MARKERS, parse_apply_patch
from engine.tools.patch_parse.envelope import unwrap
from engine.tools.patch_parse.model import (
    Anchor,
    ChangeKind,
    FileChange,
    Hunk,
    HunkLine,
    PatchSyntaxError,
)
from engine.tools.patch_parse.unified import parse_unified

__all__ = [
    "Anchor",
    "ChangeKind",
    "FileChange",
    "Hunk",
    "HunkLine",
    "PatchSyntaxError",
    "parse_patch",
    "touched_paths",
]


def parse_patch(text: str) -> list[FileChange]:
    """The file changes ``text`` describes, in order; ``PatchSyntaxError`` naming the patch line otherwise."""
    patch = unwrap(text)
    if not patch.lines:
        raise PatchSyntaxError(None, "the patch is empty")
    if any(line.strip() in (BEGIN, END) or line.strip().startswith(FILE_MARKERS) for line in patch.lines):
        changes = parse_apply_patch(patch)
    elif any(line.startswith(("--- ", "diff --git ", "@@")) for line in patch.lines):
        changes = parse_unified(patch)
    else:
        raise PatchSyntaxError(
            None,
            "it is neither a unified diff ('--- a/<path>', '+++ b/<path>', '@@' hunks) nor a "
            "'*** Begin Patch' ... '*** End Patch' block",
        )
    if not changes:
        raise PatchSyntaxError(None, "the patch changes no file")
    return changes


def touched_paths(text: str) -> list[str]:
    """Every path the patch names, in order, moves shown as ``old -> new``; [] when it cannot be read."""
    try:
        changes = parse_patch(text)
    except PatchSyntaxError:
        return []
    return [f"{c.path} -> {c.move_to}" if c.move_to else c.path for c in changes]
