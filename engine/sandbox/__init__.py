"""The bash sandbox of SPEC 20: Landlock on Linux, Seatbelt on macOS, applied in the child before ``exec``.

``support.detect`` finds what the machine offers; the policy turns each bash decision into a ``SandboxGrant``
(``grant``); ``command.prepare`` builds the confined argv and environment the bash tool runs (``child_env`` scrubs
the environment and switches off git's command hooks for commands that run without asking); ``launcher`` is the
small program that confines itself and then executes the command.
"""

from engine.sandbox.grant import Confinement, SandboxGrant
from engine.sandbox.support import SandboxSupport, describe, detect, no_sandbox_notice

__all__ = ["Confinement", "SandboxGrant", "SandboxSupport", "describe", "detect", "no_sandbox_notice"]
