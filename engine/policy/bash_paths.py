"""Where a read-only command reads (SPEC 13): a command that would run without asking and names a path outside the
workspace asks instead, with the reason "reads outside the workspace".

Every word that can name a file is resolved the way the kernel would (``..``, ``~``, absolute paths, symlinks,
``/proc/self/root/...``, globs and brace lists expanded) from the workspace root and from every folder an earlier
`cd` of the line entered. Words that are a program's pattern or script (`grep PATTERN`, `sed SCRIPT`, `awk PROGRAM`,
`jq FILTER`, `cut -d/`) are not paths and are skipped; everything else is checked, option values included
(`--file=../x`, `-f/etc/x`), so a word this module does not understand costs a question, never a silent read.
Options that make a tool follow symbolic links through a tree (`grep -R`, `find -L`, `rg --follow`) ask as well:
a link deep inside the workspace may lead anywhere. Only stat calls, no subprocess: it runs on every bash call.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from engine.policy.argv import has_option
from engine.policy.bash_parse import Redirect, Word
from engine.record import record

# Programs whose arguments are never files they read.
_NO_FILES = frozenset(
    {
        "echo", "printf", "true", "false", "pwd", "id", "whoami", "groups", "uname", "nproc", "uptime", "free", "arch",
        "sleep", "seq", "exit", ":", "basename", "dirname", "type", "which", "whereis", "command", "printenv", "test",
        "[", "ps", "tr", "time", "nice", "exec", "env",
    }
)  # fmt: skip
# Devices a command may read without reading anything of the machine.
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1"})
_GLOB_CHARS = re.compile(r"[*?\[]")
_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
# Above this many glob matches the check gives up, and the command asks.
MAX_GLOB_MATCHES = 2000
_MAX_BRACE_WORDS = 256


@record
class _Syntax:
    """What a program's options look like: which take a value, and which values are patterns rather than files."""

    value_short: str = ""
    value_long: frozenset[str] = frozenset()
    pattern_short: str = ""
    pattern_long: frozenset[str] = frozenset()
    # The first operand is a pattern, script or program, unless one of these options gives it instead.
    positional_program: bool = False
    program_short: str = ""
    program_long: frozenset[str] = frozenset()
    # Options that follow symbolic links through a whole tree.
    follows_short: str = ""
    follows_long: tuple[str, ...] = ()


_GREP = _Syntax(
    value_short="efmABCdD",
    value_long=frozenset(
        {"--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--directories",
         "--devices", "--include", "--exclude", "--exclude-from", "--exclude-dir", "--label", "--binary-files",
         "--group-separator"}
    ),
    pattern_short="e",
    pattern_long=frozenset({"--regexp", "--include", "--exclude", "--exclude-dir", "--label", "--group-separator"}),
    positional_program=True,
    program_short="ef",
    program_long=frozenset({"--regexp", "--file"}),
    follows_short="R",
    follows_long=("--dereference-recursive",),
)  # fmt: skip
_SYNTAX: dict[str, _Syntax] = {
    **{name: _GREP for name in ("grep", "egrep", "fgrep")},
    "rg": _Syntax(
        value_short="efgtTmABCjMrEd",
        value_long=frozenset(
            {"--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--type-add", "--type-clear",
             "--max-count", "--after-context", "--before-context", "--context", "--threads", "--max-columns",
             "--replace", "--encoding", "--max-depth", "--ignore-file", "--max-filesize", "--path-separator", "--sort",
             "--sortr", "--colors", "--context-separator", "--field-context-separator", "--field-match-separator",
             "--engine", "--pre-glob"}
        ),
        pattern_short="egtTr",
        pattern_long=frozenset(
            {"--regexp", "--glob", "--iglob", "--type", "--type-not", "--type-add", "--type-clear", "--replace",
             "--path-separator", "--colors", "--context-separator", "--field-context-separator",
             "--field-match-separator", "--pre-glob"}
        ),
        positional_program=True,
        program_short="ef",
        program_long=frozenset({"--regexp", "--file", "--files", "--type-list"}),
        follows_short="L",
        follows_long=("--follow",),
    ),  # fmt: skip
    "sed": _Syntax(
        value_short="efl",
        value_long=frozenset({"--expression", "--file", "--line-length"}),
        pattern_short="e",
        pattern_long=frozenset({"--expression"}),
        positional_program=True,
        program_short="ef",
        program_long=frozenset({"--expression", "--file"}),
    ),
    **{
        name: _Syntax(
            value_short="Ffv",
            value_long=frozenset({"--field-separator", "--assign", "--file"}),
            pattern_short="Fv",
            pattern_long=frozenset({"--field-separator", "--assign"}),
            positional_program=True,
            program_short="f",
            program_long=frozenset({"--file"}),
        )
        for name in ("awk", "gawk", "mawk", "nawk")
    },
    "cut": _Syntax(value_short="bcdf", pattern_short="d", value_long=frozenset({"--delimiter"}),
                   pattern_long=frozenset({"--delimiter", "--output-delimiter"})),  # fmt: skip
    "sort": _Syntax(value_short="kStT", pattern_short="t", value_long=frozenset({"--field-separator"}),
                    pattern_long=frozenset({"--field-separator"})),  # fmt: skip
    "paste": _Syntax(value_short="d", pattern_short="d", pattern_long=frozenset({"--delimiters"})),
    "column": _Syntax(value_short="sotc", pattern_short="so", pattern_long=frozenset({"--separator"})),
    "stat": _Syntax(value_short="c", pattern_short="c", pattern_long=frozenset({"--format", "--printf"})),
    "date": _Syntax(value_short="dfr", pattern_short="d", pattern_long=frozenset({"--date"})),
    "ls": _Syntax(value_short="IwT", pattern_short="I", pattern_long=frozenset({"--ignore", "--hide"}),
                  follows_short="L", follows_long=("--dereference",)),  # fmt: skip
    "du": _Syntax(value_short="dBt", follows_short="L", follows_long=("--dereference",)),
    "tree": _Syntax(value_short="LPIo", pattern_short="PI", follows_short="l"),
    "diff": _Syntax(value_short="IxX", pattern_short="Ix", pattern_long=frozenset({"--label", "--ignore-matching-lines"}),
                    follows_short="r", follows_long=("--recursive",)),  # fmt: skip
}
_FIND_VALUE_PATHS = frozenset({"-newer", "-anewer", "-cnewer", "-samefile", "-files0-from", "-fls", "-fprint"})
_FIND_FOLLOWS = frozenset({"-L", "-follow"})
_JQ_TWO_VALUES = frozenset({"--arg", "--argjson"})
_JQ_FILE_VALUES = frozenset({"--slurpfile", "--rawfile"})


