"""Starts a command confined, stays to end everything it started: ``python -E -s -S launcher.py [options] -- argv``.

Run by the bash tool as a separate program rather than as a ``preexec_fn``: between ``fork`` and ``exec`` of a
threaded process (the TUI has threads) only async-signal-safe work is allowed, and ctypes is not. Started with
``-E -s -S`` it reads no environment variable meant for Python, no site-packages and no user code, and imports only
the standard library and its sibling modules ``landlock`` and ``seccomp``.

The launcher is a child subreaper (``PR_SET_CHILD_SUBREAPER``): whatever the command starts and leaves behind, even a
process that left the group with ``setsid``, becomes the launcher's child instead of init's. It forks; the child
confines itself (Landlock, then the seccomp filter) and executes the command; the launcher waits, and when the
command ends, or the launcher gets SIGTERM, SIGINT or SIGHUP (the bash tool's stop, Esc, a signal to coder), or its
parent dies (``PR_SET_PDEATHSIG``), it ends every descendant: SIGTERM, a short grace, then SIGKILL, until none is
left. It exits with the command's status (or dies of the command's signal). If the sandbox cannot be set up, the
command does not run: exit status 126 and the reason on stderr.

Options: ``--write DIR`` (repeatable; folders where writing is allowed), ``--file PATH`` (single writable files such
as ``/dev/null``), ``--read DIR`` / ``--read-file PATH`` (with ``--confine-reads``: the only places reading and
executing is allowed, besides the writable ones), ``--no-net`` (no TCP through Landlock where the kernel has its
rules, and through seccomp no socket to anything: no socket but unix stream and seqpacket ones, no ``connect``, no
``sendto`` an address), ``--no-metadata`` (with ``--no-net``: no chmod, chown, utimes or xattr changes either, which
Landlock does not handle), ``--unconfined`` (only the process-tree ending: yolo and ``!``).
"""

from __future__ import annotations

import os
import _signal as signal  # the C module: `signal` would import enum, a few ms on every command
import sys
import time

EXIT_SANDBOX_FAILED = 126
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
# After the command ends or a stop signal: how long descendants get to exit on SIGTERM before SIGKILL.
GRACE_S = 0.3
_POLL_S = 0.01


class _Options:
    def __init__(self) -> None:
        self.folders: list[str] = []
        self.files: list[str] = []
        self.reads: list[str] = []
        self.read_files: list[str] = []
        self.confine_reads = False
        self.no_net = False
        self.no_metadata = False
        self.unconfined = False
        self.command: list[str] = []


def parse(argv: list[str]) -> _Options:
    options = _Options()
    lists = {"--write": options.folders, "--file": options.files, "--read": options.reads,
             "--read-file": options.read_files}  # fmt: skip
    flags = {"--confine-reads": "confine_reads", "--no-net": "no_net", "--no-metadata": "no_metadata",
             "--unconfined": "unconfined"}  # fmt: skip
    index = 0
    while index < len(argv) and argv[index] != "--":
        option = argv[index]
        if option in lists and index + 1 < len(argv):
            lists[option].append(argv[index + 1])
            index += 2
        elif option in flags:
            setattr(options, flags[option], True)
            index += 1
        else:
            raise ValueError(f"unknown option {option!r}")
    options.command = argv[index + 1 :]
    if not options.command:
        raise ValueError("no command after --")
    return options


class _Stop(Exception):
    """A stop signal arrived while waiting for the command."""


def _on_signal(signum: int, frame: object) -> None:
    raise _Stop(signum)


def main(argv: list[str]) -> int:
    try:
        options = parse(argv)
    except ValueError as exc:
        sys.stderr.write(f"sandbox launcher: {exc}\n")
        return EXIT_SANDBOX_FAILED
    parent = os.getppid()
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    for signum in stops:
        signal.signal(signum, _on_signal)
    if os.getppid() != parent:  # the parent died before the death signal was armed
        return 128 + signal.SIGTERM
    try:
        pid = os.fork()
    except _Stop:
        return 128 + signal.SIGTERM
    if pid == 0:
        for signum in stops:
            signal.signal(signum, signal.SIG_DFL)
        os._exit(_become_command(options))
    status = None
    try:
        status = _wait_for(pid)
    except _Stop:
        pass
    for signum in stops:
        signal.signal(signum, signal.SIG_IGN)
    end_descendants()
    if status is None:
        return 128 + signal.SIGTERM
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else EXIT_SANDBOX_FAILED


def _become_command(options: _Options) -> int:
    """In the child: confine, then execute the command (never returns on success)."""
    try:
        if not options.unconfined:
            from landlock import restrict  # the sibling modules: this file runs as a script
            from seccomp import deny_network

            reads = options.reads if options.confine_reads else None
            restrict(options.folders, options.files, block_tcp=options.no_net, reads=reads,
                     read_files=options.read_files)  # fmt: skip
            if options.no_net:
                deny_network(metadata=options.no_metadata)
        os.execv(options.command[0], options.command)
    except OSError as exc:
        sys.stderr.write(f"sandbox: could not confine the command, so it did not run: {exc}\n")
        sys.stderr.flush()
    return EXIT_SANDBOX_FAILED


def _wait_for(pid: int) -> int:
    """Reaps children (the command, and orphans that became ours) until the command has ended; its status."""
    while True:
        reaped, status = os.waitpid(-1, 0)
        if reaped == pid:
            return status


def end_descendants(grace: float = GRACE_S) -> None:
    """SIGTERM to every descendant, then SIGKILL after ``grace`` to those left, until none is left."""
    deadline = time.monotonic() + grace
    signum = signal.SIGTERM
    signalled: set[int] = set()
    while True:
        _reap()
        living = descendants(os.getpid())
        if not living:
            return
        if time.monotonic() >= deadline:
            signum = signal.SIGKILL
        for pid in living:
            if signum == signal.SIGKILL or pid not in signalled:
                _kill(pid, signum)
                signalled.add(pid)
        time.sleep(_POLL_S)


def descendants(root: int) -> list[int]:
    """Every living (not zombie) process below ``root``, from ``/proc``'s parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        if fields[0] not in (b"Z", b"X"):
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    queue = [root]
    while queue:
        for child in children.get(queue.pop(), ()):
            found.append(child)
            queue.append(child)
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except OSError:
        pass


def _prctl(option: int, value: int) -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
