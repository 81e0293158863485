"""SPEC 16: the catalog of a session's skills, reloaded live when the folders change (watchfiles), and listed in
the system prompt by name and description."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.skills import SkillCatalog, SkillRoot, SkillSource
from engine.skills.discovery import BUILTIN_SKILLS_DIR
from engine.skills.watcher import changes_skills, watch_targets
from tests.engine.skills.support import write_skill

# A bound on waiting for the watcher, not a timing assertion: a reload normally lands in well under a second.
RELOAD_WAIT_S = 15


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return tmp_path / "ws" / ".coder" / "skills"


@pytest.fixture
def catalog(tmp_path: Path, project: Path) -> SkillCatalog:
    return SkillCatalog(
        [SkillRoot(project, SkillSource.PROJECT), SkillRoot(tmp_path / "user" / "skills", SkillSource.USER)],
        recheck_s=0.1,
    )


@pytest.fixture
async def watched(catalog: SkillCatalog) -> AsyncIterator[SkillCatalog]:
    catalog.start()
    await asyncio.wait_for(catalog.watching.wait(), RELOAD_WAIT_S)
    yield catalog
    await catalog.stop()


def _reloads(catalog: SkillCatalog) -> asyncio.Queue[tuple[str, ...]]:
    """A queue receiving the skill names after each reload that changed something."""
    queue: asyncio.Queue[tuple[str, ...]] = asyncio.Queue()
    catalog.subscribe(lambda c: queue.put_nowait(tuple(c.names())))
    return queue


async def _next_reload(queue: asyncio.Queue[tuple[str, ...]]) -> tuple[str, ...]:
    return await asyncio.wait_for(queue.get(), RELOAD_WAIT_S)


def test_catalog_for_workspace_has_the_builtin_skills(tmp_path: Path) -> None:
    catalog = SkillCatalog.for_workspace(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert catalog.names() == ["code-review", "commit-message", "debugging"]
    assert catalog.get("debugging") is not None and catalog.get("debugging").source is SkillSource.BUILTIN
    assert catalog.get("nope") is None


def test_catalog_reload_tells_listeners_only_when_something_changed(catalog: SkillCatalog, project: Path) -> None:
    heard: list[list[str]] = []
    unsubscribe = catalog.subscribe(lambda c: heard.append(c.names()))
    assert catalog.reload() is False
    write_skill(project, "lint")
    assert catalog.reload() is True
    assert catalog.reload() is False
    assert heard == [["lint"]]
    unsubscribe()
    write_skill(project, "other")
    catalog.reload()
    assert heard == [["lint"]]


def test_catalog_problems_of_names_the_broken_skill(catalog: SkillCatalog, project: Path) -> None:
    (project / "lint").mkdir(parents=True)
    (project / "lint" / "SKILL.md").write_text("---\nname: lint\n---\nbody\n")
    catalog.reload()
    assert [p.reason for p in catalog.problems_of("lint")] == ["'description' is missing"]
    assert catalog.problems_of("other") == []


async def test_skill_dropped_into_project_folder_is_picked_up_live(watched: SkillCatalog, project: Path) -> None:
    project.mkdir(parents=True)
    reloads = _reloads(watched)
    write_skill(project, "deploy", "Deploy the app.")
    assert "deploy" in await _next_reload(reloads)
    assert watched.get("deploy").description == "Deploy the app."


async def test_skill_folder_created_after_start_is_watched(watched: SkillCatalog, project: Path) -> None:
    # Neither .coder/ nor .coder/skills/ existed when watching started.
    reloads = _reloads(watched)
    write_skill(project, "deploy")
    assert "deploy" in await _next_reload(reloads)


async def test_skill_edit_and_removal_are_reloaded_live(catalog: SkillCatalog, project: Path) -> None:
    write_skill(project, "deploy", "Old description.")
    catalog.reload()
    catalog.start()
    try:
        await asyncio.wait_for(catalog.watching.wait(), RELOAD_WAIT_S)
        reloads = _reloads(catalog)
        write_skill(project, "deploy", "New description.")
        await _next_reload(reloads)
        assert catalog.get("deploy").description == "New description."
        (project / "deploy" / "SKILL.md").unlink()
        assert await _next_reload(reloads) == ()
    finally:
        await catalog.stop()


async def test_broken_skill_dropped_in_live_is_reported(watched: SkillCatalog, project: Path) -> None:
    project.mkdir(parents=True)
    problems: asyncio.Queue[int] = asyncio.Queue()
    watched.subscribe(lambda c: problems.put_nowait(len(c.problems)))
    (project / "bad").mkdir()
    (project / "bad" / "SKILL.md").write_text("no front matter\n")
    assert await asyncio.wait_for(problems.get(), RELOAD_WAIT_S) == 1
    assert watched.problems_of("bad")[0].reason.startswith("no YAML front matter")


async def test_catalog_stop_ends_the_watcher(catalog: SkillCatalog) -> None:
    catalog.start()
    await asyncio.wait_for(catalog.watching.wait(), RELOAD_WAIT_S)
    await catalog.stop()
    assert catalog.watch_error is None
    await catalog.stop()  # a second stop is harmless


def test_watch_targets_fall_back_to_the_parent_of_a_missing_root(tmp_path: Path) -> None:
    present = tmp_path / "a" / "skills"
    present.mkdir(parents=True)
    parent_only = tmp_path / "b" / "skills"
    parent_only.parent.mkdir()
    nothing = tmp_path / "c" / "skills"
    roots = [SkillRoot(p, SkillSource.PROJECT) for p in (present, parent_only, nothing)]
    assert watch_targets(roots) == (present, parent_only.parent)


@pytest.mark.parametrize(
    ("relative", "relevant"),
    [
        ("skills", True),  # the root itself appears or goes
        ("skills/deploy", True),  # a skill folder
        ("skills/deploy/SKILL.md", True),
        ("skills/deploy/scripts/run.sh", False),  # a skill's other files do not change the catalog
        ("skills/deploy/notes.md", False),
        ("sessions/abc.json", False),  # the session files beside .coder/skills
        ("coder.db-wal", False),
    ],
)
def test_watch_filter_keeps_only_changes_that_alter_the_catalog(tmp_path: Path, relative: str, relevant: bool) -> None:
    roots = [SkillRoot(tmp_path / "skills", SkillSource.PROJECT)]
    assert changes_skills(roots, str(tmp_path / relative)) is relevant


def test_importing_skills_and_building_a_catalog_loads_no_watchfiles(tmp_path: Path) -> None:
    script = (
        "import sys, pathlib; from engine.skills import SkillCatalog; "
        f"SkillCatalog.for_workspace(pathlib.Path({str(tmp_path)!r}), env={{}}); "
        "sys.exit('watchfiles' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_builtin_folder_ships_inside_the_engine_package() -> None:
    assert BUILTIN_SKILLS_DIR.is_relative_to(Path(__file__).resolve().parents[3] / "engine")


async def test_a_failed_watcher_is_reported_and_skills_stay_loaded(
    catalog: SkillCatalog, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken_watcher(*args: object) -> None:
        raise OSError("OS file watch limit reached")

    monkeypatch.setattr("engine.skills.catalog.watch_skill_roots", broken_watcher)
    write_skill(project, "deploy")
    catalog.reload()
    catalog.start()
    await catalog.stop()
    assert catalog.watch_error == "skill folders are no longer watched: OSError: OS file watch limit reached"
    assert catalog.names() == ["deploy"]
