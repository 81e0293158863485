"""Large pastes folded in the prompt (as Claude Code does): a paste of more than ``FOLD_OVER_LINES`` lines shows as
one token, ``[pasted 300 lines]``, and the input sent holds the whole paste in its place.

The token is one piece of the input: Backspace or Delete at it removes all of it, and with it the paste; a token
the user broke by editing inside it is plain text again (its paste forgotten), so what is sent is always what the
prompt shows, with every whole token put back as its paste.
"""

from __future__ import annotations

import re

FOLD_OVER_LINES = 10
_TOKEN = re.compile(r"\[pasted \d+ lines(?: #\d+)?\]")


class PastedTexts:
    """The folded pastes of one input, by their token."""

    def __init__(self) -> None:
        self._by_token: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._by_token)

    def fold(self, text: str) -> str:
        """What the prompt inserts for a paste of ``text``: the text itself, or the token of a large one."""
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if lines <= FOLD_OVER_LINES:
            return text
        token = f"[pasted {lines} lines]"
        number = 1
        while token in self._by_token:
            number += 1
            token = f"[pasted {lines} lines #{number}]"
        self._by_token[token] = text
        return token

    def expand(self, text: str) -> str:
        """The input as sent: each whole token of a paste in the prompt's ``text`` replaced by that paste."""
        if not self._by_token:
            return text
        return _TOKEN.sub(lambda match: self._by_token.get(match[0], match[0]), text)

    def token_at(self, line: str, column: int, *, before: bool) -> tuple[int, int] | None:
        """The columns of the paste token that Backspace (``before``: ending at or around ``column``) or Delete
        (starting at or around it) would cut into on ``line``."""
        for match in _TOKEN.finditer(line):
            if match[0] in self._by_token and (
                match.start() < column <= match.end() if before else match.start() <= column < match.end()
            ):
                return match.start(), match.end()
        return None

    def keep_shown(self, text: str) -> None:
        """Forgets the pastes whose token is no longer whole in the prompt's ``text``."""
        for token in [token for token in self._by_token if token not in text]:
            del self._by_token[token]

    def clear(self) -> None:
        self._by_token.clear()