def outside_read(
    name: str,
    args: Sequence[Word],
    redirects: Iterable[Redirect],
    dirs: Sequence[Path],
    root: Path,
    appended: bool = False,
) -> str | None:
    """Why the read-only command `name args` reads outside ``root`` (a predicate naming the path), else None.

    ``dirs`` are the folders a relative path may be resolved from: the root and the line's earlier `cd` targets.
    ``appended``: `xargs` adds arguments read from standard input, which no check can see.
    """
    for redirect in redirects:
        target = redirect.target
        if redirect.operator.startswith("<") and target is not None and not redirect.operator.endswith("&"):
            problem = _check(target, dirs, root)
            if problem is not None:
                return problem
    if name in _NO_FILES:
        return None
    if appended:
        return "reads paths it is given at run time (`xargs`), which may be outside the workspace"
    values = [word.value for word in args]
    shown = [word.shown for word in args]
    if name == "cd":
        return _cd_problem(args, dirs, root)
    syntax = _SYNTAX.get(name)
    if syntax is not None and (syntax.follows_short or syntax.follows_long):
        if has_option(shown, short=syntax.follows_short, long=syntax.follows_long):
            return "follows symbolic links through a whole tree, which may lead outside the workspace"
    if name == "find":
        words = _find_paths(args)
        if any(value in _FIND_FOLLOWS for value in values):
            return "follows symbolic links through a whole tree, which may lead outside the workspace"
    elif name == "jq":
        words = _jq_paths(args)
    else:
        words = _path_words(args, syntax or _Syntax())
    for word in words:
        problem = _check(word, dirs, root)
        if problem is not None:
            return problem
    return None


def other_repository(args: Sequence[Word], dirs: Sequence[Path], root: Path) -> str | None:
    """For a read-only `git` call: why it may run in a repository nested in the workspace (after a `cd`, or with
    `-C`, `--git-dir`, `--work-tree`), whose configuration the bash tool does not read for drivers to switch off."""
    values = [word.value or "" for word in args]
    if any(value.startswith(("--git-dir", "--work-tree")) for value in values):
        return "names its repository folder (`--git-dir`/`--work-tree`), whose configuration is not checked"
    folders = list(dirs)
    folders += [root / values[i + 1] for i, value in enumerate(values[:-1]) if value == "-C"]
    for folder in folders:
        nested = _nested_repository(Path(os.path.realpath(folder)), root)
        if nested is not None:
            return f"runs in the repository nested at `{nested}`, whose configuration is not checked"
    return None


