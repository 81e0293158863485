"""SPEC 5 bash(command, timeout?) and SPEC 14: own process group, capped output, timeout and cancellation kill the
whole group, a non-zero exit is a result and not an error."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.tools.base import ToolContext
from engine.tools.bash import BashTool, CappedOutput, run_command
from tests.engine.tools.support import run_tool, with_limits

bash = BashTool()
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="checks process states in /proc")


def _state_and_group(pid: str) -> tuple[str, int] | None:
    """(state, process group) of a process from /proc, or None once it is gone."""
    try:
        stat = Path("/proc", pid, "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[0], int(fields[2])


def assert_nothing_runs(pgid: int) -> None:
    """No member of the group runs any more. Killed orphans may linger as zombies (Z) until init reaps them."""
    members = [found for pid in filter(str.isdigit, os.listdir("/proc")) if (found := _state_and_group(pid))]
    assert [state for state, group in members if group == pgid and state not in "ZX"] == []


async def assert_group_disappears(pgid: int) -> None:
    """The group is gone once init has reaped the zombies of its orphans; some container inits take seconds."""
    for _ in range(1000):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.01)
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


async def _wait_for_file(path: Path) -> str:
    """The file's content once the command has written it (the command's own pace, not a timing assertion)."""
    for _ in range(1000):
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} was never written")


async def test_bash_captures_stdout_and_stderr_separately(ctx: ToolContext) -> None:
    output = await run_tool(bash, ctx, command="echo out; echo err >&2")
    assert output.data["stdout"] == "out\n"
    assert output.data["stderr"] == "err\n"
    assert output.data["exit_code"] == 0
    assert output.data["command"] == "echo out; echo err >&2"
    assert isinstance(output.data["duration_ms"], int)


async def test_bash_non_zero_exit_is_a_result_not_an_error(ctx: ToolContext) -> None:
    output = await run_tool(bash, ctx, command="echo partial; exit 3")
    assert output.data["exit_code"] == 3
    assert output.data["stdout"] == "partial\n"


async def test_bash_runs_in_the_workspace_root(ctx: ToolContext, root: Path) -> None:
    output = await run_tool(bash, ctx, command="pwd")
    assert output.data["stdout"].strip() == str(root)


async def test_bash_is_really_bash(ctx: ToolContext) -> None:
    output = await run_tool(bash, ctx, command="echo ${BASH_VERSION:+bash}; [[ 1 == 1 ]] && echo ok")
    assert output.data["stdout"] == "bash\nok\n"


async def test_bash_stdin_is_empty(ctx: ToolContext) -> None:
    output = await run_tool(bash, ctx, command="cat; echo done")
    assert output.data["stdout"] == "done\n"


async def test_bash_caps_output_keeping_head_and_tail(ctx: ToolContext) -> None:
    command = "for i in $(seq 1 2000); do echo line$i; done"
    output = await run_tool(bash, with_limits(ctx, output_cap_bytes=100), command=command)
    stdout = output.data["stdout"]
    assert stdout.startswith("line1\nline2\n")
    assert stdout.endswith("line1999\nline2000\n")
    assert "bytes omitted ..." in stdout
    assert len(stdout) < 200


@needs_proc
async def test_bash_timeout_kills_the_group_and_reports_partial_output(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as error:
        await run_tool(bash, ctx, command="echo $$; echo started; sleep 30 & sleep 30", timeout=0.3)
    message = str(error.value)
    assert message.startswith("command timed out after 0.3s and was killed\nstdout:\n")
    assert "started" in message
    assert_nothing_runs(int(message.split("stdout:\n")[1].split("\n")[0]))


async def test_bash_timeout_is_capped_at_the_maximum(ctx: ToolContext) -> None:
    limited = with_limits(ctx, bash_max_timeout_s=0.3)
    with pytest.raises(ToolError, match="timed out after 0.3s"):
        await run_tool(bash, limited, command="sleep 30", timeout=500)


@needs_proc
async def test_bash_timeout_kills_processes_that_ignore_sigterm(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as error:
        await run_tool(bash, ctx, command="trap '' TERM; echo $$; sleep 30; sleep 30", timeout=0.3)
    assert_nothing_runs(int(str(error.value).split("stdout:\n")[1].split("\n")[0]))


@needs_proc
async def test_bash_cancellation_kills_the_whole_group(root: Path) -> None:
    pid_file = root / "pgid.txt"
    task = asyncio.create_task(run_command("echo $$ > pgid.txt; sleep 30 & sleep 30; wait", root, 60, 1000))
    pgid = int(await _wait_for_file(pid_file))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_nothing_runs(pgid)
    await assert_group_disappears(pgid)


@needs_proc
@pytest.mark.parametrize("steps", range(6))
async def test_bash_cancelled_while_the_shell_starts_ends_and_leaves_nothing(root: Path, steps: int) -> None:
    """A cancel that lands while asyncio is still starting the shell (after ``steps`` loop iterations): asyncio's
    own start then waited for ever for an exit it never watched; the call must end, its group stopped."""
    pid_file = root / f"pgid{steps}.txt"
    task = asyncio.create_task(run_command(f"echo $$ > {pid_file.name}; sleep 30 & sleep 30", root, 60, 1000))
    for _ in range(steps):
        await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=20)  # a cap that turns a hang into a failure
    assert done, "the cancelled bash call never ended"
    assert task.cancelled()
    if pid_file.exists() and pid_file.read_text().strip():
        await assert_group_disappears(int(pid_file.read_text()))


@needs_proc
async def test_bash_background_jobs_do_not_outlive_the_command(ctx: ToolContext) -> None:
    output = await run_tool(bash, ctx, command="echo $$; sleep 30 & echo $!")
    pgid, background = output.data["stdout"].split()
    assert _state_and_group(background) in (None, ("Z", int(pgid)))


async def test_run_command_returns_a_timed_out_result(root: Path) -> None:
    result = await run_command("echo partial; sleep 30", root, 0.3, 1000)
    assert result.timed_out
    assert result.exit_code is None
    assert result.stdout == "partial\n"


def test_capped_output_keeps_head_and_tail_and_counts_the_rest() -> None:
    sink = CappedOutput(10)
    for chunk in (b"abc", b"defgh", b"ijklmnop", b"qrst"):
        sink.feed(chunk)
    assert sink.text() == "abcde\n... 10 bytes omitted ...\npqrst"


def test_capped_output_under_the_cap_is_unchanged() -> None:
    sink = CappedOutput(10)
    sink.feed(b"short")
    assert sink.text() == "short"


def test_bash_key_argument_is_the_command() -> None:
    assert bash.key_argument(bash.parse({"command": "ls -la"})) == "ls -la"
