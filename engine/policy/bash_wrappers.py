"""Commands that run other commands: `sudo rm -rf x`, `timeout 5 git push`, `xargs rm`, `bash -c '...'`.

A check that looked only at the first word would judge `sudo`, `timeout` and `bash` and miss what they run.
``unwrap`` peels one wrapper and hands back the command inside; ``inline_script`` finds a shell script given as a
string (`bash -c`, `eval`, `su -c`, `env -S`, `watch`) so that it can be parsed and judged like the outer line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.policy.arity import CommandPrefix, arity_prefix
from engine.policy.bash_records import Word
from engine.record import record

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"})
# Directories whose programs are the real ones: `/usr/bin/ls` is `ls`, `./ls` may be anything.
SYSTEM_DIRS = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@record
class _Spec:
    value_short: str = ""  # single-letter options that take a value
    value_long: tuple[str, ...] = ()
    leading_operands: int = 0  # `timeout 5 cmd`: the duration comes before the command
    transparent: bool = True  # False: the wrapper itself changes what the command may do (root rights)
    appends_args: bool = False  # xargs adds arguments read from standard input
    lookup_flags: str = ""  # `command -v ls` looks a name up and runs nothing


_WRAPPERS: dict[str, _Spec] = {
    "time": _Spec("fo", ("--format", "--output")),
    "nice": _Spec("n", ("--adjustment",)),
    "nohup": _Spec(),
    "setsid": _Spec(),
    "stdbuf": _Spec("ioe", ("--input", "--output", "--error")),
    "timeout": _Spec("sk", ("--signal", "--kill-after"), leading_operands=1),
    "command": _Spec(lookup_flags="vV"),
    "builtin": _Spec(),
    "exec": _Spec("a"),
    "xargs": _Spec(
        "IndPLsaEd",
        ("--max-args", "--max-procs", "--max-lines", "--max-chars", "--arg-file", "--eof", "--delimiter"),
        appends_args=True,
    ),
    "sudo": _Spec(
        "ugCDhprtUTR",
        ("--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user"),
        transparent=False,
    ),
    "doas": _Spec("uC", transparent=False),
}
_WATCH_OPTIONS = _Spec("nq", ("--interval",))


@record
class Unwrapped:
    wrapper: tuple[Word, ...]
    inner: tuple[Word, ...]
    transparent: bool
    appends_args: bool = False
    # `env NAME=VALUE cmd` sets variables exactly like a `NAME=VALUE cmd` prefix.
    assignments: tuple[tuple[str, Word], ...] = ()


@record
class InlineScript:
    via: str  # "bash -c", "eval", ...
    script: str | None  # None when an expansion decides the script at run time

    @property
    def privileged(self) -> bool:
        """`su -c '...'` runs its script as another user: nothing inside it is read-only."""
        return self.via == "su -c"


@record
class Chain:
    """A command and the commands its wrappers run: `sudo timeout 5 rm x` has three layers."""

    layers: tuple[tuple[Word, ...], ...]
    # No wrapper changes what the command may do (`sudo` does).
    transparent: bool
    # `xargs` appends arguments read from standard input.
    appended: bool
    assignments: tuple[tuple[str, Word], ...]

    @classmethod
    def of(cls, words: tuple[Word, ...]) -> Chain:
        layers = [words]
        transparent, appended = True, False
        assignments: list[tuple[str, Word]] = []
        while (wrapped := unwrap(layers[-1])) is not None:
            layers.append(wrapped.inner)
            transparent = transparent and wrapped.transparent
            appended = appended or wrapped.appends_args
            assignments.extend(wrapped.assignments)
        return cls(tuple(layers), transparent, appended, tuple(assignments))

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


def program_name(word: Word | None) -> str | None:
    """The program a command word names, without its directory: `/usr/bin/rm` and `\\rm` are `rm`."""
    if word is None or word.value is None:
        return None
    return word.value.rsplit("/", 1)[-1] if "/" in word.value else word.value


def is_trusted_path(word: Word) -> bool:
    """A bare name, or a path into a system directory: `./ls` may be a script that merely shares a name."""
    value = word.value or ""
    return "/" not in value or value.rsplit("/", 1)[0] in SYSTEM_DIRS


def unwrap(words: Sequence[Word]) -> Unwrapped | None:
    """The command a wrapper runs, or None when `words` is no wrapper (or a wrapper with no command)."""
    name = program_name(words[0]) if words else None
    if name == "env":
        return _unwrap_env(words)
    spec = _WRAPPERS.get(name or "")
    if spec is None:
        return None
    start = _skip_options(words, 1, spec)
    if start is None:
        return None
    start += spec.leading_operands
    if start >= len(words):
        # `xargs` alone runs `echo`; the others with no command just run nothing.
        if spec.appends_args:
            return Unwrapped(tuple(words), (Word("echo", "echo"),), transparent=True, appends_args=True)
        return None
    return Unwrapped(tuple(words[:start]), tuple(words[start:]), spec.transparent, spec.appends_args)


def _skip_options(words: Sequence[Word], start: int, spec: _Spec) -> int | None:
    """Index of the first word after the wrapper's options; None when an option makes it run nothing."""
    index = start
    while index < len(words):
        value = words[index].value
        if value is None or not value.startswith("-") or value == "-":
            return index
        index += 1
        if value == "--":
            return index
        if value.startswith("--"):
            if "=" not in value and value in spec.value_long:
                index += 1
            continue
        cluster = value[1:]
        if any(flag in cluster for flag in spec.lookup_flags):
            return None
        for position, char in enumerate(cluster):
            if char in spec.value_short:
                if position == len(cluster) - 1:
                    index += 1
                break
    return index


