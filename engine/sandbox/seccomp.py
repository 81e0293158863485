"""A seccomp filter, through ctypes, that leaves a process no socket to anything outside itself (SPEC 20, "no network
means no socket to anything"): it cannot make a socket of any family but ``AF_UNIX``, cannot make a unix datagram
socket, cannot ``connect`` any socket, and cannot ``sendto`` an address. io_uring, which can make and connect sockets
without these system calls, is refused whole.

Why this shape: a filter sees the system call's number and its six arguments as numbers, never the memory they point
to, so it cannot read the address inside ``sendmsg``'s ``msghdr``. It does not need to. Every socket left is a unix
stream or seqpacket socket (from ``socket`` or ``socketpair``), and the kernel sends on those only to the connected
peer: a stream socket refuses a destination address (``EISCONN``/``EOPNOTSUPP``), a seqpacket socket ignores it. The
one way such a socket reaches a peer outside is ``connect``, refused for every family. A datagram socket, by
contrast, sends to any address given in ``sendmsg`` even when it came from ``socketpair``, so unix datagram sockets
are not made at all. ``sendto`` with an address is refused as well, which a reader can check without that argument.
So pipes, ``socketpair`` (stream, seqpacket) and ``send``/``sendmsg`` on them, passing descriptors included, keep
working; sockets inherited from outside cannot exist, since the bash tool closes every descriptor but 0, 1 and 2.

Landlock's TCP rules (ABI 4) cover TCP only, and its scopes (ABI 6) only abstract unix sockets: a UDP packet, a
netlink request or a datagram to a unix socket's path carries a secret as well. Seccomp filters are unprivileged once
``NO_NEW_PRIVS`` is set, on every kernel since 3.5, and inherited by everything the process starts. Stdlib only,
like ``landlock``: the launcher imports it in a bare ``python -S``. A system call from another architecture's table
(an x86_64 process using ``int 0x80``, the x32 ABI) is refused whole, so the numbers cannot be dodged. For commands
that run unasked the filter also refuses the calls that change a file's mode, owner, times and extended attributes,
which Landlock does not handle.
"""

from __future__ import annotations

import ctypes
import errno
import os

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
# BPF opcodes: load a word at an absolute offset, and it with a constant, jump if equal / greater or equal to a
# constant, return a constant.
_LD_ABS = 0x20
_AND = 0x54
_JEQ = 0x15
_JGE = 0x35
_RET = 0x06
# Offsets in struct seccomp_data: nr, arch, then args[6] from 16, 8 bytes each (low half first: little-endian).
_NR, _ARCH = 0, 4


def _arg(index: int, high: bool = False) -> int:
    return 16 + 8 * index + (4 if high else 0)


_AF_UNIX = 1
_SOCK_STREAM, _SOCK_SEQPACKET = 1, 5
_SOCK_TYPE_MASK = 0xF  # the rest of `type` is SOCK_NONBLOCK / SOCK_CLOEXEC
_X32_BIT = 0x40000000


class _Table:
    """One architecture's numbers: its AUDIT_ARCH_*, the socket calls, io_uring's calls and the calls that change a
    file's metadata."""

    def __init__(self, arch: int, socket: int, socketpair: int, connect: int, sendto: int, uring: tuple[int, ...],
                 metadata: tuple[int, ...]) -> None:  # fmt: skip
        self.arch, self.socket, self.socketpair, self.connect, self.sendto = arch, socket, socketpair, connect, sendto
        self.uring, self.metadata = uring, metadata


_URING = (425, 426, 427)
# The generic table: fchmod fchmodat fchownat fchown utimensat fchmodat2, the *xattr writers, setxattrat and
# removexattrat.
_GENERIC_METADATA = (52, 53, 54, 55, 88, 452, 5, 6, 7, 14, 15, 16, 463, 466)
_TABLES = {
    # chmod fchmod chown fchown lchown utime utimes futimesat fchownat fchmodat utimensat fchmodat2, the *xattr
    # writers, setxattrat and removexattrat.
    "x86_64": _Table(0xC000003E, 41, 53, 42, 44, _URING,
                     (90, 91, 92, 93, 94, 132, 235, 261, 260, 268, 280, 452, 188, 189, 190, 197, 198, 199, 463, 466)),
    "aarch64": _Table(0xC00000B7, 198, 199, 203, 206, _URING, _GENERIC_METADATA),
    "riscv64": _Table(0xC00000F3, 198, 199, 203, 206, _URING, _GENERIC_METADATA),
}  # fmt: skip


