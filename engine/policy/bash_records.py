"""The records a parsed bash line is made of: shell words with their quotes removed, redirections, the simple
commands the line runs, the functions it defines, and the whole script with what could not be parsed or seen through.

A ``Word`` keeps a word's source text and, when no expansion decides it at run time, its literal value: `'a b'`,
`"a b"` and `$'a b'` all mean `a b`, while `"$HOME"` has no literal value. The decoders follow bash's quoting rules
(backslashes outside and inside double quotes, single quotes, ANSI-C quoting, concatenations) and give None for
anything the shell expands. ``bash_parse`` builds the records; every judging module reads them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.policy.unasked_writes import is_not_a_file
from engine.record import record

if TYPE_CHECKING:
    from tree_sitter import Node

# Outside quotes a backslash escapes any character; inside double quotes only these, before any other it stays.
_UNQUOTED_ESCAPE = re.compile(r"\\(.?)", re.DOTALL)
_DOUBLE_QUOTED_ESCAPE = re.compile(r'\\([\\"$`\n])')


@record
class Word:
    """One shell word: its source text and, when no expansion decides it at run time, its literal value."""

    source: str
    value: str | None

    @property
    def shown(self) -> str:
        return self.value if self.value is not None else self.source


def word_of(node: Node) -> Word:
    return Word(source=node_text(node), value=_literal(node))


def assignment_of(node: Node) -> tuple[str, Word]:
    """A `name=value` node: the name and the value's word."""
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    return (
        node_text(name) if name is not None else "",
        word_of(value) if value is not None else Word("", ""),
    )


def node_text(node: Node) -> str:
    return node.text.decode(errors="replace") if node.text is not None else ""


def _literal(node: Node) -> str | None:
    """The value after quote removal, or None when an expansion decides it at run time."""
    kind = node.type
    text = node_text(node)
    if kind == "command_name":
        parts = node.named_children
        return _literal(parts[0]) if len(parts) == 1 else None
    if kind == "word":
        return _UNQUOTED_ESCAPE.sub(_escaped, text)
    if kind in ("number", "variable_name", "string_content", "heredoc_content"):
        return text
    if kind == "raw_string":
        return text[1:-1]
    if kind in ("string", "translated_string"):
        return _double_quoted(node)
    if kind == "ansi_c_string":
        return _ansi_c(text[2:-1])
    if kind == "concatenation":
        pieces: list[str] = []
        for child in node.named_children:
            piece = _literal(child)
            if piece is None:
                return None
            pieces.append(piece)
        return "".join(pieces)
    # Expansions, and any node this walk does not know, are decided at run time.
    return None


def _double_quoted(node: Node) -> str | None:
    if node.type == "translated_string":
        inner = node.named_children
        if len(inner) != 1:
            return None
        node = inner[0]
    pieces: list[str] = []
    for child in node.named_children:
        if child.type != "string_content":
            return None
        pieces.append(_DOUBLE_QUOTED_ESCAPE.sub(_escaped, node_text(child)))
    return "".join(pieces)


def _escaped(match: re.Match[str]) -> str:
    """What an escape leaves: the character after the backslash; nothing for a backslash-newline (a joined line)."""
    return "" if match.group(1) == "\n" else match.group(1)


def _ansi_c(body: str) -> str | None:
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return None


# `<>` opens read-write and creates the file: it writes as much as `>>` does.
WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
TRUNCATE_OPERATORS = frozenset({">", "&>", ">|", ">&"})


@record
class Redirect:
    operator: str
    target: Word | None  # None for here-documents and here-strings

    @property
    def writes(self) -> bool:
        """Whether it writes a file: `2>&1` and `> /dev/null` do not, `> out.txt` does."""
        if self.operator not in WRITE_OPERATORS or self.target is None:
            return False
        value = self.target.value
        if value is None:
            return True
        if self.operator == ">&" and (value.isdigit() or value == "-"):
            return False  # `>&2` duplicates a descriptor
        return not is_not_a_file(value)

    @property
    def truncates(self) -> bool:
        return self.writes and self.operator in TRUNCATE_OPERATORS


@record
class SimpleCommand:
    """A command that runs: `FOO=1 grep -n x file > out` gives assignments, words and redirects."""

    source: str
    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    # (pipeline number, position in it) when the command is one stage of a pipeline.
    pipeline: tuple[int, int] | None = None
    # True inside `$(...)`, backticks or `<(...)`: its output becomes part of another command.
    substituted: bool = False

    @property
    def name(self) -> Word | None:
        return self.words[0] if self.words else None


@record
class FunctionDef:
    name: str
    # How many times the body calls the function itself: two or more is how a fork bomb spreads.
    self_calls: int
    source: str


@record
class ParsedScript:
    source: str
    commands: tuple[SimpleCommand, ...]
    # What did not parse, described: "near `fi`", "a word is missing".
    errors: tuple[str, ...]
    substitutions: tuple[str, ...]
    process_substitutions: tuple[str, ...]
    functions: tuple[FunctionDef, ...]
