"""Names that become paths (SPEC 19): session ids, blob names, export names, undo content names. A name read from
``.coder/`` or typed by anyone is checked against one strict pattern before any path is made from it, so ``..``,
``/``, ``\\``, NUL, percent-encoding (``%2e%2e``) or a leading dot can never lead outside the folder it names a
file in."""

from __future__ import annotations

import re

from engine.storage.errors import StorageError

# Letters, digits, ``_`` and ``-``, then optionally ``.`` and a short extension: no separator, no dot run, no
# percent sign, nothing invisible. Every name coder-tui makes (12 hex digits, sha256 + suffix, a slug) fits.
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}(\.[A-Za-z0-9]{1,16})?")


def is_safe_name(name: object) -> bool:
    return isinstance(name, str) and _SAFE_NAME.fullmatch(name) is not None


def checked_name(name: object, what: str) -> str:
    """``name`` when it is safe; else ``StorageError`` naming ``what`` it was meant to be and the name, shown
    escaped so a hostile name cannot write to the terminal."""
    if not is_safe_name(name):
        raise StorageError(
            f"refused {what} {name!r}: a name that becomes a file name may hold only letters, digits, '_' and '-' "
            "(and one '.ext')"
        )
    assert isinstance(name, str)
    return name
