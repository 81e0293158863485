"""Re-indenting a replacement to the file's indentation.

When ``old_string`` matched a block whose indentation differs from the model's (a snippet copied without its
indentation, two spaces for four, spaces where the file has tabs), ``new_string`` is written in the model's
indentation too. ``Reindenter`` carries the correspondence seen in the matched lines (model indent -> file indent)
and converts every line of the replacement, including levels the old text never used, by counting levels: one
model step (say four spaces) becomes one file step (say a tab).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from engine.record import record

TAB_WIDTH = 4
_DEFAULT_STEP = "    "


def leading_whitespace(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def indent_width(indent: str) -> int:
    return len(indent.expandtabs(TAB_WIDTH))


def indent_mapping(pairs: Iterable[tuple[str, str]]) -> dict[str, str] | None:
    """Model indent -> file indent over the non-blank ``(model line, file line)`` pairs, or None if inconsistent.

    Consistent means the same model indent always meets the same file indent, two model indents never meet the
    same file indent, and deeper stays deeper: the block has the same shape, only shifted or re-styled.
    """
    mapping: dict[str, str] = {}
    for model_line, file_line in pairs:
        if not model_line.strip() or not file_line.strip():
            continue
        model_indent, file_indent = leading_whitespace(model_line), leading_whitespace(file_line)
        if mapping.setdefault(model_indent, file_indent) != file_indent:
            return None
    if len(set(mapping.values())) != len(mapping):
        return None
    ordered = sorted(mapping, key=indent_width)
    widths = [indent_width(mapping[indent]) for indent in ordered]
    if any(later <= earlier for earlier, later in zip(widths, widths[1:])):
        return None
    return mapping


def detect_indent_step(lines: Sequence[str]) -> str:
    """The file's usual indent step: a tab when most indented lines start with one, else the commonest space step."""
    tabbed = sum(1 for line in lines if line.startswith("\t"))
    spaced = sum(1 for line in lines if line.startswith(" "))
    if tabbed > spaced:
        return "\t"
    steps: Counter[int] = Counter()
    previous = 0
    for line in lines:
        if not line.strip():
            continue
        width = indent_width(leading_whitespace(line))
        if width > previous:
            steps[width - previous] += 1
        previous = width
    return " " * steps.most_common(1)[0][0] if steps else _DEFAULT_STEP


@record
class Reindenter:
    """Converts text from the model's indentation to the file's."""

    mapping: dict[str, str]
    file_step: str
    model_step: int | None

    @classmethod
    def build(cls, mapping: dict[str, str], file_lines: Sequence[str]) -> Reindenter | None:
        """None when there is nothing to convert (every model indent already is the file's)."""
        if not mapping or all(model == file for model, file in mapping.items()):
            return None
        ordered = sorted(mapping, key=indent_width)
        model_step = _smallest_step(ordered)
        file_step = None
        for shallow, deep in zip(ordered, ordered[1:]):
            if indent_width(deep) - indent_width(shallow) == model_step and mapping[deep].startswith(mapping[shallow]):
                file_step = mapping[deep][len(mapping[shallow]) :]
                break
        return cls(mapping=mapping, file_step=file_step or detect_indent_step(file_lines), model_step=model_step)

    def apply(self, text: str) -> str:
        lines = text.split("\n")
        model_step = self.model_step or _smallest_step(leading_whitespace(line) for line in lines if line.strip())
        return "\n".join(self._convert_line(line, model_step or TAB_WIDTH) for line in lines)

    def _convert_line(self, line: str, model_step: int) -> str:
        if not line.strip():
            return line
        indent = leading_whitespace(line)
        return self._convert_indent(indent, model_step) + line[len(indent) :]

    def _convert_indent(self, indent: str, model_step: int) -> str:
        if indent in self.mapping:
            return self.mapping[indent]
        base = min(self.mapping, key=indent_width)
        converted = self.mapping[base]
        delta = indent_width(indent) - indent_width(base)
        if delta >= 0:
            levels, rest = divmod(delta, model_step)
            return converted + self.file_step * levels + " " * rest
        for _ in range(math.ceil(-delta / model_step)):
            if not converted.endswith(self.file_step):
                return indent  # shallower than anything the file shows here: keep the model's own indent
            converted = converted[: -len(self.file_step)]
        return converted


def _smallest_step(indents: Iterable[str]) -> int | None:
    widths = sorted({indent_width(indent) for indent in indents})
    steps = [later - earlier for earlier, later in zip(widths, widths[1:])]
    return min(steps) if steps else None
