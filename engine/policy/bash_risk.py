"""Bash risk reasons (SPEC 5 step 3): what makes a command worth a human look even where the policy allows it.

Every reason has a stable code (for the rest of the policy and the test corpus) and a plain-words text that
names the command: "`rm -rf build` deletes files recursively and without confirmation". The checks work on
parsed words, never on the raw string, so `echo "rm -rf /"`, `grep sudo notes.txt` and
`git log --grep=reset` are not mistaken for what they mention.

Two entries: ``command_risks`` for one simple command (every layer of its wrappers, the commands `find -exec` runs,
its prefix assignments, and where it writes), ``line_risks`` for a script as a whole (what the parser could not see
through, a download run as code).

Where a command writes is judged as a file tool's write is (SPEC 13, decision of 2026-12-07): the targets
``bash_writes`` finds (redirections, operands of file changers, output options such as `sort -o f`, what `find -exec`
runs), resolved from every folder the line may be in. Under coder-tui's own configuration folder it is refused
(``own_config_write``); anything but an ordinary workspace file reached without a link (``unasked_writes``: `.git/`
and `.coder/`, which the sandbox cannot carve out of a writable workspace, a disk device, any path outside) asks
whatever rule or "always" covers the command (``unasked_write``): an allowance for `echo *` never covers
`echo x > .mcp.json`, nor one for `sort *` `sort -o .mcp.json`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from engine.home_folder import own_config_folder_of
from engine.policy.argv import has_long, has_option, has_short, operands
from engine.policy.bash_readonly import split_git
from engine.policy.bash_records import ParsedScript, Redirect, SimpleCommand, Word
from engine.policy.bash_wrappers import Chain, find_exec_commands, program_name
from engine.policy.bash_writes import written_targets
from engine.policy.unasked_writes import unasked_write_reason
from engine.sandbox.child_env import LOADING_PREFIXES, LOADING_VARIABLES
from engine.record import record

# The stable code of each risk reason, which the rest of the policy and the test corpus name.
RISK_CODES = frozenset(
    {
        "substitution", "process_substitution", "eval", "parse_error", "dynamic_command", "rm_recursive_force",
        "rm_force", "privileged", "dd", "disk_format", "chmod_recursive", "world_writable", "chown_recursive",
        "pipe_to_shell", "git_force_push", "git_reset_hard", "git_clean_force", "fork_bomb", "shutdown", "kill_all",
        "redirect_overwrite", "env_override", "unasked_write", "own_config_write",
    }
)  # fmt: skip
# Risks that refuse the command instead of asking (every mode but yolo).
REFUSING_CODES = frozenset({"own_config_write"})

_PRIVILEGED = frozenset({"sudo", "doas", "su", "pkexec"})
_DISK_TOOLS = frozenset({"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk", "cfdisk"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c"})
# Interpreters, and the options with which they take their program from an argument instead of stdin.
_INTERPRETERS = {
    **{shell: "c" for shell in ("sh", "bash", "zsh", "dash", "ksh", "fish")},
    "python": "cm",
    "perl": "eE",
    "ruby": "e",
    "node": "ep",
    "php": "r",
}
_SHOWN_LIMIT = 80


@record
class Risk:
    code: str
    text: str


def shown(source: str) -> str:
    """A command as a reason quotes it: on one line, cut at a readable length."""
    flat = " ".join(source.split())
    return flat if len(flat) <= _SHOWN_LIMIT else flat[: _SHOWN_LIMIT - 1] + "…"


@record
class Folders:
    """Where a line's paths are resolved: the workspace root, every folder a `cd` of the line may have entered, and
    coder-tui's own configuration folders."""

    root: Path
    dirs: tuple[Path, ...]
    own_config: tuple[Path, ...]


def command_risks(command: SimpleCommand, chain: Chain, line: str, folders: Folders) -> list[Risk]:
    """The risks of one simple command: every layer is checked (`sudo timeout 5 rm -rf x` is both `sudo` and
    `rm -rf`), and so is what `find -exec` runs."""
    risks = _assignment_risks([*command.assignments, *chain.assignments], line)
    risks += _overwrites(command.redirects, line, folders.root)
    risks += _write_risks(written_targets(command, chain), line, folders)
    for layer in chain.layers:
        risks += _layer_risks(layer, line)
        for embedded in find_exec_commands(layer):
            risks += [risk for inner in Chain.of(embedded).layers for risk in _layer_risks(inner, line)]
    return risks


