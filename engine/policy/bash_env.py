"""Environment changes on a bash line (SPEC 13): what takes a command out of the read-only class because it changes
what the commands after it run or load.

A read-only git command is safe only with the environment the bash tool gives it (its hooks, fsmonitor, pager and
external diff switched off through `GIT_CONFIG_*`, see ``engine.sandbox.child_env``). So every way a line can change
that environment counts: a prefix (`A=b git status`), `env A=b`, `env -u`/`-i`, `export`, `declare -x`,
`typeset -x`, `set -a`/`-k` (which export or pass every later assignment); and a plain `x=1`, `for x in`,
`$((x=1))`, `${x:=1}`, `read x`, `unset x`, `local x`, `printf -v x`, `let x=1` when `x` is a variable the child
environment already has, or one the shell or git reads (an exported variable stays exported when set again).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

# Builtins that declare variables; with `-x` they export them.
_DECLARING = frozenset({"declare", "typeset", "local", "readonly"})
# Variables the shell, git and the loader read, whether or not the parent environment has them.
_SPECIAL = frozenset(
    {
        "PATH", "HOME", "IFS", "CDPATH", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "PROMPT_COMMAND",
        "PS4", "TMPDIR", "PAGER", "EDITOR", "VISUAL", "XDG_CONFIG_HOME", "OLDPWD", "PWD", "POSIXLY_CORRECT",
    }
)  # fmt: skip
_SPECIAL_PREFIXES = ("GIT_", "LD_", "DYLD_", "BASH_")
# `set` options that export or pass variables: allexport (-a) and keyword (-k).
_EXPORTING_SET_LETTERS = "ak"
_EXPORTING_SET_NAMES = ("allexport", "keyword")


def sensitive_variable(name: str) -> bool:
    """Whether setting ``name`` can change what a later command of the line runs or reads."""
    return name in _SPECIAL or name.startswith(_SPECIAL_PREFIXES) or name in os.environ


def environment_builtin_problem(name: str, args: Sequence[str]) -> str | None:
    """Why the builtin ``name`` changes the environment of the commands that follow, else None."""
    exports = name == "export" or (name in _DECLARING and any(a[:1] in "-+" and "x" in a for a in args))
    if exports:
        return f"exports variables (`{name}`), which changes what the commands after it run"
    if name == "set":
        options = [arg for arg in args if arg[:1] in ("-", "+") and arg not in ("-", "--")]
        letters = "".join(arg[1:] for arg in options if arg[1:2] != "o")
        named = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg in ("-o", "+o")]
        if any(c in letters for c in _EXPORTING_SET_LETTERS) or any(n in _EXPORTING_SET_NAMES for n in named):
            return "exports every variable set after it (`set -a`/`-k`)"
    names = _set_names(name, args)
    if names is None:
        return None
    touched = [variable for variable in names if sensitive_variable(variable)] if names else []
    if names == [] and name in ("unset", "let"):
        return f"changes shell variables (`{name}`) this check cannot name"
    if touched:
        listed = ", ".join(f"`{variable}`" for variable in dict.fromkeys(touched))
        return f"sets {listed} (`{name}`), which the commands after it read from their environment"
    return None


def _set_names(name: str, args: Sequence[str]) -> list[str] | None:
    """The variables a builtin sets or removes; None when ``name`` sets none."""
    if name in _DECLARING or name == "unset":
        return [_name_of(arg) for arg in args if not arg.startswith(("-", "+"))]
    if name == "let":
        return [m.group(1) for arg in args if (m := re.match(r"\s*([A-Za-z_]\w*)", arg))]
    if name == "read":
        arrays = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg.startswith("-") and arg.endswith("a")]
        return [*_operands(args, "adnNptui"), *arrays] or ["REPLY"]
    if name in ("mapfile", "readarray"):
        return _operands(args, "dnOsuC c")[:1] or ["MAPFILE"]
    if name == "getopts":
        return _operands(args, "")[1:2]
    if name == "printf":
        return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "-v"] or (
            [arg[2:] for arg in args if arg.startswith("-v") and len(arg) > 2] or None
        )
    return None


def _operands(args: Sequence[str], value_letters: str) -> list[str]:
    found: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg.startswith("-") and len(arg) > 1:
            if arg[-1] in value_letters:
                index += 1
            continue
        found.append(arg)
    return found


def _name_of(arg: str) -> str:
    return arg.split("=", 1)[0].split("[", 1)[0]


def prefix_problem(names: Sequence[str], via_env: bool) -> str | None:
    """`A=b cmd` and `env A=b cmd`: the command runs with a changed environment."""
    if not names:
        return None
    listed = ", ".join(f"`{name}`" for name in dict.fromkeys(names))
    return f"sets {listed} in its environment{' through `env`' if via_env else ''}"


def variable_write_problem(names: Sequence[str]) -> str | None:
    """A plain `x=1`, `for x in`, `$((x=1))`: only a variable the environment or a program reads matters."""
    touched = [name for name in dict.fromkeys(names) if sensitive_variable(name)]
    if not touched:
        return None
    listed = ", ".join(f"`{name}`" for name in touched)
    return f"sets {listed}, which the commands after it read from their environment"
