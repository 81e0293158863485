"""Start-up (SPEC 15, issue 3 item 9; issue 14): the prompt is on screen and takes keys at once, and the UI process
never imports the engine's heavy libraries: they load in the engine process. Nor does it import the protocol's
message types before its first frame (a few hundred dataclasses: they load after it, before the link starts).

Runs in a fresh interpreter (the test process has long imported everything) with an import hook that records any
import of openai, tiktoken, tree-sitter or pydantic made before the first frame reaches the terminal, and checks
that none is imported at all after the engine process has loaded and answered an input. The Markdown renderer and
the highlighter load after the first frame on the app's own thread (steps between keys), never in a thread.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib.abc, json, sys, threading
from pathlib import Path

HEAVY = ("openai", "tiktoken", "tree_sitter", "pydantic", "httpx")
PROTOCOL = ("engine.events", "engine.protocol", "engine.interaction")
MARKDOWN = ("markdown_it", "pygments")
state = {"frames": 0, "heavy_before_first_frame": [], "heavy_at_first_frame": [], "protocol_at_first_frame": [],
         "markdown_off_the_main_thread": []}


class Guard(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HEAVY and state["frames"] == 0:
            state["heavy_before_first_frame"].append(name)
        if name.split(".")[0] in MARKDOWN and threading.current_thread() is not threading.main_thread():
            state["markdown_off_the_main_thread"].append(name)
        return None


sys.meta_path.insert(0, Guard())

from coder_tui.app import CoderApp
from coder_tui.link.engine_process import EngineProcesses
from coder_tui.widgets.prompt_input import PromptInput


class Probe(CoderApp):
    def _display(self, screen, renderable):
        if renderable is not None and state["frames"] == 0:
            state["heavy_at_first_frame"] = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
            state["protocol_at_first_frame"] = sorted(m for m in PROTOCOL if m in sys.modules)
        if renderable is not None:
            state["frames"] += 1
        return super()._display(screen, renderable)


async def pilot(pilot):
    await pilot.press("h", "i")
    state["prompt_text"] = app.query_one(PromptInput).text
    # Waits on the conditions themselves: the subprocess timeout turns a hang into a failure, a loaded machine does
    # not.
    while app.link.state is None:
        await pilot.pause(0.01)
    state["engine_loaded"] = True
    app.link.submit("/help")
    while app.link.busy or app.link.queued:
        await pilot.pause(0.01)
    state["input_ran"] = True
    state["heavy_in_ui_process"] = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
    # The Markdown renderer and the code highlighter load after the first frame, as steps between keys.
    while "pygments.lexers.python" not in sys.modules:
        await pilot.pause(0.01)
    state["markdown_loaded"] = "coder_tui.widgets.assistant_message" in sys.modules
    app.exit()


workspace = Path(sys.argv[1])
app = Probe(workspace=workspace, engine=EngineProcesses(workspace=workspace))
app.run(headless=True, size=(80, 24), auto_pilot=pilot)
print("PROBE" + json.dumps(state))
"""


def test_prompt_takes_keys_before_heavy_engine_imports(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    line = next((line for line in completed.stdout.splitlines() if line.startswith("PROBE")), None)
    assert line is not None, completed.stderr[-3000:]
    state = json.loads(line.removeprefix("PROBE"))
    assert state["frames"] > 0
    assert state["heavy_before_first_frame"] == []
    assert state["heavy_at_first_frame"] == []
    assert state["protocol_at_first_frame"] == []
    assert state["prompt_text"] == "hi"
    assert state["engine_loaded"] and state["input_ran"]
    assert state["heavy_in_ui_process"] == []
    # Loaded in a thread, the Markdown renderer held the interpreter's lock against the first keys typed.
    assert state["markdown_loaded"]
    assert state["markdown_off_the_main_thread"] == []
