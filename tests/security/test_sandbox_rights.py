"""SPEC 20: every right the sandbox handles, for unasked and approved commands, on targets outside the writable
folders (refused, the target unchanged), and what approved commands may do inside the workspace. The targets include
`ws-evil`, a sibling whose name starts with the workspace's, so a string-prefix check or a dropped right is caught."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.tools.bash import run_command
from tests.security.conftest import SECRET, snapshot

SUPPORT = detect()
pytestmark = pytest.mark.skipif(SUPPORT.kind != "landlock", reason=f"no Landlock on this kernel ({SUPPORT})")
GRANTS = {
    "unasked": SandboxGrant(Confinement.UNASKED, network=False),
    "approved": SandboxGrant(Confinement.APPROVED),
    "verify": SandboxGrant(Confinement.VERIFY, network=False),
}
# (name, command) with {t} a folder outside the writable ones that holds secret.txt and sub/.
ATTEMPTS = [
    ("rm", "rm -f {t}/secret.txt"),
    ("rm -r", "rm -rf {t}/sub"),
    ("rmdir", "rmdir {t}/empty"),
    ("mv out", "mv {t}/secret.txt ./stolen.txt"),
    ("mv in", "mv README.md {t}/README.md"),
    ("mv within", "mv {t}/secret.txt {t}/renamed.txt"),
    ("truncate", "truncate -s 0 {t}/secret.txt"),
    ("overwrite", "echo x > {t}/secret.txt"),
    ("append", "echo x >> {t}/secret.txt"),
    ("create", "echo x > {t}/new.txt"),
    ("mkdir", "mkdir {t}/newdir"),
    ("ln -s", "ln -s /etc/passwd {t}/link"),
    ("ln", "ln {t}/secret.txt {t}/hard"),
    ("mkfifo", "mkfifo {t}/fifo"),
    ("cp over", "cp README.md {t}/secret.txt"),
]
# Changes of metadata, which Landlock does not handle: refused by the seccomp filter for unasked commands.
METADATA = [
    ("chmod", "chmod 777 {t}/secret.txt"),
    ("touch -d", "touch -d 2000-01-01 {t}/secret.txt"),
    ("setxattr", "python3 -c 'import os, sys; os.setxattr(sys.argv[1], \"user.x\", b\"1\")' {t}/secret.txt"),
    ("chmod workspace", "chmod 000 README.md"),
]


def _target(tmp_path: Path, which: str, root: Path) -> Path:
    target = {"outside": tmp_path / "out", "ws-evil": tmp_path / "ws-evil", "git": root / ".git" / "t"}[which]
    target.mkdir(exist_ok=True)
    (target / "sub").mkdir(exist_ok=True)
    (target / "sub" / "f").write_text("f")
    (target / "empty").mkdir(exist_ok=True)
    (target / "secret.txt").write_text(SECRET)
    return target


@pytest.mark.parametrize("grant", sorted(GRANTS))
@pytest.mark.parametrize("which", ["outside", "ws-evil"])
@pytest.mark.parametrize(("name", "command"), ATTEMPTS, ids=[a[0] for a in ATTEMPTS])
async def test_write_outside_the_writable_folders_is_refused(
    world: tuple[Path, Path], tmp_path: Path, grant: str, which: str, name: str, command: str
) -> None:
    root, _ = world
    target = _target(tmp_path, which, root)
    before = snapshot(target)
    listing = sorted(os.listdir(target))
    readme = (root / "README.md").read_bytes()
    result = await run_command(command.replace("{t}", str(target)), root, 20, 10_000, sandbox=GRANTS[grant])
    assert result.exit_code != 0, result
    assert snapshot(target) == before and sorted(os.listdir(target)) == listing
    assert os.stat(target / "secret.txt").st_mode & 0o777 != 0o777
    assert (root / "README.md").read_bytes() == readme
    assert not (root / "stolen.txt").exists()


@pytest.mark.parametrize("which", ["outside", "ws-evil"])
@pytest.mark.parametrize(("name", "command"), METADATA, ids=[a[0] for a in METADATA])
async def test_unasked_commands_change_no_metadata(
    world: tuple[Path, Path], tmp_path: Path, which: str, name: str, command: str
) -> None:
    root, _ = world
    target = _target(tmp_path, which, root)
    stats = [(p, os.stat(p)) for p in (target / "secret.txt", root / "README.md")]
    result = await run_command(command.replace("{t}", str(target)), root, 20, 10_000, sandbox=GRANTS["unasked"])
    assert result.exit_code != 0, result
    for path, before in stats:
        after = os.stat(path)
        assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert not os.listxattr(target / "secret.txt")
    # The same command approved does run (Landlock leaves metadata alone): the refusal above was the filter's.
    control = await run_command(command.replace("{t}", str(target)), root, 20, 10_000, sandbox=GRANTS["approved"])
    assert control.exit_code == 0, control


@pytest.mark.parametrize("name", ["ws-evil", "outside"])
@pytest.mark.parametrize("grant", ["unasked", "verify"])
async def test_confined_reads_stop_at_the_workspace(world: tuple[Path, Path], tmp_path: Path, grant: str, name: str) -> None:
    root, _ = world
    folder = {"ws-evil": tmp_path / "ws-evil", "outside": tmp_path / "out"}[name]
    for command in (f"cat {folder}/secret.txt", f"ls {folder}", "cat link_out/secret.txt", "cat src/up/../out/secret.txt"):
        result = await run_command(command, root, 20, 10_000, sandbox=GRANTS[grant])
        assert SECRET.strip() not in result.stdout and "secret.txt" not in result.stdout, (command, result)


async def test_approved_commands_move_and_remove_inside_the_workspace(world: tuple[Path, Path]) -> None:
    root, _ = world
    (root / "a").mkdir()
    (root / "b").mkdir()
    (root / "a" / "x").write_text("x")
    command = "mv a/x b/x && mkdir -p c/d && ln -s ../b/x c/link && mkfifo c/fifo && truncate -s 0 notes.txt && rm -r c"
    result = await run_command(command, root, 20, 10_000, sandbox=GRANTS["approved"])
    assert result.exit_code == 0, result
    assert (root / "b" / "x").read_text() == "x" and not (root / "a" / "x").exists()
    assert (root / "notes.txt").read_text() == "" and not (root / "c").exists()
