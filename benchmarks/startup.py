"""Start-up time of the full-screen app: from launch to the prompt accepting keys, in a real pseudo-terminal.

Keys are typed ahead the instant the process starts; the clock stops when the app has drawn them in the prompt, so
the figure covers interpreter start, imports, the first frame and the first keys handled. Median of several runs,
printed beside the target (and beside a bare Textual app with a TextArea, for scale). No asserts: it measures.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pty_clock import TYPED_MARKER, python_argv, time_until_shown  # noqa: E402

TARGET_S = 0.35

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        (workspace / "README.md").write_text("# demo\n")
        for name, script in (("bare Textual app (TextArea)", BARE_TEXTUAL), ("coder-tui", CODER_TUI)):
            argv = python_argv("-c", script, str(workspace))
            time_until_shown(argv, cwd=workspace, markers=[TYPED_MARKER])  # warm the file cache and .pyc files
            runs = [time_until_shown(argv, cwd=workspace, markers=[TYPED_MARKER]) for _ in range(args.runs)]
            print(f"{name:<30} median {statistics.median(runs):.3f} s  "
                  f"(min {min(runs):.3f}, max {max(runs):.3f}, {args.runs} runs)")
    print(f"{'target (coder-tui)':<30} <= {TARGET_S:.2f} s")


if __name__ == "__main__":
    main()
