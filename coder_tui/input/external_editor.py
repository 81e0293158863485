"""Ctrl+G (SPEC 23): the prompt's text opens in ``$VISUAL`` or ``$EDITOR`` while the app is suspended, and what
the editor saved comes back as the prompt."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

FALLBACK_EDITORS = ("nano", "vi")


class EditorError(RuntimeError):
    """The editor could not run or failed; the message says why and the prompt keeps its text."""


def editor_command(env: Mapping[str, str]) -> list[str]:
    for variable in ("VISUAL", "EDITOR"):
        value = env.get(variable, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError as exc:
                raise EditorError(f"${variable} ({value!r}) cannot be parsed: {exc}") from exc
    for name in FALLBACK_EDITORS:
        if shutil.which(name, path=env.get("PATH")):
            return [name]
    raise EditorError("no editor: set $VISUAL or $EDITOR (for example export EDITOR=nano)")


def edit_text(text: str, env: Mapping[str, str] | None = None) -> str:
    """Runs the editor on a temporary file holding ``text`` and returns what was saved (one final newline, which
    editors add, taken off). Call it with the app suspended: the editor owns the terminal meanwhile."""
    env = os.environ if env is None else env
    command = editor_command(env)
    handle, name = tempfile.mkstemp(prefix="coder-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            finished = subprocess.run([*command, str(path)], check=False)
        except OSError as exc:
            raise EditorError(f"the editor {command[0]!r} could not start: {exc.strerror or exc}") from exc
        if finished.returncode != 0:
            raise EditorError(f"the editor {command[0]!r} exited with {finished.returncode}; the prompt is unchanged")
        edited = path.read_text(encoding="utf-8", errors="replace")
    finally:
        path.unlink(missing_ok=True)
    return edited[:-1] if edited.endswith("\n") else edited


# Editors told the line another way than ``+LINE FILE`` (vi, vim, nvim, nano, emacs, micro, helix, kak, joe...).
_GOTO_ARGUMENTS = {
    "code": lambda path, line: ["--goto", f"{path}:{line}"],
    "code-insiders": lambda path, line: ["--goto", f"{path}:{line}"],
    "codium": lambda path, line: ["--goto", f"{path}:{line}"],
    "cursor": lambda path, line: ["--goto", f"{path}:{line}"],
    "subl": lambda path, line: [f"{path}:{line}"],
    "zed": lambda path, line: [f"{path}:{line}"],
}


def editor_at_line(path: Path, line: int, env: Mapping[str, str]) -> list[str]:
    """The command that opens ``path`` at ``line`` in the user's editor (``EditorError`` when there is none)."""
    command = editor_command(env)
    goto = _GOTO_ARGUMENTS.get(Path(command[0]).name)
    return [*command, *(goto(str(path), line) if goto else [f"+{line}", str(path)])]


def open_file(path: Path, line: int, env: Mapping[str, str] | None = None) -> None:
    """Runs the editor on ``path`` at ``line``; call it with the app suspended."""
    command = editor_at_line(path, line, os.environ if env is None else env)
    try:
        finished = subprocess.run(command, check=False)
    except OSError as exc:
        raise EditorError(f"the editor {command[0]!r} could not start: {exc.strerror or exc}") from exc
    if finished.returncode != 0:
        raise EditorError(f"the editor {command[0]!r} exited with {finished.returncode}")
