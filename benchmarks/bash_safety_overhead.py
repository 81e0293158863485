"""What the bash safety costs per call (issue 11): the policy's analysis of a command line (it runs on every bash
call, so it must stay well under a millisecond: parse, stats, no subprocess) and a trivial command run unsandboxed,
unasked (Landlock, scrubbed environment, git settings) and approved. Prints medians; on a loaded machine the
sandboxed figures are mostly the launcher interpreter's start waiting for a core.

Run: python benchmarks/bash_safety_overhead.py [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from engine.policy import analyse
from engine.sandbox import Confinement, SandboxGrant, detect
from engine.tools.bash import run_command

LINES = (
    "git status",
    "cat README.md | head -20 && grep -rn TODO src",
    "find . -name '*.py' | xargs wc -l",
    "export GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch ../x'\"; git status",
    "cd src && cat ../../out/secret.txt",
)


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.2f} ms"


async def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp())
    (root / "src").mkdir()
    print(f"sandbox: {detect()}")
    for line in LINES:
        analyse(line, root)
        samples = []
        for _ in range(runs * 10):
            started = time.perf_counter()
            analyse(line, root)
            samples.append(time.perf_counter() - started)
        print(f"analysis  {_median_ms(samples):>10}  {line}")
    grants = {"unsandboxed": None, "unasked": SandboxGrant(Confinement.UNASKED),
              "approved": SandboxGrant(Confinement.APPROVED)}  # fmt: skip
    for label, grant in grants.items():
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            await run_command("true", root, 10, 1000, sandbox=grant)
            samples.append(time.perf_counter() - started)
        print(f"bash true {_median_ms(samples):>10}  {label}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    asyncio.run(main(parser.parse_args().runs))
