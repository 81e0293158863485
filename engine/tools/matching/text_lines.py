"""A text seen as lines with their character offsets: what every line-based matching strategy works on.

The text uses ``\\n`` newlines (``TextDocument`` has already folded CRLF). A final newline ends the last line; it
does not start an empty one, so a block match never runs onto a phantom line after the end of the file.
"""

from __future__ import annotations

from engine.record import record



@record
class TextLines:
    text: str
    lines: tuple[str, ...]
    starts: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> TextLines:
        parts = text.split("\n")
        if text.endswith("\n"):
            parts.pop()
        starts: list[int] = []
        position = 0
        for part in parts:
            starts.append(position)
            position += len(part) + 1
        return cls(text=text, lines=tuple(parts), starts=tuple(starts))

    def __len__(self) -> int:
        return len(self.lines)

    def span(self, first: int, count: int, *, with_newline: bool) -> tuple[int, int]:
        """The character span of lines ``first .. first+count-1``, with the last one's newline if asked and present."""
        last = first + count - 1
        end = self.starts[last] + len(self.lines[last])
        if with_newline and end < len(self.text):
            end += 1
        return self.starts[first], end

    def line_number(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return self.text.count("\n", 0, offset) + 1


def needle_lines(needle: str) -> tuple[list[str], bool]:
    """The needle's lines and whether it ended with a newline (its last line then is whole, newline included)."""
    lines = needle.split("\n")
    ends_with_newline = needle.endswith("\n")
    if ends_with_newline:
        lines.pop()
    return lines, ends_with_newline
