"""SPEC 5, 16: skill(name) loads a skill's instructions and tells where its folder is; an unknown or broken skill
is an error the model can act on (it names the skills there are, or says why the skill cannot load)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.skills import SkillCatalog, SkillRoot, SkillSource
from engine.tools.base import ToolContext, ToolKind
from engine.tools.skill import SkillTool
from tests.engine.skills.support import write_skill
from tests.engine.tools.support import run_tool, with_limits
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer




@pytest.fixture
def user_root(tmp_path: Path) -> Path:
    return tmp_path / "user-skills"


@pytest.fixture
def catalog(root: Path, user_root: Path) -> SkillCatalog:
    write_skill(root / ".coder" / "skills", "deploy", "Deploy the app.", "1. Build.\n2. Ship.")
    folder = write_skill(user_root, "release", "Cut a release.", "Run scripts/bump.sh first.")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "bump.sh").write_text("#!/bin/sh\necho bump\n")
    (folder / "reference.md").write_text("# Reference\n")
    (folder / ".DS_Store").write_text("junk")
    return SkillCatalog(
        [SkillRoot(root / ".coder" / "skills", SkillSource.PROJECT), SkillRoot(user_root, SkillSource.USER)]
    )


@pytest.fixture
def tool(catalog: SkillCatalog) -> SkillTool:
    return SkillTool(catalog)


def test_skill_tool_is_a_read_tool(tool: SkillTool) -> None:
    assert tool.kind is ToolKind.READ
    assert tool.definition().parameters["required"] == ["name"]


async def test_skill_returns_instructions_and_project_folder_relative(tool: SkillTool, ctx: ToolContext) -> None:
    output = await run_tool(tool, ctx, name="deploy")
    assert output.data == {
        "name": "deploy",
        "source": "project",
        "folder": ".coder/skills/deploy",
        "instructions": "1. Build.\n2. Ship.",
        "files": [],
    }


async def test_skill_outside_the_workspace_gives_absolute_folder_and_files(
    tool: SkillTool, ctx: ToolContext, user_root: Path
) -> None:
    output = await run_tool(tool, ctx, name="release")
    assert output.data["source"] == "user"
    assert output.data["folder"] == str(user_root / "release")
    assert output.data["files"] == ["reference.md", "scripts/bump.sh"]


async def test_skill_file_reads_a_file_of_the_skill_folder(tool: SkillTool, ctx: ToolContext) -> None:
    output = await run_tool(tool, ctx, name="release", file="scripts/bump.sh")
    assert output.data == {"name": "release", "file": "scripts/bump.sh", "content": "#!/bin/sh\necho bump\n"}


async def test_skill_file_is_confined_to_the_skill_folder(tool: SkillTool, ctx: ToolContext, user_root: Path) -> None:
    (user_root / "secret.txt").write_text("secret")
    with pytest.raises(ToolError, match="outside the folder of skill 'release'"):
        await run_tool(tool, ctx, name="release", file="../secret.txt")
    with pytest.raises(ToolError, match="outside the folder of skill 'release'"):
        await run_tool(tool, ctx, name="release", file=str(user_root / "secret.txt"))


async def test_skill_file_missing_lists_the_files(tool: SkillTool, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"skill 'release' has no file 'nope.md'; its files: \['reference.md'"):
        await run_tool(tool, ctx, name="release", file="nope.md")


async def test_skill_file_refuses_binary_and_caps_long_files(
    tool: SkillTool, ctx: ToolContext, user_root: Path
) -> None:
    (user_root / "release" / "logo.png").write_bytes(b"\x89PNG\0\0")
    with pytest.raises(ToolError, match="is a binary file"):
        await run_tool(tool, ctx, name="release", file="logo.png")
    (user_root / "release" / "long.md").write_text("line\n" * 1000)
    output = await run_tool(tool, with_limits(ctx, output_cap_bytes=52), name="release", file="long.md")
    assert output.data["content"] == "line\n" * 10
    assert output.data["note"] == "truncated: showing the first 50 of 5000 bytes"


async def test_unknown_skill_error_lists_the_available_names(tool: SkillTool, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"^unknown skill 'deplyo'; available skills: deploy, release$"):
        await run_tool(tool, ctx, name="deplyo")


async def test_broken_skill_error_says_why_and_to_carry_on(
    catalog: SkillCatalog, tool: SkillTool, ctx: ToolContext, root: Path
) -> None:
    broken = root / ".coder" / "skills" / "lint"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: lint\n---\nRun it.\n")
    catalog.reload()
    with pytest.raises(ToolError, match=r"skill 'lint' is broken and cannot be loaded \(.*'description' is missing\); "
                                        r"carry on without it"):
        await run_tool(tool, ctx, name="lint")


async def test_an_untrusted_folders_skill_is_not_used_rather_than_broken(ctx: ToolContext, root: Path) -> None:
    write_skill(root / ".coder" / "skills", "deploy", "Deploy the app.", "1. Build.\n2. Ship.")
    untrusted = SkillCatalog([SkillRoot(root / ".coder" / "skills", SkillSource.PROJECT)], project_trusted=False)
    with pytest.raises(ToolError) as refused:
        await run_tool(SkillTool(untrusted), ctx, name="deploy")
    assert str(refused.value) == (
        "skill 'deploy' is not used: this folder is not trusted, so its own skills are not either (/trust on); "
        "carry on without it"
    )


async def test_skill_with_no_skills_installed_says_so(ctx: ToolContext, tmp_path: Path) -> None:
    empty = SkillTool(SkillCatalog([SkillRoot(tmp_path / "none", SkillSource.PROJECT)]))
    with pytest.raises(ToolError, match="no skills are installed"):
        await run_tool(empty, ctx, name="deploy")


async def test_skill_picks_up_a_reload(catalog: SkillCatalog, tool: SkillTool, ctx: ToolContext, root: Path) -> None:
    write_skill(root / ".coder" / "skills", "deploy", "Deploy the app.", "New steps.")
    catalog.reload()
    output = await run_tool(tool, ctx, name="deploy")
    assert output.data["instructions"] == "New steps."


def test_skill_needs_no_approval_in_any_mode() -> None:
    for mode in Mode:
        assert PermissionPolicy(mode).decide("skill", SkillTool.kind, {"name": "x"}).action is Action.ALLOW


async def test_skill_dropped_into_the_project_is_offered_and_loaded_in_the_next_turn(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("skill", id="call_s", name="deploy")),
        text("Deploying: build, then ship."),
    )
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    orch.trusted_for_run = True  # --trust: a project's skills are used only in a trusted folder (SPEC 19)
    reloaded = asyncio.Event()
    orch.skills.subscribe(lambda catalog: reloaded.set())
    orch.skills.start()
    try:
        await asyncio.wait_for(orch.skills.watching.wait(), 15)
        write_skill(tmp_path / ".coder" / "skills", "deploy", "Deploy the app to production.", "1. Build.\n2. Ship.")
        await asyncio.wait_for(reloaded.wait(), 15)
        outcome = await orch.run_input("deploy it")
    finally:
        await orch.skills.stop()
    assert outcome.ok
    system = scripted_server.requests[0].body["messages"][0]["content"]
    assert "- deploy: Deploy the app to production." in system
    result = json.loads(scripted_server.requests[1].body["messages"][-1]["content"])
    assert result["ok"] is True and result["instructions"] == "1. Build.\n2. Ship."
    assert result["folder"] == ".coder/skills/deploy"
