"""The bash analysis: one pass over a parsed command line, one record per simple command, and the risk reasons.

Each simple command of the line (SPEC 5: "each command of a chain or pipeline is judged on its own") gets its
access (read-only, mutating git, other), the reason it is not read-only, the forms config patterns are matched
against, the prefix `always` would allow, and its own risk reasons. Wrappers are seen through (`sudo`, `timeout`,
`xargs`), and a script in a string (`bash -c '...'`, `eval '...'`) is parsed and judged like the line itself, down to
``MAX_DEPTH`` levels. The policy turns the records into allow / ask / deny; nothing here knows modes. Where a
read-only command may read is not judged: the kernel confines it (SPEC 13, ``engine.sandbox``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.home_folder import own_config_folders
from engine.policy.arity import CommandPrefix
from engine.policy.bash_parse import parse_script
from engine.policy.bash_readonly import NOT_LISTED, Access, classify
from engine.policy.bash_records import SimpleCommand, Word
from engine.policy.bash_risk import Folders, Risk, command_risks, line_risks, shown
from engine.policy.bash_writes import written_targets
from engine.policy.bash_wrappers import Chain, InlineScript, inline_script, program_name
from engine.record import record

MAX_DEPTH = 3
# Risk reasons about a command's own redirection: they say what "writes to `f`" says, and more.
_WRITE_RISKS = frozenset({"redirect_overwrite"})
_ORDER = {Access.READ_ONLY: 0, Access.OTHER: 1, Access.MUTATING_GIT: 2}


@record
class CommandVerdict:
    shown: str
    access: Access
    # Why the command is not read-only, in plain words; None when it is.
    problem: str | None
    # The command as config patterns see it: as written, what it runs, the line of an enclosing `bash -c`.
    forms: tuple[str, ...]
    # Its words as written (no `FOO=1` prefix): what a session allowance must match.
    words: tuple[str | None, ...]
    # What `always` would allow; None when the command's name or prefix is known only at run time.
    prefix: CommandPrefix | None
    # The risk reasons of this command itself (also among the analysis's ``risks``).
    risks: tuple[Risk, ...] = ()
    # The problem says nothing its risk reasons do not ("is not on the read-only list" beside `rm -f`'s reason,
    # "writes to `f`" beside "overwrites the existing file `f`"): the dialog shows the risk reasons alone.
    problem_redundant: bool = False


@record
class BashAnalysis:
    command: str
    verdicts: tuple[CommandVerdict, ...]
    risks: tuple[Risk, ...]
    # Some `>` of the line truncates a file: run again, the line overwrites what it wrote.
    truncates: bool = False


def analyse(command: str, cwd: Path, own_config: tuple[Path, ...] | None = None) -> BashAnalysis:
    """Analyses a command line. ``cwd`` is the workspace root: it resolves `> file` targets to tell an overwrite from
    a new file, and a write that is not to an ordinary file of the workspace; ``own_config`` is coder-tui's own
    configuration folders (of the process's environment by default)."""
    walk = _Walk(cwd, [cwd], own_config_folders() if own_config is None else own_config)
    walk.script(command, _Outer())
    risks = tuple({(r.code, r.text): r for r in walk.risks}.values())
    return BashAnalysis(command, tuple(walk.verdicts), risks, walk.truncates)


@record
class _Outer:
    """What an enclosing `sudo bash -c '...' > out` imposes on the commands of its script."""

    depth: int = 0
    floor: Access = Access.READ_ONLY
    floor_problem: str | None = None
    forms: tuple[str, ...] = ()


@dataclass
class _Walk:
    root: Path
    # Where relative paths may be resolved from: the root and every folder a `cd` of the line entered.
    dirs: list[Path]
    own_config: tuple[Path, ...]
    verdicts: list[CommandVerdict] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    truncates: bool = False

    def script(self, source: str, outer: _Outer) -> None:
        parsed = parse_script(source)
        runs = [self.command(command, outer) for command in parsed.commands]
        self.risks.extend(line_risks(parsed, runs))

    def command(self, command: SimpleCommand, outer: _Outer) -> tuple[Word, ...]:
        """Records one simple command; returns the words of what it finally runs (after its wrappers)."""
        line = shown(command.source)
        chain = Chain.of(command.words)
        inline = inline_script(chain.innermost)
        if inline is not None and chain.appended:
            # `xargs -I{} sh -c 'echo {}'`: xargs pastes its input into the script, so it is not the one shown.
            inline = InlineScript(inline.via, None)
        risks = command_risks(command, chain, line, Folders(self.root, tuple(self.dirs), self.own_config))
        unseen = None
        if inline is not None and (inline.script is None or outer.depth >= MAX_DEPTH):
            dynamic = inline.script is None
            unseen = f"`{line}` {'runs a script known only at run time' if dynamic else 'nests scripts too deeply'}"
            risks.append(Risk("dynamic_command" if dynamic else "parse_error", unseen))
        own_risks = tuple(dict.fromkeys(risks))
        self.risks.extend(own_risks)
        self.truncates = self.truncates or any(r.truncates for r in command.redirects)
        forms = tuple(dict.fromkeys((_form(command.words), _form(chain.innermost), *outer.forms)))
        written = next((target.shown for target in written_targets(command, chain)), None)
        if inline is not None and inline.script is not None and unseen is None:
            floor, floor_problem = outer.floor, outer.floor_problem
            if not chain.transparent or inline.privileged:
                floor, floor_problem = Access.OTHER, f"`{line}` runs through `{command.words[0].shown}`"
            if written is not None:
                floor, floor_problem = Access.OTHER, f"`{line}` writes to `{written}`"
            self.script(inline.script, _Outer(outer.depth + 1, floor, floor_problem, forms))
            return chain.innermost
        if unseen is not None:
            access, problem, redundant = Access.OTHER, unseen, False
        else:
            access, problem, redundant = _access(command, chain, line, written, own_risks)
        if _ORDER[outer.floor] > _ORDER[access]:
            access, problem, redundant = outer.floor, outer.floor_problem, False
        self._enter(chain)
        words = tuple(word.value for word in command.words)
        redundant = redundant and bool(own_risks)
        self.verdicts.append(CommandVerdict(line, access, problem, forms, words, chain.prefix(), own_risks, redundant))
        return chain.innermost

    def _enter(self, chain: Chain) -> None:
        """A `cd` inside the workspace moves where the line's later relative paths start (literal targets only, no
        glob: nothing here walks the tree)."""
        words = chain.innermost
        if not words or program_name(words[0]) != "cd":
            return
        operands = [word for word in words[1:] if word.value is None or not word.value.startswith("-")]
        if len(operands) != 1 or operands[0].value is None or operands[0].value in ("", "-", "~"):
            return
        found = [Path(os.path.realpath(base / operands[0].value)) for base in self.dirs]
        inside = [folder for folder in found if folder == self.root or folder.is_relative_to(self.root)]
        for target in [folder for folder in inside if folder.is_dir()] or inside[:1]:
            if target not in self.dirs:
                self.dirs.append(target)


def _access(
    command: SimpleCommand, chain: Chain, line: str, written: str | None, own_risks: tuple[Risk, ...]
) -> tuple[Access, str | None, bool]:
    """The command's access, why it is not read-only, and whether its own risk reasons say that better."""
    access, predicate = classify(chain.innermost)
    if access is Access.READ_ONLY and not chain.transparent:
        return Access.OTHER, f"`{line}` runs through `{command.words[0].shown}`", False
    if access is Access.READ_ONLY and written is not None:
        redundant = any(risk.code in _WRITE_RISKS for risk in own_risks)
        return Access.OTHER, f"`{line}` writes to `{written}`", redundant
    return access, None if predicate is None else f"`{line}` {predicate}", predicate == NOT_LISTED


def _form(words: Sequence[Word]) -> str:
    return " ".join(word.shown for word in words)
