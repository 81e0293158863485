"""Loop detection (SPEC 11): a model that repeats itself is stopped instead of burning steps and tokens.

Three patterns, with Gemini CLI's thresholds (``loopDetectionService.ts``):
- the same tool call (name and arguments) 5 times in a row;
- a cycle of 2 to 5 calls repeated 5 times in a row (read a, edit a, read a, edit a...);
- in one stream, the same 50-character chunk of text 10 times, close together (on average within 5 chunk lengths
  of each other), with the text between repeats nearly always the same (a list of items sharing a prefix is not a
  loop). Text inside ``` fences is not looked at (code repeats legitimately), and a Markdown structure line (list
  item, heading, table row, quote, rule) restarts the tracking, as repeated structure is not chanting.
"""

from __future__ import annotations

import json
import re
from collections import deque
from itertools import pairwise
from typing import Literal

from engine.record import record

LoopKind = Literal["repeated_tool_call", "tool_cycle", "repeated_text"]

TOOL_CALL_REPEATS = 5
MAX_CYCLE_LENGTH = 5
CHUNK_SIZE = 50
CHUNK_REPEATS = 10
# The repeats of a chunk must lie within this many characters of each other on average.
MAX_AVERAGE_DISTANCE = CHUNK_SIZE * 5
# The text analysed in one stream is bounded (between this and twice this); older text is forgotten.
MAX_TEXT_HISTORY = 5000
_SHOWN_ARGUMENTS = 200

_FENCE = re.compile(r"^\s*(```|~~~)")
_STRUCTURE = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|)")
_RULE = re.compile(r"^\s*(?:[-=_*\u2500-\u257f]\s*){3,}$")
# A line is classified once this many characters of it are known (or it ends): enough for every marker above.
_HEAD_CHARS = 8


@record
class LoopFound:
    kind: LoopKind
    # What repeated, in words for the "loop detected" event.
    what: str


class LoopDetector:
    """Fed one turn's tool calls (``add_tool_call``) and each stream's text deltas (``add_text``); returns a
    ``LoopFound`` when a pattern completes. Once found, the finding stays until ``reset``."""

    def __init__(self) -> None:
        self.found: LoopFound | None = None
        self._calls: deque[tuple[str, str]] = deque(maxlen=MAX_CYCLE_LENGTH * TOOL_CALL_REPEATS)
        self._text = _TextRepeats()

    def reset(self) -> None:
        """A new user turn: everything is forgotten."""
        self.found = None
        self._calls.clear()
        self._text = _TextRepeats()

    def new_stream(self) -> None:
        """A new model call: text repetition is judged within one stream only."""
        self._text = _TextRepeats()

    def add_tool_call(self, name: str, arguments: str) -> LoopFound | None:
        if self.found is not None:
            return self.found
        # Chanting happens in one stretch of text; a tool call ends it.
        self._text = _TextRepeats()
        self._calls.append((name, canonical_arguments(arguments)))
        self.found = self._check_calls()
        return self.found

    def add_text(self, delta: str) -> LoopFound | None:
        if self.found is not None:
            return self.found
        chunk = self._text.feed(delta)
        if chunk is not None:
            shown = " ".join(chunk.split())
            self.found = LoopFound("repeated_text", f'the text "{shown}" repeated {CHUNK_REPEATS} times')
        return self.found

    def _check_calls(self) -> LoopFound | None:
        calls = list(self._calls)
        for length in range(1, MAX_CYCLE_LENGTH + 1):
            span = length * TOOL_CALL_REPEATS
            if len(calls) < span:
                return None
            window = calls[-span:]
            block = window[:length]
            if all(window[i] == block[i % length] for i in range(span)):
                if length == 1:
                    name, arguments = block[0]
                    return LoopFound(
                        "repeated_tool_call",
                        f"{_describe(name, arguments)} called {TOOL_CALL_REPEATS} times in a row",
                    )
                steps = ", ".join(_describe(name, arguments) for name, arguments in block)
                return LoopFound(
                    "tool_cycle", f"the cycle of {length} calls [{steps}] repeated {TOOL_CALL_REPEATS} times"
                )
        return None


