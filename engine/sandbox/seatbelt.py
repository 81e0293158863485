"""Seatbelt (`sandbox-exec`) on macOS: the profile that gives a command the same confinement Landlock gives on Linux.

Deprecated by Apple but still shipped and used by Codex and Chromium. The profile allows everything, then denies
every file write except under the writable folders and to the harmless devices, and in plan mode denies the network
too. With ``readable`` (commands that run unasked, auto-verify) every file read is denied but under those folders,
the system's own (``/System``, ``/Library``, the dyld cache) and a few devices; metadata stays readable so paths
resolve. Paths go in as `(subpath ...)` literals: quoted with backslashes and double quotes escaped, and real paths
(`/tmp` is `/private/tmp` on macOS), because Seatbelt matches the resolved path.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
_SYSTEM_READS = ("/System", "/Library", "/private/var/db/dyld", "/private/etc", "/usr", "/bin", "/sbin", "/dev")
_DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/stdout", "/dev/stderr")


def available() -> bool:
    return os.path.exists(SANDBOX_EXEC) or shutil.which("sandbox-exec") is not None


def profile(writable: Iterable[str], *, network: bool, readable: Iterable[str] | None = None) -> str:
    """The SBPL profile text: writes only under ``writable`` (and to a few devices); reads only under ``readable``
    (when given) and ``writable``; no network unless ``network``."""
    writable = list(writable)
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        "(allow file-write*",
        *(f"    (subpath {_quote(os.path.realpath(folder))})" for folder in writable),
        *(f"    (literal {_quote(device)})" for device in _DEVICES),
        "    (regex #\"^/dev/fd/[0-9]+$\"))",
    ]
    if readable is not None:
        folders = [*readable, *writable, *_SYSTEM_READS]
        lines += [
            "(deny file-read*)",
            "(allow file-read-metadata)",
            '(allow file-read* (literal "/")',
            *(f"    (subpath {_quote(os.path.realpath(folder))})" for folder in folders),
            "    )",
        ]
    if not network:
        lines += ["(deny network-outbound)", "(deny network-inbound)"]  # unix sockets included: they lead out too
    return "\n".join(lines) + "\n"


def argv(
    writable: Iterable[str], network: bool, command: list[str], *, readable: Iterable[str] | None = None
) -> list[str]:
    return [SANDBOX_EXEC, "-p", profile(writable, network=network, readable=readable), *command]


def _quote(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
