"""The added latency of confining one command (issue 26, SPEC 13): `true` run through the bash tool's
``run_command`` unconfined (yolo and `!`: the launcher only ends the process tree), confined as an unasked command
(Landlock reads and writes, the seccomp filter, the allow-listed environment) and as an approved one, and `bash -c
true` started directly as before the launcher existed. Prints the median of each beside the target.

Target: confining adds < 10 ms over the unconfined run. On a loaded machine every figure is mostly an interpreter
waiting for a core; the difference between the lines is what confinement costs.

Run: python benchmarks/confine.py [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.sandbox.support import feature_line
from engine.tools.bash import run_command

TARGET_MS = 10.0


async def _direct(root: Path) -> None:
    process = await asyncio.create_subprocess_exec("/bin/bash", "-c", "true", cwd=root, start_new_session=True)
    await process.wait()


async def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp())
    (root / "README.md").write_text("# x\n")
    print(feature_line(detect()))
    figures = {
        "bash -c true, started directly": lambda: _direct(root),
        "unconfined (yolo, !: launcher only)": lambda: run_command("true", root, 30, 10_000),
        "confined, unasked": lambda: run_command(
            "true", root, 30, 10_000, sandbox=SandboxGrant(Confinement.UNASKED, network=False)
        ),
        "confined, approved (plan)": lambda: run_command(
            "true", root, 30, 10_000, sandbox=SandboxGrant(Confinement.APPROVED, network=False)
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in figures}
    for call in figures.values():
        await call()  # warm the page cache
    # Interleaved, so that a change of load on a shared machine weighs on every line alike.
    for _ in range(runs):
        for name, call in figures.items():
            started = time.perf_counter()
            await call()
            samples[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    for name, median in medians.items():
        print(f"{name:40} median of {runs}: {median:7.2f} ms")
    unconfined = medians["unconfined (yolo, !: launcher only)"]
    for name in ("confined, unasked", "confined, approved (plan)"):
        added = medians[name] - unconfined
        verdict = "ok" if added < TARGET_MS else "OVER"
        print(f"added by confinement ({name}): {added:6.2f} ms   target < {TARGET_MS:.0f} ms   {verdict}")
    added_launcher = unconfined - medians["bash -c true, started directly"]
    print(f"added by the launcher itself (tree ending): {added_launcher:6.2f} ms   (no target; see SPEC 13)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
