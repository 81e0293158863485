"""Where a command writes (SPEC 13, decision of 2026-12-07): the files the policy judges against the allow-list of
unasked writes (``bash_risk``), and the reason a command that writes is never read-only (``bash_analysis``).

Found once for every command: the targets of its redirections; the operands of commands that create, change or
remove files (`cp`, `tee`, `sed -i`...); the files an output option names (`sort -o f`, `time -o f`, `tree -o f`,
`git log --output=f`, `find -fprint f`) or an operand that is an output (`uniq in out`, `dd of=f`); and what the
commands `find -exec` runs write, its scripts read for theirs. A path known only at run time (`$F`, find's `{}`) is
kept as such, so that it asks.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.policy.argv import has_option, operands
from engine.policy.bash_parse import parse_script
from engine.policy.bash_records import SimpleCommand, Word
from engine.policy.bash_wrappers import Chain, find_exec_commands, inline_script, program_name
from engine.policy.unasked_writes import is_not_a_file

# Commands whose operands are files they create, change or remove.
_FILE_CHANGERS = frozenset(
    {"tee", "cp", "mv", "install", "ln", "touch", "rm", "rmdir", "mkdir", "chmod", "chown", "chgrp", "truncate",
     "shred", "unlink", "rsync", "tar", "unzip", "patch"}
)  # fmt: skip
# Options whose value is a file the program writes: program -> (the letter, the long names, the program's other
# letters that take a value).
_OUTPUT_OPTIONS = {
    "sort": ("o", ("--output",), "kStT"),
    "tree": ("o", (), "LPIHT"),
    "time": ("o", ("--output",), "f"),
    "git": ("", ("--output",), ""),
}
_FIND_OUTPUTS = frozenset({"-fls", "-fprint", "-fprint0", "-fprintf"})


def written_targets(command: SimpleCommand, chain: Chain) -> list[Word]:
    """Where a command writes: its redirections' targets, and for each layer (`time -o f`, then what it runs) the files
    its operands or output options name, and what the commands `find -exec` runs write; none that keeps no file
    (``/dev/null``...)."""
    targets = [r.target for r in command.redirects if r.writes and r.target is not None and r.target.value != ""]
    for outer, inner in zip(chain.layers, (*chain.layers[1:], ()), strict=True):
        targets += _written(outer[: len(outer) - len(inner)])
        for embedded in find_exec_commands(outer):
            targets += _exec_written(embedded)
    return [target for target in targets if target.value is None or not is_not_a_file(target.value)]


def _exec_written(words: tuple[Word, ...]) -> list[Word]:
    """What a command `find -exec` runs writes: `{}` is each file found, known only at run time; a script it runs is
    read for its own writes, and one known only at run time may write anywhere."""
    found = tuple(Word(word.source, None) if "{}" in word.shown else word for word in words)
    chain = Chain.of(found)
    script = inline_script(chain.innermost)
    if script is None and program_name(chain.innermost[0] if chain.innermost else None) is not None:
        return written_targets(SimpleCommand(" ".join(w.shown for w in found), found), chain)
    if script is None or script.script is None:
        return [Word(" ".join(word.shown for word in found), None)]
    return [target for inner in parse_script(script.script).commands
            for target in written_targets(inner, Chain.of(inner.words))]  # fmt: skip


def _written(words: Sequence[Word]) -> list[Word]:
    """The files one program (a wrapper without the command it runs) writes by its operands or options."""
    name = program_name(words[0]) if words else None
    args = words[1:]
    if name in _FILE_CHANGERS or (name == "sed" and has_option([w.shown for w in args], "i", ("--in-place",))):
        return [word for word in args if word.value is None or (word.value and word.value[0] != "-")]
    if name == "uniq":
        files = operands([w.shown for w in args], "fsw", ("--skip-fields", "--skip-chars", "--check-chars"))
        return [word for word in args if word.shown in files[1:]]
    if name == "dd":
        return [Word(word.source[3:], word.value[3:]) for word in args if word.value and word.value.startswith("of=")]
    if name == "find":
        return [after for word, after in zip(args, args[1:], strict=False) if word.value in _FIND_OUTPUTS]
    letter, long, value_letters = _OUTPUT_OPTIONS.get(name or "", ("", (), ""))
    return _option_values(args, letter, long, value_letters)


def _option_values(args: Sequence[Word], letter: str, long: Sequence[str], value_letters: str) -> list[Word]:
    """The values of an output option: `-o f`, `-of`, `-no f`, `--output=f`, `--output f`, `--out=f`. A value cut
    from a word known only at run time is known only at run time too."""
    found: list[Word] = []
    for index, word in enumerate(args):
        text = word.shown
        following = args[index + 1] if index + 1 < len(args) else Word("", "")
        if text == "--":
            break
        if text.startswith("--"):
            name, equals, value = text.partition("=")
            if any(name == option or (len(name) > 2 and option.startswith(name)) for option in long):
                found.append(Word(value, value if word.value is not None else None) if equals else following)
        elif text.startswith("-") and letter:
            cluster = text[1:]
            for position, char in enumerate(cluster):
                if char == letter:
                    rest = cluster[position + 1 :]
                    found.append(Word(rest, rest if word.value is not None else None) if rest else following)
                if char == letter or char in value_letters:
                    break
    return [word for word in found if word.value != ""]
