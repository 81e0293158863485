"""Vim keys for the prompt (SPEC 27): a modal editor over the prompt's text, with the motions and operators people
use most. Pure: it reads the text and the cursor (an offset) and says what to change; the prompt applies it, so one
table of cases tests it without a screen.

Normal mode: ``h j k l w b e 0 $ gg G`` move (a count before them repeats: ``3w``; ``5G`` goes to line 5); ``x``
deletes the character under the cursor; the operators ``d c y`` take a motion (``dw``, ``c$``, ``y2j``), the inner
word ``iw`` (``ciw``) or themselves for whole lines (``dd``, ``cc``, ``yy``); ``D C`` are ``d$ c$``; ``p P`` put
what was deleted or yanked after or before the cursor (whole lines below or above); ``u`` undoes; ``i a A I o O``
enter insert mode. Insert mode is the prompt as it always is; Esc goes back to normal mode. Esc in normal mode,
Enter, and keys that are not vim's (arrows, Ctrl+...) do what they always do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from engine.record import record

Mode = Literal["insert", "normal"]
_WORD = re.compile(r"\w+|[^\w\s]+")


@record
class Edit:
    """Replace ``text[start:end]`` with ``insert``, then put the cursor at ``cursor`` (an offset in the new text)."""

    start: int
    end: int
    insert: str
    cursor: int


@record
class Outcome:
    """What a key did: ``handled`` False leaves the key to the prompt (insert mode, Esc in normal mode, Enter...);
    ``edit`` a change of the text, ``cursor`` a move, ``undo`` the prompt's undo."""

    handled: bool
    edit: Edit | None = None
    cursor: int | None = None
    undo: bool = False


PASS = Outcome(False)
DONE = Outcome(True)


@dataclass
class Register:
    text: str = ""
    linewise: bool = False