class SeccompError(OSError):
    """The filter could not be installed; the command must not run with the network instead."""


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Filter))]


def supported() -> bool:
    """Whether this machine's architecture has a filter here and the kernel has seccomp filters."""
    if os.uname().machine not in _TABLES:
        return False
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False


def program(*, metadata: bool = False) -> list[tuple[int, int, int, int]]:
    """The BPF instructions, as (code, jump-if-true, jump-if-false, constant). With ``metadata`` (commands that run
    unasked) the calls that change a file's mode, owner, times or extended attributes are refused too (Landlock
    does not handle them)."""
    table = _TABLES[os.uname().machine]
    refused = [*table.uring, table.connect, *(table.metadata if metadata else ())]
    # Jumps name labels (a str) or fall through (0); `_assemble` turns them into offsets.
    lines: list[object] = [
        (_LD_ABS, 0, 0, _ARCH),
        (_JEQ, 0, "refuse", table.arch),  # another architecture's system call table
        (_LD_ABS, 0, 0, _NR),
        (_JGE, "refuse", 0, _X32_BIT),  # x32
        *((_JEQ, "refuse", 0, nr) for nr in refused),
        (_JEQ, "socket", 0, table.socket),
        (_JEQ, "socketpair", 0, table.socketpair),
        (_JEQ, "sendto", 0, table.sendto),
        (_RET, 0, 0, _RET_ALLOW),
        "socket",
        (_LD_ABS, 0, 0, _arg(0)),
        (_JEQ, "unix type", 0, _AF_UNIX),
        (_RET, 0, 0, _RET_ERRNO | errno.EAFNOSUPPORT),
        "socketpair",
        (_LD_ABS, 0, 0, _arg(0)),
        (_JEQ, 0, "refuse", _AF_UNIX),
        "unix type",  # stream and seqpacket only: a datagram socket sends to any address sendmsg names
        (_LD_ABS, 0, 0, _arg(1)),
        (_AND, 0, 0, _SOCK_TYPE_MASK),
        (_JEQ, "allow", 0, _SOCK_STREAM),
        (_JEQ, "allow", "refuse", _SOCK_SEQPACKET),
        "sendto",  # only without an address: both halves of the pointer zero
        (_LD_ABS, 0, 0, _arg(4)),
        (_JEQ, 0, "refuse", 0),
        (_LD_ABS, 0, 0, _arg(4, high=True)),
        (_JEQ, "allow", "refuse", 0),
        "allow",
        (_RET, 0, 0, _RET_ALLOW),
        "refuse",
        (_RET, 0, 0, _RET_ERRNO | errno.EPERM),
    ]
    return _assemble(lines)


def _assemble(lines: list[object]) -> list[tuple[int, int, int, int]]:
    """Resolves label names in jumps to the offsets BPF wants (instructions to skip)."""
    labels: dict[str, int] = {}
    body: list[tuple[int, int | str, int | str, int]] = []
    for line in lines:
        if isinstance(line, str):
            labels[line] = len(body)
        else:
            body.append(line)  # type: ignore[arg-type]

    def offset(target: int | str, index: int) -> int:
        return labels[target] - index - 1 if isinstance(target, str) else target

    return [(code, offset(jt, i), offset(jf, i), k) for i, (code, jt, jf, k) in enumerate(body)]


def deny_network(*, metadata: bool = False) -> None:
    """Installs the filter on this process (and so on all it executes). Raises ``SeccompError`` on failure."""
    if os.uname().machine not in _TABLES:
        raise SeccompError(f"no seccomp filter for the {os.uname().machine} architecture")
    instructions = program(metadata=metadata)
    array = (_Filter * len(instructions))(*(_Filter(*ins) for ins in instructions))
    prog = _Program(len(instructions), array)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompError(ctypes.get_errno(), f"prctl(NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise SeccompError(ctypes.get_errno(), f"prctl(SECCOMP): {os.strerror(ctypes.get_errno())}")
