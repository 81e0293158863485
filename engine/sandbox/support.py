"""Which sandbox this machine offers (SPEC 20), found once per process, and the sentence `/permissions` shows."""

from __future__ import annotations

import functools
import platform
from typing import Literal

from engine.record import record
from engine.sandbox import landlock, seatbelt

# Landlock rules for TCP exist from ABI 4 on.
TCP_RULES_ABI = 4

SandboxKind = Literal["landlock", "seatbelt", "none"]


@record
class SandboxSupport:
    kind: SandboxKind
    abi: int = 0

    @property
    def available(self) -> bool:
        return self.kind != "none"

    @property
    def blocks_network(self) -> bool:
        return self.kind == "seatbelt" or (self.kind == "landlock" and self.abi >= TCP_RULES_ABI)


@functools.cache
def detect() -> SandboxSupport:
    system = platform.system()
    if system == "Linux":
        abi = landlock.abi_version()
        return SandboxSupport("landlock", abi) if abi >= 1 else SandboxSupport("none")
    if system == "Darwin" and seatbelt.available():
        return SandboxSupport("seatbelt")
    return SandboxSupport("none")


def describe(support: SandboxSupport) -> str:
    """One line for `/permissions` and `/status`: the sandbox in force and what it allows."""
    if not support.available:
        return (
            "none available here: bash runs unconfined, so every bash command asks first, read-only ones included "
            "(yolo asks nothing)"
        )
    name = f"landlock (ABI {support.abi})" if support.kind == "landlock" else "seatbelt (sandbox-exec)"
    network = "network off in plan" if support.blocks_network else "network not restricted (kernel too old)"
    return (
        f"{name}: commands that run unasked write only to a private temp folder; approved ones also in the "
        f"workspace (not .coder/; .git/ writes ask); {network}; yolo and ! run unsandboxed"
    )


NO_SANDBOX_NOTICE = (
    "no bash sandbox is available on this system ({system}): every bash command will ask first, read-only ones "
    "included, until you choose yolo"
)


def no_sandbox_notice() -> str:
    return NO_SANDBOX_NOTICE.format(system=f"{platform.system()} {platform.release()}".strip())
