"""STYLE: heavy libraries load where first needed, so building an orchestrator costs no SDK import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("openai", "httpx", "tiktoken", "tree_sitter", "tree_sitter_bash", "watchfiles")


def test_building_an_orchestrator_imports_no_heavy_library(tmp_path: Path) -> None:
    script = f"""
import json, sys
from pathlib import Path
from engine.config import load_config
from engine.orchestrator.orchestrator import Orchestrator
from coder_tui.launch.headless import HeadlessInteraction
loaded = load_config(Path({str(tmp_path)!r}), env={{}})
Orchestrator(workspace=Path({str(tmp_path)!r}), config=loaded.config, interaction=HeadlessInteraction(), env={{}})
print(json.dumps(sorted(name for name in {HEAVY!r} if name in sys.modules)))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == []
