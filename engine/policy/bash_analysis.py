"""The bash analysis: one command line in, a verdict per simple command and the risk reasons out.

Each simple command of the line (SPEC 5: "each command of a chain or pipeline is judged on its own") gets
its access (read-only, mutating git, other), the reason it is not read-only, the forms config patterns are
matched against, and the prefix `always` would allow. Wrappers are seen through (`sudo`, `timeout`,
`xargs`), and a script in a string (`bash -c '...'`, `eval '...'`) is parsed and judged like the line itself,
down to ``MAX_DEPTH`` levels. The policy turns this into allow / ask / deny; nothing here knows modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.home_folder import own_config_folders
from engine.policy.argv import has_option
from engine.policy.arity import CommandPrefix, arity_prefix
from engine.policy.bash_env import prefix_problem, variable_write_problem
from engine.policy.bash_parse import parse_script
from engine.policy.bash_records import SimpleCommand
from engine.policy.bash_words import Word
from engine.policy.bash_cd import cd_targets
from engine.policy.bash_readonly import NOT_LISTED, Access, classify
from engine.policy.bash_risk import (
    Risk,
    assignment_risks,
    command_risks,
    downloads,
    interprets_code,
    pipe_to_shell_risk,
    redirect_risks,
    runs_code_from_stdin,
    script_risks,
    shown,
)
from engine.policy.bash_wrappers import InlineScript, inline_script, program_name, unwrap
from engine.policy.bash_writes import write_risks
from engine.record import record

MAX_DEPTH = 3
# Risk reasons about a command's own redirection: they say what "writes to `f`" says, and more.
_WRITE_RISKS = frozenset({"redirect_overwrite", "protected_write", "block_device_write"})
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

    @property
    def read_only(self) -> bool:
        """The plan-mode whitelist question: every command read-only and nothing risky."""
        return not self.risks and all(v.access is Access.READ_ONLY for v in self.verdicts)


def analyse(command: str, cwd: Path, own_config: tuple[Path, ...] | None = None) -> BashAnalysis:
    """Analyses a command line. ``cwd`` is the workspace root: it resolves `> file` targets to tell an overwrite from
    a new file, and a write that is not to an ordinary file of the workspace (``bash_writes``); ``own_config`` is
    coder-tui's own configuration folders (of the process's environment by default). Where a read-only command may
    read is not decided here: the kernel confines it (SPEC 13, engine.sandbox)."""
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
    cwd: Path
    # Where relative paths may be resolved from: the root and every folder a `cd` of the line entered.
    dirs: list[Path]
    own_config: tuple[Path, ...]
    verdicts: list[CommandVerdict] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    truncates: bool = False

    def script(self, source: str, outer: _Outer) -> None:
        parsed = parse_script(source)
        self.risks.extend(script_risks(parsed))
        first_verdict = len(self.verdicts)
        stages: dict[int, list[tuple[int, tuple[Word, ...]]]] = {}
        substituted_download = False
        interpreter_line: str | None = None
        for command in parsed.commands:
            innermost = self.command(command, outer)
            if command.pipeline is not None:
                number, position = command.pipeline
                stages.setdefault(number, []).append((position, innermost))
            if command.substituted and downloads(innermost):
                substituted_download = True
            if interprets_code(innermost):
                interpreter_line = interpreter_line or shown(command.source)
        for pipeline in stages.values():
            pipeline.sort(key=lambda stage: stage[0])
            first_download = next((i for i, (_, words) in enumerate(pipeline) if downloads(words)), None)
            if first_download is not None and any(runs_code_from_stdin(w) for _, w in pipeline[first_download + 1 :]):
                self.risks.append(pipe_to_shell_risk(shown(source)))
        if substituted_download and interpreter_line is not None:
            self.risks.append(pipe_to_shell_risk(shown(source)))
        bare = [name for command in parsed.commands if not command.words for name, _ in command.assignments]
        written = variable_write_problem([*parsed.variable_writes, *bare])
        if written is not None:
            # The variable reaches every later command of the line, so none of them is read-only any more.
            for index in range(first_verdict, len(self.verdicts)):
                verdict = self.verdicts[index]
                if verdict.access is Access.READ_ONLY:
                    problem = f"`{verdict.shown}` runs after a line that {written}"
                    self.verdicts[index] = replace(verdict, access=Access.OTHER, problem=problem)

    def command(self, command: SimpleCommand, outer: _Outer) -> tuple[Word, ...]:
        """Judges one simple command; returns the words of what it finally runs (after its wrappers)."""
        line = shown(command.source)
        chain = _Chain.of(command.words)
        first_risk = len(self.risks)
        self._risks(command, chain, line)
        forms = tuple(dict.fromkeys((_form(command.words), _form(chain.innermost), *outer.forms)))
        written = next((r.target.shown for r in command.redirects if r.writes and r.target is not None), None)
        self.truncates = self.truncates or any(r.truncates for r in command.redirects)
        inline = inline_script(chain.innermost)
        if inline is not None and chain.appended:
            # `xargs -I{} sh -c 'echo {}'`: xargs pastes its input into the script, so it is not the one shown.
            inline = InlineScript(inline.via, None)
        if inline is not None and inline.script is not None and outer.depth < MAX_DEPTH:
            floor, floor_problem = outer.floor, outer.floor_problem
            if not chain.transparent or inline.privileged:
                floor, floor_problem = Access.OTHER, f"`{line}` runs through `{command.words[0].shown}`"
            if written is not None:
                floor, floor_problem = Access.OTHER, f"`{line}` writes to `{written}`"
            environment = self._environment(command, chain) or _startup_files(inline, chain.innermost)
            if environment is not None:
                floor, floor_problem = Access.OTHER, f"`{line}` {environment}"
            self.script(inline.script, _Outer(outer.depth + 1, floor, floor_problem, forms))
            return chain.innermost
        if inline is not None:
            why = "runs a script known only at run time" if inline.script is None else "nests scripts too deeply"
            self.risks.append(Risk("dynamic_command" if inline.script is None else "parse_error", f"`{line}` {why}"))
            access, problem = Access.OTHER, f"`{line}` {why}"
        else:
            access, predicate = classify(chain.innermost, chain.appended)
            problem = None if predicate is None else f"`{line}` {predicate}"
        if access is Access.READ_ONLY and not chain.transparent:
            access, problem = Access.OTHER, f"`{line}` runs through `{command.words[0].shown}`"
        redundant = problem == f"`{line}` {NOT_LISTED}"
        if access is Access.READ_ONLY and written is not None:
            access, problem = Access.OTHER, f"`{line}` writes to `{written}`"
            redundant = any(risk.code in _WRITE_RISKS for risk in self.risks[first_risk:])
        if access is Access.READ_ONLY:
            predicate = self._environment(command, chain)
            if predicate is not None:
                access, problem = Access.OTHER, f"`{line}` {predicate}"
        self._enter(chain)
        if _ORDER[outer.floor] > _ORDER[access]:
            access, problem, redundant = outer.floor, outer.floor_problem, False
        words = tuple(word.value for word in command.words)
        own_risks = tuple(dict.fromkeys(self.risks[first_risk:]))
        redundant = redundant and bool(own_risks)
        self.verdicts.append(
            CommandVerdict(line, access, problem, forms, words, chain.prefix(), own_risks, redundant)
        )
        return chain.innermost

    def _environment(self, command: SimpleCommand, chain: _Chain) -> str | None:
        """A read-only command run with a changed environment is no longer read-only (SPEC 13)."""
        if chain.env_options:
            return f"changes its environment or folder through `{'`, `'.join(chain.env_options)}`"
        if command.words:
            prefix = prefix_problem([name for name, _ in command.assignments], via_env=False)
            if prefix is not None:
                return prefix
        return prefix_problem([name for name, _ in chain.assignments], via_env=True)

    def _enter(self, chain: _Chain) -> None:
        """A `cd` inside the workspace moves where the line's later relative paths start."""
        if chain.innermost and program_name(chain.innermost[0]) == "cd":
            for target in cd_targets(chain.innermost[1:], self.dirs, self.cwd):
                if target not in self.dirs:
                    self.dirs.append(target)

    def _risks(self, command: SimpleCommand, chain: _Chain, line: str) -> None:
        """Every layer is checked: `sudo timeout 5 rm -rf x` is both `sudo` and `rm -rf`."""
        self.risks.extend(assignment_risks(command.assignments, line))
        self.risks.extend(assignment_risks(chain.assignments, line))
        self.risks.extend(redirect_risks(command.redirects, line, self.cwd))
        self.risks.extend(write_risks(chain.innermost, command.redirects, line, self.dirs, self.cwd, self.own_config))
        for layer in chain.layers:
            self.risks.extend(command_risks(layer, line))
            for embedded in _find_exec_commands(layer):
                self.risks.extend(risk for inner in _Chain.of(embedded).layers for risk in command_risks(inner, line))


