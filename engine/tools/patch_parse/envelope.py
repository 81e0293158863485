"""Unwrapping the patch text a model sends: the Markdown fence or shell heredoc around it, CRLF newlines.

Models trained on shell tools often send ``apply_patch <<'EOF' ... EOF`` or a fenced ```` ```diff ```` block
instead of the bare patch. The wrapper carries no meaning, so it is removed; the line numbers of what remains are
kept as they were in the text the model sent, so errors point at the model's own lines.
"""

from __future__ import annotations

import re

from engine.record import record

_FENCE_OPEN = re.compile(r"^```[\w+-]*\s*$")
_HEREDOC_OPEN = re.compile(r"^(?:.*\s)?<<-?\s*(['\"]?)([A-Za-z_]\w*)\1\s*$")


@record
class PatchText:
    lines: list[str]
    first_line: int  # the 1-based number, in the text as sent, of ``lines[0]``

    def number(self, index: int) -> int:
        return self.first_line + index


def unwrap(text: str) -> PatchText:
    lines = text.replace("\r\n", "\n").split("\n")
    first, end = 0, len(lines)
    changed = True
    while changed:
        first, end = _trim_blank(lines, first, end)
        changed = False
        if end - first >= 2 and _FENCE_OPEN.match(lines[first].strip()) and lines[end - 1].strip() == "```":
            first, end, changed = first + 1, end - 1, True
            continue
        opener = _HEREDOC_OPEN.match(lines[first].strip()) if end > first else None
        if opener and end - first >= 2 and lines[end - 1].strip() == opener.group(2):
            first, end, changed = first + 1, end - 1, True
    return PatchText(lines=lines[first:end], first_line=first + 1)


def _trim_blank(lines: list[str], first: int, end: int) -> tuple[int, int]:
    while first < end and not lines[first].strip():
        first += 1
    while end > first and not lines[end - 1].strip():
        end -= 1
    return first, end
