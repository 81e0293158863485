"""How a bash call runs under its ``SandboxGrant``: the confined argv, the environment, the private temp folder,
and the sentence that names a write the sandbox refused (SPEC 13, 20).

On Linux every command, confined or not (yolo and ``!`` too), runs under the launcher, which ends everything the
command started when it ends (``engine.sandbox.launcher``).
"""

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
from engine.sandbox.child_env import approved_environment, unasked_environment
from engine.sandbox.grant import Confinement, SandboxGrant
from engine.sandbox.reads import readable_folders
from engine.sandbox.support import SandboxSupport
from engine.sandbox.verify_writes import verify_environment, verify_writable

LAUNCHER = str(Path(__file__).with_name("launcher.py"))
# Devices every confined command may read and write: discarding output, zeros, randomness, the terminal.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_REFUSED = re.compile(
    r"Permission denied|Operation not permitted|Read-only file system|EACCES|EPERM|Address family not supported"
)


@record
class ConfinedCommand:
    """What to execute instead of ``shell -c command``, and where its temp folder is (removed after the call)."""

    argv: list[str]
    env: dict[str, str] | None
    tmpdir: str | None

    def cleanup(self) -> None:
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)


def unconfined(support: SandboxSupport, shell: str, command: str) -> ConfinedCommand:
    """Yolo and ``!``: the user's environment, no sandbox; on Linux still the launcher, which ends the process
    tree with the command."""
    inner = [shell, "-c", command]
    if not support.ends_trees:
        return ConfinedCommand(inner, None, None)
    return ConfinedCommand([*_launcher(), "--unconfined", "--", *inner], None, None)


def confine(
    grant: SandboxGrant,
    support: SandboxSupport,
    shell: str,
    command: str,
    workspace: Path,
    parent_env: Mapping[str, str] | None = None,
) -> ConfinedCommand:
    """The argv and environment that run ``command`` with the reads, writes and network ``grant`` allows."""
    parent = os.environ if parent_env is None else parent_env
    tmpdir = tempfile.mkdtemp(prefix="coder-bash-")
    files: list[str] = list(DEVICES)
    if grant.confines_reads:
        env = unasked_environment(parent, workspace, tmpdir, grant.env_names)
        folders = [tmpdir]
        if grant.confinement is Confinement.VERIFY:
            folders += verify_writable(workspace, command)
            env = verify_environment(env, tmpdir)
        reads: list[str] | None = readable_folders(workspace, tmpdir, parent, grant.extra_readable)
    else:
        env = approved_environment(parent, tmpdir, grant.env_names)
        folders = [tmpdir, str(workspace), *(os.path.expanduser(p) for p in grant.extra_writable)]
        reads = None
    network = grant.network and grant.confinement is not Confinement.UNASKED
    inner = [shell, "-c", command]
    if support.kind == "none":
        argv = inner  # nothing confines it: the policy asked first, and the environment is still built
    elif support.kind == "seatbelt":
        argv = seatbelt.argv(folders, network, inner, readable=reads)
    else:
        argv = _launcher()
        for option, values in (("--write", folders), ("--file", files), ("--read", reads or ())):
            for value in values:
                argv += [option, value]
        if reads is not None:
            argv.append("--confine-reads")
            for device in DEVICES:
                argv += ["--read-file", device]
        if not network:
            argv.append("--no-net")
            if grant.confinement is Confinement.UNASKED:
                argv.append("--no-metadata")
        argv += ["--", *inner]
    return ConfinedCommand(argv, env, tmpdir)


def _launcher() -> list[str]:
    return [sys.executable, "-E", "-s", "-S", LAUNCHER]


def refused_write_note(
    grant: SandboxGrant, support: SandboxSupport, exit_code: int | None, stderr: str
) -> str | None:
    """The sentence added to a failed command's result when its error looks like the sandbox refusing it."""
    if not support.available or exit_code in (0, None) or not _REFUSED.search(stderr):
        return None
    if grant.confinement is Confinement.UNASKED:
        where = (
            "this command ran without asking, so the sandbox lets it read only the workspace, the system and "
            "toolchain folders and its temp folder, write only to its temp folder ($TMPDIR), and use no network; "
            "a command that needs more must be one the user approves"
        )
    elif grant.confinement is Confinement.VERIFY:
        where = (
            "auto-verify runs confined: it reads only the workspace and the system and toolchain folders, writes "
            "only its temp folder ($TMPDIR) and the build outputs and caches of the test run (target/, build/, "
            "node_modules/.cache...), never sources or configuration, and uses no network unless "
            "workflow.verify_network is true"
        )
    else:
        where = (
            "the sandbox lets approved commands write only in the workspace and a temp folder ($TMPDIR); "
            "the user can add folders with `sandbox.writable` in the config"
        )
    off = not grant.network and grant.confinement is Confinement.APPROVED
    network = " The network is off in plan mode too." if off else ""
    return f"the sandbox may have refused this ('Permission denied'/'Operation not permitted'): {where}.{network}"
