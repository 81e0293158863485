"""Unused snapshots are found when the suite runs in parallel worker processes too (pytest-xdist).

syrupy finds a snapshot that no test used (and deletes it under ``--snapshot-update``) only in a run of one process:
a worker sees only its own share of the tests. Here each worker hands the controller the snapshot files it used
and those it found unused; a file is unused when some worker found it unused, none used it and its test was not
skipped. The controller then fails the run as syrupy does, or deletes the file under ``--snapshot-update``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

WORKER_KEY = "snapshot_files"


@pytest.hookimpl(trylast=True)  # after syrupy's own, which makes the report
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    syrupy = getattr(config, "_syrupy", None)  # none under ``-p no:syrupy``
    if hasattr(config, "workerinput") and syrupy is not None:
        report = syrupy.report
        config.workeroutput[WORKER_KEY] = {  # type: ignore[attr-defined]
            "used": sorted(collection.location for collection in report.used),
            "unused": sorted(collection.location for collection in report.unused),
        }


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        config.pluginmanager.register(WorkersSnapshots(config), "workers-snapshots")


class WorkersSnapshots:
    """The controller's side: the workers' findings together."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.used: set[str] = set()
        self.found_unused: set[str] = set()
        self.skipped: set[tuple[str, str]] = set()  # (module, test name)
        self.unused: list[str] = []

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        handed = getattr(node, "workeroutput", {}).get(WORKER_KEY, {})
        self.used.update(handed.get("used", ()))
        self.found_unused.update(handed.get("unused", ()))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped:
            path, *_, name = report.nodeid.split("::")
            self.skipped.add((Path(path).stem, name))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # A test's snapshot is ``snapshots/<test module>/<test name>.svg``.
        self.unused = sorted(
            location for location in self.found_unused - self.used
            if (Path(location).parent.name, Path(location).stem) not in self.skipped
        )
        if self.unused and self.config.option.update_snapshots:
            for location in self.unused:
                os.unlink(location)
        elif self.unused and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.unused:
            return
        terminalreporter.write_sep("-", "snapshots no test used (the workers' reports together)")
        for location in self.unused:
            terminalreporter.write_line(os.path.relpath(location))
        if self.config.option.update_snapshots:
            terminalreporter.write_line(f"{len(self.unused)} unused snapshots deleted.")
        else:
            terminalreporter.write_line("Re-run pytest with --snapshot-update to delete unused snapshots.")
