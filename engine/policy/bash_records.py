"""The records a parsed bash line is made of: each simple command it runs with its words, prefix assignments and
redirections, the functions it defines, and the whole script with what could not be parsed or seen through.

Kept apart from the walk that builds them (``bash_parse``) because the judging modules read these records, and
which redirection writes a file is a property of the record, not of the parse.
"""

from __future__ import annotations

from engine.policy.bash_words import Word
from engine.record import record

# Redirection targets that swallow or show output but are no file anyone keeps.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
# `<>` opens read-write and creates the file: it writes as much as `>>` does.
WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
TRUNCATE_OPERATORS = frozenset({">", "&>", ">|", ">&"})


@record
class Redirect:
    operator: str
    target: Word | None  # None for here-documents and here-strings
    descriptor: str | None = None

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
        return value not in HARMLESS_TARGETS and not value.startswith("/dev/fd/")

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
    # Variables set other than by an `x=1` statement or prefix: `for x in`, `$((x=1))`, `${x:=1}`, `(( x++ ))`.
    variable_writes: tuple[str, ...] = ()