def _unwrap_env(words: Sequence[Word]) -> Unwrapped | None:
    index, assignments, split = _scan_env(words)
    if split is not None or index >= len(words):
        return None  # `env -S '...'` is an inline script; `env` alone prints the environment
    return Unwrapped(tuple(words[:index]), tuple(words[index:]), transparent=True, assignments=tuple(assignments))


def _scan_env(words: Sequence[Word]) -> tuple[int, list[tuple[str, Word]], Word | None]:
    """Reads `env [options] [NAME=VALUE...]`: where the command starts, the assignments, and the `-S` string."""
    index = 1
    assignments: list[tuple[str, Word]] = []
    while index < len(words):
        value = words[index].value
        if value is None:
            break
        if value in ("-S", "--split-string"):
            return index, assignments, words[index + 1] if index + 1 < len(words) else Word("", None)
        if value.startswith(("-S", "--split-string=")):
            script = value.split("=", 1)[1] if value.startswith("--") else value[2:]
            return index, assignments, Word(script, script)
        if value in ("-u", "--unset", "-C", "--chdir"):
            index += 2
        elif value.startswith("-") and value != "-":
            index += 1
            if value == "--":
                break
        elif _ASSIGNMENT.match(value):
            name, _, assigned = value.partition("=")
            assignments.append((name, Word(assigned, assigned)))
            index += 1
        else:
            break
    return index, assignments, None


def inline_script(words: Sequence[Word]) -> InlineScript | None:
    """The shell script a command runs from a string argument, if it runs one."""
    name = program_name(words[0]) if words else None
    args = list(words[1:])
    if name == "eval":
        return InlineScript("eval", _joined(args))
    if name == "watch":
        # watch runs its arguments through `sh -c`; skip its own options (-n N, -d, -g...).
        start = _skip_options(words, 1, _WATCH_OPTIONS)
        rest = list(words[start:]) if start is not None else []
        return InlineScript("watch", _joined(rest)) if rest else None
    if name == "env":
        split = _scan_env(words)[2]
        return InlineScript("env -S", split.value) if split is not None else None
    if name == "trap":
        # `trap 'cleanup command' EXIT` runs its first argument as a script; `trap -p` / `trap -l` list.
        if args and args[0].value is not None and not args[0].value.startswith("-"):
            return InlineScript("trap", args[0].value)
        return InlineScript("trap", None) if args and args[0].value is None else None
    if name == "su":
        for index, word in enumerate(args):
            if word.value in ("-c", "--command") and index + 1 < len(args):
                return InlineScript("su -c", args[index + 1].value)
        return None
    if name in SHELLS:
        return _shell_dash_c(name, args)
    return None


def _shell_dash_c(name: str, args: list[Word]) -> InlineScript | None:
    """The script of `bash -c '...'`; a start-up file (`--rcfile f -i`) runs in the script's sandbox."""
    dash_c = False
    index = 0
    while index < len(args):
        value = args[index].value
        if value is None:
            return InlineScript(f"{name} -c", None) if dash_c else None
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if value.startswith("--"):
            index += 1
            continue
        if value[:1] in ("-", "+") and len(value) > 1:
            dash_c = dash_c or (value[0] == "-" and "c" in value[1:])
            index += 1
            continue
        return InlineScript(f"{name} -c", value) if dash_c else None
    return None


def _joined(args: Sequence[Word]) -> str | None:
    if not args or any(word.value is None for word in args):
        return None
    return " ".join(word.value for word in args if word.value is not None)


def find_exec_commands(words: Sequence[Word]) -> list[tuple[Word, ...]]:
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
