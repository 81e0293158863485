"""``/review`` (SPEC 27): the model reviews a change read-only and lists what it found, each finding with its file
and line.

What is reviewed: with no argument the uncommitted changes (staged, unstaged and new files); ``/review main`` what
the current branch changed since it left ``main``; ``/review a1b2c3`` one commit; ``/review v1.0..HEAD`` a range.
The turn runs under plan mode's rules whatever the mode is (nothing is written, no command with effects runs), and
the mode in use comes back after it. The findings are read off the answer's ``path:line:`` lines into a typed
result a front end can list and open.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from engine.command_results import CommandFailed, ReviewFindings, Row
from engine.modes import Mode

if TYPE_CHECKING:
    from engine.commands.context import CommandContext
    from engine.orchestrator.outcome import TurnOutcome

# The diff the prompt carries is cut here; the model reads the files themselves for the rest.
MAX_DIFF_CHARS = 60_000

REVIEW_PROMPT = """/review: review {what}. You are in read-only mode: read files and run read-only commands as \
you need, change nothing.

Look for, in this order of importance:
1. Correctness: bugs, wrong logic, unhandled cases and errors, broken behaviour for existing callers.
2. Security: injection, secrets, unsafe file or network access, missing checks on input.
3. Tests: changed behaviour without a test, tests that cannot fail, cases left out.
Then, briefly, anything that makes the change hard to maintain. Do not comment on style a formatter would fix.

Answer with a section "## Findings": one line per finding, most important first, exactly in this form:
- path/to/file.py:42: [high|medium|low] what is wrong and what to do instead
(the path relative to the repository root, the line in the new version of the file). Then "## Summary" in two or \
three sentences. If you find nothing worth changing, say so under Findings.

{diff_note}<diff>
{diff}
</diff>"""

_FINDING = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+`?([^\s`:]+?):(\d+)(?::\d+)?`?:?\s+(.*\S)\s*$")


class ReviewError(Exception):
    """Nothing can be reviewed here; the message says why and what to do."""


def _git(workspace: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        raise ReviewError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git {args[0]} failed")
    return done.stdout


def review_target(workspace: Path, arg: str) -> tuple[str, str]:
    """What is reviewed, in words, and its diff. ``ReviewError`` outside a repository, for an unknown branch or
    commit, or when there is nothing to review."""
    try:
        _git(workspace, "rev-parse", "--show-toplevel")
    except (ReviewError, OSError):
        raise ReviewError("this folder is not in a git repository: /review reviews git changes "
                          "(run git init and commit, or ask for a review in your own words)") from None
    arg = arg.strip()
    if not arg:
        diff = _git(workspace, "diff", "HEAD", "--") if _has_head(workspace) else _git(workspace, "diff", "--cached")
        new = [line for line in _git(workspace, "ls-files", "--others", "--exclude-standard").splitlines() if line]
        if new:
            diff += "".join(_git_no_index(workspace, path) for path in new)
        what = "the uncommitted changes of this repository"
    elif ".." in arg:
        diff, what = _git(workspace, "diff", arg, "--"), f"the changes of {arg}"
    elif _is_branch(workspace, arg):
        diff, what = _git(workspace, "diff", f"{arg}...HEAD", "--"), f"what this branch changed since {arg}"
    else:
        diff, what = _git(workspace, "show", "--format=commit %H%n%n%B", arg, "--"), f"the commit {arg}"
    if not diff.strip():
        raise ReviewError(f"nothing to review: {what} are empty")
    return what, diff


def _names_a_commit(workspace: Path, ref: str) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "-q", ref], cwd=workspace, capture_output=True).returncode == 0


def _has_head(workspace: Path) -> bool:
    return _names_a_commit(workspace, "HEAD")


def _is_branch(workspace: Path, name: str) -> bool:
    return _names_a_commit(workspace, f"refs/heads/{name}")


def _git_no_index(workspace: Path, path: str) -> str:
    """A new file as a diff (``git diff --no-index`` exits 1 when the files differ, which they always do)."""
    done = subprocess.run(["git", "diff", "--no-index", "--", "/dev/null", path], cwd=workspace,
                          capture_output=True, text=True, errors="replace")
    return done.stdout


def review_request(what: str, diff: str) -> str:
    note = ""
    if len(diff) > MAX_DIFF_CHARS:
        note = (f"The diff is {len(diff):,} characters; its first {MAX_DIFF_CHARS:,} are below. Read the changed "
                "files for the rest.\n\n")
        diff = diff[:MAX_DIFF_CHARS]
    return REVIEW_PROMPT.format(what=what, diff_note=note, diff=diff)


def findings_of(answer: str, workspace: Path) -> tuple[Row, ...]:
    """The ``path:line: text`` lines of the answer whose path names a file of the workspace (so a URL or a line
    of prose is not taken for one), in order."""
    rows: list[Row] = []
    for line in answer.splitlines():
        match = _FINDING.match(line)
        if match is None:
            continue
        path, number, text = match.group(1), int(match.group(2)), match.group(3)
        if (workspace / path).is_file():
            rows.append({"path": path, "line": number, "text": text})
    return tuple(rows)


async def review_command(ctx: CommandContext, arg: str) -> TurnOutcome | CommandFailed:
    try:
        what, diff = review_target(ctx.workspace_root, arg)
    except ReviewError as exc:
        return CommandFailed("/review", str(exc))
    mode = ctx.mode
    if mode is not Mode.PLAN:
        ctx.set_mode(Mode.PLAN)
    try:
        outcome = await ctx.run_prompt(review_request(what, diff))
    finally:
        if mode is not Mode.PLAN:
            ctx.set_mode(mode)
    findings = findings_of(outcome.text, ctx.workspace_root)
    if outcome.ok:
        count = f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
        ctx.emit(ReviewFindings("/review", f"review of {what}: {count}", findings))
    return outcome
