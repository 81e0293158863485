"""The read-only whitelist of SPEC 4: commands that run without asking in every mode, with argument checks.

A command is read-only when its program is on the list and none of its arguments turns it into a writer or
a launcher: `find` without `-exec`/`-delete`, `sed` without `-i`, `rg` without `--pre`. The files a command writes
are not looked at here: the analysis finds them once for every command (``bash_risk.written_targets``: `cat a > b`,
`tee b`, `sort -o b`), and a command that writes one is not read-only whatever its program is.
What a read-only command reads is not judged: it runs confined by the kernel (SPEC 13, ``engine.sandbox``).

git has three fates: `status`/`diff`/`log`/`show`... are read-only, the mutating subcommands (`commit`, `push`,
`reset`, `checkout`, `clean`...) are blocked in plan mode and ask elsewhere, and anything else (an alias, a plugin)
is an ordinary command that asks. Some subcommands are both: `git branch` lists, `git branch x` creates.

The checks read the options the line shows. An argument known only at run time (`$X`, what `xargs` appends) may
turn out to be any option: what it then makes the program do runs confined like the program itself (SPEC 13), so
it fails rather than asks, as a sed script's `w file` or an awk `system()` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from engine.policy.argv import has_long, has_option, operands
from engine.policy.bash_records import Word
from engine.policy.bash_wrappers import is_trusted_path, program_name
from engine.record import record


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
        "readarray", "getopts", "let", "jq", "export", "tee", "tree", "uniq",
    }
)  # fmt: skip
_FIND_FORBIDDEN = {
    **dict.fromkeys(("-exec", "-execdir", "-ok", "-okdir"), "runs a command"),
    "-delete": "deletes files",
}
VERSION_QUERIES = (["--version"], ["-V"], ["-v"], ["version"])
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})


NOT_LISTED = "is not on the read-only list"


def classify(words: Sequence[Word]) -> tuple[Access, str | None]:
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
    if name == "git":
        verdict = judge_git(args)
        if verdict.mutating:
            return Access.MUTATING_GIT, verdict.problem
        return (Access.READ_ONLY, None) if verdict.problem is None else (Access.OTHER, verdict.problem)
    if name in ANY_ARGUMENTS:
        return Access.READ_ONLY, None
    if args in VERSION_QUERIES:
        # `python --version`, `node -v`, `go version`: a program that prints its version. Run unasked, it is
        # confined like any other (SPEC 13), so whichever program it is, it reads nothing secret and writes nothing.
        return Access.READ_ONLY, None
    check = _CHECKS.get(name)
    if check is None:
        return Access.OTHER, NOT_LISTED
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
    return "with `--compress-program` runs a program" if has_long(args, "--compress-program") else None


def _date(args: Sequence[str]) -> str | None:
    return "with `-s` sets the clock" if has_option(args, short="s", long=("--set",), value_letters="dfrI") else None


def _file(args: Sequence[str]) -> str | None:
    compiles = has_option(args, short="C", long=("--compile",), value_letters="mfFeP")
    return "with `-C` writes a magic file" if compiles else None


def _hostname(args: Sequence[str]) -> str | None:
    if operands(args) or has_option(args, short="Fb", long=("--file", "--boot")):
        return "sets the host name"
    return None


_CHECKS: dict[str, Callable[[Sequence[str]], str | None]] = {
    "find": _find,
    "rg": _rg,
    "sed": _sed,
    "sort": _sort,
    "date": _date,
    "file": _file,
    "hostname": _hostname,
    **{name: _awk for name in _AWKS},
}


# Global options that take a value (`git -C dir status`); the ones that can make git run other programs
# (`-c core.pager=...`, `--exec-path=...`, `--config-env`) keep any call off the read-only list.
_GLOBAL_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source"}
)
_GLOBAL_UNSAFE = ("-c", "--config-env", "--exec-path")

READ_ONLY_SUBCOMMANDS = frozenset(
    {
        "status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "annotate", "describe", "shortlog",
        "grep", "show-ref", "show-branch", "cat-file", "ls-tree", "count-objects", "merge-base", "name-rev",
        "rev-list", "whatchanged", "version", "check-ignore", "check-attr", "diff-tree", "diff-files",
        "diff-index", "for-each-ref", "cherry", "var", "range-diff", "verify-commit", "verify-tag",
    }
)  # fmt: skip
# Not read-only, though they change nothing: `ls-remote` talks to a remote (and runs the ssh command or the
# `uploadpack` program the repository's config names); `help` starts the man or web viewer the config names.
MUTATING_SUBCOMMANDS = frozenset(
    {
        "add", "am", "apply", "bisect", "checkout", "cherry-pick", "clean", "clone", "commit", "commit-tree",
        "fetch", "filter-branch", "gc", "init", "maintenance", "merge", "mergetool", "mv", "pack-refs", "prune",
        "pull", "push", "read-tree", "rebase", "repack", "replace", "reset", "restore", "revert", "rm",
        "sparse-checkout", "switch", "update-index", "update-ref", "write-tree",
    }
)  # fmt: skip
# Options of read-only subcommands that write a file or run a program.
_CONFIG_WRITING = (
    "--edit", "--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section",
)  # fmt: skip
_READ_ONLY_FORBIDDEN = {
    "--ext-diff": "runs an external diff program",
    "--open-files-in-pager": "runs a pager program",
}


@record
class GitCall:
    global_options: tuple[str, ...]
    subcommand: str | None
    args: tuple[str, ...]


@record
class GitVerdict:
    mutating: bool
    # Why the call is not read-only, as a predicate ("is a mutating git command"); None when it is.
    problem: str | None


def split_git(args: Sequence[str]) -> GitCall:
    """Separates `git -C dir --no-pager log -3` into global options, subcommand and its arguments."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        index += 1
        if option in _GLOBAL_WITH_VALUE:
            index += 1
    if index >= len(args):
        return GitCall(tuple(args), None, ())
    return GitCall(tuple(args[:index]), args[index], tuple(args[index + 1 :]))