def canonical_arguments(arguments: str) -> str:
    """Arguments as sorted, compact JSON, so key order and spacing do not hide a repeat; text that is not JSON
    is compared as it is, stripped."""
    try:
        value = json.loads(arguments or "{}")
    except (json.JSONDecodeError, ValueError):
        return arguments.strip()
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _describe(name: str, arguments: str) -> str:
    if len(arguments) > _SHOWN_ARGUMENTS:
        arguments = arguments[:_SHOWN_ARGUMENTS] + "..."
    return f"{name} {arguments}"


class _TextRepeats:
    """The chunk analysis of one stream. Text is classified line by line: a line is skipped inside a code fence,
    restarts the tracking when it is Markdown structure, and is otherwise appended to the analysed history."""

    def __init__(self) -> None:
        self._history = ""
        self._offset = 0  # characters dropped from the front of the history
        self._next = 0  # absolute position of the next chunk to look at
        self._positions: dict[str, list[int]] = {}
        self._in_code = False
        self._line_head = ""  # the start of the current line while it is not yet classified
        self._line_mode: Literal["unknown", "skip", "text"] = "unknown"

    def feed(self, delta: str) -> str | None:
        """Returns the repeating chunk when a loop completes."""
        for piece in re.split(r"(?<=\n)", delta):
            if not piece:
                continue
            found = self._feed_line_piece(piece)
            if found is not None:
                return found
        return None

    def _feed_line_piece(self, piece: str) -> str | None:
        ends_line = piece.endswith("\n")
        if self._line_mode == "unknown":
            self._line_head += piece
            if len(self._line_head) < _HEAD_CHARS and not ends_line:
                return None
            piece, self._line_head = self._line_head, ""
            self._line_mode = self._classify(piece, ends_line)
        found = self._append(piece) if self._line_mode == "text" else None
        if ends_line:
            self._line_mode = "unknown"
        return found

    def _classify(self, head: str, complete: bool) -> Literal["skip", "text"]:
        if _FENCE.match(head):
            self._in_code = not self._in_code
            self._restart()
            return "skip"
        if self._in_code:
            return "skip"
        if complete and _RULE.match(head.rstrip("\n")):
            self._restart()
            return "skip"
        if _STRUCTURE.match(head):
            self._restart()
        return "text"

    def _restart(self) -> None:
        self._history = ""
        self._offset = self._next = 0
        self._positions.clear()

    def _append(self, text: str) -> str | None:
        self._history += text
        # Forgetting in batches (down to the limit once twice the limit is reached) keeps appends cheap.
        if len(self._history) > 2 * MAX_TEXT_HISTORY:
            cut = len(self._history) - MAX_TEXT_HISTORY
            self._history = self._history[cut:]
            self._offset += cut
            for chunk, positions in list(self._positions.items()):
                kept = [p for p in positions if p >= self._offset]
                if kept:
                    self._positions[chunk] = kept
                else:
                    del self._positions[chunk]
            self._next = max(self._next, self._offset)
        end = self._offset + len(self._history)
        while self._next + CHUNK_SIZE <= end:
            start = self._next - self._offset
            chunk = self._history[start : start + CHUNK_SIZE]
            if self._repeats(chunk, self._next):
                return chunk
            self._next += 1
        return None

    def _repeats(self, chunk: str, position: int) -> bool:
        positions = self._positions.setdefault(chunk, [])
        positions.append(position)
        if len(positions) < CHUNK_REPEATS:
            return False
        recent = positions[-CHUNK_REPEATS:]
        if (recent[-1] - recent[0]) / (CHUNK_REPEATS - 1) > MAX_AVERAGE_DISTANCE:
            return False
        # A loop repeats the whole period between occurrences; distinct items sharing a prefix do not.
        periods = {
            self._history[a - self._offset : b - self._offset] for a, b in pairwise(recent)
        }
        return len(periods) <= CHUNK_REPEATS // 2
