"""Reading a command's options the way getopt would, so that checks find `-rf` inside `-vrf` and `--force`
behind its abbreviation `--forc`.

Every helper is deliberately generous in what it calls "present": a policy that sees a flag that is not
there asks once too often; one that misses a flag lets something run unasked.
"""

from __future__ import annotations

from collections.abc import Sequence


def option_words(args: Sequence[str]) -> list[str]:
    """The arguments up to `--` (after it every word is an operand, even `-rf`)."""
    if "--" in args:
        return list(args[: list(args).index("--")])
    return list(args)


def has_short(args: Sequence[str], letter: str, value_letters: str = "") -> bool:
    """Whether the single-letter option `letter` is given, alone (`-f`) or in a cluster (`-rf`).

    ``value_letters`` are the options that take a value: in `-t,x` the `x` is the value of `-t`, not an
    option, so scanning a cluster stops at the first of them.
    """
    for arg in option_words(args):
        if len(arg) < 2 or arg[0] != "-" or arg[1] == "-":
            continue
        for char in arg[1:]:
            if char == letter:
                return True
            if char in value_letters:
                break
    return False


def has_long(args: Sequence[str], name: str) -> bool:
    """Whether the long option `name` (`--output`) is given, as `--output`, `--output=x`, or abbreviated.

    GNU getopt and git accept any unambiguous prefix (`--out=x` is `--output=x`), so any prefix counts too:
    whether it is ambiguous depends on the program's other options, and guessing wrong must not let it through.
    """
    for arg in option_words(args):
        if not arg.startswith("--") or arg == "--":
            continue
        given = arg.split("=", 1)[0]
        if given == name or (len(given) > 2 and name.startswith(given)):
            return True
    return False


def has_option(args: Sequence[str], short: str = "", long: Sequence[str] = (), value_letters: str = "") -> bool:
    """Whether any of the short letters in ``short`` or any long name in ``long`` is given."""
    return any(has_short(args, letter, value_letters) for letter in short) or any(
        has_long(args, name) for name in long
    )


def operands(args: Sequence[str], value_short: str = "", value_long: Sequence[str] = ()) -> list[str]:
    """The non-option arguments, skipping the values of options that take one (`-n 5`, `--lines 5`)."""
    result: list[str] = []
    index = 0
    after_dashes = False
    while index < len(args):
        arg = args[index]
        index += 1
        if after_dashes or arg == "-" or not arg.startswith("-"):
            result.append(arg)
        elif arg == "--":
            after_dashes = True
        elif arg.startswith("--"):
            if "=" not in arg and arg in value_long:
                index += 1
        else:
            cluster = arg[1:]
            for position, char in enumerate(cluster):
                if char in value_short:
                    if position == len(cluster) - 1:
                        index += 1
                    break
    return result
