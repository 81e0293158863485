"""Shell syntax for the policy: a command line parsed by tree-sitter-bash into every simple command it runs.

Pure syntax, no judgement. A chain (`&&`, `||`, `;`), a pipeline, a subshell, a `{ ...; }` group, a loop, a
function body, a `$(...)` or `<(...)` is walked down to its simple commands, and each comes out with its
words (quotes removed, ``bash_records``), its `FOO=1` prefix assignments and every redirection that applies to
it, its own or its enclosing statement's. What the walk cannot see through is recorded instead of guessed: parse
errors, command and process substitutions, backticks in a here-document.

A redirection belongs to the simple command or compound it follows, as bash reads it: in `a && b > f` and
`a | b > f` it is `b`'s alone. tree-sitter-bash hangs such a trailing redirection on the whole list or pipeline
(tree-sitter-bash issue 345), so the walk hands it down to the list's or pipeline's last element. A redirection
of a `{ }` group, a subshell or a loop is the group's: it comes out once, as a command of no words shown as the
group. The statements tree-sitter puts inside a here-document's redirect (`cat <<EOF | sh`) are walked too.

tree-sitter is imported on first use (SPEC 1: heavy imports stay off the TUI's start-up path).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from engine.policy.bash_records import (
    FunctionDef,
    ParsedScript,
    Redirect,
    SimpleCommand,
    Word,
    assignment_of,
    node_text,
    word_of,
)
from engine.record import record

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Nodes whose trailing redirection tree-sitter-bash misplaces: it belongs to their last element.
_TAIL_CARRIERS = frozenset({"list", "pipeline", "negated_command", "redirected_statement"})
# Nodes that are one simple command: a redirection handed down to one is shown with it.
_SIMPLE = frozenset({"command", "declaration_command", "unset_command", "variable_assignment"})
# What is left at the end of a statement's text cut where a statement after a here-document starts: `cat <<EOF &&`.
_TRAILING_OPERATOR = re.compile(r"\s*(&&|\|\||\|&|\||;)$")


@functools.cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_script(source: str) -> ParsedScript:
    """Parses a command line; never raises: what does not parse is listed in ``errors``."""
    data = source.encode()
    tree = _parser().parse(data)
    walker = _Walker(data, errors=_errors(tree.root_node))
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
    # Redirections (and the words after them) that tree-sitter hung on an enclosing list or pipeline, for its last
    # element; ``tail_end`` is where the statement they end ends.
    tail: tuple[Redirect, ...] = ()
    tail_words: tuple[Word, ...] = ()
    tail_end: int = 0
    # Words after a redirection, handed down with it: `a && b > f c` gives `c` to `b`.
    extra_words: tuple[Word, ...] = ()


@dataclass
class _Walker:
    source: bytes
    commands: list[SimpleCommand] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    substitutions: list[str] = field(default_factory=list)
    process_substitutions: list[str] = field(default_factory=list)
    functions: list[FunctionDef] = field(default_factory=list)
    pipelines: int = 0
    # Statements tree-sitter put inside a here-document's redirect (`cat <<EOF | sh`, `cat <<EOF && rm x`): they
    # run after the command the here-document feeds, and are walked once it is added.
    following: list[tuple[Node, _Context]] = field(default_factory=list)
    # Where a statement's shown text stops: a here-document's body, or a statement that follows it on its line.
    cuts: list[int] = field(default_factory=list)

    def visit(self, node: Node, ctx: _Context) -> None:
        if ctx.tail and node.type not in _TAIL_CARRIERS:
            ctx = self._take_tail(node, ctx)
        handler = getattr(self, f"_visit_{node.type}", None)
        if handler is not None:
            handler(node, ctx)
            return
        self._children(node, ctx)

    def _children(self, node: Node, ctx: _Context) -> None:
        for child in node.children:
            self.visit(child, ctx)

    def _take_tail(self, node: Node, ctx: _Context) -> _Context:
        """The redirections handed down reach the element they belong to: a simple command is shown with them
        (`b > f`); a group, subshell or loop gets them as its own (``_group_redirects``)."""
        rest = replace(ctx, tail=(), tail_words=(), tail_end=0)
        if node.type not in _SIMPLE:
            self._group_redirects(self._span(node.start_byte, ctx.tail_end), ctx.tail, ctx.tail_words, rest)
            return replace(rest, statement=None)
        return replace(
            rest,
            redirects=ctx.redirects + ctx.tail,
            statement=self._span(node.start_byte, ctx.tail_end),
            extra_words=ctx.tail_words,
        )

    def _group_redirects(
        self, source: str, redirects: tuple[Redirect, ...], words: tuple[Word, ...], ctx: _Context
    ) -> None:
        """`{ a; b; } > f`, `( a ) > f`, `for ...; done > f`: the redirection is the group's, opened once before
        any of its commands runs, so it is judged once, as a command of no words shown as the whole group."""
        self._add(source, list(words), [], replace(ctx, redirects=ctx.redirects + redirects, pipeline=None))

    def _span(self, start: int, end: int) -> str:
        """The source from ``start`` to ``end``, stopped before a here-document's body."""
        cut = min([end, *(cut for cut in self.cuts if start < cut < end)])
        text = self.source[start:cut].decode(errors="replace").rstrip()
        return _TRAILING_OPERATOR.sub("", text) if cut < end else text

    def _take_following(self, since: int) -> list[tuple[Node, _Context]]:
        """The statements found inside here-documents since ``since``, to walk after their command."""
        taken = self.following[since:]
        del self.following[since:]
        return taken

    def _visit_list(self, node: Node, ctx: _Context) -> None:
        """`a && b || c`: a trailing redirection tree-sitter hung on the list goes to its last command only."""
        self._last_takes_tail(node, ctx)

    def _visit_negated_command(self, node: Node, ctx: _Context) -> None:
        self._last_takes_tail(node, ctx)

    def _last_takes_tail(self, node: Node, ctx: _Context) -> None:
        statements = [child for child in node.named_children if child.type != "comment"]
        rest = replace(ctx, tail=(), tail_words=(), tail_end=0)
        for child in node.children:
            self.visit(child, ctx if statements and child == statements[-1] else rest)

    def _visit_command_substitution(self, node: Node, ctx: _Context) -> None:
        self.substitutions.append(node_text(node))
        self._children(node, _Context(substituted=True))

    def _visit_process_substitution(self, node: Node, ctx: _Context) -> None:
        self.process_substitutions.append(node_text(node))
        self._children(node, _Context(substituted=True))

    def _visit_pipeline(self, node: Node, ctx: _Context) -> None:
        self.pipelines += 1
        number = self.pipelines
        stages = [child for child in node.children if child.is_named]
        rest = replace(ctx, tail=(), tail_words=(), tail_end=0)
        for position, stage in enumerate(stages):
            # A trailing redirection tree-sitter hung on the pipeline is its last stage's.
            stage_ctx = ctx if position == len(stages) - 1 else rest
            self.visit(stage, replace(stage_ctx, pipeline=(number, position), statement=None))

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
        since = len(self.following)
        for index, child in enumerate(node.children):
            if child.is_named and node.field_name_for_child(index) != "body":
                self._collect_redirect(child, redirects, extra_words, ctx)
        following = self._take_following(since)
        # Redirections handed down from an enclosing list follow this statement's own.
        own = (*redirects, *ctx.tail)
        words = (*extra_words, *ctx.tail_words)
        end = ctx.tail_end if ctx.tail else node.end_byte
        ctx = replace(ctx, tail=(), tail_words=(), tail_end=0)
        statement = self._span(node.start_byte, end)
        if body is None:
            # A bare `> file` still truncates the file: keep it as a command with no words.
            self._add(statement, list(words), [], replace(ctx, redirects=ctx.redirects + own, statement=statement))
        elif body.type == "command":
            self._command(body, replace(ctx, redirects=ctx.redirects + own, statement=statement), list(words))
        elif body.type in _TAIL_CARRIERS:
            self.visit(body, replace(ctx, tail=own, tail_words=words, tail_end=end, statement=None))
        else:
            self._group_redirects(statement, own, words, ctx)
            self.visit(body, replace(ctx, statement=None))
        for after, after_ctx in following:
            self.visit(after, after_ctx)

    def _collect_redirect(self, node: Node, redirects: list[Redirect], extra: list[Word], ctx: _Context) -> None:
        """Reads one redirect; `echo a > f b` gives the target `f` and `b` back as an argument of `echo`."""
        scan = _Context(substituted=ctx.substituted)
        if node.type == "file_redirect":
            operator = next((node_text(c) for c in node.children if not c.is_named), ">")
            targets = node.children_by_field_name("destination")
            redirects.append(Redirect(operator=operator, target=word_of(targets[0]) if targets else None))
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
                elif child.type == "heredoc_body":
                    self.cuts.append(child.start_byte)
                    if not quoted:
                        self._heredoc_body(child, scan)
                elif child.type != "heredoc_end":
                    self.cuts.append(child.start_byte)
                    self.following.append((child, _Context(substituted=ctx.substituted)))
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
        self._command(node, replace(ctx, extra_words=()), list(ctx.extra_words))

    def _command(self, node: Node, ctx: _Context, extra_words: list[Word]) -> None:
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        redirects: list[Redirect] = []
        scan = _Context(substituted=ctx.substituted)
        since = len(self.following)
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
        for after, after_ctx in self._take_following(since):
            self.visit(after, after_ctx)

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

