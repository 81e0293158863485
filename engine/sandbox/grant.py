"""What one bash call is granted (SPEC 13, 20, 8): where its sandbox lets it read and write, whether it may use the
network, which environment names it keeps. Made by ``engine.policy`` for each decision (and by auto-verify for its
run), carried to the bash tool in ``ToolContext.sandbox``."""

from __future__ import annotations

from enum import Enum

from engine.record import record


class Confinement(str, Enum):
    # The command runs without asking (the read-only class, a sub-agent's bash): it reads only the workspace, the
    # system and toolchain folders and its temp folder, writes only to its temp folder, has no network at all, and
    # an environment built from an allow-list (engine.sandbox.child_env).
    UNASKED = "unasked"
    # Auto-verify (SPEC 8): as UNASKED, but it may write the build outputs and caches of its test run
    # (engine.sandbox.verify_writes), never sources or configuration, and it has the network only when
    # `workflow.verify_network` says so.
    VERIFY = "verify"
    # The user approved it, or a config rule or session allowance allowed it: it reads anywhere, may also write in
    # the workspace, and keeps the environment but for secret-looking names.
    APPROVED = "approved"


@record
class SandboxGrant:
    confinement: Confinement
    network: bool = True
    # Folders the config's `sandbox.writable` adds, for approved commands.
    extra_writable: tuple[str, ...] = ()
    # Folders the user's own config's `sandbox.readable` adds, for unasked commands and auto-verify.
    extra_readable: tuple[str, ...] = ()
    # Environment names the config's `bash.env` lets through (unasked: besides the allow-list; approved: even when
    # they look like secrets).
    env_names: tuple[str, ...] = ()

    @property
    def confines_reads(self) -> bool:
        return self.confinement is not Confinement.APPROVED