def line_risks(script: ParsedScript, runs: Sequence[tuple[Word, ...]]) -> list[Risk]:
    """The risks of a script as a whole: what the parser could not see through, and a download run as code.
    ``runs`` holds what each of ``script.commands`` finally runs (after its wrappers)."""
    line = shown(script.source)
    risks: list[Risk] = []
    if script.errors:
        problem = shown(script.errors[0])
        risks.append(Risk("parse_error", f"`{line}` does not parse as shell ({problem}), so it cannot be checked"))
    for sub in dict.fromkeys(script.substitutions):
        risks.append(
            Risk("substitution", f"`{line}` runs `{shown(sub)}` and pastes its output into the command, "
                 "so what runs is not what you see")
        )  # fmt: skip
    for sub in dict.fromkeys(script.process_substitutions):
        risks.append(Risk("process_substitution", f"`{line}` runs `{shown(sub)}` as a process substitution"))
    for function in script.functions:
        if function.self_calls >= 2:
            risks.append(
                Risk("fork_bomb", f"`{shown(function.source)}` is a fork bomb: it keeps starting copies of itself")
            )
    if _runs_download(script.commands, runs):
        risks.append(Risk("pipe_to_shell", f"`{line}` runs code downloaded from the network"))
    return risks


def _runs_download(commands: Sequence[SimpleCommand], runs: Sequence[tuple[Word, ...]]) -> bool:
    """`curl ... | sh` (a later stage of the pipeline runs code from its input), or `sh <(curl ...)` and
    `eval "$(curl ...)"` (a download substituted into a line that runs an interpreter)."""
    stages: dict[int, list[tuple[int, tuple[Word, ...]]]] = {}
    for command, words in zip(commands, runs, strict=True):
        if command.pipeline is not None:
            stages.setdefault(command.pipeline[0], []).append((command.pipeline[1], words))
    for pipeline in stages.values():
        ordered = [words for _, words in sorted(pipeline, key=lambda stage: stage[0])]
        first = next((i for i, words in enumerate(ordered) if _downloads(words)), None)
        if first is not None and any(_runs_code_from_stdin(words) for words in ordered[first + 1 :]):
            return True
    substituted = any(c.substituted and _downloads(words) for c, words in zip(commands, runs, strict=True))
    return substituted and any(_interprets_code(words) for words in runs)


def _assignment_risks(assignments: Iterable[tuple[str, Word]], line: str) -> list[Risk]:
    return [
        Risk("env_override", f"`{line}` sets `{name}`, which changes which program runs or what it loads")
        for name, _ in assignments
        if name == "PATH" or name in LOADING_VARIABLES or name.startswith(LOADING_PREFIXES)
    ]


def _overwrites(redirects: Iterable[Redirect], line: str, cwd: Path) -> list[Risk]:
    """`>` onto a file that exists (resolved from ``cwd``)."""
    targets = [r.target.value for r in redirects if r.truncates and r.target is not None and r.target.value]
    return [
        Risk("redirect_overwrite", f"`{line}` overwrites the existing file `{target}`")
        for target in targets
        if _existing_file(cwd, target)
    ]


def _existing_file(cwd: Path, target: str) -> bool:
    """Whether `target` names a file that exists; a path that cannot be checked is not claimed to exist (the
    write still asks: a redirection that writes is never read-only)."""
    try:
        return (cwd / Path(target).expanduser()).is_file()
    except (OSError, ValueError, RuntimeError):
        return False


def _layer_risks(words: Sequence[Word], line: str) -> list[Risk]:
    """Risks of one layer of `sudo timeout 5 rm -rf x`."""
    if not words:
        return []
    name = program_name(words[0])
    if name is None:
        return [Risk("dynamic_command", f"`{line}` runs a command whose name is known only at run time")]
    args = [word.shown for word in words[1:]]
    return [Risk(code, text.format(line=line)) for code, text in _named_risks(name, args)]


def _named_risks(name: str, args: list[str]) -> Iterable[tuple[str, str]]:
    if name == "rm":
        recursive = has_option(args, short="rR", long=("--recursive",))
        if has_option(args, short="f", long=("--force",)):
            if recursive:
                yield "rm_recursive_force", "`{line}` deletes files recursively and without confirmation"
            else:
                yield "rm_force", "`{line}` deletes files without confirmation (`rm -f`)"
    elif name in _PRIVILEGED:
        yield "privileged", f"`{{line}}` runs with root privileges (`{name}`)"
    elif name == "eval":
        yield "eval", "`{line}` runs a string as shell code (`eval`)"
    elif name == "dd":
        yield "dd", "`{line}` copies raw data with `dd`, which can overwrite files and whole disks"
    elif name.startswith("mkfs") or name in _DISK_TOOLS:
        yield "disk_format", f"`{{line}}` formats or repartitions a disk (`{name}`)"
    elif name == "chmod":
        if has_option(args, short="R", long=("--recursive",)):
            yield "chmod_recursive", "`{line}` changes permissions of a whole tree (`chmod -R`)"
        if any(_world_writable(arg) for arg in args):
            yield "world_writable", "`{line}` makes files writable by everyone"
    elif name in ("chown", "chgrp"):
        if has_option(args, short="R", long=("--recursive",)):
            yield "chown_recursive", f"`{{line}}` changes the owner of a whole tree (`{name} -R`)"
    elif name == "git":
        yield from _git_risks(args)
    elif name in _POWER or _is_power_command(name, args):
        yield "shutdown", "`{line}` shuts down or restarts the machine"
    elif name == "kill" and "-1" in _kill_targets(args):
        yield "kill_all", "`{line}` kills every process you are allowed to kill (`kill -1`)"


