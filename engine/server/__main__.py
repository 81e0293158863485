"""``python -m engine.server --cwd DIR [--mode M] [--model NAME] [--trust] [--resume ID | --continue]``: the engine
process the TUI starts. With ``--resume`` / ``--continue`` it sends that session's history before it has loaded
(``engine.server.opening``); the TUI still sends the ``/resume`` that opens it.

Speaks ``engine.protocol`` on stdin/stdout; logs and errors go to stderr. Exits when stdin ends or on ``Shutdown``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from pathlib import Path

# Start-up makes a great many objects that all live as long as the process (modules, classes, the configuration):
# no collection passes over them while they are made. The host freezes them and switches collection back on once
# the engine has started (``EngineOptions.freeze_heap``).
gc.disable()

# The engine runs on asyncio. The HTTP stack under the model SDK imports trio when it is installed, only to support
# trio event loops (a twentieth of a second at start-up): in this process it is treated as not installed.
sys.modules.setdefault("trio", None)  # type: ignore[arg-type]

from engine.server.host import EngineOptions
from engine.server.opening import LATEST
from engine.server.stdio import serve_stdio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.server", description=__doc__)
    parser.add_argument("--cwd", required=True, help="the workspace root")
    parser.add_argument("--mode", help="the permission mode to start in")
    parser.add_argument("--model", help="the model (overrides the configuration)")
    parser.add_argument("--trust", action="store_true", help="trust the folder's own config for this run")
    opening = parser.add_mutually_exclusive_group()
    opening.add_argument("--resume", metavar="ID", help="the session the front end opens with: send its history first")
    opening.add_argument("--continue", dest="cont", action="store_true", help="the same for the latest session")
    args = parser.parse_args(argv)
    options = EngineOptions(
        workspace=Path(args.cwd), mode=args.mode, model=args.model, trust=args.trust, freeze_heap=True,
        opening=LATEST if args.cont else args.resume,
    )
    return asyncio.run(serve_stdio(options))


if __name__ == "__main__":
    sys.exit(main())
