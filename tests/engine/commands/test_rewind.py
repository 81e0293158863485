"""SPEC 23 /rewind: the files go back byte-exact to before the chosen request (created files removed, deleted files
back), the conversation is cut there, and the request is handed back for the prompt."""

from __future__ import annotations

from pathlib import Path

from engine.command_results import CommandReply, FilesRewound
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

ORIGINAL = b"keep\r\nthese bytes\x00\xff exactly\n"


async def _three_turns(tmp_path: Path, server: ScriptedServer):
    (tmp_path / "data.bin").write_bytes(ORIGINAL)
    (tmp_path / "old.txt").write_text("to be deleted\n")
    server.add(
        reply(tool_call("write", path="made.txt", content="first\n")),
        reply(text("Made it.")),
        reply(tool_call("write", path="data.bin", content="replaced\n"),
              tool_call("patch", patch="*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n")),
        reply(text("Replaced and deleted.")),
        reply(tool_call("write", path="made.txt", content="second\n")),
        reply(text("Changed again.")),
    )
    orch, log, interaction = make_orchestrator(tmp_path, server.base_url, mode=Mode.YOLO)
    for request in ("make the file", "replace data and delete old", "change made.txt"):
        assert (await orch.run_input(request)).ok
    return orch, log, interaction


async def test_rewind_lists_the_requests_of_the_conversation(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    await orch.run_input("/rewind")
    result = log.of(CommandReply)[-1]
    assert [p["text"] for p in result.points] == [
        "make the file", "replace data and delete old", "change made.txt"
    ]
    assert [p["number"] for p in result.points] == [1, 2, 3]


async def test_rewind_restores_files_byte_exact_and_cuts_the_conversation(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    await orch.run_input("/rewind 2")
    result = log.of(CommandReply)[-1]
    assert result.ok, result.text
    assert (tmp_path / "data.bin").read_bytes() == ORIGINAL
    assert (tmp_path / "old.txt").read_text() == "to be deleted\n"
    assert (tmp_path / "made.txt").read_text() == "first\n"
    assert result.prompt_text == "replace data and delete old"
    assert set(result.restored) == {"data.bin", "made.txt"} and result.recreated == ("old.txt",)
    assert [m.content for m in orch.session.messages if m.role == "user"] == ["make the file"]
    assert len(orch.store.conversation.load(orch.session_id).messages) == len(orch.session.messages)
    assert "data.bin" in result.text and "old.txt" in result.text


async def test_rewind_to_the_first_request_removes_created_files(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    await orch.run_input("/rewind 1")
    result = log.of(CommandReply)[-1]
    assert result.ok and result.deleted == ("made.txt",)
    assert not (tmp_path / "made.txt").exists() and (tmp_path / "data.bin").read_bytes() == ORIGINAL
    assert orch.session.messages == ()
    await orch.run_input("/rewind")
    assert log.of(CommandReply)[-1].points == ()


async def test_rewind_asks_before_overwriting_changes_made_outside(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, interaction = await _three_turns(tmp_path, scripted_server)
    (tmp_path / "made.txt").write_text("edited by hand\n")
    interaction.answers.append("Keep the files as they are")
    await orch.run_input("/rewind 3")
    result = log.of(CommandReply)[-1]
    assert not result.ok and "made.txt" in result.text
    assert (tmp_path / "made.txt").read_text() == "edited by hand\n"
    assert len([m for m in orch.session.messages if m.role == "user"]) == 3


async def test_rewind_rejects_a_number_not_in_the_list(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/rewind 4")
    assert not log.of(CommandReply)[-1].ok and "no request 4" in log.of(CommandReply)[-1].text
    await orch.run_input("/rewind x")
    assert "request number" in log.of(CommandReply)[-1].text


async def test_rewind_shows_how_many_files_each_request_changed(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    await orch.run_input("/rewind")
    result = log.of(CommandReply)[-1]
    assert [p["files"] for p in result.points] == [1, 2, 1]
    assert "2 files" in result.text


async def test_rewind_code_only_keeps_the_conversation(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    users_before = [m.content for m in orch.session.messages if m.role == "user"]
    await orch.run_input("/rewind 2 code")
    result = log.of(CommandReply)[-1]
    assert result.ok, result.text
    assert (tmp_path / "data.bin").read_bytes() == ORIGINAL and (tmp_path / "old.txt").exists()
    users = [m.content for m in orch.session.messages if m.role == "user"]
    assert users[: len(users_before)] == users_before  # nothing cut; the model is told what came back
    assert "put the files back" in (users[-1] or "")
    assert isinstance(result, FilesRewound)  # the request is not put back in the prompt


async def test_rewind_conversation_only_keeps_the_files(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    await orch.run_input("/rewind 2 conversation")
    result = log.of(CommandReply)[-1]
    assert result.ok, result.text
    assert (tmp_path / "data.bin").read_text() == "replaced\n" and not (tmp_path / "old.txt").exists()
    assert [m.content for m in orch.session.messages if m.role == "user"] == ["make the file"]
    assert result.prompt_text == "replace data and delete old"


async def test_requests_before_a_compaction_are_listed_and_their_files_restorable(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = await _three_turns(tmp_path, scripted_server)
    scripted_server.add(reply(text("Summary: a file was made, data replaced, old.txt deleted, made.txt changed.")))
    assert (await orch.run_input("/compact")).ok
    await orch.run_input("/rewind")
    points = log.of(CommandReply)[-1].points
    assert [p["text"] for p in points][:1] == ["make the file"] and points[0]["archived"]
    await orch.run_input("/rewind 1")
    refused = log.of(CommandReply)[-1]
    assert not refused.ok and "/rewind 1 code" in refused.text
    await orch.run_input("/rewind 1 code")
    result = log.of(CommandReply)[-1]
    assert result.ok, result.text
    assert not (tmp_path / "made.txt").exists()
    assert (tmp_path / "data.bin").read_bytes() == ORIGINAL
