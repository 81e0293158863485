"""The complex-task rule (SPEC 9) and the todo auto-init it triggers.

A request is complex when, after trimming and counting Unicode characters, the first of these rules hits:
1. ``enumeration``: it enumerates several goals: numbered items (``1. 2.``, ``1) 2)``, ``(1) (2)``, ``1、2、``,
   ``①②``), lettered items (``a) b)``, ``A. B.``), a bullet list of two or more lines, or ``A/B/C``: three or more
   items joined by slashes (a path such as ``src/app/main.py``, ``./a/b``, a URL or a date is not an enumeration);
2. ``length``: it is at least 40 characters long;
3. ``keywords``: it hits 3 or more multi-step keywords (each occurrence counts), or ``pieces``: it splits on
   ``，。；、,`` and newlines into 3 or more non-empty pieces.
"""

from __future__ import annotations

import re
from typing import Literal

from engine.record import record
from engine.workflow.todos import TodoList

ComplexRule = Literal["enumeration", "length", "keywords", "pieces"]

MIN_LENGTH = 40
MIN_KEYWORDS = 3
MIN_PIECES = 3
MIN_SLASH_ITEMS = 3
_MAX_SEED_CHARS = 200

CHINESE_KEYWORDS = ("并且", "同时", "另外", "分别", "步骤", "重构", "迁移", "优化")
# English keywords with their inflections; bounded by non-letters (``\b`` would not separate them from CJK text).
ENGLISH_KEYWORDS: dict[str, str] = {
    "and then": r"and\s+then",
    "also": r"also",
    "additionally": r"additionally",
    "respectively": r"respectively",
    "step": r"steps?",
    "refactor": r"refactor(?:s|ed|ing)?",
    "migrate": r"migrat(?:e|es|ed|ing|ion|ions)",
    "optimize": r"optimi[sz](?:e|es|ed|ing|ation|ations)",
}
_ENGLISH = {
    keyword: re.compile(rf"(?<![A-Za-z]){pattern}(?![A-Za-z])", re.IGNORECASE)
    for keyword, pattern in ENGLISH_KEYWORDS.items()
}
_PIECE_SEPARATORS = re.compile(r"[，。；、,\n]")

# A marker starts the text or a line, or follows white space or punctuation; "v1.2", "f(1)" and "3.5" are not.
_BEFORE = r"(?:^|(?<=[\s:：，,；;。.!！?？]))"
_NUMBERED = re.compile(
    rf"{_BEFORE}(?P<n1>\d{{1,2}})(?:[.．](?![\d.])|、|[)）])"
    r"|(?<![A-Za-z0-9_])[(（](?P<n2>\d{1,2})[)）]"
    r"|(?P<circled>[①-⑳])"
)
_LETTERED = re.compile(
    rf"{_BEFORE}(?P<l1>[A-Za-z])(?:[.．](?=\s)|、|[)）])"
    r"|(?<![A-Za-z0-9_])[(（](?P<l2>[A-Za-z])[)）]"
)
_BULLET = re.compile(r"^[ \t]*[-*+•·][ \t]+(\S.*)$", re.MULTILINE)
_TOKEN = re.compile(r"[^\s，。；、,;:：!?！？()（）\[\]{}\"'“”‘’`<>]+")
_SPACED_SLASHES = re.compile(r"(?<!\S)[^\s/]+(?:\s+/\s+[^\s/]+){2,}(?!\S)")


@record
class ComplexVerdict:
    """``rule`` is the rule that hit (None: the request is simple); ``detail`` says what it saw."""

    rule: ComplexRule | None
    detail: str

    @property
    def complex(self) -> bool:
        return self.rule is not None

    def __bool__(self) -> bool:
        return self.complex


def is_complex(text: str) -> ComplexVerdict:
    text = text.strip()
    items = enumerated_items(text)
    if len(items) >= 2:
        return ComplexVerdict("enumeration", f"{len(items)} enumerated goals")
    length = len(text)
    if length >= MIN_LENGTH:
        return ComplexVerdict("length", f"{length} characters (>= {MIN_LENGTH})")
    hits = keyword_hits(text)
    if len(hits) >= MIN_KEYWORDS:
        return ComplexVerdict("keywords", f"{len(hits)} multi-step keywords: {', '.join(hits)}")
    pieces = [piece for piece in _PIECE_SEPARATORS.split(text) if piece.strip()]
    if len(pieces) >= MIN_PIECES:
        return ComplexVerdict("pieces", f"{len(pieces)} pieces")
    return ComplexVerdict(None, f"simple: {length} characters, {len(hits)} keywords, {len(pieces)} pieces")


