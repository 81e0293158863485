"""Where a bash command writes, judged as a file tool's write is (SPEC 13, decision of 2026-12-07): the targets of
its redirections and the operands of commands that create, change or remove files (``tee``, ``cp``, ``sed -i``,
``dd of=``...), resolved from every folder the line may be in.

- Under coder-tui's own configuration folder: refused in every mode but yolo (``own_config_write``).
- Under the workspace's `.git/` or `.coder/`: the sandbox cannot carve those folders out of a writable workspace,
  so it asks (``protected_write``).
- Anything but an ordinary file of the workspace reached without a link (a dotfile, a dot-folder, a file another
  tool runs, a path outside, one known only at run time): asks, whatever rule or "always" covers the command
  (``unasked_write``), so that an allowance for `echo *` never covers `echo x > .mcp.json`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from engine.home_folder import own_config_folder_of
from engine.policy.argv import has_option
from engine.policy.bash_records import Redirect
from engine.policy.bash_risk import Risk
from engine.policy.bash_words import Word
from engine.policy.bash_wrappers import program_name
from engine.policy.unasked_writes import unasked_write_reason

_PROTECTED_FOLDERS = (".git", ".coder")
# Commands whose operands are files they create, change or remove.
_FILE_CHANGERS = frozenset(
    {"tee", "cp", "mv", "install", "ln", "touch", "rm", "rmdir", "mkdir", "chmod", "chown", "chgrp", "truncate",
     "shred", "unlink", "rsync", "tar", "unzip", "patch"}
)  # fmt: skip


def write_risks(
    words: Sequence[Word],
    redirects: Iterable[Redirect],
    line: str,
    dirs: Sequence[Path],
    root: Path,
    own_config: tuple[Path, ...],
) -> list[Risk]:
    """The risks of one command's writes: at most one of each code, the strongest reason first."""
    risks: dict[str, Risk] = {}
    for target in _targets(words, redirects):
        if target.value is None:
            text = f"`{line}` writes to `{target.shown}`, a path known only at run time"
            risks.setdefault("unasked_write", Risk("unasked_write", text))
            continue
        for base in dirs:
            judged = _judge(target.value, base, root, own_config, line)
            if judged is not None:
                risks.setdefault(judged.code, judged)
    return list(risks.values())


def _targets(words: Sequence[Word], redirects: Iterable[Redirect]) -> list[Word]:
    targets = [r.target for r in redirects if r.writes and r.target is not None and r.target.value != ""]
    name = program_name(words[0]) if words else None
    if name in _FILE_CHANGERS or (name == "sed" and has_option([w.shown for w in words[1:]], "i", ("--in-place",))):
        targets += [word for word in words[1:] if word.value is None or (word.value and word.value[0] != "-")]
    if name == "dd":
        outputs = [word for word in words[1:] if word.value and word.value.startswith("of=")]
        targets += [Word(word.source[3:], (word.value or "")[3:]) for word in outputs]
    return targets


def _judge(target: str, base: Path, root: Path, own_config: tuple[Path, ...], line: str) -> Risk | None:
    try:
        written = os.path.expanduser(target)
        real = Path(os.path.realpath(base / written))
    except (OSError, ValueError, RuntimeError):
        return Risk("unasked_write", f"`{line}` writes to `{target}`, which cannot be checked")
    own = own_config_folder_of(real, own_config)
    if own is not None:
        return Risk(
            "own_config_write",
            f"`{line}` writes under {own}, coder-tui's own configuration, which no tool changes",
        )
    folder = next((name for name in _PROTECTED_FOLDERS if real.is_relative_to(root / name)), None)
    if folder is not None:
        return Risk("protected_write", f"`{line}` writes under `{folder}/`, which only you should change")
    reason = unasked_write_reason(root, written, base)
    return None if reason is None else Risk("unasked_write", f"`{line}` {reason}")