@record
class _Chain:
    """A command and the commands its wrappers run: `sudo timeout 5 rm x` has three layers."""

    layers: tuple[tuple[Word, ...], ...]
    transparent: bool
    appended: bool
    assignments: tuple[tuple[str, Word], ...]
    env_options: tuple[str, ...] = ()

    @classmethod
    def of(cls, words: tuple[Word, ...]) -> _Chain:
        layers = [words]
        transparent, appended = True, False
        assignments: list[tuple[str, Word]] = []
        env_options: list[str] = []
        while (wrapped := unwrap(layers[-1])) is not None:
            layers.append(wrapped.inner)
            transparent = transparent and wrapped.transparent
            appended = appended or wrapped.appends_args
            assignments.extend(wrapped.assignments)
            env_options.extend(wrapped.env_options)
        return cls(tuple(layers), transparent, appended, tuple(assignments), tuple(env_options))

    @property
    def innermost(self) -> tuple[Word, ...]:
        return self.layers[-1]

    def prefix(self) -> CommandPrefix | None:
        """The wrappers as written plus the arity prefix of what they run: `timeout 60 npm test *`."""
        inner = arity_prefix([word.value for word in self.innermost])
        wrapper = [word.value for word in self.layers[0][: len(self.layers[0]) - len(self.innermost)]]
        if inner is None or any(value is None for value in wrapper):
            return None
        return CommandPrefix(tuple(value for value in wrapper if value is not None) + inner.words, inner.exact)


def _startup_files(inline: InlineScript, words: Sequence[Word]) -> str | None:
    """`env -S` may carry its own options; `bash -i`, `--rcfile`, `--init-file` run start-up files first."""
    if inline.via == "env -S":
        return "runs through `env -S`, which may change the environment"
    if not inline.via.endswith(" -c"):
        return None
    args = [word.shown for word in words[1:]]
    if has_option(args, long=("--rcfile", "--init-file")):
        return "starts a shell that runs a start-up file of its own before the script"
    return None


def _form(words: Sequence[Word]) -> str:
    return " ".join(word.shown for word in words)


def _find_exec_commands(words: Sequence[Word]) -> list[tuple[Word, ...]]:
    """The commands `find -exec ... ;` runs, so that `find . -exec rm -rf {} +` is seen for what it does."""
    if program_name(words[0] if words else None) != "find":
        return []
    found: list[tuple[Word, ...]] = []
    index = 0
    while index < len(words):
        if words[index].value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(words) and words[end].value not in (";", "+"):
                end += 1
            if end > index + 1:
                found.append(tuple(words[index + 1 : end]))
            index = end
        index += 1
    return found