@dataclass
class VimKeys:
    mode: Mode = "insert"
    pending: str = ""
    register: Register = field(default_factory=Register)

    def key(self, key: str, character: str | None, text: str, cursor: int) -> Outcome:
        """One key (Textual's ``key`` and ``character``) on ``text`` with the cursor at ``cursor``."""
        if self.mode == "insert":
            if key == "escape":
                self.mode = "normal"
                start = _line_start(text, cursor)
                return Outcome(True, cursor=max(start, cursor - 1))
            return PASS
        if key == "escape":
            if self.pending:
                self.pending = ""
                return DONE
            return PASS
        if character is None or not character.isprintable() or len(character) != 1:
            self.pending = ""
            return PASS
        self.pending += character
        outcome = self._command(text, cursor)
        if outcome is not None:
            self.pending = ""
            return outcome
        return DONE  # waiting for the rest of the command (a count, an operator's motion, the second g)

    # -- the command in ``pending`` ---------------------------------------------------------------------------------
    def _command(self, text: str, cursor: int) -> Outcome | None:
        """The outcome once ``pending`` is a whole command; None while it may still grow. An unknown command is
        dropped (handled, nothing changes), as vim beeps."""
        match = re.fullmatch(r"(\d*)([dcy]?)(\d*)(.*)", self.pending)
        assert match is not None
        count_text, operator, count2_text, rest = match.groups()
        if count_text == "" and self.pending.startswith("0"):
            count_text, rest = "", self.pending  # "0" alone is the motion, not a count
        if count_text.startswith("0"):
            count_text, rest = "", "0" + rest
        if count2_text.startswith("0"):
            count2_text, rest = "", count2_text + rest  # "d0": the motion 0
        if rest == "" and (count_text or count2_text or operator):
            return None
        count = (int(count_text) if count_text else 1) * (int(count2_text) if count2_text else 1)
        explicit = bool(count_text or count2_text)
        if not operator:
            return self._plain(rest, count, explicit, text, cursor)
        return self._operator(operator, rest, count, explicit, text, cursor)

    def _plain(self, rest: str, count: int, explicit: bool, text: str, cursor: int) -> Outcome | None:
        if _motion_prefix(rest):
            return None
        if rest in ("i", "a", "A", "I", "o", "O"):
            return self._insert(rest, text, cursor)
        if rest == "x":
            end = min(_line_end(text, cursor), cursor + count)
            if end == cursor:
                return DONE
            self.register = Register(text[cursor:end])
            new = text[:cursor] + text[end:]
            return Outcome(True, Edit(cursor, end, "", min(cursor, max(_line_start(new, cursor), _last_column(new, cursor)))))
        if rest in ("p", "P"):
            return self._put(rest == "p", count, text, cursor)
        if rest == "u":
            return Outcome(True, undo=True)
        if rest in ("D", "C"):
            return self._operator("d" if rest == "D" else "c", "$", count, explicit, text, cursor)
        target = _motion(rest, count, explicit, text, cursor)
        if target is None:
            return None if _motion_prefix(rest) else DONE
        return Outcome(True, cursor=_clamp_normal(text, target[0]))

    def _insert(self, how: str, text: str, cursor: int) -> Outcome:
        self.mode = "insert"
        start, end = _line_start(text, cursor), _line_end(text, cursor)
        match how:
            case "i":
                return Outcome(True, cursor=cursor)
            case "a":
                return Outcome(True, cursor=min(cursor + 1, end))
            case "A":
                return Outcome(True, cursor=end)
            case "I":
                return Outcome(True, cursor=start + len(text[start:end]) - len(text[start:end].lstrip()))
            case "o":
                return Outcome(True, Edit(end, end, "\n", end + 1))
            case _:  # "O"
                return Outcome(True, Edit(start, start, "\n", start))

    def _put(self, after: bool, count: int, text: str, cursor: int) -> Outcome:
        register = self.register
        if not register.text:
            return DONE
        if register.linewise:
            block = register.text * count
            if after:
                end = _line_end(text, cursor)
                inserted = "\n" + block.removesuffix("\n")
                return Outcome(True, Edit(end, end, inserted, end + 1))
            start = _line_start(text, cursor)
            return Outcome(True, Edit(start, start, block, start))
        block = register.text * count
        at = min(cursor + 1, _line_end(text, cursor)) if after and text else cursor
        return Outcome(True, Edit(at, at, block, at + len(block) - 1))

    def _operator(self, operator: str, rest: str, count: int, explicit: bool, text: str, cursor: int) -> Outcome | None:
        if rest == operator:
            start = _line_start(text, cursor)
            end = _line_end_after(text, cursor, count)
            return self._apply_lines(operator, text, start, end)
        if rest in ("i", "a"):
            return None
        if rest in ("iw", "aw"):
            span = _word_object(text, cursor, around=rest == "aw")
            return self._apply(operator, text, cursor, *span)
        if operator == "c" and rest in ("w", "W"):
            rest = "e"  # vim's cw changes to the end of the word, not through the space after it
            target = _motion(rest, count, explicit, text, cursor)
            assert target is not None
            return self._apply(operator, text, cursor, cursor, target[0] + 1)
        target = _motion(rest, count, explicit, text, cursor)
        if target is None:
            return None if _motion_prefix(rest) else DONE
        position, linewise, inclusive = target
        if linewise:
            first, last = sorted((cursor, position))
            return self._apply_lines(operator, text, _line_start(text, first), _line_end_after(text, last, 1))
        start, end = sorted((cursor, position))
        if inclusive:
            end = min(end + 1, len(text))
        if rest in ("w", "W") and "\n" in text[start:end]:
            end = start + text[start:end].index("\n")  # dw at the end of a line stops there
        return self._apply(operator, text, cursor, start, end)

    def _apply(self, operator: str, text: str, cursor: int, start: int, end: int) -> Outcome:
        self.register = Register(text[start:end])
        if operator == "y":
            return Outcome(True, cursor=start)
        if operator == "c":
            self.mode = "insert"
            return Outcome(True, Edit(start, end, "", start))
        new = text[:start] + text[end:]
        return Outcome(True, Edit(start, end, "", _clamp_normal(new, start)))

    def _apply_lines(self, operator: str, text: str, start: int, end: int) -> Outcome:
        """``text[start:end]`` is whole lines, the last one's line break included when there is one."""
        block = text[start:end]
        self.register = Register(block if block.endswith("\n") else block + "\n", linewise=True)
        if operator == "y":
            return Outcome(True, cursor=start)
        if operator == "c":
            self.mode = "insert"
            kept_break = "\n" if block.endswith("\n") else ""
            return Outcome(True, Edit(start, end, kept_break, start))
        if end == len(text) and start > 0 and not block.endswith("\n"):
            start -= 1  # the last line: the break before it goes with it
        new = text[:start] + text[end:]
        at = min(start + (1 if start and text[start] == "\n" else 0), len(new))
        return Outcome(True, Edit(start, end, "", _first_non_blank(new, _clamp_normal(new, at))))


