"""SPEC 23 hooks in Claude Code's protocol: the event as JSON on stdin; PreToolUse blocks with exit code 2 (stderr to
the model) or answers allow / deny / ask in JSON; PostToolUse feedback; UserPromptSubmit adds context or blocks;
SessionStart, Stop and Notification run; failing or slow hooks are reported, never fatal;
every run in the audit log."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from engine.events import ErrorEvent, Notice
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import error, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

PY = sys.executable


def trust(workspace: Path) -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "coder" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"trusted_folders": [str(workspace.resolve())]}))


def hook(command: str, matcher: str = "", timeout: float = 10) -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]


def tool_results(server: ScriptedServer) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in server.requests[-1].body["messages"] if m["role"] == "tool"]


GUARD = (
    f"{PY} -c \"import json,sys; e=json.load(sys.stdin); c=e['tool_input'].get('command','');"
    " sys.exit(0) if 'rm ' not in c else (sys.stderr.write('rm is not allowed here: use git clean'), sys.exit(2))\""
)


async def test_pre_tool_use_exit_2_blocks_the_call_and_the_model_reads_stderr(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    (tmp_path / "keep.txt").write_text("keep\n")
    scripted_server.add(reply(tool_call("bash", command="rm keep.txt")), reply(text("OK, I will not.")))
    orch, log, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO, hooks={"PreToolUse": hook(GUARD, "Bash")}
    )
    await orch.run_input("delete keep.txt")
    assert (tmp_path / "keep.txt").exists()
    (result,) = tool_results(scripted_server)
    assert result == {"ok": False, "error": "blocked by a PreToolUse hook: rm is not allowed here: use git clean"}
    runs = [e for e in orch.store.audit.entries(orch.session_id) if e.tool == "hook:PreToolUse"]
    assert len(runs) == 1 and runs[0].actor == "user" and runs[0].output["exit_code"] == 2
    assert runs[0].input["event"]["tool_name"] == "bash"
    assert runs[0].input["event"]["tool_input"] == {"command": "rm keep.txt"}
    assert runs[0].input["event"]["hook_event_name"] == "PreToolUse"
    assert runs[0].input["event"]["session_id"] == orch.session_id


async def test_pre_tool_use_passes_other_calls_and_matchers_pick_tools(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    scripted_server.add(
        reply(tool_call("bash", command="echo fine"), tool_call("read", path="a.txt")), reply(text("Done."))
    )
    (tmp_path / "a.txt").write_text("a\n")
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO, hooks={"PreToolUse": hook(GUARD, "Bash")}
    )
    await orch.run_input("go")
    assert [r["ok"] for r in tool_results(scripted_server)] == [True, True]
    runs = [e for e in orch.store.audit.entries(orch.session_id) if e.tool == "hook:PreToolUse"]
    assert len(runs) == 1  # the matcher "Bash" left the read alone


def answer(decision: str, reason: str) -> str:
    payload = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                                 "permissionDecisionReason": reason}})
    return f"echo '{payload}'"


async def test_pre_tool_use_json_allow_skips_the_approval(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    scripted_server.add(reply(tool_call("write", path="new.txt", content="x\n")), reply(text("Written.")))
    orch, _, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.DEFAULT,
        hooks={"PreToolUse": hook(answer("allow", "new files are fine"), "write")},
    )
    await orch.run_input("write it")
    assert interaction.approval_requests == [] and (tmp_path / "new.txt").read_text() == "x\n"
    decisions = orch.store.audit.permissions(orch.session_id)
    assert decisions[-1].decision == "allow" and decisions[-1].reasons == ("new files are fine",)


async def test_pre_tool_use_json_deny_refuses_with_the_reason(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    scripted_server.add(reply(tool_call("write", path="new.txt", content="x\n")), reply(text("Fine.")))
    orch, _, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO,
        hooks={"PreToolUse": hook(answer("deny", "writes are frozen today"))},
    )
    await orch.run_input("write it")
    assert not (tmp_path / "new.txt").exists()
    assert tool_results(scripted_server)[0]["error"] == "blocked by a PreToolUse hook: writes are frozen today"


async def test_pre_tool_use_json_ask_forces_the_approval_even_in_yolo(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    scripted_server.add(reply(tool_call("bash", command="echo hi")), reply(text("Ran.")))
    orch, _, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO,
        hooks={"PreToolUse": hook(answer("ask", "double-check shell commands"))},
    )
    await orch.run_input("say hi")
    (request,) = interaction.approval_requests
    assert "a PreToolUse hook asks: double-check shell commands" in request.reasons


async def test_post_tool_use_runs_after_an_edit_and_its_block_reaches_the_model(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    formatter = (
        f"{PY} -c \"import json,sys,pathlib; e=json.load(sys.stdin); p=pathlib.Path(e['tool_input']['path']);"
        " p.write_text(p.read_text().upper()); print('formatted', file=sys.stderr); sys.exit(2)\""
    )
    scripted_server.add(reply(tool_call("write", path="code.txt", content="lower\n")), reply(text("Done.")))
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO, hooks={"PostToolUse": hook(formatter, "write|edit")}
    )
    await orch.run_input("write code")
    assert (tmp_path / "code.txt").read_text() == "LOWER\n"
    (result,) = tool_results(scripted_server)
    assert result["ok"] is True and result["hook_feedback"] == "formatted"
    (run,) = [e for e in orch.store.audit.entries(orch.session_id) if e.tool == "hook:PostToolUse"]
    assert run.input["event"]["tool_response"]["ok"] is True


async def test_user_prompt_submit_adds_context_or_blocks(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    script = (
        f"{PY} -c \"import json,sys; e=json.load(sys.stdin); p=e['prompt'];"
        " (sys.stderr.write('no secrets in prompts'), sys.exit(2)) if 'password' in p else print('Branch: main')\""
    )
    scripted_server.add(reply(text("Hi.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, hooks={"UserPromptSubmit": hook(script)})
    outcome = await orch.run_input("my password is hunter2")
    assert outcome.reason == "error" and scripted_server.requests == []
    assert log.of(ErrorEvent)[-1].message == "request blocked by a UserPromptSubmit hook: no secrets in prompts"
    await orch.run_input("hello")
    sent = scripted_server.requests[0].body["messages"][-1]["content"]
    assert sent == "hello\n\n<hook-context>\nBranch: main\n</hook-context>"


async def test_session_start_stop_and_notification_hooks_run(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    record = f"{PY} -c \"import json,sys; e=json.load(sys.stdin); open('events.log','a').write(e['hook_event_name']+'\\n')\""
    start = "echo 'Use tabs in this repository.'"
    scripted_server.add(reply(tool_call("write", path="n.txt", content="n\n")), reply(text("Done.")))
    orch, _, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.DEFAULT,
        hooks={"SessionStart": hook(start), "Stop": hook(record), "Notification": hook(record)},
    )
    await orch.run_input("write n")
    assert len(interaction.approval_requests) == 1
    assert (tmp_path / "events.log").read_text() == "Notification\nStop\n"
    assert "Use tabs in this repository." in scripted_server.requests[0].body["messages"][-1]["content"]


# Records each Stop run's ``stop_hook_active``; refuses the first stop (exit 2, or a JSON block with ``json`` given).
STOP_GATE = (
    f"{PY} -c \"import json,sys; e=json.load(sys.stdin); open('stops.log','a').write(str(e['stop_hook_active'])+'\\n');"
    " a=e['stop_hook_active']; j=len(sys.argv)>1;"
    " sys.exit(0) if a else (print(json.dumps({'decision':'block','reason':'the tests were not run'})) if j"
    " else (sys.stderr.write('run the tests first'), sys.exit(2)))\""
)


async def test_a_stop_hook_that_exits_2_keeps_the_model_working_once(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    scripted_server.add(reply(text("Done.")), reply(tool_call("bash", command="echo tests pass")), reply(text("Tested.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO, hooks={"Stop": hook(STOP_GATE)})
    outcome = await orch.run_input("fix it")
    assert outcome.ok and outcome.text == "Tested."
    assert (tmp_path / "stops.log").read_text() == "False\nTrue\n"
    assert len(scripted_server.requests) == 3
    fed_back = scripted_server.requests[1].body["messages"][-1]
    assert fed_back == {"role": "user", "content": "Stop hook feedback:\nrun the tests first"}
    assert "a Stop hook asked the model to go on: run the tests first" in [n.text for n in log.of(Notice)]


async def test_a_stop_hooks_json_block_keeps_the_model_working(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    scripted_server.add(reply(text("Done.")), reply(text("Now tested.")))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, hooks={"Stop": hook(STOP_GATE + " json")})
    outcome = await orch.run_input("fix it")
    assert outcome.ok and outcome.text == "Now tested."
    assert scripted_server.requests[1].body["messages"][-1]["content"] == "Stop hook feedback:\nthe tests were not run"


async def test_a_turn_that_failed_tells_the_stop_hooks_which_cannot_keep_it_going(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    scripted_server.add(error(400, "bad request"))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, hooks={"Stop": hook(STOP_GATE)})
    outcome = await orch.run_input("fix it")
    assert outcome.reason == "error"
    assert (tmp_path / "stops.log").read_text() == "False\n"
    assert len(scripted_server.requests) == 1


async def test_failing_and_slow_hooks_are_reported_and_the_turn_goes_on(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    scripted_server.add(reply(tool_call("bash", command="echo ok")), reply(text("Done.")))
    orch, log, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO,
        hooks={"PreToolUse": [{"matcher": "", "hooks": [
            {"type": "command", "command": "echo broken >&2; exit 1"},
            {"type": "command", "command": "sleep 30", "timeout": 0.5},
        ]}]},
    )
    outcome = await orch.run_input("run it")
    assert outcome.ok and tool_results(scripted_server)[0]["ok"] is True
    warnings = [n.text for n in log.of(Notice) if n.level == "warning"]
    assert any("`echo broken >&2; exit 1` exited with 1: broken" in w for w in warnings)
    assert any("`sleep 30` timed out" in w for w in warnings)


async def test_hooks_see_a_sub_agents_tool_calls(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    (tmp_path / "secret.txt").write_text("s3cret\n")
    scripted_server.add(
        reply(tool_call("task", id="call_t", description="Read it", prompt="Read secret.txt")),
        reply(tool_call("read", id="sub_1", path="secret.txt")),
        reply(text("I could not read it.")),
        reply(text("The sub-agent could not read it.")),
    )
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO,
        hooks={"PreToolUse": hook(answer("deny", "secrets stay closed"), "read")},
    )
    await orch.run_input("what is in secret.txt?")
    sub_tool_results = [json.loads(m["content"]) for m in scripted_server.requests[2].body["messages"]
                        if m["role"] == "tool"]
    assert sub_tool_results == [{"ok": False, "error": "blocked by a PreToolUse hook: secrets stay closed"}]


async def test_undo_puts_back_what_a_hook_changed_with_the_turn(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """SPEC 7 (issue 28): a PreToolUse hook that writes a file and a PostToolUse hook that rewrites the tool's
    file are part of the turn: one /undo puts both back."""
    trust(tmp_path)
    (tmp_path / "code.txt").write_text("original\n")
    (tmp_path / "hook.log").write_text("kept by the user\n")
    pre = f"{PY} -c \"import pathlib; pathlib.Path('hook.log').write_text('overwritten by a hook')\""
    post = (
        f"{PY} -c \"import json,sys,pathlib; e=json.load(sys.stdin); p=pathlib.Path(e['tool_input']['path']);"
        " p.write_text(p.read_text().upper()); pathlib.Path('made-by-hook').mkdir()\""
    )
    scripted_server.add(reply(tool_call("write", path="code.txt", content="lower\n")), reply(text("Done.")))
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO,
        hooks={"PreToolUse": hook(pre, "write"), "PostToolUse": hook(post, "write")},
    )
    await orch.run_input("write code")
    assert (tmp_path / "code.txt").read_text() == "LOWER\n" and (tmp_path / "made-by-hook").is_dir()
    assert (await orch.run_input("/undo")).ok
    assert (tmp_path / "code.txt").read_text() == "original\n"
    assert (tmp_path / "hook.log").read_text() == "kept by the user\n"
    assert not (tmp_path / "made-by-hook").exists()
