"""SPEC 13: what the parser once refused to run unasked ("reads outside the workspace"), now run for real, unasked,
under the kernel's confinement (data/confined_reads.tsv, one command a line). Whatever the policy answers, the
command as it would run unasked must show nothing of the outside folder or of `ws-evil`, and change nothing there."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.tools.bash import run_command
from tests.security.conftest import SECRET, corpus_lines, snapshot

CORPUS = Path(__file__).parent / "data" / "confined_reads.tsv"
SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine reads ({SUPPORT})")
CASES = corpus_lines(CORPUS)


def test_corpus_keeps_the_moved_cases() -> None:
    assert len(CASES) >= 130


@pytest.mark.parametrize("command", CASES)
async def test_confined_read_shows_nothing_outside(world: tuple[Path, Path], tmp_path: Path, command: str) -> None:
    root, outside = world
    evil = tmp_path / "ws-evil"
    before = (snapshot(outside), snapshot(evil))
    line = command.replace("{out}", str(outside))
    result = await run_command(line, root, 20, 100_000, sandbox=SandboxGrant(Confinement.UNASKED, network=False))
    shown = result.stdout + result.stderr
    assert SECRET.strip() not in shown, shown
    # Names are not listed either (a folder outside cannot be read); a path the line itself names may be echoed,
    # and its metadata shown (Landlock leaves `stat` alone, see the README's security model).
    assert "secret.txt" not in result.stdout or "secret.txt" in line
    assert (snapshot(outside), snapshot(evil)) == before
