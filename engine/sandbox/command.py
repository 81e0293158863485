"""How a bash call runs under its ``SandboxGrant``: the confined argv, the environment, the private temp folder,
and the sentence that names a write the sandbox refused (SPEC 20)."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from engine.record import record
from engine.sandbox import seatbelt
from engine.sandbox.child_env import unasked_environment
from engine.sandbox.grant import SandboxGrant
from engine.sandbox.support import SandboxSupport

LAUNCHER = str(Path(__file__).with_name("launcher.py"))
# Devices every command may write: discarding output, reading zeros, the terminal.
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_REFUSED = re.compile(r"Permission denied|Operation not permitted|Read-only file system|EACCES|EPERM")


@record
class ConfinedCommand:
    """What to execute instead of ``shell -c command``, and where its temp folder is (removed after the call)."""

    argv: list[str]
    env: dict[str, str]
    tmpdir: str

    def cleanup(self) -> None:
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def confine(
    grant: SandboxGrant,
    support: SandboxSupport,
    shell: str,
    command: str,
    workspace: Path,
    parent_env: Mapping[str, str] | None = None,
) -> ConfinedCommand:
    """The argv and environment that run ``command`` with the writes and network ``grant`` allows."""
    parent = os.environ if parent_env is None else parent_env
    tmpdir = tempfile.mkdtemp(prefix="coder-bash-")
    if grant.unasked:
        env = unasked_environment(parent, workspace, tmpdir)
        folders = [tmpdir]
    else:
        env = {**parent, "TMPDIR": tmpdir}
        folders = [tmpdir, str(workspace), *(os.path.expanduser(p) for p in grant.extra_writable)]
    inner = [shell, "-c", command]
    if support.kind == "none":
        argv = inner  # nothing confines it: the policy asked first, and the environment is still scrubbed
    elif support.kind == "seatbelt":
        argv = seatbelt.argv(folders, grant.network, inner)
    else:
        argv = [sys.executable, "-E", "-s", "-S", LAUNCHER]
        for folder in folders:
            argv += ["--write", folder]
        for device in WRITABLE_DEVICES:
            argv += ["--file", device]
        if not grant.network:
            argv.append("--no-tcp")
        argv += ["--", *inner]
    return ConfinedCommand(argv, env, tmpdir)


def refused_write_note(
    grant: SandboxGrant, support: SandboxSupport, exit_code: int | None, stderr: str
) -> str | None:
    """The sentence added to a failed command's result when its error looks like the sandbox refusing a write."""
    if not support.available or exit_code in (0, None) or not _REFUSED.search(stderr):
        return None
    if grant.unasked:
        where = (
            "this command ran without asking, so the sandbox lets it write only to its temp folder ($TMPDIR); "
            "a command that needs to write must be one the user approves"
        )
    else:
        where = (
            "the sandbox lets approved commands write only in the workspace and a temp folder ($TMPDIR); "
            "the user can add folders with `sandbox.writable` in the config"
        )
    network = "" if grant.network else " The network is off in plan mode too."
    return f"the sandbox may have refused a write ('Permission denied'/'Operation not permitted'): {where}.{network}"
