"""Shell syntax for the policy: a command line parsed by tree-sitter-bash into every simple command it runs.

Pure syntax, no judgement. A chain (`&&`, `||`, `;`), a pipeline, a subshell, a `{ ...; }` group, a loop, a
function body, a `$(...)` or `<(...)` is walked down to its simple commands, and each comes out with its
words (quotes removed, by ``bash_words``), its `FOO=1` prefix assignments and every redirection that applies to
it, its own or its enclosing statement's. What the walk cannot see through is recorded instead of guessed: parse
errors, command and process substitutions, backticks in a here-document.

tree-sitter is imported on first use (SPEC 1: heavy imports stay off the TUI's start-up path).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from engine.policy.bash_words import Word, assignment_of, node_text, word_of
from engine.record import record

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Redirection targets that swallow or show output but are no file anyone keeps.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
# `<>` opens read-write and creates the file: it writes as much as `>>` does.
WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
_ARITHMETIC_ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "++", "--"})
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


@functools.cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_script(source: str) -> ParsedScript:
    """Parses a command line; never raises: what does not parse is listed in ``errors``."""
    tree = _parser().parse(source.encode())
    walker = _Walker(errors=_errors(tree.root_node))
    try:
        walker.visit(tree.root_node, _Context())
    except RecursionError:
        # Thousands of nested groups: whatever the walk did not reach cannot be judged, so it is an error.
        walker.errors.append("nested too deeply")
    return ParsedScript(
        source=source,
        commands=tuple(walker.commands),
        errors=tuple(walker.errors),
        substitutions=tuple(walker.substitutions),
        process_substitutions=tuple(walker.process_substitutions),
        functions=tuple(walker.functions),
        variable_writes=tuple(walker.variable_writes),
    )


def _errors(root: Node) -> list[str]:
    """Every ERROR and MISSING node, wherever it sits (the walk below skips parts of the tree it needs not read)."""
    if not root.has_error:
        return []
    found: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            found.append(f"a {node.type} is missing")
        elif node.type == "ERROR":
            found.append(f"near `{' '.join(node_text(node).split())}`")
        elif node.has_error:
            stack.extend(reversed(node.children))
    return found


@record
class _Context:
    redirects: tuple[Redirect, ...] = ()
    pipeline: tuple[int, int] | None = None
    substituted: bool = False
    # The text of the enclosing redirected statement, when the command is its whole body.
    statement: str | None = None
    # Inside `$((...))` or `((...))`, where `=` assigns instead of comparing.
    arithmetic: bool = False


@dataclass
class _Walker:
    commands: list[SimpleCommand] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    substitutions: list[str] = field(default_factory=list)
    process_substitutions: list[str] = field(default_factory=list)
    functions: list[FunctionDef] = field(default_factory=list)
    variable_writes: list[str] = field(default_factory=list)
    pipelines: int = 0

    def visit(self, node: Node, ctx: _Context) -> None:
        handler = getattr(self, f"_visit_{node.type}", None)
        if handler is not None:
            handler(node, ctx)
            return
        self._children(node, ctx)

    def _children(self, node: Node, ctx: _Context) -> None:
        for child in node.children:
            self.visit(child, ctx)

    def _visit_command_substitution(self, node: Node, ctx: _Context) -> None:
        self.substitutions.append(node_text(node))
        self._children(node, _Context(substituted=True))

    def _visit_process_substitution(self, node: Node, ctx: _Context) -> None:
        self.process_substitutions.append(node_text(node))
        self._children(node, _Context(substituted=True))

    def _visit_for_statement(self, node: Node, ctx: _Context) -> None:
        """`for x in ...` and `select x in ...` set `x`, exported or not."""
        variable = node.child_by_field_name("variable")
        if variable is not None:
            self.variable_writes.append(node_text(variable))
        self._children(node, ctx)

    def _visit_arithmetic_expansion(self, node: Node, ctx: _Context) -> None:
        self._children(node, replace(ctx, arithmetic=True))

    def _visit_compound_statement(self, node: Node, ctx: _Context) -> None:
        arithmetic = bool(node.children) and node_text(node.children[0]) == "(("
        self._children(node, replace(ctx, arithmetic=ctx.arithmetic or arithmetic))

    def _visit_binary_expression(self, node: Node, ctx: _Context) -> None:
        if ctx.arithmetic:
            self._arithmetic_write(node)
        self._children(node, ctx)

    def _visit_unary_expression(self, node: Node, ctx: _Context) -> None:
        self._visit_binary_expression(node, ctx)

    def _visit_postfix_expression(self, node: Node, ctx: _Context) -> None:
        self._visit_binary_expression(node, ctx)

    def _arithmetic_write(self, node: Node) -> None:
        operators = [node_text(child) for child in node.children if not child.is_named]
        targets = [child for child in node.named_children if child.type == "variable_name"]
        if targets and any(op in _ARITHMETIC_ASSIGNMENTS for op in operators):
            self.variable_writes.append(node_text(targets[0]))

    def _visit_expansion(self, node: Node, ctx: _Context) -> None:
        """`${x=v}` and `${x:=v}` assign `x` when it is unset or empty."""
        operators = [node_text(child) for child in node.children if not child.is_named]
        target = next((child for child in node.named_children if child.type == "variable_name"), None)
        if target is not None and any(op in ("=", ":=") for op in operators):
            self.variable_writes.append(node_text(target))
        self._children(node, ctx)

    def _visit_pipeline(self, node: Node, ctx: _Context) -> None:
        self.pipelines += 1
        number = self.pipelines
        stages = [child for child in node.children if child.is_named]
        for position, stage in enumerate(stages):
            self.visit(stage, replace(ctx, pipeline=(number, position), statement=None))

    def _visit_function_definition(self, node: Node, ctx: _Context) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        name = node_text(name_node) if name_node is not None else ""
        before = len(self.commands)
        if body is not None:
            self.visit(body, replace(ctx, statement=None, pipeline=None))
        self_calls = sum(
            1 for command in self.commands[before:] if command.name is not None and command.name.value == name
        )
        self.functions.append(FunctionDef(name=name, self_calls=self_calls, source=node_text(node)))

    def _visit_redirected_statement(self, node: Node, ctx: _Context) -> None:
        body = node.child_by_field_name("body")
        redirects: list[Redirect] = []
        extra_words: list[Word] = []
        for index, child in enumerate(node.children):
            if child.is_named and node.field_name_for_child(index) != "body":
                self._collect_redirect(child, redirects, extra_words, ctx)
        inner = replace(ctx, redirects=ctx.redirects + tuple(redirects), statement=node_text(node))
        if body is None:
            # A bare `> file` still truncates the file: keep it as a command with no words.
            self._add(node_text(node), extra_words, [], inner)
        elif body.type == "command":
            self._command(body, inner, extra_words)
        else:
            self.visit(body, replace(inner, statement=None))

    def _collect_redirect(self, node: Node, redirects: list[Redirect], extra: list[Word], ctx: _Context) -> None:
        """Reads one redirect; `echo a > f b` gives the target `f` and `b` back as an argument of `echo`."""
        scan = _Context(substituted=ctx.substituted)
        if node.type == "file_redirect":
            operator = next((node_text(c) for c in node.children if not c.is_named), ">")
            descriptor = node.child_by_field_name("descriptor")
            targets = node.children_by_field_name("destination")
            redirects.append(
                Redirect(
                    operator=operator,
                    target=word_of(targets[0]) if targets else None,
                    descriptor=node_text(descriptor) if descriptor is not None else None,
                )
            )
            extra.extend(word_of(target) for target in targets[1:])
            for target in targets:
                self.visit(target, scan)
        elif node.type == "heredoc_redirect":
            redirects.append(Redirect(operator="<<", target=None))
            quoted = False
            for child in node.named_children:
                if child.type == "heredoc_start":
                    quoted = any(mark in node_text(child) for mark in "'\\\"")
                elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                    self._collect_redirect(child, redirects, extra, ctx)
                elif child.type == "heredoc_body" and not quoted:
                    self._heredoc_body(child, scan)
        elif node.type == "herestring_redirect":
            redirects.append(Redirect(operator="<<<", target=None))
            self._children(node, scan)
        else:
            self.visit(node, scan)

    def _heredoc_body(self, node: Node, ctx: _Context) -> None:
        """An unquoted here-document expands `$(...)` and backticks; tree-sitter parses the first only."""
        pieces = [c for c in node.named_children if c.type == "heredoc_content"] or [node]
        if any("`" in node_text(piece) for piece in pieces):
            self.substitutions.append(next(node_text(p).strip() for p in pieces if "`" in node_text(p)))
        self._children(node, ctx)

    def _visit_command(self, node: Node, ctx: _Context) -> None:
        self._command(node, ctx, [])

    def _command(self, node: Node, ctx: _Context, extra_words: list[Word]) -> None:
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        redirects: list[Redirect] = []
        scan = _Context(substituted=ctx.substituted)
        for child in node.children:
            if not child.is_named:
                continue
            if child.type == "variable_assignment":
                assignments.append(assignment_of(child))
                self._children(child, scan)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self._collect_redirect(child, redirects, extra_words, ctx)
            else:
                if node_text(child):  # a MISSING name (`ls &&`) has no text; the walk records it as an error
                    words.append(word_of(child))
                self.visit(child, scan)
        own = replace(ctx, redirects=ctx.redirects + tuple(redirects))
        self._add(ctx.statement or node_text(node), words + extra_words, assignments, own)

    def _add(self, source: str, words: list[Word], assignments: list[tuple[str, Word]], ctx: _Context) -> None:
        self.commands.append(
            SimpleCommand(
                source=source,
                words=tuple(words),
                assignments=tuple(assignments),
                redirects=ctx.redirects,
                pipeline=ctx.pipeline,
                substituted=ctx.substituted,
            )
        )

    def _visit_variable_assignment(self, node: Node, ctx: _Context) -> None:
        """A bare `x=1` statement: no command runs, but the assignment is judged like a prefix one."""
        self._add(ctx.statement or node_text(node), [], [assignment_of(node)], ctx)
        self._children(node, _Context(substituted=ctx.substituted))

    def _visit_declaration_command(self, node: Node, ctx: _Context) -> None:
        """`export A=1`, `declare -x`, `local z`: shell state only, kept as a command so they are judged."""
        words = [Word(node_text(c), node_text(c)) for c in node.children if not c.is_named]
        assignments: list[tuple[str, Word]] = []
        scan = _Context(substituted=ctx.substituted)
        for child in node.named_children:
            if child.type == "variable_assignment":
                assignments.append(assignment_of(child))
                self._children(child, scan)
            else:
                self.visit(child, scan)
            words.append(word_of(child))
        self._add(ctx.statement or node_text(node), words, assignments, ctx)

    def _visit_unset_command(self, node: Node, ctx: _Context) -> None:
        words = [word_of(c) if c.is_named else Word(node_text(c), node_text(c)) for c in node.children]
        self._add(ctx.statement or node_text(node), words, [], ctx)

