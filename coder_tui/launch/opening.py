"""The input a launch opens with: what ``--resume`` / ``--continue`` / ``--fork`` ask for, for the full screen and
for headless runs alike."""

from __future__ import annotations


def session_input(resume: str | None, cont: bool, fork: bool) -> str | None:
    """The input that opens the session ``--resume`` / ``--continue`` name, or copies it with ``--fork``;
    ``--resume`` with no id (``""``) lists the sessions (the full screen shows them as a picker)."""
    if resume == "":
        return "/resume"
    if not (resume or cont):
        return None
    return f"/{'fork' if fork else 'resume'} {resume or '--last'}"
