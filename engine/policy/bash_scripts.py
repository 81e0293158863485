"""Programs inside arguments: a sed script or an awk program can write files or run commands on their own.

`sed 's/a/b/w out'` writes `out`, `sed 'e rm x'` runs `rm x`, `awk '{print > "f"}'` writes `f` and
`awk '{system("rm x")}'` runs `rm x`. These scanners read just enough of each language to find those
constructs; anything they do not understand counts as unsafe, so the command asks instead of slipping through.
Each returns None when the program is read-only, or the construct that is not.
"""

from __future__ import annotations

import re

_SED_SIMPLE = frozenset("{}=dDgGhHnNpPxzF")
_SED_EXIT = frozenset("qQlL")
_SED_LABEL = frozenset(":btT")
_SED_TEXT = frozenset("aic")
_SED_READ = frozenset("rR")
_SED_DANGER = {"w": "`w` writes a file", "W": "`W` writes a file", "e": "`e` runs a command"}


def sed_script_problem(script: str) -> str | None:
    """Why a sed script is not read-only (`w`, `W`, `e`, or the `w`/`e` flags of `s`), else None."""
    index = 0
    length = len(script)
    while index < length:
        char = script[index]
        if char in " \t\n;":
            index += 1
            continue
        if char == "#":
            index = _line_end(script, index)
            continue
        index = _skip_sed_address(script, index)
        if index < 0:
            return "the script does not parse"
        if index >= length:
            return None
        command = script[index]
        index += 1
        if command in _SED_DANGER:
            return _SED_DANGER[command]
        if command in _SED_SIMPLE:
            continue
        if command in _SED_EXIT:
            while index < length and script[index] in " \t0123456789":
                index += 1
        elif command in _SED_LABEL or command == "v":
            index = _label_end(script, index)
        elif command in _SED_READ:
            # `r file`/`R file` read a file the path check cannot see inside the script (`r /etc/passwd`).
            return f"`{command}` reads a file named inside the script"
        elif command in _SED_TEXT:
            index = _line_end(script, index)
        elif command in "sy":
            index, flags = _skip_sed_substitution(script, index)
            if index < 0:
                return "the script does not parse"
            if command == "s":
                if "w" in flags:
                    return "the `w` flag of `s` writes a file"
                if "e" in flags:
                    return "the `e` flag of `s` runs a command"
        else:
            return f"`{command}` is not a command this check knows"
    return None


def _line_end(script: str, index: int) -> int:
    """End of an `a`/`i`/`c`/`r`/`w` argument: the line, with backslash-newline continuing it."""
    while index < len(script):
        if script[index] == "\\" and index + 1 < len(script):
            index += 2
            continue
        if script[index] == "\n":
            return index
        index += 1
    return index


def _label_end(script: str, index: int) -> int:
    while index < len(script) and script[index] not in ";\n":
        index += 1
    return index


def _skip_sed_address(script: str, index: int) -> int:
    """Skips `3`, `$`, `/re/I`, `\\%re%`, `first~step`, `a,b`, `a,+N` and a trailing `!`; -1 if unclosed."""
    for _ in range(2):
        index = _skip_one_address(script, index)
        if index < 0:
            return index
        if index < len(script) and script[index] == ",":
            index += 1
            continue
        break
    while index < len(script) and script[index] in " \t!":
        index += 1
    return index


def _skip_one_address(script: str, index: int) -> int:
    length = len(script)
    if index < length and script[index] in "+~":
        index += 1
    if index < length and script[index] == "$":
        return index + 1
    if index < length and script[index].isdigit():
        while index < length and (script[index].isdigit() or script[index] == "~"):
            index += 1
        return index
    if index < length and script[index] in "/\\":
        delimiter = "/"
        if script[index] == "\\":
            index += 1
            delimiter = script[index] if index < length else "/"
        index = _skip_delimited(script, index + 1, delimiter)
        while 0 <= index < length and script[index] in "IM":
            index += 1
    return index


def _skip_delimited(script: str, index: int, delimiter: str) -> int:
    """Index just after the closing delimiter; -1 when there is none."""
    while index < len(script):
        char = script[index]
        if char == "\\":
            index += 2
            continue
        if char == delimiter:
            return index + 1
        index += 1
    return -1


def _skip_sed_substitution(script: str, index: int) -> tuple[int, str]:
    """Skips `/re/replacement/flags` (or `y/abc/xyz/`); returns the index after the flags and the flags."""
    if index >= len(script):
        return -1, ""
    delimiter = script[index]
    index += 1
    for _ in range(2):
        index = _skip_delimited(script, index, delimiter)
        if index < 0:
            return -1, ""
    start = index
    while index < len(script) and script[index] not in ";\n}":
        index += 1
    return index, script[start:index].strip()


# Inside an awk program: strings, then regex literals where an operand may start.
_AWK_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_AWK_REGEX = re.compile(r"(^|[(,{;!~&|\n]|\bin\b|\breturn\b)(\s*)/(?:\\.|[^/\\\n])*/")
_AWK_STATEMENT = re.compile(r"[;{}\n]")
_AWK_RUNS = (
    (re.compile(r"\bsystem\s*\("), "`system()` runs a command"),
    (re.compile(r"\|&|[^|]\|[^|]"), "`|` pipes to or from a command"),
    (re.compile(r"@load"), "`@load` loads an extension"),
    (re.compile(r"@include"), "`@include` reads a program file"),
    # `getline < "file"` reads a file named inside the program, which the path check cannot see.
    (re.compile(r"\bgetline\b[^;{}\n]*<"), "`getline <` reads a file named inside the program"),
)
_AWK_PRINT = re.compile(r"\bprintf?\b(.*)", re.DOTALL)


def awk_program_problem(program: str) -> str | None:
    """Why an awk program is not read-only (`system()`, pipes, output redirection), else None.

    `>` is a comparison almost everywhere, so only a `print`/`printf` statement's `>` counts as redirection;
    `|` between two commands is always a pipe to or from a command (`||` is logical or).
    """
    code = _AWK_REGEX.sub(r"\1\2//", _AWK_STRING.sub('""', program))
    for pattern, problem in _AWK_RUNS:
        if pattern.search(f" {code} "):
            return problem
    for statement in _AWK_STATEMENT.split(code):
        printed = _AWK_PRINT.search(statement)
        if printed and ">" in printed.group(1):
            return "`print >` writes a file"
    return None