def _nested_repository(folder: Path, root: Path) -> str | None:
    if not folder.is_relative_to(root):
        return None
    current = folder
    while current != root:
        if os.path.lexists(current / ".git"):
            return current.relative_to(root).as_posix()
        current = current.parent
    return None


def cd_targets(args: Sequence[Word], dirs: Sequence[Path], root: Path) -> list[Path]:
    """The folders a `cd` inside the workspace may enter (from each folder the line may be in), for resolving the
    paths that follow."""
    operands = [word for word in args if word.value is None or not word.value.startswith("-")]
    if len(operands) != 1 or operands[0].value is None or _cd_problem(args, dirs, root) is not None:
        return []
    target = os.path.expanduser(operands[0].value)
    found = [Path(os.path.realpath(base / target)) for base in dirs]
    return [folder for folder in found if folder.is_dir()] or found[:1]


def _cd_problem(args: Sequence[Word], dirs: Sequence[Path], root: Path) -> str | None:
    operands = [word for word in args if word.value is None or not word.value.startswith("-") or word.value == "-"]
    if not operands:
        return "enters the home folder, outside the workspace"
    if operands[0].value == "-":
        return "returns to a folder outside this check's sight (`cd -`)"
    return _check(operands[0], dirs, root)


def _path_words(args: Sequence[Word], syntax: _Syntax) -> list[Word]:
    """The words that may name files: operands, option values that are not patterns, `--x=value` values."""
    words: list[Word] = []
    operands: list[Word] = []
    program_given = False
    index = 0
    after_dashes = False
    while index < len(args):
        word = args[index]
        value = word.value
        index += 1
        if value is None:
            operands.append(word)
            continue
        if after_dashes or value == "-" or not value.startswith("-"):
            operands.append(word)
        elif value == "--":
            after_dashes = True
        elif value.startswith("--"):
            name, equals, attached = value.partition("=")
            long = _long_name(name, syntax)
            program_given = program_given or long in syntax.program_long
            pattern = long in syntax.pattern_long
            if equals:
                if not pattern:
                    words.append(Word(attached, attached))
            elif long in syntax.value_long and index < len(args):
                if not pattern:
                    words.append(args[index])
                index += 1
        else:
            index = _short_cluster(value, args, index, syntax, words)
            program_given = program_given or any(c in syntax.program_short for c in _cluster_letters(value, syntax))
    if syntax.positional_program and not program_given and operands:
        operands = operands[1:]
    return words + operands


def _long_name(given: str, syntax: _Syntax) -> str:
    """The full long option an abbreviation stands for, when exactly one known option starts with it."""
    known = syntax.value_long | syntax.pattern_long | syntax.program_long
    if given in known:
        return given
    matches = [name for name in known if name.startswith(given)] if len(given) > 3 else []
    return matches[0] if len(matches) == 1 else given


def _cluster_letters(value: str, syntax: _Syntax) -> str:
    """The option letters of a cluster up to the first that takes a value (`-rnf` gives `rnf`)."""
    letters = ""
    for char in value[1:]:
        letters += char
        if char in syntax.value_short:
            break
    return letters


def _short_cluster(value: str, args: Sequence[Word], index: int, syntax: _Syntax, words: list[Word]) -> int:
    """Reads `-abc`, `-fFILE` or `-f FILE`; adds the value when it may be a file; returns the next index."""
    cluster = value[1:]
    for position, char in enumerate(cluster):
        if char in syntax.value_short:
            attached = cluster[position + 1 :]
            pattern = char in syntax.pattern_short
            if attached:
                if not pattern:
                    words.append(Word(attached, attached))
            elif index < len(args):
                if not pattern:
                    words.append(args[index])
                index += 1
            return index
    if not syntax.value_short:
        # An unknown program: a value glued to its option (`-f/etc/x`, `-o../y`) is still looked at.
        start = next((i for i, c in enumerate(cluster) if c in "/~."), None)
        if start is not None and len(cluster) - start > 1:
            attached = cluster[start:]
            words.append(Word(attached, attached))
    return index


