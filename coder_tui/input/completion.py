"""Tab completion for the prompt: which token the cursor is on, slash commands and fuzzy ``@path`` mentions.

Pure functions over strings: the prompt widget asks them what to show, the tests ask them directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from engine.record import record

_SEPARATORS = "/_-. "
MAX_SUGGESTIONS = 10


@record
class Token:
    """The completable word under the cursor: its kind, where it sits on the line, and its text (with prefix)."""

    kind: Literal["slash", "mention"]
    start: int
    end: int
    text: str

    @property
    def query(self) -> str:
        return self.text[1:]


@record
class Completion:
    """One suggestion: ``value`` replaces the token, ``detail`` says what it is."""

    value: str
    detail: str = ""


def token_at_cursor(line: str, column: int, *, first_line: bool) -> Token | None:
    """The ``/command`` (first word of the input) or ``@mention`` the cursor is in or just after; else None."""
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    end = column
    while end < len(line) and not line[end].isspace():
        end += 1
    word = line[start:end]
    if word.startswith("/") and first_line and start == 0:
        return Token("slash", start, end, word)
    if word.startswith("@"):
        return Token("mention", start, end, word)
    return None


def slash_completions(token: str, commands: Sequence[tuple[str, str]]) -> list[Completion]:
    """Commands whose name starts with what was typed; when none does, the ones it fuzzily matches."""
    typed = token.lower()
    prefixed = [Completion(name, about) for name, about in commands if name.lower().startswith(typed)]
    if prefixed:
        return prefixed[:MAX_SUGGESTIONS]
    query = typed.lstrip("/")
    fuzzy = [Completion(name, about) for name, about in commands if fuzzy_score(query, name.lower()) is not None]
    return fuzzy[:MAX_SUGGESTIONS]


def path_completions(query: str, paths: Sequence[str], limit: int = MAX_SUGGESTIONS) -> list[Completion]:
    """The workspace paths best matching ``query`` fuzzily, best first; with no query the shallowest ones."""
    if not query:
        shallow = sorted(paths, key=lambda path: (path.rstrip("/").count("/"), len(path), path))
        return [Completion("@" + path) for path in shallow[:limit]]
    scored: list[tuple[float, str]] = []
    lowered = query.lower()
    for path in paths:
        score = fuzzy_score(lowered, path.lower())
        if score is not None:
            scored.append((score, path))
    scored.sort(key=lambda item: (-item[0], len(item[1]), item[1]))
    return [Completion("@" + path) for _, path in scored[:limit]]


def fuzzy_score(query: str, candidate: str) -> float | None:
    """How well ``query`` matches ``candidate`` as a subsequence (both lower case); None when it does not.

    Consecutive characters, characters at the start of a path segment or word, and matches in the file name
    score higher; long candidates a little lower. Good enough to put ``@apy`` on ``app.py`` before
    ``a/b/deep/py.txt``.
    """
    position = -1
    score = 0.0
    previous = -2
    basename_start = candidate.rstrip("/").rfind("/") + 1
    for char in query:
        position = candidate.find(char, position + 1)
        if position < 0:
            return None
        points = 1.0
        if position == previous + 1:
            points += 2.0
        if position == 0 or candidate[position - 1] in _SEPARATORS:
            points += 1.5
        if position >= basename_start:
            points += 1.0
        score += points
        previous = position
    return score - 0.01 * len(candidate)


def apply_completion(line: str, token: Token, completion: Completion) -> tuple[str, int]:
    """What replaces the token (the completion, plus a space unless it is a folder or one follows already) and
    the cursor column after it."""
    rest = line[token.end :]
    is_folder = completion.value.endswith("/")
    replacement = completion.value if is_folder or rest.startswith(" ") else completion.value + " "
    column = token.start + len(replacement)
    return replacement, column if is_folder or not rest.startswith(" ") else column + 1
