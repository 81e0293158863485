"""Issue 40 (SPEC 13, decision of 2026-12-07): what the model writes without asking is an allow-list. Each attack is
played through a real turn against the scripted server, and each test looks at what the write reached on disk.

- A write through a link (a linked folder, a linked file) asks; refused, nothing is written behind the link.
- An `allow` rule, a session's "always", the edit tool and a bash line an allow rule covers meet the same line.
- coder-tui's own configuration folder is never written by a tool, in yolo too (file tools), and bash writes to it
  are refused in every mode but yolo.
- The home folder as workspace: the session stays in plan mode, so `~/.bashrc`, `~/.ssh/authorized_keys`,
  `~/.gitconfig` and `~/.config/coder/config.json` are not written, whatever mode was asked for.
- An ordinary source file is still written without asking in auto-edit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import Notice
from engine.interaction import ApprovalDecision
from engine.modes import Mode
from engine.storage.provenance import StateKey
from tests.security.conftest import git
from tests.support.fakes import FakeInteraction, close_orchestrators, make_orchestrator  # noqa: F401
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

PAYLOAD = '{"mode": "yolo"}\n'


def last_result(server: ScriptedServer) -> dict[str, object]:
    return json.loads(server.requests[-1].body["messages"][-1]["content"])  # type: ignore[no-any-return]


async def write_once(
    workspace: Path, server: ScriptedServer, call: object, mode: Mode, answers: list[ApprovalDecision] | None = None,
    **config: object,
) -> FakeInteraction:
    server.add(reply(call), text("done"))  # type: ignore[arg-type]
    interaction = FakeInteraction(answers if answers is not None else [ApprovalDecision.NO])
    orch, _, _ = make_orchestrator(workspace, server.base_url, mode=mode, interaction=interaction, **config)
    await orch.run_input("set it up")
    return interaction


@pytest.mark.parametrize("target", ["docs/x.py", "docs/deeper/y.md", "linked.py"])
async def test_a_write_through_a_link_inside_the_workspace_asks(
    tmp_path: Path, scripted_server: ScriptedServer, target: str
) -> None:
    (tmp_path / "src" / "deeper").mkdir(parents=True)
    (tmp_path / "src" / "real.py").write_text("original\n")
    (tmp_path / "docs").symlink_to("src")
    (tmp_path / "linked.py").symlink_to("src/real.py")
    before = {p: p.read_bytes() for p in (tmp_path / "src").rglob("*") if p.is_file()}
    call = tool_call("write", path=target, content="payload\n")
    interaction = await write_once(tmp_path, scripted_server, call, Mode.AUTO_EDIT)
    (request,) = interaction.approval_requests
    assert any("reached through the link" in reason and target in reason for reason in request.reasons)
    after = {p: p.read_bytes() for p in (tmp_path / "src").rglob("*") if p.is_file()}
    assert after == before


async def test_a_write_through_a_link_to_a_dot_folder_asks(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / ".zed").mkdir()
    (tmp_path / "editor").symlink_to(".zed")
    call = tool_call("write", path="editor/tasks.json", content='[{"command": "sh"}]\n')
    interaction = await write_once(tmp_path, scripted_server, call, Mode.AUTO_EDIT)
    assert len(interaction.approval_requests) == 1
    assert not (tmp_path / ".zed" / "tasks.json").exists()


async def test_edit_of_an_existing_tool_config_asks(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / ".zed").mkdir()
    settings = tmp_path / ".zed" / "settings.json"
    settings.write_text('{"theme": "One Dark"}\n')
    call = tool_call("edit", path=".zed/settings.json", old_string='"One Dark"', new_string='"x", "lsp": {"bin": "sh"}')
    interaction = await write_once(tmp_path, scripted_server, call, Mode.AUTO_EDIT)
    assert len(interaction.approval_requests) == 1
    assert settings.read_text() == '{"theme": "One Dark"}\n'


@pytest.mark.parametrize("target", [".mcp.json", "lefthook.yml", "src/.envrc"])
async def test_an_allow_rule_for_write_does_not_cover_a_file_another_tool_runs(
    tmp_path: Path, scripted_server: ScriptedServer, target: str
) -> None:
    call = tool_call("write", path=target, content=PAYLOAD)
    interaction = await write_once(
        tmp_path, scripted_server, call, Mode.DEFAULT, permissions={"tools": {"write": "allow"}}
    )
    assert len(interaction.approval_requests) == 1
    assert not (tmp_path / target).exists()


async def test_always_for_write_does_not_cover_a_dotfile(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("write", path="notes.txt", content="a\n")),
        reply(tool_call("write", path="deep/er/.hidden", content=PAYLOAD)),
        text("done"),
    )
    interaction = FakeInteraction([ApprovalDecision.ALWAYS, ApprovalDecision.NO])
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.DEFAULT, interaction=interaction)
    await orch.run_input("write both")
    assert (tmp_path / "notes.txt").read_text() == "a\n"
    assert len(interaction.approval_requests) == 2
    assert not (tmp_path / "deep" / "er" / ".hidden").exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo x > .mcp.json", "echo x >> .zed/tasks.json", "echo x | tee lefthook.yml", "echo x > $PWD/.envrc",
        # A read-only program's own output option or operand writes as a redirection does.
        "sort -o .mcp.json notes.txt", "sort --out=.envrc notes.txt", "uniq notes.txt lefthook.yml",
        "find . -maxdepth 0 -fprint .mcp.json", "git log --output=.mcp.json",
        # And so does what `find -exec` runs.
        "find . -maxdepth 0 -exec cp notes.txt .mcp.json \\;", "find . -maxdepth 0 -exec sh -c 'echo x > .envrc' \\;",
        "find . -name lefthook.yml -exec cp notes.txt {} \\;",
    ],
)  # fmt: skip
async def test_a_bash_write_an_allow_rule_covers_still_asks_for_such_a_file(
    tmp_path: Path, scripted_server: ScriptedServer, command: str
) -> None:
    (tmp_path / ".zed").mkdir()
    (tmp_path / "notes.txt").write_text("b\na\n")
    (tmp_path / "lefthook.yml").write_text("")  # empty, for `find -name ... {}` to find: written is not empty
    if command.startswith("git "):
        git(tmp_path, "init", "-q")
        git(tmp_path, "add", "notes.txt")
        git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    call = tool_call("bash", command=command)
    allowed = {f"{program} *": "allow" for program in ("echo", "tee", "sort", "uniq", "find", "git log")}
    interaction = await write_once(tmp_path, scripted_server, call, Mode.AUTO_EDIT, permissions={"bash": allowed})
    assert len(interaction.approval_requests) == 1
    written = [p for p in (tmp_path / ".mcp.json", tmp_path / ".zed" / "tasks.json", tmp_path / "lefthook.yml",
                           tmp_path / ".envrc") if p.exists() and p.read_text()]
    assert written == []


async def test_ordinary_files_are_still_written_without_asking(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "y.py").write_text("y = 1\n")
    scripted_server.add(
        reply(tool_call("write", id="w1", path="src/x.py", content="x = 1\n")),
        reply(tool_call("read", id="r1", path="src/y.py")),
        reply(tool_call("edit", id="e1", path="src/y.py", old_string="y = 1", new_string="y = 2")),
        reply(tool_call("bash", id="b1", command="echo done > build.log")),
        text("done"),
    )
    interaction = FakeInteraction([])
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT, interaction=interaction,
        permissions={"bash": {"echo *": "allow"}},
    )
    await orch.run_input("write the code")
    assert interaction.approval_requests == []
    assert (tmp_path / "src" / "x.py").read_text() == "x = 1\n"
    assert (tmp_path / "src" / "y.py").read_text() == "y = 2\n"
    assert (tmp_path / "build.log").read_text() == "done\n"


@pytest.fixture
def own_config_inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace that holds coder-tui's own configuration folder (``$XDG_CONFIG_HOME/coder``)."""
    config_home = tmp_path / "cfg"
    (config_home / "coder" / "commands").mkdir(parents=True)
    (config_home / "coder" / "config.json").write_text("{}\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    StateKey.load()  # made before the session makes it, so that a change to it shows
    return config_home / "coder"


# What coder-tui itself keeps in its config folder as it runs (the folders that hold sessions, for the /resume
# picker's "all folders"; the spend ledger): written by the engine, never by a tool.
ENGINE_KEPT = ("session_folders", "spend.jsonl")


def config_files(folder: Path) -> dict[Path, bytes]:
    """Every file of the user's config folder with its bytes, but what the engine itself keeps there."""
    return {p: p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.relative_to(folder).as_posix() not in ENGINE_KEPT}


@pytest.mark.parametrize("mode", [Mode.AUTO_EDIT, Mode.YOLO])
@pytest.mark.parametrize(
    ("tool", "target"),
    [
        ("write", "cfg/coder/config.json"),
        ("write", "cfg/coder/commands/deploy.md"),
        ("write", "cfg/coder/state.key"),
        ("patch", "cfg/coder/config.json"),
        ("edit", "cfg/coder/config.json"),
    ],
)
async def test_coder_own_config_is_never_written_by_a_file_tool(
    tmp_path: Path, scripted_server: ScriptedServer, own_config_inside: Path, mode: Mode, tool: str, target: str
) -> None:
    before = config_files(own_config_inside)
    if tool == "write":
        call = tool_call("write", path=target, content=PAYLOAD)
    elif tool == "edit":
        call = tool_call("edit", path=target, old_string="{}", new_string=PAYLOAD.strip())
    else:
        call = tool_call("patch", patch=f"*** Begin Patch\n*** Add File: {target}\n+{PAYLOAD.strip()}\n*** End Patch\n")
    await write_once(tmp_path, scripted_server, call, mode, answers=[])
    assert config_files(own_config_inside) == before
    result = last_result(scripted_server)
    assert result["ok"] is False and "coder-tui's own configuration" in str(result["error"])


@pytest.mark.parametrize(
    "command",
    [
        "echo '{}' > cfg/coder/config.json",
        "cp notes.txt cfg/coder/commands/x.md",
        "echo x | tee -a cfg/coder/config.json",
        "cd cfg && echo x > coder/hooks.json",
    ],
)
async def test_bash_never_writes_coder_own_config_even_when_the_user_would_say_yes(
    tmp_path: Path, scripted_server: ScriptedServer, own_config_inside: Path, command: str
) -> None:
    (tmp_path / "notes.txt").write_text("n\n")
    before = config_files(own_config_inside)
    interaction = await write_once(
        tmp_path, scripted_server, tool_call("bash", command=command), Mode.AUTO_EDIT, answers=[],
        permissions={"bash": {"echo *": "allow", "cp *": "allow", "tee *": "allow"}},
    )
    assert interaction.approval_requests == []
    assert config_files(own_config_inside) == before
    result = last_result(scripted_server)
    assert result["ok"] is False and "coder-tui's own configuration" in str(result["error"])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of the test's own, with the user's config folder in it."""
    folder = tmp_path / "home"
    (folder / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    return folder


@pytest.mark.parametrize("mode", [Mode.AUTO_EDIT, Mode.YOLO])
@pytest.mark.parametrize(
    "target", [".bashrc", ".ssh/authorized_keys", ".gitconfig", ".config/coder/config.json", "projects/app/x.py"]
)
async def test_the_home_folder_as_workspace_stays_read_only(
    home: Path, scripted_server: ScriptedServer, mode: Mode, target: str
) -> None:
    scripted_server.add(
        reply(tool_call("write", path=target, content=PAYLOAD)),
        reply(tool_call("bash", command=f"mkdir -p $(dirname {target}); echo x > {target}")),
        text("done"),
    )
    interaction = FakeInteraction([ApprovalDecision.NO])
    orch, _, _ = make_orchestrator(home, scripted_server.base_url, mode=mode, interaction=interaction)
    assert orch.mode is Mode.PLAN
    orch.set_mode(Mode.YOLO)
    assert orch.mode is Mode.PLAN
    await orch.run_input("set up my machine")
    assert not (home / target).exists()
    # The write tool is disabled in plan mode; the bash line asks (or, for coder's own config, is refused).
    assert [request.tool for request in interaction.approval_requests] in (["bash"], [])


async def test_the_home_folder_as_workspace_says_why_it_stays_in_plan(
    home: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = make_orchestrator(home, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    await orch.run_input("/mode auto-edit")
    assert orch.mode is Mode.PLAN
    assert any("is your home folder" in notice.text and "plan mode" in notice.text for notice in log.of(Notice))