# -- motions ----------------------------------------------------------------------------------------------------------
def _motion_prefix(rest: str) -> bool:
    return rest == "g"


def _motion(rest: str, count: int, explicit: bool, text: str, cursor: int) -> tuple[int, bool, bool] | None:
    """Where the motion goes: (offset, linewise, inclusive); None when ``rest`` is no motion."""
    match rest:
        case "h":
            return max(_line_start(text, cursor), cursor - count), False, False
        case "l":
            return min(_line_end(text, cursor), cursor + count), False, False
        case "0":
            return _line_start(text, cursor), False, False
        case "$":
            end = _line_end_after(text, cursor, count)
            return end - (1 if end > 0 and text[end - 1] == "\n" else 0), False, False
        case "j" | "k":
            return _vertical(text, cursor, count if rest == "j" else -count), True, False
        case "gg" | "G":
            lines = text.split("\n")
            number = count if explicit else (1 if rest == "gg" else len(lines))
            return _line_offset(text, min(max(number, 1), len(lines)) - 1), True, False
        case "w" | "W":
            position = cursor
            for _ in range(count):
                position = _next_word_start(text, position)
            return position, False, False
        case "b" | "B":
            position = cursor
            for _ in range(count):
                position = _previous_word_start(text, position)
            return position, False, False
        case "e" | "E":
            position = cursor
            for _ in range(count):
                position = _word_end(text, position)
            return position, False, True
    return None


def _spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


def _next_word_start(text: str, cursor: int) -> int:
    for start, _ in _spans(text):
        if start > cursor:
            return start
    return len(text)


def _previous_word_start(text: str, cursor: int) -> int:
    previous = 0
    for start, _ in _spans(text):
        if start >= cursor:
            break
        previous = start
    return previous


def _word_end(text: str, cursor: int) -> int:
    for _, end in _spans(text):
        if end - 1 > cursor:
            return end - 1
    return max(len(text) - 1, 0)


def _word_object(text: str, cursor: int, around: bool) -> tuple[int, int]:
    for start, end in _spans(text):
        if start <= cursor < end:
            if around:
                while end < len(text) and text[end] in " \t":
                    end += 1
            return start, end
    start = end = cursor  # on blanks: the blanks are the object
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    while end < len(text) and text[end] in " \t":
        end += 1
    return start, end


def _vertical(text: str, cursor: int, delta: int) -> int:
    lines = text.split("\n")
    row = text.count("\n", 0, cursor)
    column = cursor - _line_start(text, cursor)
    target = min(max(row + delta, 0), len(lines) - 1)
    return _line_offset(text, target) + min(column, max(len(lines[target]) - 1, 0))


# -- lines ------------------------------------------------------------------------------------------------------------
def _line_start(text: str, cursor: int) -> int:
    return text.rfind("\n", 0, cursor) + 1


def _line_end(text: str, cursor: int) -> int:
    """The offset of the line's break (or of the text's end)."""
    end = text.find("\n", cursor)
    return len(text) if end < 0 else end


def _line_end_after(text: str, cursor: int, lines: int) -> int:
    """The end of the ``lines``-th line from the cursor's, its break included when there is one."""
    position = cursor
    for _ in range(lines):
        end = _line_end(text, position)
        if end >= len(text):
            return len(text)
        position = end + 1
    return position


def _line_offset(text: str, row: int) -> int:
    offset = 0
    for _ in range(row):
        offset = text.index("\n", offset) + 1
    return offset


def _last_column(text: str, cursor: int) -> int:
    end = _line_end(text, cursor)
    return end - 1 if end > _line_start(text, cursor) else end


def _clamp_normal(text: str, cursor: int) -> int:
    """In normal mode the cursor sits on a character, not after the line's last one."""
    cursor = min(max(cursor, 0), len(text))
    return min(cursor, _last_column(text, cursor))


def _first_non_blank(text: str, cursor: int) -> int:
    start, end = _line_start(text, cursor), _line_end(text, cursor)
    line = text[start:end]
    return start + len(line) - len(line.lstrip())
