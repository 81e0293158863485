"""What the undo capture costs (issue 28, SPEC 7): the time it adds to a bash command on workspaces of 10, 20,000 and
100,000 small files (median of 20 commands each: one that changes a file, one that changes nothing), printed beside
the 10-file figure (target: at most 15 ms added at 20,000 files); and the first capture's time and memory for
20,000 files / 200 MB (it runs in the background: the prompt never waits for it).

The added time is what the capture does around the command: ``mark`` (take the events since the last call),
``collect`` (wait for the command's events, read and store what changed) and the undo rows written, measured
around a real ``sh -c`` command. Workspaces are folders of 100 files each.

Run: python benchmarks/capture.py [--runs 20] [--sizes 10,20000,100000]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from engine.capture.tool_capture import ToolCapture
from engine.config.schema import UndoConfig
from engine.storage.db import Database, database_path
from engine.storage.redact import Redactor
from engine.storage.store import Store

TARGET_MS_AT_20K = 15.0


def make_workspace(files: int, size: int) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"capture-{files}-"))
    chunk = (b"x" * 63 + b"\n") * (size // 64 + 1)
    for index in range(files):
        folder = root / f"d{index // 100:04d}"
        if index % 100 == 0:
            folder.mkdir()
        (folder / f"f{index:06d}.txt").write_bytes(b"%d\n" % index + chunk[: max(0, size - 8)])
    return root


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_capture(files: int, size: int) -> None:
    root = make_workspace(files, size)
    try:
        rss_before = rss_mb()
        tool = ToolCapture(root, UndoConfig(), lambda: None)  # type: ignore[arg-type,return-value]
        started = time.perf_counter()
        tool.start()
        returned = time.perf_counter() - started
        capture = tool.wait_built()
        assert capture is not None
        capture.wait_ready(None)
        total = time.perf_counter() - started
        stored = sum(p.stat().st_size for p in (root / ".coder" / "undo" / "objects").rglob("*") if p.is_file())
        print(f"first capture  {files:>7} files / {files * size / 1e6:.0f} MB: {total:6.2f} s in the background "
              f"(start returned in {returned * 1000:.1f} ms), peak RSS +{rss_mb() - rss_before:.0f} MB, "
              f"{len(capture.index)} paths indexed, {stored / 1e6:.0f} MB stored")
        tool.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def per_command(files: int, runs: int) -> tuple[float, float]:
    """Median ms the capture adds to a command that changes one file, and to one that changes nothing."""
    root = make_workspace(files, 64)
    store = Store(Database.open(database_path(root)), redactor=Redactor({}))
    journal = store.undo_journal(store.create_session(model="m", mode="yolo"), root, max_turns=runs * 2 + 5)
    tool = ToolCapture(root, UndoConfig(), lambda: journal)
    capture = tool.wait_built()
    assert capture is not None
    capture.wait_ready(None)
    figures = []
    try:
        for command in ("echo {i} > d0000/f000000.txt", "true"):
            samples = []
            for i in range(runs + 2):
                journal.begin_turn(f"t{command[:4]}{i}", "bench")
                started = time.perf_counter()
                mark = capture.mark()
                marked = time.perf_counter()
                subprocess.run(["sh", "-c", command.format(i=i)], cwd=root, check=True)
                ran = time.perf_counter()
                journal.record_captured(capture.collect(mark))
                done = time.perf_counter()
                journal.end_turn()
                if i >= 2:  # the first calls warm the caches
                    samples.append((marked - started) + (done - ran))
            figures.append(statistics.median(samples) * 1000)
    finally:
        tool.close()
        store.close()
        shutil.rmtree(root, ignore_errors=True)
    return figures[0], figures[1]


def main(runs: int, sizes: list[int]) -> None:
    first_capture(20_000, 10_000)
    base: tuple[float, float] | None = None
    for files in sizes:
        changed, unchanged = per_command(files, runs)
        base = base or (changed, unchanged)
        target = f"   (target <= {TARGET_MS_AT_20K:.0f} ms)" if files == 20_000 else ""
        print(f"per command    {files:>7} files: +{changed:6.2f} ms changing a file (10 files: +{base[0]:.2f}), "
              f"+{unchanged:6.2f} ms changing nothing (10 files: +{base[1]:.2f}){target}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sizes", default="10,20000,100000")
    arguments = parser.parse_args()
    main(arguments.runs, [int(size) for size in arguments.sizes.split(",")])
