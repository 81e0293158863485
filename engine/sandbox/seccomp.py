"""A seccomp filter, through ctypes, that leaves a process no network at all: ``socket()`` is refused for every
address family but ``AF_UNIX`` (so UDP, raw and TCP sockets, IPv4 and IPv6, netlink and packet sockets cannot even be
made), and io_uring, which can make sockets without the ``socket`` system call, is refused whole.

Landlock's TCP rules (ABI 4) cover TCP only: a UDP packet to a listener or a DNS query carries a secret as well as a
TCP connection does. Seccomp filters are unprivileged once ``NO_NEW_PRIVS`` is set, on every kernel since 3.5, and
inherited by everything the process starts. Stdlib only, like ``landlock``: the launcher imports it in a bare
``python -S``. A system call from another architecture's table (an x86_64 process using ``int 0x80``, the x32 ABI)
is refused whole, so the socket number cannot be dodged. For commands that run unasked the filter also refuses the
calls that change a file's mode, owner, times and extended attributes, which Landlock does not handle, and
``connect``: the unix sockets left can still reach a local daemon (Docker's, an SSH agent, a proxy) that reaches
further. Unconnected sockets (``socketpair``) still work.
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
# BPF opcodes: load a word at an absolute offset, jump if equal / greater or equal to a constant, return a constant.
_LD_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_RET = 0x06
# Offsets in struct seccomp_data: nr, arch, then args[6] from 16 (the low half of args[0] on little-endian machines).
_NR, _ARCH, _ARG0 = 0, 4, 16
_AF_UNIX = 1
_X32_BIT = 0x40000000
# machine -> (AUDIT_ARCH_*, socket, the io_uring calls, the calls refused to unasked commands: connect (the only
# sockets left are unix ones, and a unix socket can lead out: a Docker daemon, an SSH agent, a proxy), and those
# that change a file's metadata).
_TABLES: dict[str, tuple[int, int, tuple[int, ...], tuple[int, ...]]] = {
    # connect; chmod fchmod chown fchown lchown utime utimes futimesat fchownat fchmodat utimensat fchmodat2, the
    # *xattr writers and setxattrat / removexattrat.
    "x86_64": (0xC000003E, 41, (425, 426, 427),
               (42, 90, 91, 92, 93, 94, 132, 235, 261, 260, 268, 280, 452, 188, 189, 190, 197, 198, 199, 463, 466)),
    # The generic table: connect; fchmod fchmodat fchownat fchown utimensat fchmodat2, the *xattr writers, *xattrat.
    "aarch64": (0xC00000B7, 198, (425, 426, 427), (203, 52, 53, 54, 55, 88, 452, 5, 6, 7, 14, 15, 16, 463, 466)),
    "riscv64": (0xC00000F3, 198, (425, 426, 427), (203, 52, 53, 54, 55, 88, 452, 5, 6, 7, 14, 15, 16, 463, 466)),
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
    unasked) ``connect`` is refused too, and the calls that change a file's mode, owner, times or extended
    attributes (Landlock does not handle them)."""
    arch, socket_nr, uring, metadata_calls = _TABLES[os.uname().machine]
    refuse = _RET_ERRNO | errno.EPERM
    refused = [*uring, *(metadata_calls if metadata else ())]
    head = [
        (_LD_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, refuse),  # another architecture's system call table
        (_LD_ABS, 0, 0, _NR),
        (_JGE, 0, 1, _X32_BIT),
        (_RET, 0, 0, refuse),  # x32
    ]
    # One test per refused call, jumping to the shared "refuse" at the end; then the socket family check.
    count = len(refused)
    tests = [(_JEQ, count - index + 4, 0, nr) for index, nr in enumerate(refused)]
    tail = [
        (_JEQ, 0, 3, socket_nr),
        (_LD_ABS, 0, 0, _ARG0),
        (_JEQ, 1, 0, _AF_UNIX),
        (_RET, 0, 0, _RET_ERRNO | errno.EAFNOSUPPORT),
        (_RET, 0, 0, _RET_ALLOW),
        (_RET, 0, 0, refuse),
    ]
    return [*head, *tests, *tail]


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