def _find_paths(args: Sequence[Word]) -> list[Word]:
    """`find` reads the paths before its expression, and the files some tests name (`-newer FILE`)."""
    words: list[Word] = []
    index = 0
    while index < len(args) and args[index].value in ("-H", "-L", "-P", "-D", "-O"):
        index += 2 if args[index].value in ("-D", "-O") else 1
    while index < len(args):
        value = args[index].value
        if value is not None and (value.startswith("-") or value in ("(", "!", ")", ",")):
            break
        words.append(args[index])
        index += 1
    for position in range(index, len(args) - 1):
        value = args[position].value or ""
        if value in _FIND_VALUE_PATHS or value.startswith("-newer"):
            words.append(args[position + 1])
    return words


def _jq_paths(args: Sequence[Word]) -> list[Word]:
    """`jq [options] FILTER [files]`: files, `-f FILE`, `-L DIR`, `--slurpfile name FILE`, `--rawfile name FILE`."""
    words: list[Word] = []
    operands: list[Word] = []
    program_given = False
    index = 0
    while index < len(args):
        word = args[index]
        value = word.value or ""
        index += 1
        if value in ("--args", "--jsonargs"):
            break  # what follows the filter is a list of values, not files
        if value in _JQ_TWO_VALUES:
            index += 2
        elif value in _JQ_FILE_VALUES:
            words.extend(args[index + 1 : index + 2])
            index += 2
        elif value in ("-f", "--from-file", "-L"):
            program_given = program_given or value != "-L"
            words.extend(args[index : index + 1])
            index += 1
        elif value.startswith("-L") and len(value) > 2:
            words.append(Word(value[2:], value[2:]))
        elif value == "--indent":
            index += 1
        elif word.value is None or not value.startswith("-") or value == "-":
            operands.append(word)
    if not program_given and operands:
        operands = operands[1:]
    return words + operands


def _check(word: Word, dirs: Sequence[Path], root: Path) -> str | None:
    """Why ``word`` as a path leads outside ``root``, else None."""
    if word.value is None:
        return f"reads `{word.source}`, a path known only at run time, which may be outside the workspace"
    for text in _brace_expand(word.value):
        for base in dirs:
            for real in _resolutions(text, base):
                if real is None:
                    return f"names too many files to check (`{word.value}`), which may lead outside the workspace"
                if real in _HARMLESS_DEVICES:
                    continue
                if not Path(real).is_relative_to(root):
                    return f"reads outside the workspace (`{word.value}`)"
    return None


def _resolutions(text: str, base: Path) -> list[str | None]:
    """Real locations the path may name from ``base``; None when a glob matches too much to check."""
    if not text:
        return []
    expanded = os.path.expanduser(text) if text.startswith("~") else text
    if expanded.startswith("~"):
        return ["/"]  # `~nobody-known`: an unknown home folder is outside
    if expanded in _HARMLESS_DEVICES:
        return [expanded]
    if expanded.startswith(("/proc/", "/dev/")) or expanded in ("/proc", "/dev"):
        return [expanded]
    full = os.path.join(base, expanded)
    if not _GLOB_CHARS.search(expanded):
        return [os.path.realpath(full)]
    results: list[str | None] = [os.path.realpath(_glob_stem(full))]
    for count, match in enumerate(glob.iglob(glob.escape(str(base)) + "/" + expanded if not os.path.isabs(expanded) else expanded)):
        if count >= MAX_GLOB_MATCHES:
            return [None]
        results.append(os.path.realpath(match))
    return results


def _glob_stem(path: str) -> str:
    """The folder part of a glob before its first wildcard: `../*.txt` gives `..`."""
    match = _GLOB_CHARS.search(path)
    head = path[: match.start()] if match else path
    return head.rsplit("/", 1)[0] or "/"


def _brace_expand(text: str) -> list[str]:
    """Bash brace expansion (`{a,b}`, `{1..3}`) of a word, as far as a path check needs it."""
    found = _BRACES.search(text)
    if found is None:
        return [text]
    inner = found.group(0)[1:-1]
    if found.group(1) == ",":
        choices = inner.split(",")
    else:
        choices = _sequence(inner) or [inner]
    words: list[str] = []
    for choice in choices:
        words.extend(_brace_expand(text[: found.start()] + choice + text[found.end() :]))
        if len(words) > _MAX_BRACE_WORDS:
            break
    return words[:_MAX_BRACE_WORDS]


def _sequence(inner: str) -> list[str]:
    parts = inner.split("..")
    if len(parts) in (2, 3) and all(re.fullmatch(r"-?\d+", p) for p in parts):
        start, end = int(parts[0]), int(parts[1])
        step = max(1, abs(int(parts[2]))) if len(parts) == 3 else 1
        span = range(start, end + 1, step) if start <= end else range(start, end - 1, -step)
        return [str(n) for n in list(span)[:_MAX_BRACE_WORDS]]
    return []
