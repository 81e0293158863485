"""``coder-tui-demo-server``: the test suite's scripted OpenAI-compatible server in demo mode, to try coder-tui with
no model at all (``!tool NAME {json}`` in a message gets that tool call back; anything else is echoed).

The server lives in the source checkout (``tests/support/scripted_server.py``); an editable install
(``pip install -e .``) finds it from any folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[2]


def main() -> int:
    if not (_CHECKOUT / "tests" / "support" / "scripted_server.py").is_file():
        print(
            "coder-tui-demo-server: the demo server ships with the source checkout (tests/support/); "
            "install coder-tui from a clone with pip install -e .",
            file=sys.stderr,
        )
        return 2
    sys.path.insert(0, str(_CHECKOUT))
    from tests.support.scripted_server import main as serve

    return serve(prog="coder-tui-demo-server")


if __name__ == "__main__":
    sys.exit(main())