def judge_git(args: Sequence[str]) -> GitVerdict:
    """Classifies a git call given the words after `git`."""
    call = split_git(args)
    unsafe_global = next(
        (o for o in call.global_options if any(o == u or o.startswith(u + "=") for u in _GLOBAL_UNSAFE)), None
    )
    sub = call.subcommand or ""
    if sub in MUTATING_SUBCOMMANDS:
        return GitVerdict(True, "is a mutating git command")
    list_only = _LIST_ONLY.get(sub)
    if list_only is not None:
        problem = list_only(call.args)
        if problem is not None:
            return GitVerdict(True, f"{problem}: a mutating git command")
    elif sub and sub not in READ_ONLY_SUBCOMMANDS:
        return GitVerdict(False, f"runs `git {sub}`, which this check does not know (an alias or a plugin?)")
    if unsafe_global is not None:
        return GitVerdict(False, f"uses `{unsafe_global.split('=')[0]}`, which can make git run other programs")
    for option, effect in _READ_ONLY_FORBIDDEN.items():
        if has_long(call.args, option):
            return GitVerdict(False, f"with `{option}` {effect}")
    if sub == "grep" and has_option(call.args, short="O"):
        return GitVerdict(False, "with `-O` runs a pager program")
    return GitVerdict(False, None)


def _branch(args: Sequence[str]) -> str | None:
    return _listing(
        args,
        letters="arvlqi",
        flags=("--all", "--remotes", "--verbose", "--list", "--show-current", "--quiet", "--ignore-case",
               "--color", "--no-color", "--column", "--no-column", "--abbrev", "--no-abbrev"),
        with_value=("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"),
        what="creates, renames or deletes a branch",
    )  # fmt: skip


def _tag(args: Sequence[str]) -> str | None:
    return _listing(
        args,
        letters="lni0123456789",
        flags=("--list", "--ignore-case", "--color", "--no-color", "--column", "--no-column"),
        with_value=("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"),
        what="creates or deletes a tag",
    )


def _listing(
    args: Sequence[str], letters: str, flags: Sequence[str], with_value: Sequence[str], what: str
) -> str | None:
    """`git branch`/`git tag` only list when every option is a listing option and names appear only with -l."""
    listing = has_option(args, short="l", long=("--list",))
    for arg in args:
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]
            if name not in flags and name not in with_value:
                return what
        elif arg.startswith("-") and len(arg) > 1 and any(char not in letters for char in arg[1:]):
            return what
    if operands(args, value_long=with_value) and not listing:
        return what
    return None


def _first_operand_in(allowed: frozenset[str], default_reads: bool, what: str) -> Callable[[Sequence[str]], str | None]:
    """For `git stash list`, `git remote -v`, `git worktree list`: read-only subcommand words."""

    def check(args: Sequence[str]) -> str | None:
        words = operands(args)
        if not words:
            return None if default_reads else what
        return None if words[0] in allowed else what

    return check


def _config(args: Sequence[str]) -> str | None:
    """`git config key` and `git config get key` read; `git config key value`, `--unset`, `set` write."""
    changes = "changes the configuration"
    if has_option(args, short="e", long=_CONFIG_WRITING):
        return changes
    words = operands(args, value_short="f", value_long=("--file", "--blob", "--type", "--default"))
    if words and words[0] in ("get", "list"):
        return None
    if words and words[0] in ("set", "unset", "rename-section", "remove-section", "edit"):
        return changes
    return None if len(words) <= 1 else changes


def _symbolic_ref(args: Sequence[str]) -> str | None:
    return None if len(operands(args)) <= 1 else "changes a reference"


_LIST_ONLY = {
    "branch": _branch,
    "tag": _tag,
    "config": _config,
    "symbolic-ref": _symbolic_ref,
    "stash": _first_operand_in(frozenset({"list", "show"}), False, "stashes or restores changes"),
    "remote": _first_operand_in(frozenset({"show", "get-url"}), True, "changes the remotes"),
    "worktree": _first_operand_in(frozenset({"list"}), False, "changes the worktrees"),
    "submodule": _first_operand_in(frozenset({"status", "summary"}), True, "changes the submodules"),
    "notes": _first_operand_in(frozenset({"list", "show"}), True, "changes the notes"),
    "reflog": _first_operand_in(frozenset({"show"}), True, "expires or deletes reflog entries"),
}
