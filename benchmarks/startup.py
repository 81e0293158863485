"""Start-up time of the full-screen app: from launch to the prompt accepting keys, in a real pseudo-terminal.

Keys are typed ahead the instant the process starts; the clock stops when the app has drawn them in the prompt, so
the figure covers interpreter start, imports, the first frame and the first keys handled. Median of several runs,
printed beside the target (and beside a bare Textual app with a TextArea, for scale). No asserts: it measures.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

TARGET_S = 0.35
MARKER = b"ZQX"
ROOT = Path(__file__).resolve().parent.parent

CODER_TUI = """
import sys
from pathlib import Path
from coder_tui.app import run_tui
sys.exit(run_tui(workspace=Path(sys.argv[1])))
"""

BARE_TEXTUAL = """
from textual.app import App
from textual.widgets import TextArea
class Bare(App):
    def compose(self):
        yield TextArea()
Bare().run()
"""


def time_to_keys(script: str, workspace: Path, timeout: float = 15.0) -> float:
    """Seconds from spawning ``script`` until the typed marker shows on its screen."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO  # the pty must not echo the typed marker itself
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", "PYTHONPATH": str(ROOT)}
    env.pop("TEXTUAL", None)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(workspace)],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=workspace, start_new_session=True,
    )
    os.close(slave)
    os.write(master, MARKER)
    seen = b""
    elapsed = float("nan")
    try:
        while time.perf_counter() - started < timeout:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
            if MARKER in seen:
                elapsed = time.perf_counter() - started
                break
    finally:
        process.kill()
        process.wait()
        os.close(master)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        (workspace / "README.md").write_text("# demo\n")
        for name, script in (("bare Textual app (TextArea)", BARE_TEXTUAL), ("coder-tui", CODER_TUI)):
            time_to_keys(script, workspace)  # warm the file cache and .pyc files
            runs = [time_to_keys(script, workspace) for _ in range(args.runs)]
            print(f"{name:<30} median {statistics.median(runs):.3f} s  "
                  f"(min {min(runs):.3f}, max {max(runs):.3f}, {args.runs} runs)")
    print(f"{'target (coder-tui)':<30} <= {TARGET_S:.2f} s")


if __name__ == "__main__":
    main()
