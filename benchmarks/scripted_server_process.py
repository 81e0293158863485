"""The scripted server (``tests.support.scripted_server`` with ``bench_scenario.py``) in its own process, for the
pty benchmarks (``pty_latency.py``, ``ab_stream.py``, ``long_session.py``, ``memory_floor.py``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.pty_driver import ROOT, bench_env, python_argv


class ScriptedServerProcess:
    """``python -m tests.support.scripted_server`` in its own process, so it never shares an interpreter lock."""

    def __init__(self, log: Path, scenario: Path = ROOT / "benchmarks" / "bench_scenario.py") -> None:
        self.log = log
        self.process = subprocess.Popen(
            python_argv("-m", "tests.support.scripted_server", "--port", "0", "--scenario", str(scenario)),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT,
            env=bench_env(CODER_BENCH_LOG=str(log)),
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode()
        self.base_url = line.split(" on ", 1)[1].split()[0]

    def client_env(self, home: Path) -> dict[str, str]:
        """The environment of a ``coder-tui`` that talks to this server, with ``home`` (made here) as its own home and
        config folder: nothing of the developer's reaches it."""
        home.mkdir(parents=True, exist_ok=True)
        return bench_env(
            OPENAI_BASE_URL=self.base_url, OPENAI_API_KEY="sk-bench", CODER_MODEL="scripted-model",
            HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
        )

    def arrivals(self) -> list[float]:
        if not self.log.exists():
            return []
        return [float(line.split(" ", 1)[0]) for line in self.log.read_text().splitlines() if line]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