def _git_risks(args: list[str]) -> Iterable[tuple[str, str]]:
    call = split_git(args)
    sub_args = list(call.args)
    if call.subcommand == "push":
        forced = has_option(sub_args, short="f", long=("--force", "--force-with-lease"), value_letters="o")
        if forced or any(arg.startswith("+") for arg in operands(sub_args, value_short="o")):
            yield "git_force_push", "`{line}` force-pushes, which can overwrite history on the remote"
    elif call.subcommand == "reset" and has_long(sub_args, "--hard"):
        yield "git_reset_hard", "`{line}` throws away all uncommitted changes (`git reset --hard`)"
    elif call.subcommand == "clean" and has_option(sub_args, short="f", long=("--force",), value_letters="e"):
        yield "git_clean_force", "`{line}` deletes untracked files for good (`git clean -f`)"


def _is_power_command(name: str, args: list[str]) -> bool:
    if name in ("init", "telinit"):
        return bool(args) and args[0] in ("0", "6")
    if name == "systemctl":
        return any(arg in ("poweroff", "reboot", "halt", "kexec") for arg in operands(args))
    return False


def _kill_targets(args: list[str]) -> list[str]:
    """The process ids of a kill: the first option is the signal (`-9`, `-KILL`, `-s KILL`)."""
    rest = list(args)
    if rest and rest[0] in ("-s", "-n"):
        rest = rest[2:]
    elif rest and rest[0].startswith("-") and rest[0] != "--":
        rest = rest[1:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    return rest


def _world_writable(arg: str) -> bool:
    if re.fullmatch(r"0?[0-7]{3}|[0-7]{4}", arg):
        return int(arg[-1]) & 2 != 0
    for clause in arg.split(","):
        match = re.fullmatch(r"([ugoa]*)([+=])([rwxXst]*)", clause)
        # No "who" (`+w`) means everyone, less the umask.
        if match and "w" in match.group(3) and (not match.group(1) or set("oa") & set(match.group(1))):
            return True
    return False


def _downloads(words: Sequence[Word]) -> bool:
    return program_name(words[0]) in _DOWNLOADERS if words else False


def _interprets_code(words: Sequence[Word]) -> bool:
    """An interpreter, `source`/`.` or `eval`: what runs `sh <(curl ...)` or `eval "$(curl ...)"`."""
    name = _interpreter_name(words)
    return name in _INTERPRETERS or name in ("source", ".", "eval")


def _interpreter_name(words: Sequence[Word]) -> str | None:
    name = program_name(words[0]) if words else None
    return "python" if name is not None and re.fullmatch(r"python[\d.]*", name) else name


def _runs_code_from_stdin(words: Sequence[Word]) -> bool:
    """`sh`, `bash -s`, `python3 -`: an interpreter that takes its program from standard input."""
    code_flags = _INTERPRETERS.get(_interpreter_name(words) or "")
    if code_flags is None:
        return False
    args = [word.shown for word in words[1:]]
    if any(has_short(args, flag) for flag in code_flags):
        return False
    scripts = [arg for arg in args if not arg.startswith("-") or arg == "-"]
    return not scripts or scripts[0] == "-" or has_short(args, "s")


def _write_risks(targets: Iterable[Word], line: str, folders: Folders) -> list[Risk]:
    """The risks of one command's writes: for each target, at most one of each code (the folders a `cd` of the line
    may have entered can give one target several texts)."""
    risks: dict[tuple[str, str], Risk] = {}
    for target in targets:
        if target.value is None:
            text = f"`{line}` writes to `{target.shown}`, a path known only at run time"
            risks.setdefault((target.shown, "unasked_write"), Risk("unasked_write", text))
            continue
        for base in folders.dirs:
            judged = _judge_write(target.value, base, folders, line)
            if judged is not None:
                risks.setdefault((target.value, judged.code), judged)
    return list(risks.values())


def _judge_write(target: str, base: Path, folders: Folders, line: str) -> Risk | None:
    try:
        written = os.path.expanduser(target)
        real = Path(os.path.realpath(base / written))
    except (OSError, ValueError, RuntimeError):
        return Risk("unasked_write", f"`{line}` writes to `{target}`, which cannot be checked")
    own = own_config_folder_of(real, folders.own_config)
    if own is not None:
        return Risk(
            "own_config_write",
            f"`{line}` writes under {own}, coder-tui's own configuration, which no tool changes",
        )
    reason = unasked_write_reason(folders.root, written, base)
    return None if reason is None else Risk("unasked_write", f"`{line}` {reason}")
