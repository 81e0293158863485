"""SPEC 23: /export writes the stored history as Markdown; /init is a turn that surveys and writes AGENTS.md."""

from __future__ import annotations

from pathlib import Path

from engine.commands.export_markdown import fence
from engine.command_results import CommandFailed, ConversationExported
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_export_writes_requests_answers_and_tool_calls(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(text("Let me look."), tool_call("read", path="notes.txt")),
        reply(text("It says **hello**.")),
    )
    (tmp_path / "notes.txt").write_text("hello\n")
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("What do the notes say?")
    await orch.run_input("/export")
    result = log.of(ConversationExported)[-1]
    assert result.ok and result.path == str(tmp_path / "what-do-the-notes-say.md")
    markdown = Path(result.path).read_text()
    assert markdown.startswith("# What do the notes say?\n")
    assert "## User\n\nWhat do the notes say?" in markdown
    assert "**Tool call** `read`\n\n```json\n{\n  \"path\": \"notes.txt\"\n}\n```" in markdown
    assert "**Result** of `read`" in markdown and "It says **hello**." in markdown
    # A second export never overwrites the first; a named file goes where it is told.
    await orch.run_input("/export")
    assert log.of(ConversationExported)[-1].path == str(tmp_path / "what-do-the-notes-say-2.md")
    await orch.run_input("/export out/session.md")
    assert (tmp_path / "out" / "session.md").read_text() == markdown


async def test_export_of_an_empty_conversation_says_so(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/export")
    assert not log.of(CommandFailed)[-1].ok and "empty" in log.of(CommandFailed)[-1].text


async def test_export_to_a_folder_is_a_readable_error(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hi.")))
    (tmp_path / "folder").mkdir()
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("hello")
    await orch.run_input("/export folder")
    result = log.of(CommandFailed)[-1]
    assert not result.ok and result.text.startswith(f"could not write {tmp_path / 'folder'}")


def test_fence_outlasts_backticks_in_the_text() -> None:
    assert fence("a ```` b", "md").startswith("`````md\n")


async def test_init_surveys_then_writes_agents_md(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("list", path=".")),
        reply(tool_call("write", path="AGENTS.md", content="# Agents\n\nRun `make test`.\n")),
        reply(text("Wrote AGENTS.md.")),
    )
    orch, log, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.DEFAULT)
    outcome = await orch.run_input("/init")
    assert outcome.ok
    request = scripted_server.requests[0].body["messages"][-1]["content"]
    assert request.startswith("/init: survey this repository and write AGENTS.md")
    assert "write tool" in request
    # The write went through the normal approval.
    assert [r.tool for r in interaction.approval_requests] == ["write"]
    assert (tmp_path / "AGENTS.md").read_text().startswith("# Agents")


async def test_init_with_an_existing_file_asks_for_improvements(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "AGENTS.md").write_text("# old\n")
    scripted_server.add(reply(text("It is fine as it is.")))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/init")
    request = scripted_server.requests[0].body["messages"][-1]["content"]
    assert "already exists" in request and "edit tool" in request
