"""Where a `cd` of a bash line leads, so that later words of the line (a `> .git/config` after `cd src/..`) are
resolved from the right folder. Literal targets only, no glob: nothing here walks the tree (SPEC 13).

Where a read-only command may read is no longer this package's business: the kernel confines it (engine.sandbox).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from engine.policy.bash_words import Word


def cd_targets(args: Sequence[Word], dirs: Sequence[Path], root: Path) -> list[Path]:
    """The folders inside the workspace a `cd` may enter, from each folder the line may be in."""
    operands = [word for word in args if word.value is None or not word.value.startswith("-")]
    if len(operands) != 1 or operands[0].value is None or operands[0].value in ("", "-", "~"):
        return []
    target = operands[0].value
    found = [Path(os.path.realpath(base / target)) for base in dirs]
    inside = [folder for folder in found if folder == root or folder.is_relative_to(root)]
    return [folder for folder in inside if folder.is_dir()] or inside[:1]
