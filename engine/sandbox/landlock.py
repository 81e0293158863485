"""Landlock (Linux 5.13+) through ctypes: the kernel's unprivileged sandbox, applied by a process to itself.

Why ctypes: Landlock is three system calls and two small structs, stable across kernels by design (a version
number, the ABI, says which rights exist). The maintained Python binding (`landlock` on PyPI) covers file rights
only, not the TCP rules (ABI 4) nor the scopes of ABI 6, and would be one more wheel to trust in the one place that
must not fail open. This module is stdlib only on purpose, and imports little: the launcher imports it in a bare
``python -S`` before every sandboxed command.

The ruleset handles every right that changes the file system (writing, truncating, creating, removing, renaming
across folders) and grants them back under the folders given. With ``reads`` it handles reading and executing too
(SPEC 13: a command that runs unasked reads only the workspace, the system folders and its toolchains), granted back
under the readable folders. With ``block_tcp`` every TCP bind and connect is refused (ABI 4+; UDP and raw sockets are
the seccomp filter's part, ``engine.sandbox.seccomp``). From ABI 6 on, signals and abstract unix sockets are scoped
to the sandbox, so a command cannot signal or reach the processes outside it.
"""

from __future__ import annotations

import ctypes
import os
import stat

_SYSCALLS = {"create_ruleset": 444, "add_rule": 445, "restrict_self": 446}  # same on x86_64 and the generic table
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

_WRITE_V1 = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK
    | MAKE_SYM
)  # fmt: skip
READS = EXECUTE | READ_FILE | READ_DIR
# Rights that make sense on a single file (a rule on a file with folder rights is refused by the kernel).
_FILE_RIGHTS = EXECUTE | READ_FILE | WRITE_FILE | TRUNCATE


class LandlockError(OSError):
    """The sandbox could not be set up; the command must not run unconfined instead."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]  # fmt: skip


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The Landlock ABI of the running kernel; 0 when Landlock is missing or disabled (or not Linux)."""
    system = os.uname()
    if system.sysname != "Linux" or system.machine not in ("x86_64", "aarch64", "riscv64", "loongarch64"):
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(_SYSCALLS["create_ruleset"], None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(0, int(version))


def handled_writes(abi: int) -> int:
    rights = _WRITE_V1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


def restrict(
    folders: list[str],
    files: list[str],
    *,
    block_tcp: bool,
    reads: list[str] | None = None,
    read_files: list[str] = (),  # type: ignore[assignment]
) -> int:
    """Confines this process (and what it executes) to writing only under ``folders`` and to ``files``; with
    ``reads`` (a list, even empty) also to reading and executing only under ``reads``, ``read_files`` and the
    writable places.

    Returns the ABI used. Raises ``LandlockError`` when the kernel has no Landlock, or refuses a step. Paths that do
    not exist are skipped (a folder from the config that is gone grants nothing).
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockError("Landlock is not available in this kernel")
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    writes = handled_writes(abi)
    handled = writes | (READS if reads is not None else 0)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    if block_tcp and abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = libc.syscall(_SYSCALLS["create_ruleset"], ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        rules = [
            *((f, handled) for f in folders),
            *((f, handled & _FILE_RIGHTS) for f in files),
            *((f, READS) for f in reads or ()),
            *((f, READS & _FILE_RIGHTS) for f in read_files),
        ]
        for path, rights in rules:
            _add_path_rule(libc, int(ruleset), path, rights)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LandlockError(ctypes.get_errno(), f"prctl(NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}")
        if libc.syscall(_SYSCALLS["restrict_self"], ctypes.c_int(int(ruleset)), ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(int(ruleset))
    return abi


def _add_path_rule(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS  # a single file (or a device) gets the rights a file can have
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
        if libc.syscall(_SYSCALLS["add_rule"], ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule), ctypes.c_uint32(0)) != 0:  # fmt: skip
            raise LandlockError(ctypes.get_errno(), f"landlock_add_rule({path}): {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)

