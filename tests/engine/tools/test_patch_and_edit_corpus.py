"""The edit and patch corpus (SPEC 5, issue 7): one folder per case under ``corpus/``.

A case holds ``before/`` (the workspace; absent means empty), ``call.json`` (``tool``, ``arguments``, and for a
successful edit the ``matching`` strategy expected, absent for an exact match) and either ``after/`` (the whole
expected workspace, byte for byte; absent means empty) or ``error.txt`` (each line a substring the error must
contain; the workspace must then be exactly as before). An argument written ``{"$file": "patch.txt"}`` is the
content of that file of the case, so patches stay readable.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ToolError
from engine.tools.base import Tool, ToolContext
from engine.tools.edit import EditTool
from engine.tools.guard import Workspace
from engine.tools.matching import EXACT, STRATEGIES
from engine.tools.patch import PatchTool

CORPUS = Path(__file__).parent / "corpus"
TOOLS: dict[str, Tool[Any]] = {"edit": EditTool(), "patch": PatchTool()}
CASES = sorted(folder for folder in CORPUS.iterdir() if (folder / "call.json").is_file())


def _tree(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def _call(case: Path) -> dict[str, Any]:
    call = json.loads((case / "call.json").read_text(encoding="utf-8"))
    call["arguments"] = {
        name: (case / value["$file"]).read_bytes().decode("utf-8") if isinstance(value, dict) else value
        for name, value in call["arguments"].items()
    }
    return call


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_corpus_case(case: Path, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    if (case / "before").is_dir():
        shutil.copytree(case / "before", root)
    else:
        root.mkdir()
    call = _call(case)
    tool = TOOLS[call["tool"]]
    ctx = ToolContext(workspace=Workspace(root))
    before = _tree(root)
    error_file = case / "error.txt"
    if error_file.exists():
        with pytest.raises(ToolError) as error:
            await tool.run(tool.parse(call["arguments"]), ctx)
        for expected in error_file.read_text(encoding="utf-8").rstrip("\n").split("\n"):
            assert expected in str(error.value)
        assert _tree(root) == before, "a failed call must leave every file as it was"
        return
    output = await tool.run(tool.parse(call["arguments"]), ctx)
    assert _tree(root) == _tree(case / "after")
    assert output.diff
    if call["tool"] == "edit":
        assert output.data.get("matching") == call.get("matching")


def test_corpus_covers_both_patch_formats_and_every_edit_strategy() -> None:
    calls = [_call(case) for case in CASES]
    patches = [call["arguments"]["patch"] for call in calls if call["tool"] == "patch"]
    assert len(CASES) >= 60
    assert sum("*** Begin Patch" in patch for patch in patches) >= 20
    assert sum("*** Begin Patch" not in patch for patch in patches) >= 20
    exercised = {call.get("matching") for call in calls if call["tool"] == "edit"}
    assert {strategy.name for strategy in STRATEGIES if strategy is not EXACT} <= exercised
