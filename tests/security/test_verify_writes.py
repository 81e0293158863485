"""SPEC 8, 20 (decision of 2026-12-07): auto-verify runs the model's code, so it writes only its temp folder and the
build outputs and caches of the test run, never configuration nor sources. Issue 40's chain: a model-written
`conftest.py`, run by auto-verify, rewrote `.mcp.json`, whose server the next start ran outside any sandbox. Each
attack below is the test code's own write, by every means a program has, against a file another tool reads as
configuration or runs; what it reached is the workspace's content afterwards."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.tools.bash import run_command
from tests.security.conftest import snapshot
from tests.support import plugin_free_pytest as plugin_free

SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine ({SUPPORT})")
VERIFY = SandboxGrant(Confinement.VERIFY, network=False)
# Files of a project that configure or run something later; none may change.
TARGETS = [
    ".mcp.json", ".env", ".envrc", ".editorconfig", ".gitattributes", ".vscode/settings.json", ".vscode/tasks.json",
    ".zed/tasks.json", ".idea/workspace.xml", ".claude/settings.json", ".github/workflows/ci.yml",
    ".pre-commit-config.yaml", "lefthook.yml", ".husky/pre-commit", "pyproject.toml", "setup.cfg", "package.json",
    "Makefile", "conftest.py", "tests/test_ok.py", "src/app.py", ".git/config", ".git/hooks/pre-commit",
    ".coder/config.json", "node_modules/.bin/jest", "node_modules/pkg/index.js", "build/webpack.config.js",
]  # fmt: skip
# The test code's ways of changing each file named on its command line (`n` is a new file beside it).
ATTACK = """
import os, shutil, sys, tempfile
def attempt(name, f):
    try:
        f()
        print("CHANGED", t, name)
    except OSError as e:
        print("refused", t, name, e.errno)
def via_temp():
    fd, tmp = tempfile.mkstemp()
    os.write(fd, b"{}"); os.close(fd)
    os.replace(tmp, t)
for t in sys.argv[1:]:
    n = os.path.join(os.path.dirname(t) or ".", "planted.json")
    attempt("overwrite", lambda: open(t, "w").write('{"mcpServers": {"x": {"command": "sh"}}}'))
    attempt("append", lambda: open(t, "a").write("evil"))
    attempt("truncate", lambda: os.truncate(t, 0))
    attempt("replace from temp", via_temp)
    attempt("rename away", lambda: os.rename(t, t + ".old"))
    attempt("remove", lambda: os.remove(t))
    attempt("new file beside", lambda: open(n, "w").write("{}"))
    attempt("link beside", lambda: os.symlink("/tmp", n))
    attempt("hard link beside", lambda: os.link(t, n))
    attempt("copy over", lambda: shutil.copyfile(__file__, t))
    attempt("new folder beside", lambda: os.mkdir(n))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for relative in TARGETS:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(f"# original {relative}\n")
    (root / "attack.py").write_text(ATTACK)
    return root.resolve()


@pytest.mark.parametrize(("command", "runner"), [("pytest -q", "pytest"), ("cargo test", "cargo"),
                                               ("npm test -- --watch=false", "npm"), ("gradle test", "gradle")])
async def test_auto_verify_cannot_change_configuration_or_sources(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, runner: str
) -> None:
    """The attack runs as each whitelisted command's test code would (a stand-in for the tool runs it), under that
    command's grant, against every target."""
    home = tmp_path / "home"
    _fake_runner(home, runner, "exec python3 attack.py " + " ".join(f"'{t}'" for t in TARGETS) + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")
    before = snapshot(project)
    result = await run_command(command, project, 60, 100_000, sandbox=VERIFY)
    assert "CHANGED" not in result.stdout, result.stdout
    assert result.stdout.count("refused") == 11 * len(TARGETS), result
    assert snapshot(project) == before
    assert not [p for p in project.rglob("planted.json")]


def _fake_runner(home: Path, name: str, script: str) -> None:
    folder = home / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("#!/bin/sh\n" + script)
    (folder / name).chmod(0o755)


@pytest.mark.parametrize(
    ("command", "runner", "outputs"),
    [
        ("cargo test", "cargo", ["target/debug/deps/app-test"]),
        ("mvn -q test", "mvn", ["target/surefire-reports/report.txt"]),
        ("gradle test", "gradle", ["build/test-results/report.xml", ".gradle/8.0/cache.bin"]),
        ("npm test -- --watch=false", "npm", ["node_modules/.cache/jest/x", "node_modules/.vite/results.json"]),
    ],
)
async def test_auto_verify_writes_its_build_outputs_and_temp_only(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, runner: str, outputs: list[str]
) -> None:
    """A stand-in for the real tool, in that tool's project, writes its build outputs (made for it when missing)
    and its temp folder; the same run's write to `.mcp.json`, a source and a new top-level file are refused."""
    (project / "build").rename(project / "scripts")  # a Gradle project's build/ is its output
    for marker in ("Cargo.toml", "pom.xml", "build.gradle"):
        (project / marker).write_text("")
    home = tmp_path / "home"
    writes = "".join(f'mkdir -p "$(dirname {o})" && echo built > {o}\n' for o in outputs)
    script = (f'{writes}echo tmp > "$TMPDIR/scratch" && cat "$TMPDIR/scratch"\n'
              "echo evil > .mcp.json; echo evil > planted.txt; echo evil > src/app.py; true\n")  # fmt: skip
    _fake_runner(home, runner, script)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")
    result = await run_command(command, project, 20, 10_000, sandbox=VERIFY)
    assert result.stdout == "tmp\n", result
    for output in outputs:
        assert (project / output).read_text() == "built\n"
    assert (project / ".mcp.json").read_text() == "# original .mcp.json\n"
    assert (project / "src" / "app.py").read_text() == "# original src/app.py\n"
    assert not (project / "planted.txt").exists()


async def test_a_real_pytest_run_keeps_its_caches_in_the_temp_folder(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pytest -q` for real: bytecode, pytest's cache and coverage's file go to the temp folder, so the test run
    passes while the workspace gets nothing new but the caches granted when present (`.hypothesis/`)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(plugin_free.VARIABLE, "1")
    (project / "conftest.py").write_text(
        "import os\n"
        "open('.hypothesis/ran', 'w').write('conftest ran')\n"
        "for name in ('.mcp.json', '.vscode/settings.json', '.env'):\n"
        "    try:\n        open(name, 'w').write('evil')\n    except OSError:\n        pass\n"
    )
    (project / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (project / ".hypothesis").mkdir()
    before = snapshot(project)
    grant = SandboxGrant(Confinement.VERIFY, network=False, env_names=(plugin_free.VARIABLE,))
    result = await run_command("pytest -q", project, 60, 100_000, sandbox=grant)
    assert result.exit_code == 0 and "1 passed" in result.stdout, result
    after = snapshot(project)
    assert after.pop(".hypothesis/ran")[1] == b"conftest ran"
    assert after == before
    assert not any(p.name in ("__pycache__", ".pytest_cache") for p in project.rglob("*"))


async def test_a_linked_build_folder_is_not_granted(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`target` planted as a link to a folder outside: the grant would follow it; the run cannot write there."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "target").symlink_to(outside)
    (project / ".hypothesis").symlink_to(outside)
    home = tmp_path / "home"
    _fake_runner(home, "cargo", "echo evil > target/planted; echo evil > .hypothesis/planted; true\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")
    await run_command("cargo test", project, 20, 10_000, sandbox=VERIFY)
    assert list(outside.iterdir()) == []
