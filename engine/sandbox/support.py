"""Which sandbox this machine offers (SPEC 13, 20), found once per process, and the lines `/status` and
`/permissions` show: each feature, in force or missing, and what asks instead where one is missing."""

from __future__ import annotations

import functools
import platform
from typing import Literal

from engine.record import record
from engine.sandbox import landlock, seatbelt, seccomp

# Landlock rules for TCP exist from ABI 4 on.
TCP_RULES_ABI = 4
# Signal and abstract-socket scopes from ABI 6 on.
SCOPES_ABI = 6

SandboxKind = Literal["landlock", "seatbelt", "none"]


@record
class SandboxSupport:
    kind: SandboxKind
    abi: int = 0
    # A seccomp filter can leave no socket to anything: no family but unix, no connect, no sendto an address (Linux).
    seccomp: bool = False

    @property
    def available(self) -> bool:
        return self.kind != "none"

    @property
    def blocks_network(self) -> bool:
        """All of the network can be taken away: TCP, UDP and raw, v4 and v6."""
        return self.kind == "seatbelt" or (self.kind == "landlock" and self.seccomp)

    @property
    def confines_unasked(self) -> bool:
        """Everything SPEC 13 asks of a command that runs unasked can be enforced here (reads are confined by every
        sandbox: Landlock from ABI 1, Seatbelt)."""
        return self.available and self.blocks_network

    @property
    def ends_trees(self) -> bool:
        """The launcher can end every process a command starts, those that left its group included (Linux)."""
        return platform.system() == "Linux"


@functools.cache
def detect() -> SandboxSupport:
    system = platform.system()
    if system == "Linux":
        abi = landlock.abi_version()
        filters = seccomp.supported()
        return SandboxSupport("landlock", abi, filters) if abi >= 1 else SandboxSupport("none", 0, filters)
    if system == "Darwin" and seatbelt.available():
        return SandboxSupport("seatbelt")
    return SandboxSupport("none")


def feature_line(support: SandboxSupport) -> str:
    """One short line: which kernel features are in force (the tests print it in CI, the confinement benchmark too)."""
    landlock_on = support.kind == "landlock"
    features = (
        ("landlock reads", support.available),
        ("landlock writes", support.available),
        ("landlock tcp", support.kind == "seatbelt" or (landlock_on and support.abi >= TCP_RULES_ABI)),
        ("seccomp network", support.blocks_network),
        ("landlock scopes", landlock_on and support.abi >= SCOPES_ABI),
        ("process trees", support.ends_trees),
    )
    name = f"landlock ABI {support.abi}" if landlock_on else support.kind
    marks = ", ".join(f"{feature} {'yes' if on else 'no'}" for feature, on in features)
    return f"sandbox: {name}; {marks}"


def describe(support: SandboxSupport) -> str:
    """One line for `/permissions` and `/status`: the sandbox in force and what it allows."""
    if not support.available:
        return (
            "none available here: bash runs unconfined, so every bash command asks first, read-only ones included "
            "(yolo asks nothing)"
        )
    if support.kind == "landlock":
        name = f"landlock (ABI {support.abi})" + (" + seccomp" if support.seccomp else "")
    else:
        name = "seatbelt (sandbox-exec)"
    if support.confines_unasked:
        unasked = (
            "commands that run unasked read only the workspace, system and toolchain folders, write only to a "
            "private temp folder, have no network and no secrets in their environment"
        )
    else:
        unasked = "no seccomp here, so the network cannot be taken away: read-only commands ask first"
    network = "approved commands have no network in plan" if support.blocks_network else (
        "approved commands in plan: TCP off, UDP not restricted" if support.abi >= TCP_RULES_ABI
        else "network not restricted (kernel too old)"
    )
    trees = "; everything a command starts ends with it" if support.ends_trees else ""
    return (
        f"{name}: {unasked}; approved ones also write in the workspace (not .coder/; .git/ writes ask) and lose "
        f"secret-looking variables; {network}{trees}; yolo and ! run unsandboxed"
    )


NO_SANDBOX_NOTICE = (
    "no bash sandbox is available on this system ({system}): every bash command will ask first, read-only ones "
    "included, until you choose yolo"
)


def no_sandbox_notice() -> str:
    return NO_SANDBOX_NOTICE.format(system=f"{platform.system()} {platform.release()}".strip())
