"""``coder-tui`` with its engine in the UI's own interpreter (the in-memory transport the TUI tests use, through the
same protocol and codec), for weighing the single-process design against the real command:
``python benchmarks/pty_latency.py --only session --one-process`` runs both on the same streamed answer.

Run alone: python benchmarks/one_process.py --cwd FOLDER (the environment gives the model, as for ``coder-tui``).
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cwd", type=Path, default=Path.cwd())
    workspace = parser.parse_args().cwd.resolve()
    from coder_tui.cli import prepare_ui_process

    prepare_ui_process()  # as ``coder-tui`` does
    gc.disable()
    from coder_tui.app import run_tui
    from engine.server.host import EngineOptions
    from engine.server.memory import InMemoryEngine

    options = EngineOptions(workspace=workspace)
    return run_tui(workspace=workspace, engine=lambda: InMemoryEngine(options))  # type: ignore[arg-type,return-value]


if __name__ == "__main__":
    sys.exit(main())