def keyword_hits(text: str) -> list[str]:
    """Every occurrence of a multi-step keyword, in the order of the keyword lists."""
    hits: list[str] = []
    for keyword in CHINESE_KEYWORDS:
        hits += [keyword] * text.count(keyword)
    for keyword, pattern in _ENGLISH.items():
        hits += [keyword] * len(pattern.findall(text))
    return hits


def enumerated_items(text: str) -> list[str]:
    """The goals the request enumerates (numbered, lettered, bulleted, then slashed; the first form found), or an
    empty list. Also what seeds the todo list."""
    for finder in (_numbered_items, _lettered_items, _bullet_items, _slash_items):
        items = [_seed(item) for item in finder(text)]
        # "fix bug 1. then bug 2." numbers things without enumerating goals: its last "item" is empty.
        if len(items) >= 2 and all(items):
            return items
    return []


def should_init_todos(verdict: ComplexVerdict, todos: TodoList, require_todo_for_complex: bool) -> bool:
    """SPEC 9: a complex request starts with a todo list, when the setting is on and no todo is unfinished."""
    return require_todo_for_complex and verdict.complex and not todos.has_unfinished


def todo_init_instruction(text: str) -> str:
    """What the model is told before it starts on a complex request: write the todo list first."""
    lines = [
        "This request has several parts. Before anything else, call `todowrite` with a todo list that covers all "
        "of it: one item per goal or step, in order, the first one in_progress. Then work through the list, "
        "marking each item completed as soon as it is done."
    ]
    items = enumerated_items(text.strip())
    if items:
        lines.append("The request enumerates these goals; start the list from them:")
        lines += [f"{number}. {item}" for number, item in enumerate(items, 1)]
    return "\n".join(lines)


def _numbered_items(text: str) -> list[str]:
    markers = []
    for match in _NUMBERED.finditer(text):
        if match.group("circled"):
            value = ord(match.group("circled")) - ord("①") + 1
        else:
            value = int(match.group("n1") or match.group("n2"))
        markers.append((value, match.start(), match.end()))
    return _sequence_items(text, markers)


def _lettered_items(text: str) -> list[str]:
    markers = []
    for match in _LETTERED.finditer(text):
        letter = match.group("l1") or match.group("l2")
        markers.append((ord(letter.lower()) - ord("a") + 1, match.start(), match.end()))
    return _sequence_items(text, markers)


def _sequence_items(text: str, markers: list[tuple[int, int, int]]) -> list[str]:
    """The items between markers counting 1, 2, 3... in order (markers out of sequence are part of an item's
    text); fewer than two in sequence is no enumeration."""
    run: list[tuple[int, int, int]] = []
    for marker in markers:
        if marker[0] == len(run) + 1:
            run.append(marker)
    if len(run) < 2:
        return []
    ends = [start for _, start, _ in run[1:]] + [len(text)]
    return [text[end:stop] for (_, _, end), stop in zip(run, ends, strict=True)]


def _bullet_items(text: str) -> list[str]:
    return _BULLET.findall(text)


def _slash_items(text: str) -> list[str]:
    for match in _SPACED_SLASHES.finditer(text):
        items = [item.strip() for item in match.group(0).split("/")]
        if _plausible_slash_items(match.group(0), items):
            return items
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token.count("/") + 1 < MIN_SLASH_ITEMS:
            continue
        items = token.split("/")
        if _plausible_slash_items(token, items):
            return items
    return []


def _plausible_slash_items(token: str, items: list[str]) -> bool:
    """Items of an ``A/B/C`` enumeration, not the parts of a path, URL, date or fraction."""
    if len(items) < MIN_SLASH_ITEMS or "://" in token or token.startswith(("/", "./", "../", "~", "@")):
        return False
    return all(item and "." not in item and any(char.isalpha() for char in item) for item in items)


def _seed(item: str) -> str:
    item = " ".join(item.split()).strip(" ;；,，.。、:：")
    return item if len(item) <= _MAX_SEED_CHARS else item[: _MAX_SEED_CHARS - 3] + "..."
