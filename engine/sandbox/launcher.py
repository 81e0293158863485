"""Applies the sandbox to itself, then becomes the command: ``python -E -s -S launcher.py [options] -- argv...``.

Run by the bash tool as a separate program rather than as a ``preexec_fn``: between ``fork`` and ``exec`` of a
threaded process (the TUI has threads) only async-signal-safe work is allowed, and ctypes is not. Started with
``-E -s -S`` it reads no environment variable meant for Python, no site-packages and no user code, and imports
only the standard library and its sibling ``landlock`` module. If the sandbox cannot be set up, it exits with
status 126 and says why on stderr: the command never runs unconfined by accident.

Options: ``--write DIR`` (repeatable; folders where writing is allowed), ``--file PATH`` (single files such as
``/dev/null``), ``--no-tcp`` (refuse TCP connect and bind).
"""

from __future__ import annotations

import os
import sys

EXIT_SANDBOX_FAILED = 126


def main(argv: list[str]) -> int:
    folders: list[str] = []
    files: list[str] = []
    block_tcp = False
    index = 0
    while index < len(argv) and argv[index] != "--":
        option = argv[index]
        if option in ("--write", "--file") and index + 1 < len(argv):
            (folders if option == "--write" else files).append(argv[index + 1])
            index += 2
        elif option == "--no-tcp":
            block_tcp = True
            index += 1
        else:
            sys.stderr.write(f"sandbox launcher: unknown option {option!r}\n")
            return EXIT_SANDBOX_FAILED
    command = argv[index + 1 :]
    if not command:
        sys.stderr.write("sandbox launcher: no command after --\n")
        return EXIT_SANDBOX_FAILED
    try:
        from landlock import restrict  # the sibling module: this file runs as a script

        restrict(folders, files, block_tcp=block_tcp)
        os.execv(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"sandbox: could not confine the command, so it did not run: {exc}\n")
        return EXIT_SANDBOX_FAILED
    return EXIT_SANDBOX_FAILED  # not reached: execv does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
