"""What the policy grants one bash call (SPEC 20): how far its sandbox lets it write, and whether it may use the
network. Made by ``engine.policy`` for each decision, carried to the bash tool in ``ToolContext.sandbox``."""

from __future__ import annotations

from enum import Enum

from engine.record import record


class Confinement(str, Enum):
    # The command runs without asking (the read-only class): it may write only to its private temp folder, and its
    # environment is scrubbed (engine.sandbox.child_env).
    UNASKED = "unasked"
    # The user approved it, or a config rule or session allowance allowed it: it may also write in the workspace.
    APPROVED = "approved"


@record
class SandboxGrant:
    confinement: Confinement
    network: bool = True
    # Folders the config's `sandbox.writable` adds, for approved commands.
    extra_writable: tuple[str, ...] = ()

    @property
    def unasked(self) -> bool:
        return self.confinement is Confinement.UNASKED
