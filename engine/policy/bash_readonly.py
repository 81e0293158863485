"""The read-only whitelist of SPEC 4: commands that run without asking in every mode, with argument checks.

A command is read-only when its program is on the list and none of its arguments turns it into a writer or
a launcher: `find` without `-exec`/`-delete`, `sed` without `-i` or a `w`/`e` command, `sort` without `-o`,
`rg` without `--pre`, `git status`/`log`/`diff`... without `-c`/`--output`. Redirections are not looked at
here (the analysis adds them: `cat a > b` is not read-only whatever `cat` is).

An argument whose value is known only at run time (`$X`, `$(...)`) could be any option, so only programs
with no dangerous option at all accept one; the rest must be literal. The same holds for `xargs`, which
appends arguments read from standard input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from engine.policy.argv import has_long, has_option, has_short, operands
from engine.policy.bash_env import environment_builtin_problem
from engine.policy.bash_git import judge_git
from engine.policy.bash_records import HARMLESS_TARGETS
from engine.policy.bash_words import Word
from engine.policy.bash_wrappers import is_trusted_path, program_name


class Access(str, Enum):
    """What a simple command does to the machine, as the mode matrix sees it."""

    READ_ONLY = "read-only"
    OTHER = "other"
    MUTATING_GIT = "mutating git"


# Programs that only read, whatever their arguments; shell builtins that only change the shell's own state.
# Wrappers (`env`, `time`, `nice`, `command`, `exec`) reach this list only when they run no command.
ANY_ARGUMENTS = frozenset(
    {
        "cat", "head", "tail", "wc", "ls", "pwd", "id", "echo", "which", "type", "whereis", "du", "df", "cut",
        "tr", "basename", "dirname", "realpath", "readlink", "env", "printenv", "true", "false", "uname", "whoami",
        "groups", "nl", "tac", "rev", "paste", "comm", "cmp", "diff", "md5sum", "sha1sum", "sha256sum",
        "sha512sum", "stat", "seq", "printf", "test", "[", "cd", "column", "fold", "strings", "od", "hexdump",
        "grep", "egrep", "fgrep", "nproc", "uptime", "free", "arch", "sleep", "exit", ":", "command",
        "exec", "time", "nice", "declare", "local", "readonly", "typeset", "unset", "set", "read", "mapfile",
        "readarray", "getopts", "let", "jq",
    }
)  # fmt: skip
_FIND_FORBIDDEN = {
    "-exec": "runs a command",
    "-execdir": "runs a command",
    "-ok": "runs a command",
    "-okdir": "runs a command",
    "-delete": "deletes files",
    "-fls": "writes a file",
    "-fprint": "writes a file",
    "-fprint0": "writes a file",
    "-fprintf": "writes a file",
}
VERSION_QUERIES = (["--version"], ["-V"], ["-v"], ["version"])
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_UNKNOWN_ARGUMENT = "has an argument known only at run time, which could be any option"


NOT_LISTED = "is not on the read-only list"


def classify(words: Sequence[Word], appended: bool = False) -> tuple[Access, str | None]:
    """The access of one command (no wrapper, see bash_wrappers) and, unless read-only, why not: a predicate
    to put after the command, "is not on the read-only list"."""
    if not words:
        return Access.READ_ONLY, None
    head = words[0]
    name = program_name(head)
    if name is None:
        return Access.OTHER, "has a name known only at run time"
    if not is_trusted_path(head):
        return Access.OTHER, f"runs a program of its own, not the system's `{name}`"
    args = [word.shown for word in words[1:]]
    unknown = appended or any(word.value is None for word in words[1:])
    if name == "git":
        verdict = judge_git(args)
        if verdict.mutating:
            return Access.MUTATING_GIT, verdict.problem
        if verdict.problem is not None:
            return Access.OTHER, verdict.problem
        if unknown:
            return Access.OTHER, _UNKNOWN_ARGUMENT
        return Access.READ_ONLY, None
    environment = environment_builtin_problem(name, args)
    if environment is not None:
        return Access.OTHER, environment
    if name in ANY_ARGUMENTS:
        return Access.READ_ONLY, None
    if args in VERSION_QUERIES and not unknown:
        # `python --version`, `node -v`, `go version`: a program that prints its version. Run unasked, it is
        # confined like any other (SPEC 13), so whichever program it is, it reads nothing secret and writes nothing.
        return Access.READ_ONLY, None
    check = _CHECKS.get(name)
    if check is None:
        return Access.OTHER, NOT_LISTED
    if unknown:
        return Access.OTHER, _UNKNOWN_ARGUMENT
    problem = check(args)
    return (Access.READ_ONLY, None) if problem is None else (Access.OTHER, problem)


def _find(args: Sequence[str]) -> str | None:
    for arg in args:
        if arg in _FIND_FORBIDDEN:
            return f"with `{arg}` {_FIND_FORBIDDEN[arg]}"
    return None


def _rg(args: Sequence[str]) -> str | None:
    for option in ("--pre", "--hostname-bin"):
        if has_long(args, option):
            return f"with `{option}` runs a program on every file"
    return None


def _sed(args: Sequence[str]) -> str | None:
    # What else a sed script or an awk program may do (`w file`, `e cmd`, `system()`, `print > f`, `getline < f`)
    # runs confined like the command itself (SPEC 13): it fails rather than asks. Editing in place is what a user
    # means to approve, so it asks.
    if has_option(args, short="i", long=("--in-place",), value_letters="efl"):
        return "with `-i` edits files in place"
    return None


def _awk(args: Sequence[str]) -> str | None:
    if has_option(args, short="i", long=("--include",), value_letters="Fvf"):
        return "with `-i` loads an extension (`-i inplace` edits files)"
    return None


def _sort(args: Sequence[str]) -> str | None:
    if has_option(args, short="o", long=("--output",), value_letters="kStT"):
        return "with `-o` writes a file"
    if has_long(args, "--compress-program"):
        return "with `--compress-program` runs a program"
    return None


def _uniq(args: Sequence[str]) -> str | None:
    files = operands(args, value_short="fsw", value_long=("--skip-fields", "--skip-chars", "--check-chars"))
    return "writes to its second file argument" if len(files) > 1 else None


def _tree(args: Sequence[str]) -> str | None:
    return "with `-o` writes a file" if has_short(args, "o", value_letters="LPIHT") else None


def _tee(args: Sequence[str]) -> str | None:
    files = [arg for arg in operands(args) if arg not in HARMLESS_TARGETS]
    return f"writes to `{files[0]}`" if files else None


def _date(args: Sequence[str]) -> str | None:
    return "with `-s` sets the clock" if has_option(args, short="s", long=("--set",), value_letters="dfrI") else None


def _file(args: Sequence[str]) -> str | None:
    compiles = has_option(args, short="C", long=("--compile",), value_letters="mfFeP")
    return "with `-C` writes a magic file" if compiles else None


def _hostname(args: Sequence[str]) -> str | None:
    if operands(args) or has_option(args, short="Fb", long=("--file", "--boot")):
        return "sets the host name"
    return None


def _ps(args: Sequence[str]) -> str | None:
    # A command run unasked sees no other process (no /proc, SPEC 13); `ps` is only useful once approved.
    return "lists other processes, which a command run unasked cannot see"


_CHECKS: dict[str, Callable[[Sequence[str]], str | None]] = {
    "ps": _ps,
    "find": _find,
    "rg": _rg,
    "sed": _sed,
    "sort": _sort,
    "uniq": _uniq,
    "tree": _tree,
    "tee": _tee,
    "date": _date,
    "file": _file,
    "hostname": _hostname,
    **{name: _awk for name in _AWKS},
}
